package dev.spotkit.examples.chat;

import dev.spotkit.core.MeshNode;
import dev.spotkit.core.ObjectKind;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.core.session.LineCodec;
import dev.spotkit.store.InMemoryLocationStore;
import dev.spotkit.store.InMemoryRelocationStore;
import dev.spotkit.store.LocationStore;
import dev.spotkit.store.RelocationStore;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The chat server: one or more {@link MeshNode}s in this process whose client sessions speak the
 * {@link ChatProtocol}. With several nodes they form one mesh ({@value #MESH_NAME}): they share one
 * in-memory Location Store and Relocation Store, prove one random cluster secret to each other over loopback
 * TCP, and each has its own session port; a client may connect to any of them.
 *
 * <ul>
 *   <li>{@link Lobby} is the Entry Spot of each node, where each player starts.</li>
 *   <li>{@link Player} is the actor bound to each connection ({@code bindTo("player")}), created on the node
 *       the client connected to. It joins rooms with JoinSpot, and a room on another node pulls it there (live
 *       relocation, {@code preserveStateWith}) while its client session stays where it is.</li>
 *   <li>{@link Room} is a User Spot created on first {@code /join} with GetOrCreate, on the node the placement
 *       rules choose; its members are the players that joined it, all on its node.</li>
 *   <li>{@link RoomDirectory} is one Instance Spot for {@code /rooms}, activated on the first node at start.</li>
 * </ul>
 *
 * <p>Bad input (unknown commands, lines over 8 KiB, invalid UTF-8) gets an {@code error: ...} line and never
 * stops the server. Only players relocate; rooms and the directory say {@code disableRelocation()}.
 *
 * <p>One node per OS process ({@link #startMember}): every process is given the same shared stores (the Redis
 * Location and Relocation Stores, see {@link ChatServerCommand}) and cluster secret; the nodes find each other
 * through the MeshNode descriptors in the Location Store (each one's mesh endpoint), so no peer list is needed.
 */
public final class ChatServer implements AutoCloseable {
  /**
   * SessionRelocationSealTimeout of the chat server: 15 s, not the spec's 3 s default: on a busy 2-core machine the
   * first cross-node joins of many bots at once can take longer, and a closed client is worse than a late line.
   */
  static final java.time.Duration SEAL_TIMEOUT = java.time.Duration.ofSeconds(15);


  /** The MeshName of every node. */
  public static final String MESH_NAME = "chat";
  /** Where the nodes of one process listen for each other. */
  static final String MESH_HOST = "127.0.0.1";
  /** Most nodes in one process. */
  public static final int MAX_NODES = 64;
  /** Bytes of the random cluster secret. */
  private static final int SECRET_BYTES = 32;

  private final List<MeshNode> nodes;

  private ChatServer(final List<MeshNode> nodes) {
    this.nodes = List.copyOf(nodes);
  }

  /**
   * Starts one node of a mesh whose other nodes run in other processes (spec 002 sections 4 and 7): it shares
   * {@code locations} and {@code relocations} with them, proves {@code secret} to them, publishes its mesh
   * endpoint ({@code meshHost} and a free port) in its MeshNode descriptor and reaches the others through
   * theirs. The node with {@code activateDirectory} activates the {@link RoomDirectory} at start (any node would
   * on the first {@code /rooms}). The node owns the stores ({@code closeStoresOnClose()}): it closes them at
   * the end of its close ({@link #close()}); on a failed start they are closed too. It accepts operator drain
   * requests through the store ({@code MeshOptions.acceptAdminDrains()}, {@code spotkit-admin drain}).
   *
   * @param host address the session listener binds, e.g. 127.0.0.1.
   * @param port session port, 0..65535; 0 = a free port.
   * @param meshHost the address other processes reach this node's mesh listener on, e.g. 127.0.0.1.
   * @param secret the cluster secret every process of the mesh shares, at least 16 bytes.
   * @param locations the shared Location Store, e.g. {@code RedisLocationStore.connect(uri, prefix)}.
   * @param relocations the shared Relocation Store.
   * @param activateDirectory whether this node activates the room directory at start (node index 0).
   * @return the running server.
   * @throws SpotkitException.Unavailable when a port cannot be bound or the store does not answer.
   * @throws SpotkitException.InvalidOperation when the secret is shorter than 16 bytes or a port is out of range.
   */
  public static ChatServer startMember(final String host, final int port, final String meshHost, final byte[] secret,
      final LocationStore locations, final RelocationStore relocations, final boolean activateDirectory) {
    return startMember(host, port, meshHost, secret, locations, relocations, activateDirectory, builder -> { });
  }

  /**
   * {@link #startMember(String, int, String, byte[], LocationStore, RelocationStore, boolean)} with the node's
   * builder adjusted by {@code tune} before it starts (the command's {@code --metrics-port}).
   */
  static ChatServer startMember(final String host, final int port, final String meshHost, final byte[] secret,
      final LocationStore locations, final RelocationStore relocations, final boolean activateDirectory,
      final java.util.function.Consumer<MeshNode.Builder> tune) {
    final List<AutoCloseable> stores = List.of(locations, relocations);
    try {
      final MeshNode.Builder builder = builder(host, port, locations, relocations)
          .mesh(mesh -> mesh.listen(meshHost, 0).clusterSecret(secret).acceptAdminDrains()) // spotkit-admin drain
          .closeStoresOnClose();
      tune.accept(builder);
      final MeshNode node = builder.start();
      final ChatServer server = new ChatServer(List.of(node));
      try {
        if (activateDirectory) {
          activateDirectory(node);
        }
      } catch (RuntimeException e) {
        server.close();
        throw e;
      }
      return server;
    } catch (RuntimeException e) {
      closeAll(stores);
      throw e;
    }
  }

  private static MeshNode.Builder builder(final String host, final int sessionPort, final LocationStore locations,
      final RelocationStore relocations) {
    return MeshNode.builder()
        .meshName(MESH_NAME)
        .locationStore(locations)
        .relocationStore(relocations)
        .objectServer(server -> server
            .entrySpot(Lobby::new)
            .actor(Player.TYPE, Player::new, actor -> actor.preserveStateWith(new Player.State())) // moves
            .userSpot(Room.TYPE, Room::new, spot -> spot.spotWide().preserveStateWith(new Room.State())) // moves whole
            .instanceSpot(RoomDirectory.TYPE, RoomDirectory::new, spot -> spot.disableRelocation()))
        .sessions(sessions -> sessions.listen(host, sessionPort).codec(LineCodec.utf8()).bindTo(Player.TYPE)
            .relocationSealTimeout(SEAL_TIMEOUT)); // a slow move keeps the client connected
  }

  private static void closeAll(final List<AutoCloseable> stores) {
    for (AutoCloseable store : stores) {
      try {
        store.close();
      } catch (Exception e) {
        // closing on the way out: nothing else to do with it
      }
    }
  }

  /**
   * Starts one node and its session listener.
   *
   * @param host address to listen on, e.g. 127.0.0.1.
   * @param port port to listen on; 0 picks a free one (see {@link #port()}).
   * @return the running server.
   * @throws SpotkitException.Unavailable when the port cannot be bound.
   */
  public static ChatServer start(final String host, final int port) {
    return start(host, port, 1);
  }

  /**
   * Starts {@code nodeCount} nodes in this process, one mesh sharing in-memory stores, each with its own
   * session listener: node {@code i} listens on {@code port + i}, or on a free port when {@code port} is 0
   * (see {@link #ports()}). On failure the nodes already started are closed again.
   *
   * @param host address the session listeners bind, e.g. 127.0.0.1 (the mesh itself stays on loopback).
   * @param port the first node's session port, 0..65535; 0 = a free port for every node.
   * @param nodeCount 1..{@value #MAX_NODES}; 1 runs a single node without a mesh listener.
   * @return the running server.
   * @throws IllegalArgumentException when {@code nodeCount} or {@code port + nodeCount - 1} is out of range.
   * @throws SpotkitException.Unavailable when a port cannot be bound.
   */
  public static ChatServer start(final String host, final int port, final int nodeCount) {
    return start(host, port, nodeCount, builder -> { });
  }

  /**
   * {@link #start(String, int, int)} with every node's builder adjusted by {@code tune} before it starts (tests:
   * a short owner lease).
   */
  static ChatServer start(final String host, final int port, final int nodeCount,
      final java.util.function.Consumer<MeshNode.Builder> tune) {
    if (nodeCount < 1 || nodeCount > MAX_NODES) {
      throw new IllegalArgumentException("nodes " + nodeCount + " must be between 1 and " + MAX_NODES);
    }
    if (port < 0 || port > 0 && port + nodeCount - 1 > 65535) {
      throw new IllegalArgumentException("port " + port + " with " + nodeCount + " nodes must leave every node"
          + " a port of 1..65535 (port + nodes - 1 <= 65535), or be 0 for free ports");
    }
    final InMemoryLocationStore locations = new InMemoryLocationStore();
    final InMemoryRelocationStore relocations = new InMemoryRelocationStore();
    final byte[] secret = new byte[SECRET_BYTES];
    new SecureRandom().nextBytes(secret);
    final List<MeshNode> started = new ArrayList<>(nodeCount);
    try {
      for (int i = 0; i < nodeCount; i++) {
        final int sessionPort = port == 0 ? 0 : port + i;
        final MeshNode.Builder builder = builder(host, sessionPort, locations, relocations);
        if (nodeCount > 1) {
          builder.mesh(mesh -> mesh.listen(MESH_HOST, 0).clusterSecret(secret));
        }
        tune.accept(builder);
        started.add(builder.start());
        if (i == 0) {
          activateDirectory(started.get(0));
        }
      }
    } catch (RuntimeException e) {
      new ChatServer(started).close();
      throw e;
    }
    return new ChatServer(started);
  }

  /** Activates the {@link RoomDirectory} on {@code node} before any other node or client could. */
  private static void activateDirectory(final MeshNode node) {
    node.toInstanceSpot(RoomDirectory.ID, RoomDirectory.TYPE)
        .request(new RoomDirectory.Describe(), RoomDirectory.Description.class)
        .timeout(Duration.ofSeconds(10)).await();
  }

  /**
   * The port clients connect to on the first node.
   *
   * @return the bound port (the chosen one when started with port 0).
   */
  public int port() {
    return ports().get(0);
  }

  /**
   * Every node's session port, in node order; a client may connect to any of them.
   *
   * @return the bound ports (the chosen ones when started with port 0).
   */
  public List<Integer> ports() {
    final List<Integer> ports = new ArrayList<>(nodes.size());
    for (MeshNode node : nodes) {
      ports.add(node.sessionAddress().orElseThrow().getPort());
    }
    return List.copyOf(ports);
  }

  /**
   * The first node, for tests that look at its spots.
   *
   * @return the running node.
   */
  MeshNode node() {
    return nodes.get(0);
  }

  /**
   * Every node, in node order, for tests.
   *
   * @return the running nodes.
   */
  List<MeshNode> nodes() {
    return nodes;
  }

  /** How often, in milliseconds, {@link #awaitDepartures} reads the Location Store. */
  static final long DEPARTURES_POLL_MILLIS = 20;
  /** Rows {@link #awaitDepartures} counts at most per kind. */
  private static final int DEPARTURES_PAGE = 100;

  /**
   * Waits until the clients that disconnected have left the mesh: no player actor and no room is left in the
   * Location Store (each player of a closed connection left its room and destroyed itself, each room closed with its
   * last member). Call it once every client is gone and before {@link #close()}: a close that starts while those
   * departures still travel between the nodes drops them, with a WARN line each on the node that drops them (a
   * {@code dead letter (shutting_down)} for a disconnect that reaches a closing node, {@code a disconnect for actor
   * ... was not delivered} for one whose node already closed). With clients still connected it waits the whole
   * bound. Any thread; not from inside a handler turn.
   *
   * @param bound the longest wait, e.g. 10 s.
   * @return the players and rooms still in the store (each kind counted up to 100): 0 once the departures settled.
   * @throws InterruptedException when interrupted while waiting.
   * @throws SpotkitException.Unavailable when the Location Store fails or does not answer in time.
   */
  int awaitDepartures(final Duration bound) throws InterruptedException {
    final long end = System.nanoTime() + bound.toNanos();
    final long polls = bound.toMillis() / DEPARTURES_POLL_MILLIS + 1;
    int left = remaining();
    for (long poll = 0; poll < polls && left > 0 && end - System.nanoTime() > 0; poll++) {
      Thread.sleep(Math.max(1, Math.min(DEPARTURES_POLL_MILLIS,
          TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime())))); // polling the store: nothing to wait on
      left = remaining();
    }
    return left;
  }

  /** Players and rooms in the Location Store, each kind counted up to {@link #DEPARTURES_PAGE}. */
  private int remaining() {
    final MeshNode node = nodes.get(0);
    return node.locations().list(ObjectKind.ACTOR, Player.TYPE, DEPARTURES_PAGE, null).entries().size()
        + node.locations().list(ObjectKind.SPOT, Room.TYPE, DEPARTURES_PAGE, null).entries().size();
  }

  /**
   * Closes every session and stops every node (a {@link #startMember} node closes its stores at the end): every
   * node but the first at once, then the first, which holds the {@link RoomDirectory}, so the last member counts
   * of rooms closing on the other nodes still reach it rather than being dropped by a closing node (with a
   * warning each). Clients still connected are cut off, and their departures may be dropped with a warning each:
   * after the clients left, {@link #awaitDepartures} first. Idempotent.
   */
  @Override
  public void close() {
    if (nodes.isEmpty()) {
      return;
    }
    try (ExecutorService closing = Executors.newVirtualThreadPerTaskExecutor()) {
      for (MeshNode node : nodes.subList(1, nodes.size())) {
        closing.execute(node::close);
      }
    }
    nodes.get(0).close();
  }
}
