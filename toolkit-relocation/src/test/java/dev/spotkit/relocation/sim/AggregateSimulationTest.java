package dev.spotkit.relocation.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spotkit.relocation.Spec;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * The seeded simulator of the SpotWide User Spot aggregate move (spec 000 section 7; spec 001 sections 3 and 8; spec
 * 002 sections 1.2, 8.1 and 8.2; spec 003 section 5): a room with 1..16 members, senders writing to the room and to
 * members, joins and leaves around the seal, deliveries reordered across lanes, stalled lanes, lost connections, lost
 * or late store answers, and a target killed before or after relay-ready. Every schedule keeps every invariant of
 * {@link AggregateChecker}. {@code -Dspotkit.aggsim.seed=N} replays one seed with its trace (with
 * {@code -Dspotkit.aggsim.variant=V}, one of {@link AggregateVariant});
 * {@code -Dspotkit.aggsim.seeds=N} sets how many seeds run (default 10,000, from {@code -Dspotkit.aggsim.first},
 * default 1).
 */
class AggregateSimulationTest {
  private static final AtomicInteger PRINTED = new AtomicInteger();

  /**
   * Runs one seed; a failure is printed with its replay command and the readable trace of its last steps.
   *
   * @param seed the seed.
   * @param variant the runtime modelled.
   * @return the checker.
   */
  static AggregateChecker runSeed(final long seed, final AggregateVariant variant) {
    final AggregateChecker checker = new AggregateWorld(AggregateScenario.draw(seed), variant, false).run();
    if (checker.failed() && variant == AggregateVariant.SPEC && PRINTED.incrementAndGet() <= 3) {
      System.out.println(explain(seed, variant));
    }
    return checker;
  }

  /**
   * A failing seed's story: the violation, the scenario and the trace of the last steps (the run replayed with
   * tracing on; runs are deterministic).
   *
   * @param seed the seed.
   * @param variant the runtime modelled.
   * @return text.
   */
  static String explain(final long seed, final AggregateVariant variant) {
    final AggregateWorld traced = new AggregateWorld(AggregateScenario.draw(seed), variant, true);
    final AggregateChecker c = traced.run();
    return "AGGREGATE SIMULATION FAILURE seed=" + seed + " variant=" + variant + ": " + c.failure() + "\n  "
        + traced.describeRun() + "\n  replay: bin/mvn -o -B -pl toolkit-relocation test-compile surefire:test"
 + " -Dtest=AggregateSimulationTest -Dspotkit.aggsim.seed=" + seed
        + (variant == AggregateVariant.SPEC ? "" : " -Dspotkit.aggsim.variant=" + variant)
        + " -Dsurefire.failIfNoSpecifiedTests=false\n    " + String.join("\n    ", traced.traceLines());
  }

  @Test
  @Spec("MEM-36")
  @Spec("MEM-37")
  @Spec("SPOT-07")
  @Spec("LOC-20")
  void seedsKeepEveryInvariant() {
    final String one = System.getProperty("spotkit.aggsim.seed");
    if (one != null) {
      final long seed = Long.parseLong(one);
      final AggregateVariant variant = AggregateVariant.valueOf(System.getProperty("spotkit.aggsim.variant", "SPEC"));
      System.out.println(explain(seed, variant));
      assertThat(runSeed(seed, variant).failure()).isNull();
      return;
    }
    final long first = Long.getLong("spotkit.aggsim.first", 1);
    final long count = Long.getLong("spotkit.aggsim.seeds", 10_000);
    final long started = System.nanoTime();
    final Map<Long, String> failures = new TreeMap<>();
    final List<AggregateChecker> results = LongStream.range(first, first + count).parallel()
        .mapToObj(seed -> {
          final AggregateChecker c = runSeed(seed, AggregateVariant.SPEC);
          if (c.failed()) {
            synchronized (failures) {
              failures.put(seed, c.failure());
            }
          }
          return c;
        }).toList();
    final Map<AggregateChecker.Outcome, Integer> outcomes = new EnumMap<>(AggregateChecker.Outcome.class);
    results.forEach(c -> outcomes.merge(c.outcome(), 1, Integer::sum));
    System.out.println("aggregate simulator: seeds " + first + ".." + (first + count - 1) + " in "
        + (System.nanoTime() - started) / 1_000_000 + " ms; outcomes " + outcomes);
    assertThat(failures).as("failing seeds (replay with -Dspotkit.aggsim.seed=N)").isEmpty();
  }

  @Test
  void theSameSeedReplaysTheSameTrace() {
    for (long seed = 1; seed <= 200; seed++) {
      final long first = new AggregateWorld(AggregateScenario.draw(seed), AggregateVariant.SPEC, false).run()
          .traceHash();
      final long second = new AggregateWorld(AggregateScenario.draw(seed), AggregateVariant.SPEC, true).run()
          .traceHash();
      assertThat(second).as("seed %d", seed).isEqualTo(first);
    }
  }
}
