package dev.spotkit.relocation.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spotkit.relocation.Spec;
import org.junit.jupiter.api.Test;

/**
 * Mutation checks: deliberately broken aggregate moves the {@link AggregateChecker} must catch within a bounded number
 * of seeds, with the violation named, so the simulator is proven able to fail. The last two are toolkit-core's
 * aggregate code as written today (see {@link AggregateVariant}): the simulator finds where it loses work, and the
 * first failing seed is printed with its trace.
 */
class AggregateSimulatorMutationsTest {
  private static final int SEEDS = 3_000;

  /** The first violation the checker reports for the variant within {@link #SEEDS} seeds, or null. */
  private static String firstFailure(final AggregateVariant variant) {
    for (long seed = 1; seed <= SEEDS; seed++) {
      final AggregateChecker c = new AggregateWorld(AggregateScenario.draw(seed), variant, false).run();
      if (c.failed()) {
        System.out.println(AggregateSimulationTest.explain(seed, variant));
        return "seed " + seed + ": " + c.failure();
      }
    }
    return null;
  }

  /** Spec 000 section 7 step 5: the members' owner follows the aggregate; no per-member owner before the CAS. */
  @Test
  @Spec("MEM-36")
  void membersOwnerFlippedBeforeTheCasIsCaught() {
    assertThat(firstFailure(AggregateVariant.MEMBERS_FLIPPED_BEFORE_CAS)).isNotNull().contains("split owner");
  }

  /** Spec 000 section 7: every current member at seal time is in the inventory. */
  @Test
  void aMemberLeftOutOfTheInventoryIsCaught() {
    assertThat(firstFailure(AggregateVariant.MEMBER_LEFT_OUT_OF_INVENTORY)).isNotNull()
        .contains("is not the room at its seal");
  }

  /**
   * The same defect with the direct inventory comparison switched off: its consequences are caught too (the member
   * left out keeps its own owner when the room's owner moves: a split owner, or its messages are lost).
   */
  @Test
  void aMemberLeftOutOfTheInventoryIsCaughtByItsConsequences() {
    String failure = null;
    for (long seed = 1; seed <= SEEDS && failure == null; seed++) {
      final AggregateWorld world = new AggregateWorld(AggregateScenario.draw(seed),
          AggregateVariant.MEMBER_LEFT_OUT_OF_INVENTORY, false);
      world.checker.withoutInventoryCheck();
      final AggregateChecker c = world.run();
      failure = c.failed() ? "seed " + seed + ": " + c.failure() : null;
    }
    System.out.println("member left out of the inventory, by its consequences: " + failure);
    assertThat(failure).isNotNull().containsAnyOf("split owner", "lost");
  }

  /** Spec 000 section 7 step 1: a join approved before the seal lands before it, or the seal waits. */
  @Test
  void aSealThatIgnoresAnArrivingJoinIsCaught() {
    assertThat(firstFailure(AggregateVariant.SEAL_IGNORES_ARRIVING_JOIN)).isNotNull()
        .contains("membership of the room changed while sealed");
  }

  /** Spec 000 section 7 step 1: joins are sealed with the room. */
  @Test
  void aJoinAdmittedWhileSealedIsCaught() {
    assertThat(firstFailure(AggregateVariant.JOIN_ADMITTED_WHILE_SEALED)).isNotNull()
        .contains("membership of the room changed while sealed");
  }

  /** Spec 000 section 8, REL-30: past relay-ready the source is never restored. */
  @Test
  void aSourceRestoredAfterRelayReadyIsCaught() {
    assertThat(firstFailure(AggregateVariant.SOURCE_RESTORED_AFTER_RELAY_READY)).isNotNull()
        .containsAnyOf("after the relay-ready reply was accepted", "two owners");
  }

  /** Spec 000 section 7: before the commit the target staging is not visible. */
  @Test
  void aTargetOpeningBeforeItsCasIsCaught() {
    assertThat(firstFailure(AggregateVariant.TARGET_OPENS_BEFORE_CAS)).isNotNull().contains("before the CAS");
  }

  /** Spec 001 section 4.4: the whole ingress hold is relayed. */
  @Test
  void aHoldDroppedForOneParticipantIsCaught() {
    assertThat(firstFailure(AggregateVariant.HOLD_DROPPED_FOR_ONE_PARTICIPANT)).isNotNull().contains("lost");
  }

  /** Spec 002 section 9.4: the restore puts saved work back ahead of the hold, in original order. */
  @Test
  void aRestoreThatPutsTheHoldFirstIsCaught() {
    assertThat(firstFailure(AggregateVariant.RESTORE_HOLD_BEFORE_CAPTURED)).isNotNull().contains("reordered");
  }

  /**
   * toolkit-core as written: a failed re-read after a lost CAS answer discards a room whose CAS applied; the source
   * hands it over to a target that no longer has it.
   */
  @Test
  void theRuntimeDiscardingARoomWhoseCasMayHaveAppliedIsCaught() {
    assertThat(firstFailure(AggregateVariant.RUNTIME_DISCARDS_WHEN_REREAD_FAILS)).isNotNull()
        .containsAnyOf("the committed room is lost", "lost");
  }

  /** toolkit-core as written: past relay-ready, work the target gives up is dropped without an answer. */
  @Test
  void theRuntimeDroppingRelayedWorkWithoutAnAnswerIsCaught() {
    assertThat(firstFailure(AggregateVariant.RUNTIME_DISCARD_DROPS_RELAYED_WORK)).isNotNull().contains("lost");
  }
}
