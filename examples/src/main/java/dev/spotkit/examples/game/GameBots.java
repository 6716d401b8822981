package dev.spotkit.examples.game;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.ToIntFunction;
import org.HdrHistogram.Histogram;

/**
 * Plays M matches with bots over real TCP and checks them ({@link GameBot}): {@code matches x players} bots connect
 * (bot i to {@code ports.get(i % ports.size())}) and queue at once; the run waits until every bot's first round
 * opened, runs the caller's {@code whilePlaying} step (a rolling restart, for example), then waits until every bot
 * got its final line or the deadline; then closes every socket and sums the counters into a {@link GameReport}.
 */
public final class GameBots {

  /**
   * What to run.
   *
   * @param host server host.
   * @param ports server ports, 1 to 64 of them; bot i connects to {@code ports.get(i % ports.size())}.
   * @param matches matches, 1 to 1,000.
   * @param players players per match (as the server's rules say), 2 to {@value GameRules#MAX_PLAYERS}.
   * @param timeout bound on the whole run.
   */
  public record Settings(String host, List<Integer> ports, int matches, int players, Duration timeout) {
    /**
     * Validates, naming the bad value; copies {@code ports}.
     *
     * @throws IllegalArgumentException when a value is out of range.
     */
    public Settings {
      Objects.requireNonNull(host, "host");
      Objects.requireNonNull(timeout, "timeout");
      ports = List.copyOf(ports);
      if (ports.isEmpty() || ports.size() > 64) {
        throw new IllegalArgumentException("ports " + ports + " must name 1 to 64 ports");
      }
      if (matches < 1 || matches > 1_000) {
        throw new IllegalArgumentException("matches " + matches + " must be between 1 and 1000");
      }
      if (players < 2 || players > GameRules.MAX_PLAYERS) {
        throw new IllegalArgumentException("players " + players + " must be between 2 and " + GameRules.MAX_PLAYERS);
      }
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("timeout " + timeout + " must be positive");
      }
    }
  }

  /**
   * What the step run while the matches play reports back.
   *
   * @param moves match rooms it moved to another node.
   * @param pauseMillis the pause of each moved match, in milliseconds.
   * @param failure null, or why it failed.
   */
  public record Step(int moves, List<Double> pauseMillis, String failure) {
    /** Nothing moved, nothing failed. */
    public static final Step NONE = new Step(0, List.of(), null);
  }

  /** A step run while the matches play. */
  @FunctionalInterface
  public interface WhilePlaying {
    /**
     * Runs once every bot's first round opened; the bots keep playing meanwhile.
     *
     * @return what it did.
     * @throws Exception when it failed (reported as the run's failure).
     */
    Step run() throws Exception;
  }

  private GameBots() {
  }

  /**
   * Runs the bots with nothing done while they play.
   *
   * @param settings what to run.
   * @return the report.
   * @throws InterruptedException when interrupted.
   */
  public static GameReport run(final Settings settings) throws InterruptedException {
    return run(settings, Map.of(), () -> Step.NONE);
  }

  /**
   * Runs the bots.
   *
   * @param settings what to run.
   * @param quitAfter bots that disconnect mid-match: bot index to the round after whose result it quits.
   * @param whilePlaying run once every bot's first round opened.
   * @return the report.
   * @throws InterruptedException when interrupted.
   */
  public static GameReport run(final Settings settings, final Map<Integer, Integer> quitAfter,
      final WhilePlaying whilePlaying) throws InterruptedException {
    return play(settings, quitAfter, whilePlaying).report();
  }

  /**
   * A run's report with its bots, for tests that look at what each bot received.
   *
   * @param report the report.
   * @param bots the bots, by index, closed.
   */
  record Run(GameReport report, List<GameBot> bots) {
  }

  /** {@link #run(Settings, Map, WhilePlaying)} keeping the bots. */
  static Run play(final Settings settings, final Map<Integer, Integer> quitAfter,
      final WhilePlaying whilePlaying) throws InterruptedException {
    final long deadline = System.nanoTime() + settings.timeout().toNanos();
    final List<GameBot> bots = new ArrayList<>();
    final List<String> failures = new ArrayList<>();
    Step step = Step.NONE;
    try {
      for (int i = 0; i < settings.matches() * settings.players(); i++) {
        final GameBot bot = new GameBot(i, quitAfter.getOrDefault(i, 0));
        bots.add(bot);
        bot.connectAndQueue(new InetSocketAddress(settings.host(), settings.ports().get(i % settings.ports().size())));
      }
      for (GameBot bot : bots) {
        if (!bot.awaitPlaying(Math.max(0, deadline - System.nanoTime()))) {
          failures.add("timed out waiting for bot" + bot.index + "'s first round");
          break;
        }
      }
      if (failures.isEmpty()) {
        try {
          step = whilePlaying.run();
        } catch (Exception e) {
          step = new Step(0, List.of(), "the step while playing failed: " + e);
        }
        if (step.failure() != null) {
          failures.add(step.failure());
        }
      }
      for (GameBot bot : bots) {
        if (!bot.awaitFinal(Math.max(0, deadline - System.nanoTime()))) {
          failures.add("timed out waiting for the final line of bot" + bot.index);
          break;
        }
      }
    } catch (java.io.IOException e) {
      failures.add("could not connect: " + e);
    } finally {
      for (GameBot bot : bots) {
        bot.close();
      }
      for (GameBot bot : bots) {
        bot.join();
      }
    }
    return new Run(report(settings, bots, step, failures), List.copyOf(bots));
  }

  private static GameReport report(final Settings settings, final List<GameBot> bots, final Step step,
      final List<String> failures) {
    final Histogram rounds = new Histogram(java.util.concurrent.TimeUnit.MINUTES.toMicros(2), 3);
    final Map<String, List<GameBot>> byMatch = new HashMap<>();
    long expected = 0;
    long delivered = 0;
    for (GameBot bot : bots) {
      rounds.add(bot.roundMicros);
      if (bot.dropped != null) {
        failures.add("bot" + bot.index + " (" + bot.name + "): " + bot.dropped);
      }
      if (bot.matchId != null) {
        byMatch.computeIfAbsent(bot.matchId, id -> new ArrayList<>()).add(bot);
      }
      if (bot.matchLines != 1) {
        failures.add("bot" + bot.index + " got " + bot.matchLines + " match lines");
      }
      expected += bot.quits() ? Math.min(bot.rounds, bot.quitAfterRound) : bot.rounds;
      delivered += bot.results;
    }
    int completed = 0;
    long roundsPlayed = 0;
    for (List<GameBot> players : byMatch.values()) {
      final Set<GameBot> staying = new HashSet<>();
      players.stream().filter(bot -> !bot.quits()).forEach(staying::add);
      if (!staying.isEmpty() && staying.stream().allMatch(bot -> bot.finals == 1)) {
        completed++;
      }
      roundsPlayed += players.stream().mapToInt(bot -> bot.rounds).max().orElse(0);
    }
    final double[] pauses = step.pauseMillis().stream().mapToDouble(Double::doubleValue).sorted().toArray();
    final double pauseP99 = pauses.length == 0 ? 0 : pauses[Math.min(pauses.length - 1,
        (int) Math.ceil(pauses.length * 0.99) - 1)];
    return new GameReport(settings.matches(), completed, roundsPlayed, step.moves(), expected, delivered,
        expected - delivered, sum(bots, bot -> bot.duplicated), sum(bots, bot -> bot.reordered),
        sum(bots, bot -> bot.missedMoves), rounds.getValueAtPercentile(50) / 1000.0,
        rounds.getValueAtPercentile(99) / 1000.0, pauseP99, failures.isEmpty() ? null : String.join("; ", failures));
  }

  private static long sum(final List<GameBot> bots, final ToIntFunction<GameBot> counter) {
    long total = 0;
    for (GameBot bot : bots) {
      total += counter.applyAsInt(bot);
    }
    return total;
  }
}
