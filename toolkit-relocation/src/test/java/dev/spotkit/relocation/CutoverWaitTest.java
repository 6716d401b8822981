package dev.spotkit.relocation;

import static dev.spotkit.relocation.Fixtures.ID;
import static dev.spotkit.relocation.Fixtures.codes;
import static dev.spotkit.relocation.Fixtures.only;
import static org.assertj.core.api.Assertions.assertThat;

import dev.spotkit.relocation.TargetEvent.CasOutcome;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The cutover wait of spec 001 section 4.4 runs from the write of the relay-ready reply, on the clock the driver
 * has caught up with (ticks through {@link RelocationPump}), never from when a lane got to an input.
 */
class CutoverWaitTest {
  /** A target restored at 0 whose relay-ready reply the driver has not reported written yet. */
  private static TargetUnits restoredNotSent(final List<? super TargetAction> sink) {
    final TargetUnits units = new TargetUnits(Fixtures.SETTINGS, 0);
    final byte[] payload = "0123456789".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    sink.addAll(units.handle(Fixtures.restore(ID, payload, 3, 1, 10_000)));
    sink.addAll(units.handle(Fixtures.chunk(ID, 1, 0, "0123".getBytes())));
    sink.addAll(units.handle(Fixtures.chunk(ID, 1, 1, "4567".getBytes())));
    sink.addAll(units.handle(Fixtures.chunk(ID, 1, 2, "89".getBytes())));
    sink.addAll(units.handle(new TargetEvent.RestoreFinished(ID, List.of())));
    return units;
  }

  @Test
  @Spec("REL-16")
  void noCutoverWaitIsJudgedBeforeTheReplyWasWritten() {
    final List<TargetAction> out = new ArrayList<>();
    final TargetUnits units = restoredNotSent(out);
    assertThat(units.unit(ID).stage()).isEqualTo(Stage.RELAY_READY);
    assertThat(units.handle(new TargetEvent.ClockAdvanced(9_999))).isEmpty();
    assertThat(units.unit(ID).stage()).isEqualTo(Stage.RELAY_READY);
    assertThat(units.nextDeadlineMs()).isEqualTo(10_000); // only Restore validity is armed
  }

  @Test
  @Spec("REL-16")
  void theWaitRunsFromTheWriteOfTheReplyNotFromWhenTheUnitAskedForIt() {
    final List<TargetAction> out = new ArrayList<>();
    final TargetUnits units = restoredNotSent(out);
    // The lane was 2.5 s behind: the reply was written at 2,500 although the unit asked for it at 0.
    assertThat(units.handle(new TargetEvent.RelayReadySent(ID, 2_500), 2_600)).isEmpty();
    assertThat(units.handle(new TargetEvent.ClockAdvanced(3_499), 3_499)).isEmpty();
    final var cutover = units.handle(new TargetEvent.CutoverArrived(ID, 1, 0,
        RelayChecksum.of(List.of())), 3_499);
    assertThat(codes(cutover)).doesNotContain("cutover_timeout");
    assertThat(only(cutover, Action.RunCas.class)).hasSize(1);
    assertThat(units.unit(ID).stage()).isEqualTo(Stage.CUTOVER_RECEIVED);
  }

  @Test
  void aFrameReadLateDoesNotMoveTheClockPastACutoverStillQueuedBehindIt() {
    final List<TargetAction> out = new ArrayList<>();
    final TargetUnits units = restoredNotSent(out);
    units.handle(new TargetEvent.RelayReadySent(ID, 100), 100);
    units.handle(new TargetEvent.ClockAdvanced(1_000), 1_000); // the node caught up with 1,000
    // A direct message stamped 5,000 (read by a loop that was behind) is judged at the caught-up clock.
    assertThat(codes(units.handle(new TargetEvent.DirectMessageArrived(Fixtures.OBJECT, Fixtures.send(1)), 5_000)))
        .doesNotContain("cutover_timeout");
    final var cutover = units.handle(new TargetEvent.CutoverArrived(ID, 1, 0,
        RelayChecksum.of(List.of())), 5_001);
    assertThat(codes(cutover)).doesNotContain("cutover_timeout", "late_cutover");
    assertThat(units.unit(ID).stage()).isEqualTo(Stage.CUTOVER_RECEIVED);
  }

  @Test
  void aTickPastTheWaitFallsBackAndALaterCutoverOnlyWarns() {
    final List<TargetAction> out = new ArrayList<>();
    final TargetUnits units = restoredNotSent(out);
    units.handle(new TargetEvent.RelayReadySent(ID, 100), 100);
    assertThat(units.handle(new TargetEvent.ClockAdvanced(1_099), 1_099)).isEmpty();
    assertThat(codes(units.handle(new TargetEvent.ClockAdvanced(1_100), 1_100))).containsExactly("cutover_timeout");
    final var cutover = units.handle(new TargetEvent.CutoverArrived(ID, 1, 0,
        RelayChecksum.of(List.of())), 1_101);
    assertThat(codes(cutover)).containsExactly("late_cutover");
    assertThat(units.unit(ID).stage()).isEqualTo(Stage.CUTOVER_FALLBACK);
  }

  @Test
  void onlyTheFirstWriteOfTheReplyStartsTheWait() {
    final List<TargetAction> out = new ArrayList<>();
    final TargetUnits units = restoredNotSent(out);
    units.handle(new TargetEvent.RelayReadySent(ID, 100), 100);
    units.handle(new TargetEvent.RelayReadySent(ID, 900), 900); // a repeated reply (repeated Restore)
    assertThat(codes(units.handle(new TargetEvent.ClockAdvanced(1_100), 1_100))).containsExactly("cutover_timeout");
  }

  @Test
  void afterTheFallbackLateRelayIsAwaitedUntilItsCutoverArrives() {
    final List<TargetAction> out = new ArrayList<>();
    final TargetUnits units = restoredNotSent(out);
    units.handle(new TargetEvent.RelayReadySent(ID, 100), 100);
    final var fallback = units.handle(new TargetEvent.ClockAdvanced(1_100), 1_100);
    final TargetUnit unit = units.unit(ID);
    assertThat(unit.awaitsLateRelay()).as("not merged yet").isFalse();
    final long req = only(fallback, Action.RunCas.class).getFirst().requestId();
    units.handle(new TargetEvent.CasAnswered(ID, req, CasOutcome.APPLIED), 1_200);
    assertThat(unit.isTerminal()).isTrue();
    // The driver keeps the unit known while relay sent before the cutover may still arrive (it then runs behind
    // the merged backlog), however long after the fallback.
    assertThat(unit.awaitsLateRelay()).isTrue();
    final Message late = Fixtures.send(1);
    assertThat(units.handle(new TargetEvent.RelayArrived(ID, 1, late), 9_000))
        .containsExactly(new Action.DispatchLocal(late));
    assertThat(unit.awaitsLateRelay()).isTrue();
    assertThat(codes(units.handle(new TargetEvent.CutoverArrived(ID, 1, 1, RelayChecksum.of(List.of(late))),
        9_001))).containsExactly("late_cutover");
    assertThat(unit.awaitsLateRelay()).as("the cutover came after all of its relay").isFalse();
  }

  @Test
  void aCutoverInTimeAwaitsNoLateRelay() {
    final List<TargetAction> out = new ArrayList<>();
    final TargetUnits units = restoredNotSent(out);
    units.handle(new TargetEvent.RelayReadySent(ID, 100), 100);
    final var cas = units.handle(new TargetEvent.CutoverArrived(ID, 1, 0, RelayChecksum.of(List.of())), 200);
    final long req = only(cas, Action.RunCas.class).getFirst().requestId();
    units.handle(new TargetEvent.CasAnswered(ID, req, CasOutcome.APPLIED), 300);
    assertThat(units.unit(ID).isTerminal()).isTrue();
    assertThat(units.unit(ID).awaitsLateRelay()).isFalse();
  }
}
