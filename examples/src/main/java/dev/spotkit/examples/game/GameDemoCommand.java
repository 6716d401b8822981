package dev.spotkit.examples.game;

import dev.spotkit.core.SpotRelocationResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code game-demo}: starts a {@link GameServer} of {@code --nodes} MeshNodes (default 3: the gateway and two
 * workers) in this process on free loopback ports, and plays {@code --matches} matches with bots connected to the
 * gateway ({@link GameBots}); prints the bots' summary line and exits with their exit code.
 *
 * <p>With {@code --drain} (needs 3 or more nodes: two workers), once every match is playing, a rolling restart
 * runs: each worker in turn is drained ({@code relocate(RelocateOptions.drainAnywhere())}: its matches move with
 * their players to the other workers at their next round boundary), closed and replaced by a fresh node
 * ({@link GameServer#restartWorker}); the clients stay connected to the gateway throughout. {@code moves} in the
 * summary counts the matches moved, {@code move_pause_p99_ms} their pause; the exit code is 0 only when the run was
 * clean and every drain moved everything.
 */
@Command(name = "game-demo", mixinStandardHelpOptions = true,
    description = "Game server (3 nodes) and bots in one process; prints the bots' summary line.")
public final class GameDemoCommand implements Callable<Integer> {

  @Option(names = "--nodes", defaultValue = "3",
      description = "MeshNodes: the gateway and workers (default: ${DEFAULT-VALUE}).")
  int nodes = 3;

  @Option(names = "--matches", defaultValue = "6", description = "Matches (default: ${DEFAULT-VALUE}).")
  int matches = 6;

  @Option(names = "--players", defaultValue = "4", description = "Players per match (default: ${DEFAULT-VALUE}).")
  int players = 4;

  @Option(names = "--rounds", defaultValue = "10", description = "Rounds per match (default: ${DEFAULT-VALUE}).")
  int rounds = 10;

  @Option(names = "--round-ms", defaultValue = "100",
      description = "Round timer period in ms (default: ${DEFAULT-VALUE}).")
  long roundMillis = 100;

  @Option(names = "--timeout-seconds", defaultValue = "120",
      description = "Bound on the run (default: ${DEFAULT-VALUE}).")
  int timeoutSeconds = 120;

  @Option(names = "--drain",
      description = "Rolling restart of the workers while the matches play (needs 3+ --nodes).")
  boolean drain;

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    if (nodes < 1 || nodes > GameServer.MAX_NODES || drain && nodes < 3) {
      throw new ParameterException(spec == null ? new CommandLine(this) : spec.commandLine(),
          "--nodes " + nodes + " must be 1 to " + GameServer.MAX_NODES + ", and 3 or more with --drain");
    }
    final GameRules rules;
    try {
      rules = new GameRules(players, rounds, Duration.ofMillis(roundMillis));
      // the bots' settings checked before any node starts (port 1 stands in for the gateway's, known later)
      new GameBots.Settings("127.0.0.1", List.of(1), matches, players, Duration.ofSeconds(timeoutSeconds));
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec == null ? new CommandLine(this) : spec.commandLine(), e.getMessage());
    }
    try (GameServer server = GameServer.start("127.0.0.1", 0, nodes, rules)) {
      final GameBots.Settings settings = new GameBots.Settings("127.0.0.1", List.of(server.gatewayPort()), matches,
          players, Duration.ofSeconds(timeoutSeconds));
      final GameReport report = GameBots.run(settings, java.util.Map.of(),
          drain ? () -> rollingRestart(server, Duration.ofSeconds(timeoutSeconds)) : () -> GameBots.Step.NONE);
      return GameBotsCommand.print(report);
    }
  }

  /**
   * Restarts every worker once, one after another ({@link GameServer#restartWorker}).
   *
   * @param server the running server.
   * @param timeout bound of each drain attempt.
   * @return the matches moved with their pauses; a failure when a drain kept something.
   * @throws InterruptedException when interrupted.
   */
  static GameBots.Step rollingRestart(final GameServer server, final Duration timeout) throws InterruptedException {
    int moves = 0;
    final List<Double> pauses = new ArrayList<>();
    final List<String> failures = new ArrayList<>();
    for (int worker = 1; worker < server.nodes().size(); worker++) {
      final GameServer.Restart restart = server.restartWorker(worker, timeout);
      moves += restart.rooms().size();
      for (SpotRelocationResult room : restart.rooms()) {
        pauses.add(room.paused().toNanos() / 1e6);
      }
      if (!restart.kept().isEmpty()) {
        failures.add("the drain of worker " + worker + " kept " + restart.kept().stream()
            .map(k -> k.kind() + " '" + k.id() + "': " + k.reason()).toList() + " after " + restart.attempts()
            + " attempts");
      }
    }
    return new GameBots.Step(moves, pauses, failures.isEmpty() ? null : String.join("; ", failures));
  }
}
