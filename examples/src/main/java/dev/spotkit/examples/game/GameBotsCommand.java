package dev.spotkit.examples.game;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code game-bots}: plays {@code --matches} matches against a running game server with bots over TCP
 * ({@link GameBots}), prints one summary line ({@link GameReport#line()}) and exits 0 only when every match
 * completed and every round result reached every player exactly once, in order, with its move. Why a run failed
 * goes to stderr. {@code moves} is 0 here (this process drains nothing; {@code game-demo --drain} counts its own).
 */
@Command(name = "game-bots", mixinStandardHelpOptions = true,
    description = "Play matches against a game server and check every round result reached every player once.")
public final class GameBotsCommand implements Callable<Integer> {

  @Option(names = "--host", defaultValue = "127.0.0.1", description = "Server host (default: ${DEFAULT-VALUE}).")
  String host;

  @Option(names = "--ports", split = ",", defaultValue = "7100", paramLabel = "PORT",
      description = "Server ports, bots round-robin over them (default: ${DEFAULT-VALUE}, the gateway).")
  List<Integer> ports;

  @Option(names = "--matches", defaultValue = "4", description = "Matches (default: ${DEFAULT-VALUE}).")
  int matches;

  @Option(names = "--players", defaultValue = "4",
      description = "Players per match, as the server's --players (default: ${DEFAULT-VALUE}).")
  int players;

  @Option(names = "--timeout-seconds", defaultValue = "120",
      description = "Bound on the run (default: ${DEFAULT-VALUE}).")
  int timeoutSeconds;

  @Override
  public Integer call() throws Exception {
    final GameReport report = GameBots.run(new GameBots.Settings(host, ports, matches, players,
        Duration.ofSeconds(timeoutSeconds)));
    return print(report);
  }

  /**
   * Prints the summary line (and the failure on stderr).
   *
   * @param report the run's report.
   * @return the exit code: 0 when the run passed, else 1.
   */
  static int print(final GameReport report) {
    if (report.failure() != null) {
      System.err.println("game-bots: " + report.failure());
    }
    System.out.println(report.line());
    return report.passed() ? 0 : 1;
  }
}
