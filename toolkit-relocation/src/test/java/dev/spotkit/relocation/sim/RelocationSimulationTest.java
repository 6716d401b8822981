package dev.spotkit.relocation.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spotkit.relocation.Action;
import dev.spotkit.relocation.TargetEvent;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * Runs the seeded simulator. {@code -Dspotkit.sim.seed=N} replays one seed; {@code -Dspotkit.sim.seeds=N} sets how
 * many seeds run (default 10,000, from {@code -Dspotkit.sim.first}, default 1).
 */
class RelocationSimulationTest {
  private static final Function<Function<TargetEvent, List<Action>>, Function<TargetEvent, List<Action>>> REAL =
      f -> f;
  private static final AtomicInteger PRINTED = new AtomicInteger();

  static Checker runSeed(final long seed,
      final Function<Function<TargetEvent, List<Action>>, Function<TargetEvent, List<Action>>> variant) {
    final Simulator sim = new Simulator(Scenario.draw(seed), variant);
    final Checker checker = sim.run();
    if (checker.failed() && variant == REAL && PRINTED.incrementAndGet() <= 5) {
      System.out.println("SIMULATION FAILURE seed=" + seed + ": " + checker.failure() + "\n  " + sim.describe()
          + "\n  replay: bin/mvn -q -o -pl toolkit-relocation verify -Dtest=RelocationSimulationTest"
          + " -Dspotkit.sim.seed=" + seed + " -Dsurefire.failIfNoSpecifiedTests=false");
    }
    return checker;
  }

  @Test
  void seedsKeepEveryInvariant() {
    final String one = System.getProperty("spotkit.sim.seed");
    final long first = one != null ? Long.parseLong(one) : Long.getLong("spotkit.sim.first", 1);
    final long count = one != null ? 1 : Long.getLong("spotkit.sim.seeds", 10_000);
    final long started = System.nanoTime();
    final Map<Long, String> failures = new TreeMap<>();
    final Map<Checker.Outcome, Integer> outcomes = new EnumMap<>(Checker.Outcome.class);
    final List<Checker> results = LongStream.range(first, first + count).parallel()
        .mapToObj(seed -> {
          final Checker c = runSeed(seed, REAL);
          if (c.failed()) {
            synchronized (failures) {
              failures.put(seed, c.failure());
            }
          }
          return c;
        }).toList();
    results.forEach(c -> outcomes.merge(c.outcome(), 1, Integer::sum));
    System.out.println("relocation simulator: seeds " + first + ".." + (first + count - 1) + " in "
        + (System.nanoTime() - started) / 1_000_000 + " ms; outcomes " + outcomes);
    assertThat(failures).as("failing seeds (replay with -Dspotkit.sim.seed=N)").isEmpty();
  }

  @Test
  void brokenVariantOpeningDispatchBeforeTheMergeIsCaught() {
    final List<Long> caught = new ArrayList<>();
    String first = null;
    String byOrder = null;
    for (long seed = 1; seed <= 2_000 && (caught.size() < 5 || byOrder == null); seed++) {
      final Checker c = runSeed(seed, OpenBeforeMerge::new);
      if (c.failed()) {
        caught.add(seed);
        first = first == null ? c.failure() : first;
        byOrder = byOrder == null && c.failure().startsWith("target handled") ? c.failure() : byOrder;
      }
    }
    System.out.println("broken variant (open before merge) caught by seeds " + caught + ": " + first);
    assertThat(caught).as("the checker must report the broken variant").isNotEmpty();
    // Caught by the section 5.1 order check when new ingress overtakes the backlog (and, when the merge never
    // happens, by the relay accounting at the end).
    assertThat(byOrder).as("caught by the section 5.1 order check").isNotNull();
  }

  /**
   * The defect the pump's arrival stamps fix: a driver that advances a unit's clock to when its lane got to an
   * input (not when the input arrived) turns a cutover that arrived in time, but waited behind a stalled lane, into
   * a cutover-wait fallback on a healthy run. The same seeds on the real driver finish on the ordered path (the
   * invariant run above), so no reorder and no fallback come from local queueing.
   */
  @Test
  void aDriverJudgingInputsWhenItsLaneGotToThemIsCaughtOnStalledLanes() {
    final List<Long> caught = new ArrayList<>();
    int stalledHealthy = 0;
    String first = null;
    for (long seed = 1; seed <= 5_000 && caught.size() < 5; seed++) {
      final Scenario sc = Scenario.draw(seed);
      if (!sc.healthy() || sc.laneStallMs() == 0) {
        continue;
      }
      stalledHealthy++;
      final Simulator real = new Simulator(sc, REAL, false);
      assertThat(real.run().failed()).as("real driver, seed %d: %s", seed, real.describe()).isFalse();
      final Checker c = new Simulator(sc, REAL, true).run();
      if (c.failed()) {
        caught.add(seed);
        first = first == null ? c.failure() : first;
      }
    }
    System.out.println("driver stamping at processing caught by seeds " + caught + " of " + stalledHealthy
        + " healthy stalled runs: " + first);
    assertThat(caught).as("the checker must report the processing-time driver").isNotEmpty();
    assertThat(first).contains("fallback=true").contains("cutover_timeout");
  }

  @Test
  void brokenVariantAppendingARetransmittedBatchIsCaught() {
    final List<Long> caught = new ArrayList<>();
    String first = null;
    for (long seed = 1; seed <= 5_000 && caught.size() < 5; seed++) {
      final Checker c = runSeed(seed, AppendRetransmission::new);
      if (c.failed()) {
        caught.add(seed);
        first = first == null ? c.failure() : first;
      }
    }
    System.out.println("broken variant (retransmission appended, not replaced) caught by seeds " + caught + ": "
        + first);
    assertThat(caught).as("the checker must report the broken variant").isNotEmpty();
    assertThat(first).endsWith("handled twice");
  }

  /** A deliberately broken target: it treats relay from every connection as one span, so a resend is appended. */
  private static final class AppendRetransmission implements Function<TargetEvent, List<Action>> {
    private final Function<TargetEvent, List<Action>> real;
    private long firstConnection = -1;

    AppendRetransmission(final Function<TargetEvent, List<Action>> real) {
      this.real = real;
    }

    @Override
    public List<Action> apply(final TargetEvent event) {
      if (event instanceof TargetEvent.RelayArrived r) {
        firstConnection = firstConnection == -1 ? r.connectionId() : firstConnection;
        return real.apply(new TargetEvent.RelayArrived(r.identity(), firstConnection, r.message()));
      }
      if (event instanceof TargetEvent.CutoverArrived c && firstConnection != -1) {
        return real.apply(new TargetEvent.CutoverArrived(c.identity(), firstConnection, c.recordCount(),
            c.crc32c()));
      }
      return real.apply(event);
    }
  }

  /**
   * A deliberately broken target: it opens dispatch at once and merges the backlog only behind the next work that
   * arrives (new ingress overtakes the backlog), or never if nothing arrives.
   */
  private static final class OpenBeforeMerge implements Function<TargetEvent, List<Action>> {
    private final Function<TargetEvent, List<Action>> real;
    private Action deferred;

    OpenBeforeMerge(final Function<TargetEvent, List<Action>> real) {
      this.real = real;
    }

    @Override
    public List<Action> apply(final TargetEvent event) {
      final List<Action> out = new ArrayList<>();
      for (final Action a : real.apply(event)) {
        if (a instanceof Action.MergeBacklog) {
          deferred = a;
        } else {
          out.add(a);
        }
      }
      if (deferred != null && event instanceof TargetEvent.DirectMessageArrived) {
        out.add(deferred);
        deferred = null;
      }
      return out;
    }
  }
}
