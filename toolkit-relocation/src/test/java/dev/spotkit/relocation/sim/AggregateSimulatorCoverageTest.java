package dev.spotkit.relocation.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumMap;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The aggregate simulator reaches the interleavings that matter (STYLE.md rule 12: coverage marks), each in several
 * seeds that still keep every invariant: joins racing the seal, leaves refused while sealed, work held after the seal
 * and after the hold was taken, a target killed before and after relay-ready and after the CAS, late messages
 * followed, direct work waiting in the staging, lost and retried store answers, and every outcome.
 */
class AggregateSimulatorCoverageTest {
  private static final int SEEDS = 3_000;

  @Test
  void seedsReachEveryInterestingInterleaving() {
    final Map<String, Integer> seeds = new TreeMap<>();
    final Map<AggregateChecker.Outcome, Integer> outcomes = new EnumMap<>(AggregateChecker.Outcome.class);
    int largeRooms = 0;
    for (long seed = 1; seed <= SEEDS; seed++) {
      final AggregateScenario sc = AggregateScenario.draw(seed);
      final AggregateChecker c = new AggregateWorld(sc, AggregateVariant.SPEC, false).run();
      assertThat(c.failed()).as("seed %d: %s", seed, c.failure()).isFalse();
      c.marks().keySet().forEach(k -> seeds.merge(k, 1, Integer::sum)); // seeds in which the mark happened
      outcomes.merge(c.outcome(), 1, Integer::sum);
      largeRooms += sc.members() >= 12 && c.outcome() == AggregateChecker.Outcome.COMMITTED ? 1 : 0;
    }
    System.out.println("aggregate coverage over " + SEEDS + " seeds: outcomes " + outcomes + "; seeds per mark "
        + seeds);
    assertThat(outcomes.keySet()).contains(AggregateChecker.Outcome.COMMITTED,
        AggregateChecker.Outcome.COMMITTED_TARGET_KILLED, AggregateChecker.Outcome.RESTORED,
        AggregateChecker.Outcome.ABANDONED);
    assertThat(outcomes.get(AggregateChecker.Outcome.COMMITTED)).isGreaterThan(SEEDS / 5);
    assertThat(largeRooms).as("rooms of 12..16 members committed").isGreaterThan(50);
    for (final String mark : new String[] {
        // joins and leaves around the seal
        "seal_waited_for_arriving_join", "seal_includes_join_that_raced_it", "join_approved_while_intent_pending", "join_refused_sealed",
        "join_refused_moved", "leave_refused_sealed", "leave_before_seal", "leave_after_restore",
        // work around the seal and the boundary
        "held_after_seal", "arrived_after_hold_taken", "direct_into_staging", "followed", "follow_delivered",
        "unavailable_after_follow", "refused_after_abandon", "follow_failed_closed_connection",
        // the target killed
        "target_killed_before_relay_ready", "target_killed_after_relay_ready", "target_killed_after_cas",
        "messages_died_with_target",
        // other faults
        "connection_lost", "lane_stall", "step_timeout", "chunk_corrupted", "restore_failed", "capture_failed",
        "cas_indeterminate", "cas_applies_late", "reread_retried", "commit_gave_up", "commit_answer_missing",
        "arrival_expired", "abort_raced_prepare", "late_reply_ignored", "restored",
        "abandoned", "handed_over"}) {
      assertThat(seeds.getOrDefault(mark, 0)).as("seeds with mark %s", mark).isGreaterThanOrEqualTo(3);
    }
    // Rare paths: the arrival expired before a late relay, the relay lost with its connection.
    assertThat(seeds).containsKeys("relay_without_staging", "relay_lost_with_connection",
        "relay_not_sent_connection_closed", "abandoned_but_target_committed");
  }
}
