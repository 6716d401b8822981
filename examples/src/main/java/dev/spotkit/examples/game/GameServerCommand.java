package dev.spotkit.examples.game;

import dev.spotkit.core.SpotkitException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code game-server}: serves the {@link GameProtocol} until the process is stopped (Ctrl-C), with {@code --nodes}
 * MeshNodes in this process on the in-memory stores ({@link GameServer}): node 0, the gateway, listens on
 * {@code --port}, worker i on {@code --port} + i. Play by hand with {@code nc 127.0.0.1 PORT}: {@code /queue}, then
 * {@code /move N} per round. A bad option, or a port that cannot be bound, prints one {@code game-server: ...} line
 * on stderr and exits with code 2.
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
      description = "MeshNodes in this process: the gateway and workers that host the matches (default:"
          + " ${DEFAULT-VALUE}).")
  int nodes;

  @Option(names = "--players", defaultValue = "4", description = "Players per match (default: ${DEFAULT-VALUE}).")
  int players;

  @Option(names = "--rounds", defaultValue = "5", description = "Rounds per match (default: ${DEFAULT-VALUE}).")
  int rounds;

  @Option(names = "--round-ms", defaultValue = "2000",
      description = "Round timer period in ms: a round closes at the first tick after every player moved, at the"
          + " latest after 10 ticks (default: ${DEFAULT-VALUE}).")
  long roundMillis;

  /** Where the error line goes; stderr unless a test replaces it. */
  PrintStream err = System.err;

  /** Where the listening lines go; stdout unless a test replaces it. */
  PrintStream out = System.out;

  @Override
  public Integer call() throws Exception {
    final GameServer server;
    try {
      server = GameServer.start(host, port, nodes, new GameRules(players, rounds, Duration.ofMillis(roundMillis)));
    } catch (IllegalArgumentException | SpotkitException e) {
      err.println("game-server: " + e.getMessage());
      return CommandLine.ExitCode.USAGE;
    }
    final CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      server.close();
      stopped.countDown();
    }, "game-server-shutdown"));
    final List<Integer> ports = server.ports();
    for (int i = 0; i < ports.size(); i++) {
      out.println("game-server: node " + i + (i == 0 ? " (gateway)" : " (worker)") + " listening on " + host + ":"
          + ports.get(i));
    }
    out.println("game-server: " + players + " players per match, " + rounds + " rounds of " + roundMillis
        + " ms; connect to the gateway (Ctrl-C stops)");
    stopped.await();
    return CommandLine.ExitCode.OK;
  }
}
