package dev.spotkit.examples.game;

import dev.spotkit.core.SpotkitException;
import dev.spotkit.examples.chat.MeshMemberOptions;
import dev.spotkit.examples.chat.MetricsOptions;
import dev.spotkit.store.StoreException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code game-server}: serves the {@link GameProtocol} until the process is stopped (Ctrl-C), with {@code --nodes}
 * MeshNodes in this process on the in-memory stores ({@link GameServer}): node 0, the gateway, listens on
 * {@code --port}, worker i on {@code --port} + i. Play by hand with {@code nc 127.0.0.1 PORT}: {@code /queue}, then
 * {@code /move N} per round. With {@code --store redis://HOST:PORT --node-index I} it runs one node of a mesh whose
 * nodes are separate processes sharing that Redis (key prefix {@code --store-prefix}) and the cluster secret in the
 * environment variable {@code SPOTKIT_CLUSTER_SECRET}: node 0 is the gateway, the others workers, node I on session
 * port {@code --port} + I ({@link GameServer#startMember}); a worker stopped with Ctrl-C drains first. With
 * {@code --metrics-port N} it serves the nodes' meters in the Prometheus text format on
 * {@code http://HOST:N/metrics}, HOST being {@code --metrics-host} (default 127.0.0.1), each node's tagged
 * {@code node} = its index, as {@code chat-server} does ({@link MetricsOptions}). A bad option, a store that cannot
 * be used, or a port that cannot be bound prints one {@code game-server: ...} line on stderr and exits with code 2.
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

  @Option(names = "--websocket-port", defaultValue = "-1", paramLabel = "PORT",
      description = "Also take browsers on the gateway: open http://HOST:PORT/ to play in the page (WebSocket"
          + " ws://HOST:PORT/ws); 0 for a free port; -1 for none (default: ${DEFAULT-VALUE}; not with --store).")
  int webSocketPort = GameServer.NO_WEBSOCKET;

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

  /** {@code --store}, {@code --node-index} and {@code --mesh-host}: one node per process. */
  @Mixin
  MeshMemberOptions member = new MeshMemberOptions();

  @Option(names = "--store-prefix", defaultValue = "spotkit-game", paramLabel = "PREFIX",
      description = "With --store: the Redis key prefix of this mesh; the same for every node (default:"
          + " ${DEFAULT-VALUE}).")
  String storePrefix;

  /** {@code --metrics-port} and {@code --metrics-host}: the Prometheus endpoint, when asked for. */
  @Mixin
  MetricsOptions metrics = new MetricsOptions();

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
      metrics.close();
      stopped.countDown();
    }, "game-server-shutdown"));
    metrics.printUrl(out, "game-server");
    final List<Integer> ports = server.ports();
    final int first = member.store() == null ? 0 : member.index();
    for (int i = 0; i < ports.size(); i++) {
      out.println("game-server: node " + (first + i) + (first + i == 0 ? " (gateway)" : " (worker)")
          + " listening on " + host + ":" + ports.get(i) + (member.store() == null ? ""
          : " (store " + member.store() + ", prefix " + storePrefix + ")"));
    }
    if (server.webSocketPort() != GameServer.NO_WEBSOCKET) {
      out.println("game-server: play in a browser: http://" + host + ":" + server.webSocketPort() + "/ (WebSocket"
          + " ws://" + host + ":" + server.webSocketPort() + GameServer.WEBSOCKET_PATH + ")");
    }
    out.println("game-server: " + players + " players per match, " + rounds + " rounds of " + roundMillis
        + " ms; connect to the gateway (Ctrl-C stops)");
    stopped.await();
    return CommandLine.ExitCode.OK;
  }

  /**
   * Starts the metrics endpoint (with {@code --metrics-port}) and the nodes of this process, after checking the
   * option combination; on failure the endpoint is stopped again.
   *
   * @return the running server.
   * @throws IllegalArgumentException on a bad option, or a metrics port that cannot be bound.
   * @throws SpotkitException when a node cannot start (a port cannot be bound, the store does not answer).
   * @throws StoreException when the store cannot be used.
   */
  GameServer start() {
    final GameRules rules = new GameRules(players, rounds, Duration.ofMillis(roundMillis));
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("--port " + port + " must be between 0 and 65535 (0 = free ports)");
    }
    final String problem = member.problem(port, env);
    if (problem != null) {
      throw new IllegalArgumentException(problem);
    }
    if (webSocketPort < GameServer.NO_WEBSOCKET || webSocketPort > 65535) {
      throw new IllegalArgumentException("--websocket-port " + webSocketPort + " must be between 0 and 65535"
          + " (0 = a free port), or -1 for none");
    }
    if (member.store() != null && webSocketPort != GameServer.NO_WEBSOCKET) {
      throw new IllegalArgumentException("--websocket-port is not supported with --store (one node per process)");
    }
    final String badMetrics = metrics.problem();
    if (badMetrics != null) {
      throw new IllegalArgumentException(badMetrics);
    }
    final String unbound = metrics.start();
    if (unbound != null) {
      throw new IllegalArgumentException(unbound);
    }
    GameServer started = null;
    try {
      started = startNodes(rules);
      return started;
    } finally {
      if (started == null) { // no server: no endpoint either
        metrics.close();
      }
    }
  }

  private GameServer startNodes(final GameRules rules) {
    if (member.store() == null) {
      return GameServer.start(host, port, nodes, rules, webSocketPort, metrics::node);
    }
    final MeshMemberOptions.Stores stores = member.connect(storePrefix);
    return GameServer.startMember(host, port == 0 ? 0 : port + member.index(), member.meshHost(), member.secret(env),
        stores.locations(), stores.relocations(), member.index(), rules, metrics.node(member.index()));
  }
}
