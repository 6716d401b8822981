package dev.spotkit.examples.game;

import dev.spotkit.core.MeshNode;
import dev.spotkit.core.MeshOptions;
import dev.spotkit.core.NodeRid;
import dev.spotkit.core.RelocateOptions;
import dev.spotkit.core.RelocateResult;
import dev.spotkit.core.SpotRelocationResult;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.core.session.LineCodec;
import dev.spotkit.core.session.WebSocketCodec;
import dev.spotkit.examples.chat.Lobby;
import dev.spotkit.store.InMemoryLocationStore;
import dev.spotkit.store.InMemoryRelocationStore;
import dev.spotkit.store.LocationStore;
import dev.spotkit.store.RelocationStore;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.IntFunction;

/**
 * The game server: {@code nodes} {@link MeshNode}s in this process, one mesh ({@value #MESH_NAME}) sharing
 * in-memory Location and Relocation Stores and a random cluster secret; node {@code i} takes client sessions
 * ({@link GameProtocol} over {@code LineCodec}, bound to {@link GamePlayer}) on {@code port + i}.
 *
 * <p><b>Roles.</b> Node 0 is the <i>gateway</i>: it registers the {@link Matchmaker} (so the matchmaking queue
 * activates there) and is never drained; its placement weight is {@value #GATEWAY_WEIGHT} against the workers'
 * {@value MeshOptions#MAX_PLACEMENT_WEIGHT}, and the matchmaker closes a match placed on it anyway and creates
 * another, so every match plays on a worker (nodes 1..N-1), and the players join it there (their sessions stay on
 * the node that accepted the connection). A rolling restart ({@link #restartWorker}) drains a worker, closes it and
 * starts a fresh node in its place: its matches move with their players to the other workers at their next round
 * boundary. A client connected to a worker would lose its connection when that worker closes, so clients that
 * must outlive a rolling restart connect to the gateway. With one node, that node registers every type.
 *
 * <p>One node per OS process ({@link #startMember}): every process is given the same shared stores (Redis) and
 * cluster secret and finds the others through their MeshNode descriptors; index 0 is the gateway. A worker process
 * drains when it is stopped ({@code drainOnClose}), so stopping and starting the workers one by one is a rolling
 * restart there too. Every member also accepts operator drain requests through the store
 * ({@code MeshOptions.acceptAdminDrains()}, {@code spotkit-admin drain}).
 *
 * <p><b>Browsers.</b> With a WebSocket port ({@link #start(String, int, int, GameRules, int)}), the gateway also
 * listens there ({@code SessionOptions.alsoListen} with {@code WebSocketCodec.text("/ws")}): a browser opens
 * {@code http://host:PORT/} (the page {@value #PAGE}, served by the codec) and its script plays over
 * {@code ws://host:PORT/ws}, one text frame per {@link GameProtocol} line, as a {@link GamePlayer} like any other.
 *
 * <p>Every node has a {@link Lobby} Entry Spot (the chat's, telling a player {@link GamePlayer.Disconnected}) and
 * the {@link GamePlayer} type (preserved state), so players can move to and from any node.
 */
public final class GameServer implements AutoCloseable {
  /**
   * SessionRelocationSealTimeout of the example servers: 15 s, not the spec's 3 s default: on a busy 2-core machine
   * the first cross-node joins of many players at once can take longer, and a closed client is worse for a game
   * than a late first frame.
   */
  public static final java.time.Duration SEAL_TIMEOUT = java.time.Duration.ofSeconds(15);


  /** The MeshName of every node. */
  public static final String MESH_NAME = "game";
  /** Most nodes in one process. */
  public static final int MAX_NODES = 64;
  /** What a drain may leave behind without blocking a restart: kinds it does not move, players that left. */
  static final Set<RelocateResult.Reason> NOT_BLOCKING = EnumSet.of(RelocateResult.Reason.NOT_SUPPORTED,
      RelocateResult.Reason.LEFT);
  /** Drain attempts of one worker restart (a room whose member was in a join at its boundary is retried). */
  static final int DRAIN_ATTEMPTS = 10;
  /** Pause between two drain attempts. */
  static final Duration DRAIN_RETRY_PAUSE = Duration.ofMillis(100);
  /**
   * The gateway's placement weight: above 0 so that the matchmaker (an Instance Spot only the gateway registers)
   * can be placed there, against the workers' {@value MeshOptions#MAX_PLACEMENT_WEIGHT}; a match placed on it anyway
   * is closed again by the matchmaker and created under another id.
   */
  static final int GATEWAY_WEIGHT = 1;
  /** How long a worker of a one-node-per-process mesh may start moves when it is stopped (it drains first). */
  static final Duration MEMBER_DRAIN_DEADLINE = Duration.ofSeconds(20);
  /** The browser client, a resource beside this class, served for {@code GET /} on the WebSocket port. */
  public static final String PAGE = "game.html";
  /** The WebSocket endpoint's path on the WebSocket port. */
  public static final String WEBSOCKET_PATH = "/ws";
  /** {@code webSocketPort} value for no WebSocket listener. */
  public static final int NO_WEBSOCKET = -1;
  private static final String MESH_HOST = "127.0.0.1";
  private static final int SECRET_BYTES = 32;

  /**
   * What one worker restart did.
   *
   * @param index the worker's node index.
   * @param rooms the matches moved away (with their pause, seal to commit), over every drain attempt.
   * @param actors the players moved away from the worker's Lobby.
   * @param kept units that stayed for a blocking reason after the last attempt (empty when the restart was clean).
   * @param attempts drain attempts made, 1 to {@value #DRAIN_ATTEMPTS}.
   */
  public record Restart(int index, List<SpotRelocationResult> rooms, int actors, List<RelocateResult.Kept> kept,
      int attempts) {
  }

  private final String host;
  private final int port;
  private final GameRules rules;
  private final LocationStore locations;
  private final RelocationStore relocations;
  private final byte[] secret;
  /** The mesh endpoint's host this process advertises. */
  private final String meshHost;
  /** True for one node of a one-node-per-process mesh: that node closes the stores it was given. */
  private final boolean member;
  /** The gateway's WebSocket port (0 = free), or {@link #NO_WEBSOCKET}. */
  private final int webSocketPort;
  /** Node i's builder adjustment before it starts (the command's {@code --metrics-port}), also on a restart. */
  private final IntFunction<Consumer<MeshNode.Builder>> tune;
  private final List<MeshNode> nodes = new CopyOnWriteArrayList<>();

  private GameServer(final String host, final int port, final GameRules rules, final LocationStore locations,
      final RelocationStore relocations, final byte[] secret, final String meshHost, final boolean member,
      final int webSocketPort, final IntFunction<Consumer<MeshNode.Builder>> tune) {
    this.host = host;
    this.port = port;
    this.rules = rules;
    this.locations = locations;
    this.relocations = relocations;
    this.secret = secret.clone();
    this.meshHost = meshHost;
    this.member = member;
    this.webSocketPort = webSocketPort;
    this.tune = tune;
  }

  /**
   * Starts {@code nodeCount} nodes: node 0 the gateway, the others workers (see the class comment). On failure the
   * nodes already started are closed again.
   *
   * @param host address the session listeners bind, e.g. 127.0.0.1 (the mesh itself stays on loopback).
   * @param port the gateway's session port, 0..65535; worker i listens on {@code port + i}; 0 = free ports.
   * @param nodeCount 1..{@value #MAX_NODES}; with 1 the one node plays both roles, without a mesh listener.
   * @param rules players per match, rounds and round period.
   * @return the running server.
   * @throws IllegalArgumentException when {@code nodeCount} or {@code port + nodeCount - 1} is out of range.
   * @throws SpotkitException.Unavailable when a port cannot be bound.
   */
  public static GameServer start(final String host, final int port, final int nodeCount, final GameRules rules) {
    return start(host, port, nodeCount, rules, NO_WEBSOCKET);
  }

  /**
   * {@link #start(String, int, int, GameRules)} with browsers: the gateway also listens on {@code webSocketPort}
   * for WebSocket sessions ({@code ws://host:PORT/ws}) bound to {@link GamePlayer}, and serves the page
   * {@value #PAGE} for {@code GET /} there (see the class comment).
   *
   * @param host address the session listeners bind.
   * @param port the gateway's line session port, 0..65535; worker i listens on {@code port + i}; 0 = free ports.
   * @param nodeCount 1..{@value #MAX_NODES}.
   * @param rules players per match, rounds and round period.
   * @param webSocketPort the gateway's WebSocket port, 0..65535 (0 = a free one, see {@link #webSocketPort()}),
   *     or {@link #NO_WEBSOCKET}.
   * @return the running server.
   * @throws IllegalArgumentException when a count or port is out of range.
   * @throws SpotkitException.Unavailable when a port cannot be bound.
   */
  public static GameServer start(final String host, final int port, final int nodeCount, final GameRules rules,
      final int webSocketPort) {
    return start(host, port, nodeCount, rules, webSocketPort, index -> builder -> { });
  }

  /**
   * {@link #start(String, int, int, GameRules, int)} with node i's builder adjusted by {@code tune.apply(i)} before
   * it starts, also when {@link #restartWorker} starts it again (the command's {@code --metrics-port}).
   */
  static GameServer start(final String host, final int port, final int nodeCount, final GameRules rules,
      final int webSocketPort, final IntFunction<Consumer<MeshNode.Builder>> tune) {
    if (webSocketPort < NO_WEBSOCKET || webSocketPort > 65535) {
      throw new IllegalArgumentException("websocket port " + webSocketPort + " must be between 0 and 65535");
    }
    if (nodeCount < 1 || nodeCount > MAX_NODES) {
      throw new IllegalArgumentException("nodes " + nodeCount + " must be between 1 and " + MAX_NODES);
    }
    if (port < 0 || port > 0 && port + nodeCount - 1 > 65535) {
      throw new IllegalArgumentException("port " + port + " with " + nodeCount + " nodes must leave every node"
          + " a port of 1..65535, or be 0 for free ports");
    }
    final byte[] secret = new byte[SECRET_BYTES];
    new SecureRandom().nextBytes(secret);
    final GameServer server = new GameServer(host, port, rules, new InMemoryLocationStore(),
        new InMemoryRelocationStore(), secret, MESH_HOST, false, webSocketPort, tune);
    try {
      for (int i = 0; i < nodeCount; i++) {
        server.nodes.add(server.startNode(i, nodeCount > 1));
      }
    } catch (RuntimeException e) {
      server.close();
      throw e;
    }
    return server;
  }

  /**
   * Starts one node of a mesh whose other nodes run in other processes (what {@code game-server --store redis://...
   * --node-index I} runs): it shares {@code locations} and {@code relocations} with them, proves {@code secret} to
   * them, publishes its mesh endpoint ({@code meshHost} and a free port) in its MeshNode descriptor and reaches the
   * others through theirs. Index 0 is the gateway (the matchmaker's node), every other index a worker; every process
   * must be given the same rules. The node owns the stores ({@code closeStoresOnClose()}); on a failed start they
   * are closed too.
   *
   * @param host address the session listener binds, e.g. 127.0.0.1.
   * @param port session port, 0..65535; 0 = a free port.
   * @param meshHost the address other processes reach this node's mesh listener on, e.g. 127.0.0.1.
   * @param secret the cluster secret every process of the mesh shares, at least 16 bytes.
   * @param locations the shared Location Store, e.g. {@code RedisLocationStore.connect(uri, prefix)}.
   * @param relocations the shared Relocation Store.
   * @param index 0 for the gateway, 1 or more for a worker.
   * @param rules players per match, rounds and round period (the same in every process).
   * @return the running server of one node.
   * @throws SpotkitException.Unavailable when a port cannot be bound or the store does not answer.
   * @throws SpotkitException.InvalidOperation when the secret is shorter than 16 bytes or a port is out of range.
   */
  public static GameServer startMember(final String host, final int port, final String meshHost, final byte[] secret,
      final LocationStore locations, final RelocationStore relocations, final int index, final GameRules rules) {
    return startMember(host, port, meshHost, secret, locations, relocations, index, rules, builder -> { });
  }

  /**
   * {@link #startMember(String, int, String, byte[], LocationStore, RelocationStore, int, GameRules)} with the
   * node's builder adjusted by {@code tune} before it starts (the command's {@code --metrics-port}).
   */
  static GameServer startMember(final String host, final int port, final String meshHost, final byte[] secret,
      final LocationStore locations, final RelocationStore relocations, final int index, final GameRules rules,
      final Consumer<MeshNode.Builder> tune) {
    final GameServer server = new GameServer(host, port, rules, locations, relocations, secret, meshHost, true,
        NO_WEBSOCKET, i -> tune);
    try {
      server.nodes.add(server.startNode(index, true));
    } catch (RuntimeException e) {
      for (AutoCloseable store : List.<AutoCloseable>of(locations, relocations)) {
        try {
          store.close();
        } catch (Exception closing) {
          e.addSuppressed(closing);
        }
      }
      throw e;
    }
    return server;
  }

  private MeshNode startNode(final int index, final boolean meshed) {
    final boolean gateway = index == 0;
    final int sessionPort = port == 0 ? 0 : member ? port : port + index;
    final MeshNode.Builder builder = MeshNode.builder()
        .meshName(MESH_NAME)
        .locationStore(locations)
        .relocationStore(relocations)
        .objectServer(server -> {
          server.entrySpot(ctx -> new Lobby(ctx, new GamePlayer.Disconnected()))
              .actor(GamePlayer.TYPE, GamePlayer::new, actor -> actor.preserveStateWith(new GamePlayer.State()));
          if (gateway) {
            server.instanceSpot(Matchmaker.TYPE, ctx -> new Matchmaker(ctx, rules, meshed),
                spot -> spot.disableRelocation().idleTimeout(rules.matchmakerIdle())); // closes itself when idle
          }
          server.userSpot(Match.TYPE, Match::new, spot -> spot.spotWide().preserveStateWith(new Match.State())
              .applicationSignaledRelocation());
        })
        .sessions(sessions -> {
          sessions.listen(host, sessionPort).codec(LineCodec.utf8()).bindTo(GamePlayer.TYPE)
              .relocationSealTimeout(SEAL_TIMEOUT); // a player's client stays connected through a slow move
          if (gateway && webSocketPort != NO_WEBSOCKET) {
            sessions.alsoListen(host, webSocketPort, WebSocketCodec.text(WEBSOCKET_PATH).withPage(page()));
          }
        });
    if (member) {
      builder.closeStoresOnClose();
      if (!gateway) {
        builder.drainOnClose(RelocateOptions.drainAnywhere().deadline(MEMBER_DRAIN_DEADLINE)); // a rolling restart
      }
    }
    if (meshed) {
      builder.mesh(mesh -> {
        mesh.listen(meshHost, 0).clusterSecret(secret)
            .placementWeight(gateway ? GATEWAY_WEIGHT : MeshOptions.MAX_PLACEMENT_WEIGHT);
        if (member) {
          mesh.acceptAdminDrains(); // spotkit-admin drain
        }
      });
    }
    tune.apply(index).accept(builder);
    return builder.start();
  }

  /**
   * A rolling-restart step for worker {@code index}: drains it ({@code relocate(RelocateOptions.drainAnywhere())};
   * its matches move with their players to the other workers at their next round boundary, its Lobby's players to
   * any node), again while a match could not be sealed (a member was still joining), at most
   * {@value #DRAIN_ATTEMPTS} times; then closes it and starts a fresh node in its place (same session port when
   * the server was started on fixed ports). While it drains the node places nothing new, and a client connecting
   * to it is refused (its session ends). Blocks the caller; call it from one thread at a time.
   *
   * @param index 1..nodes-1 (the gateway, node 0, is never restarted).
   * @param timeout bound of each drain attempt.
   * @return what moved and what was kept.
   * @throws IllegalArgumentException when {@code index} is not a worker's, or on a one-node-per-process member.
   * @throws SpotkitException.Unavailable when a drain did not answer in time or the fresh node could not start.
   * @throws InterruptedException when interrupted while waiting.
   */
  public Restart restartWorker(final int index, final Duration timeout) throws InterruptedException {
    if (member) {
      throw new IllegalArgumentException("restartWorker restarts a node of this process's mesh; a one-node-per-process"
          + " member is restarted by its process supervisor (drain it with drainOnClose, then start it again)");
    }
    if (index < 1 || index >= nodes.size()) {
      throw new IllegalArgumentException("worker index " + index + " must be between 1 and " + (nodes.size() - 1));
    }
    final MeshNode old = nodes.get(index);
    final List<SpotRelocationResult> rooms = new ArrayList<>();
    int actors = 0;
    List<RelocateResult.Kept> kept = List.of();
    int attempts = 0;
    while (attempts < DRAIN_ATTEMPTS) {
      attempts++;
      final RelocateResult result = drain(old, timeout);
      rooms.addAll(result.rooms());
      actors += result.actors().size();
      kept = result.kept().stream().filter(k -> !NOT_BLOCKING.contains(k.reason())).toList();
      if (kept.isEmpty()) {
        break;
      }
      Thread.sleep(DRAIN_RETRY_PAUSE.toMillis()); // a retry backoff, not a synchronisation
    }
    old.close();
    nodes.set(index, startNode(index, true));
    return new Restart(index, List.copyOf(rooms), actors, kept, attempts);
  }

  private RelocateResult drain(final MeshNode node, final Duration timeout) throws InterruptedException {
    final NodeRid gateway = nodes.get(0).nodeRid(); // never a target: matches and players go to workers
    try {
      return node.relocate(RelocateOptions.drainAnywhere().deadline(timeout).filter(rid -> !rid.equals(gateway)))
          .get(timeout.toMillis() + 90_000, TimeUnit.MILLISECONDS); // a started room may take two 30 s steps
    } catch (ExecutionException e) {
      throw e.getCause() instanceof SpotkitException s ? s
          : new SpotkitException.Unavailable("drain of node " + node.nodeRid() + " failed: " + e.getCause());
    } catch (TimeoutException e) {
      throw new SpotkitException.Unavailable("drain of node " + node.nodeRid() + " did not end in time");
    }
  }

  /**
   * Every node's session port, in node order (the gateway's first).
   *
   * @return the bound ports.
   */
  public List<Integer> ports() {
    final List<Integer> ports = new ArrayList<>(nodes.size());
    for (MeshNode node : nodes) {
      ports.add(node.sessionAddress().orElseThrow().getPort());
    }
    return List.copyOf(ports);
  }

  /**
   * The gateway's session port: clients that must outlive a rolling restart connect here.
   *
   * @return the bound port.
   */
  public int gatewayPort() {
    return ports().get(0);
  }

  /**
   * The gateway's WebSocket port: the page is {@code http://host:PORT/}.
   *
   * @return the bound port, or {@link #NO_WEBSOCKET} without a WebSocket listener.
   */
  public int webSocketPort() {
    final List<java.net.InetSocketAddress> addresses = nodes.get(0).sessionAddresses();
    return addresses.size() < 2 ? NO_WEBSOCKET : addresses.get(1).getPort();
  }

  /**
   * The browser client page.
   *
   * @return the HTML of {@value #PAGE}.
   * @throws UncheckedIOException when the resource is missing from the jar.
   */
  static String page() {
    try (InputStream in = GameServer.class.getResourceAsStream(PAGE)) {
      if (in == null) {
        throw new IOException("resource " + PAGE + " not found beside " + GameServer.class.getName());
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Every node now, in node order (a restarted worker is the fresh node).
   *
   * @return a snapshot.
   */
  public List<MeshNode> nodes() {
    return List.copyOf(nodes);
  }

  /**
   * Closes the gateway first (its sessions end, and their disconnects still reach the players on the workers), then
   * the workers. Idempotent.
   */
  @Override
  public void close() {
    for (MeshNode node : nodes) {
      node.close();
    }
  }
}
