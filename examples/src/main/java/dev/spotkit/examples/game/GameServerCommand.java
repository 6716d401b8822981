package dev.spotkit.examples.game;

import dev.spotkit.core.SpotkitException;
import dev.spotkit.examples.chat.ChatServerCommand;
import dev.spotkit.redis.RedisLocationStore;
import dev.spotkit.redis.RedisRelocationStore;
import dev.spotkit.store.StoreException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code game-server}: serves the {@link GameProtocol} until the process is stopped (Ctrl-C), with {@code --nodes}
 * MeshNodes in this process on the in-memory stores ({@link GameServer}): node 0, the gateway, listens on
 * {@code --port}, worker i on {@code --port} + i. Play by hand with {@code nc 127.0.0.1 PORT}: {@code /queue}, then
 * {@code /move N} per round. With {@code --store redis://HOST:PORT --node-index I} it runs one node of a mesh whose
 * nodes are separate processes sharing that Redis (key prefix {@code --store-prefix}) and the cluster secret in the
 * environment variable {@code SPOTKIT_CLUSTER_SECRET}: node 0 is the gateway, the others workers, node I on session
 * port {@code --port} + I ({@link GameServer#startMember}); a worker stopped with Ctrl-C drains first. A bad option,
 * a store that cannot be used, or a port that cannot be bound prints one {@code game-server: ...} line on stderr and
 * exits with code 2.
 */
@Command(name = "game-server", mixinStandardHelpOptions = true,
    description = "Game matches over a line protocol; try: nc 127.0.0.1 <port>, then /queue and /move N.")
public final class GameServerCommand implements Callable<Integer> {

  @Option(names = "--host", defaultValue = "127.0.0.1",
      description = "Address to listen on (default: ${DEFAULT-VALUE}; 0.0.0.0 for every interface).")
  String host;

  @Option(names = "--port", defaultValue = "7100",
      description = "Session port of node 0 (the gateway); node i listens on port + i; 0 for free ports"
          + " (default: ${DEFAULT-VALUE}).")
  int port;

  @Option(names = "--nodes", defaultValue = "3",
      description = "MeshNodes in this process (without --store): the gateway and workers that host the matches"
          + " (default: ${DEFAULT-VALUE}).")
  int nodes;

  @Option(names = "--players", defaultValue = "4", description = "Players per match (default: ${DEFAULT-VALUE}).")
  int players;

  @Option(names = "--rounds", defaultValue = "5", description = "Rounds per match (default: ${DEFAULT-VALUE}).")
  int rounds;

  @Option(names = "--round-ms", defaultValue = "2000",
      description = "Round timer period in ms: a round closes at the first tick after every player moved, at the"
          + " latest after 10 ticks (default: ${DEFAULT-VALUE}).")
  long roundMillis;

  @Option(names = "--store", paramLabel = "URI",
      description = "One node per process: the Redis all nodes share, e.g. redis://127.0.0.1:6379; the cluster"
          + " secret comes from the environment variable " + ChatServerCommand.SECRET_ENV + ".")
  String store;

  @Option(names = "--node-index", paramLabel = "I",
      description = "One node per process (with --store): this is node I, on session port --port + I; node 0 is the"
          + " gateway (default: 0).")
  Integer nodeIndex;

  @Option(names = "--store-prefix", defaultValue = "spotkit-game", paramLabel = "PREFIX",
      description = "With --store: the Redis key prefix of this mesh; the same for every node (default:"
          + " ${DEFAULT-VALUE}).")
  String storePrefix;

  @Option(names = "--mesh-host", defaultValue = "127.0.0.1", paramLabel = "HOST",
      description = "With --store: the address other nodes reach this node's mesh listener on (free port;"
          + " default: ${DEFAULT-VALUE}).")
  String meshHost;

  /** The environment (the cluster secret); the process environment unless a test replaces it. */
  Map<String, String> env = System.getenv();

  /** Where the error line goes; stderr unless a test replaces it. */
  PrintStream err = System.err;

  /** Where the listening lines go; stdout unless a test replaces it. */
  PrintStream out = System.out;

  @Override
  public Integer call() throws Exception {
    final GameServer server;
    try {
      server = start();
    } catch (IllegalArgumentException | SpotkitException | StoreException e) {
      err.println("game-server: " + e.getMessage());
      return CommandLine.ExitCode.USAGE;
    }
    final CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      server.close();
      stopped.countDown();
    }, "game-server-shutdown"));
    final List<Integer> ports = server.ports();
    final int first = store == null ? 0 : index();
    for (int i = 0; i < ports.size(); i++) {
      out.println("game-server: node " + (first + i) + (first + i == 0 ? " (gateway)" : " (worker)")
          + " listening on " + host + ":" + ports.get(i) + (store == null ? "" : " (store " + store + ", prefix "
          + storePrefix + ")"));
    }
    out.println("game-server: " + players + " players per match, " + rounds + " rounds of " + roundMillis
        + " ms; connect to the gateway (Ctrl-C stops)");
    stopped.await();
    return CommandLine.ExitCode.OK;
  }

  private int index() {
    return nodeIndex == null ? 0 : nodeIndex;
  }

  /** Starts the nodes of this process, after checking the option combination. */
  private GameServer start() {
    final GameRules rules = new GameRules(players, rounds, Duration.ofMillis(roundMillis));
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("--port " + port + " must be between 0 and 65535 (0 = free ports)");
    }
    if (store == null) {
      if (nodeIndex != null) {
        throw new IllegalArgumentException("--node-index runs one node of a mesh whose nodes are separate"
            + " processes: it needs the store they share, --store redis://HOST:PORT");
      }
      return GameServer.start(host, port, nodes, rules);
    }
    if (!store.startsWith("redis://") && !store.startsWith("rediss://")) {
      throw new IllegalArgumentException("--store " + store + " is not a Redis URI; e.g. redis://127.0.0.1:6379");
    }
    if (index() < 0 || index() > GameServer.MAX_NODES || port > 0 && port + index() > 65535) {
      throw new IllegalArgumentException("--node-index " + index() + " must be between 0 and " + GameServer.MAX_NODES
          + ", and --port + index at most 65535");
    }
    final String secret = env.get(ChatServerCommand.SECRET_ENV);
    if (secret == null || secret.getBytes(StandardCharsets.UTF_8).length < 16) {
      throw new IllegalArgumentException("one node per process needs the mesh's cluster secret, the same in every"
          + " process, in the environment variable " + ChatServerCommand.SECRET_ENV + " (at least 16 bytes)");
    }
    final RedisLocationStore locations = RedisLocationStore.connect(store, storePrefix);
    final RedisRelocationStore relocations;
    try {
      relocations = RedisRelocationStore.connect(store, storePrefix);
    } catch (RuntimeException e) {
      locations.close();
      throw e;
    }
    return GameServer.startMember(host, port == 0 ? 0 : port + index(), meshHost,
        secret.getBytes(StandardCharsets.UTF_8), locations, relocations, index(), rules);
  }
}
