package dev.spotkit.relocation;

import static dev.spotkit.relocation.Fixtures.ID;
import static dev.spotkit.relocation.Fixtures.OTHER;
import static dev.spotkit.relocation.Fixtures.PLAN;
import static dev.spotkit.relocation.Fixtures.chunk;
import static dev.spotkit.relocation.Fixtures.codes;
import static dev.spotkit.relocation.Fixtures.frames;
import static dev.spotkit.relocation.Fixtures.only;
import static dev.spotkit.relocation.Fixtures.readyTarget;
import static dev.spotkit.relocation.Fixtures.request;
import static dev.spotkit.relocation.Fixtures.restore;
import static dev.spotkit.relocation.Fixtures.send;
import static org.assertj.core.api.Assertions.assertThat;

import dev.spotkit.relocation.TargetEvent.CasOutcome;
import dev.spotkit.relocation.wire.RelocationIdentity;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TargetUnitTest {
  private static final byte[] PAYLOAD = "0123456789".getBytes(StandardCharsets.US_ASCII);

  private static TargetEvent.RelayArrived relay(final long conn, final Message m) {
    return new TargetEvent.RelayArrived(ID, conn, m);
  }

  private static TargetEvent.CutoverArrived cutover(final long conn, final List<Message> relayed) {
    return new TargetEvent.CutoverArrived(ID, conn, relayed.size(), RelayChecksum.of(relayed));
  }

  @Test
  @Spec("REL-15")
  void theTemporaryQueueComesFirstAndNoStoreWriteHappensBeforeRelayReady() {
    final List<TargetAction> out = new ArrayList<>();
    final TargetUnits units = readyTarget(List.of(send(1)), out);
    assertThat(out.get(0)).isInstanceOf(Action.RegisterTemporaryQueue.class);
    assertThat(out).noneMatch(a -> a instanceof Action.RunCas || a instanceof Action.ReReadStore);
    assertThat(out.get(out.size() - 2)).isInstanceOfSatisfying(Action.RunRestore.class,
        r -> assertThat(r.payload()).isEqualTo(PAYLOAD));
    assertThat(out.getLast()).isEqualTo(new Action.Send(1, new Frame.RelayReady(ID)));
    assertThat(units.unit(ID).stage()).isEqualTo(Stage.RELAY_READY);
  }

  @Test
  @Spec("REL-16")
  void noCasAndNoDispatchBeforeCutoverOrTheCutoverWait() {
    final List<TargetAction> out = new ArrayList<>();
    final TargetUnits units = readyTarget(List.of(), out);
    final List<TargetAction> before = new ArrayList<>();
    before.addAll(units.handle(new TargetEvent.DirectMessageArrived(Fixtures.OBJECT, send(5))));
    before.addAll(units.handle(new TargetEvent.ClockAdvanced(999)));
    assertThat(before).isEmpty();
    final var fallback = units.handle(new TargetEvent.ClockAdvanced(1_000));
    assertThat(codes(fallback)).containsExactly("cutover_timeout");
    assertThat(only(fallback, Action.RunCas.class)).containsExactly(new Action.RunCas(1, ID, PLAN.key(), "v1",
        PLAN.targetFence()));
    assertThat(units.unit(ID).stage()).isEqualTo(Stage.CUTOVER_FALLBACK);
    assertThat(fallback).noneMatch(a -> a instanceof Action.OpenDispatch || a instanceof Action.DispatchLocal);
  }

  @Test
  @Spec("REL-22")
  @Spec("MEM-31")
  void theBacklogMergesSavedWorkThenPreBoundaryRelayThenLaterWorkBeforeDispatchOpens() {
    final List<TargetAction> out = new ArrayList<>();
    final TargetUnits units = readyTarget(List.of(request(1), send(2)), out);
    units.handle(new TargetEvent.DirectMessageArrived(Fixtures.OBJECT, send(7)));
    units.handle(relay(1, send(3)));
    units.handle(relay(1, request(4)));
    final var cas = units.handle(cutover(1, List.of(send(3), request(4))));
    assertThat(units.unit(ID).stage()).isEqualTo(Stage.CUTOVER_RECEIVED);
    units.handle(new TargetEvent.DirectMessageArrived(Fixtures.OBJECT, send(8)));
    final long req = only(cas, Action.RunCas.class).getFirst().requestId();
    final var opened = units.handle(new TargetEvent.CasAnswered(ID, req, CasOutcome.APPLIED));
    assertThat(opened).containsExactly(
        new Action.MergeBacklog(List.of(request(1), send(2)), List.of(send(3), request(4)), List.of(send(7),
            send(8))),
        new Action.OpenDispatch(),
        new Action.SendToSessionOwner(new Frame.SessionRoute(ID, true)));
    assertThat(units.unit(ID).stage()).isEqualTo(Stage.TARGET_OPEN);
    assertThat(units.handle(new TargetEvent.DirectMessageArrived(Fixtures.OBJECT, send(9))))
        .containsExactly(new Action.DispatchLocal(send(9)));
  }

  @Test
  @Spec("REL-13")
  void aRetransmittedBatchWhollyReplacesThePartialSpanAndIsStagedOnce() {
    final List<TargetAction> out = new ArrayList<>();
    final TargetUnits units = readyTarget(List.of(), out);
    units.handle(relay(1, send(1)));
    units.handle(relay(1, send(2))); // Connection 1 breaks here: send(3) and the cutover are lost.
    assertThat(codes(units.handle(relay(2, send(1))))).containsExactly("relay_span_replaced");
    units.handle(relay(2, send(2)));
    units.handle(relay(2, send(3)));
    final List<Message> batch = List.of(send(1), send(2), send(3));
    final var cas = units.handle(cutover(2, batch));
    assertThat(units.unit(ID).stage()).isEqualTo(Stage.CUTOVER_RECEIVED);
    // A second retransmission (connection 3) after the accepted cutover is neither staged nor a new cutover.
    final List<TargetAction> again = new ArrayList<>(units.handle(relay(3, send(1))));
    again.addAll(units.handle(cutover(3, List.of(send(1)))));
    assertThat(codes(again)).containsExactly("duplicate_relay", "late_cutover");
    final long req = only(cas, Action.RunCas.class).getFirst().requestId();
    final Action.MergeBacklog merge = only(units.handle(new TargetEvent.CasAnswered(ID, req, CasOutcome.APPLIED)),
        Action.MergeBacklog.class).getFirst();
    assertThat(merge.preBoundary()).containsExactlyElementsOf(batch);
  }

  @Test
  void aMismatchedCutoverIsAnErrorAndTheTargetKeepsWaiting() {
    final List<TargetAction> out = new ArrayList<>();
    final TargetUnits units = readyTarget(List.of(), out);
    units.handle(relay(1, send(1)));
    final var bad = units.handle(new TargetEvent.CutoverArrived(ID, 1, 2, 0));
    assertThat(codes(bad)).containsExactly("cutover_mismatch");
    assertThat(only(bad, Action.Log.class).getFirst().level()).isEqualTo(Action.Level.ERROR);
    assertThat(units.unit(ID).stage()).isEqualTo(Stage.RELAY_READY);
  }

  @Test
  @Spec("REL-27")
  void aLateOrDuplicateCutoverOnlyWarns() {
    final List<TargetAction> out = new ArrayList<>();
    final TargetUnits units = readyTarget(List.of(), out);
    final var fallback = units.handle(new TargetEvent.ClockAdvanced(1_000));
    final long req = only(fallback, Action.RunCas.class).getFirst().requestId();
    final var late = units.handle(cutover(1, List.of()));
    assertThat(late).containsExactly(new Action.Log(Action.Level.WARNING, "late_cutover",
        "cutover in stage CutoverFallback changes nothing (unit clock 1000 ms; relay-ready reply sent at 0 ms)"));
    units.handle(new TargetEvent.CasAnswered(ID, req, CasOutcome.APPLIED));
    final var dup = units.handle(cutover(1, List.of()));
    assertThat(codes(dup)).containsExactly("late_cutover");
    assertThat(dup).hasSize(1);
    assertThat(units.unit(ID).stage()).isEqualTo(Stage.TARGET_OPEN);
  }

  @Test
  @Spec("REL-19")
  void transientAndIndeterminateAnswersRetryTheSameCasAfterAReReadAndConvergeWhenAlreadyOwner() {
    final List<TargetAction> out = new ArrayList<>();
    final TargetUnits units = readyTarget(List.of(), out);
    final Action.RunCas first = only(units.handle(cutover(1, List.of())), Action.RunCas.class).getFirst();
    final var a1 = units.handle(new TargetEvent.CasAnswered(ID, first.requestId(), CasOutcome.TRANSIENT));
    assertThat(units.unit(ID).stage()).isEqualTo(Stage.STORE_RETRY);
    final Action.ReReadStore read = only(a1, Action.ReReadStore.class).getFirst(); // Backoff 0: re-read at once.
    final var a2 = units.handle(new TargetEvent.StoreReadAnswered(ID, read.requestId(), "owner:node-a",
        "v1"));
    final Action.RunCas second = only(a2, Action.RunCas.class).getFirst();
    assertThat(second).isEqualTo(new Action.RunCas(second.requestId(), ID, first.key(), first.expectedVersion(),
        first.fence()));
    final var a3 = units.handle(new TargetEvent.CasIndeterminate(ID, second.requestId()));
    final Action.ReReadStore read2 = only(a3, Action.ReReadStore.class).getFirst();
    final var a4 = units.handle(new TargetEvent.StoreReadAnswered(ID, read2.requestId(), PLAN.targetFence(),
        "v2")); // The indeterminate CAS had applied.
    assertThat(a4).first().isInstanceOf(Action.MergeBacklog.class);
    assertThat(units.unit(ID).stage()).isEqualTo(Stage.TARGET_OPEN);
  }

  @Test
  @Spec("REL-18")
  void aConflictWithAnotherOwnerEndsAtOnceWithoutRunningStagedWork() {
    final List<TargetAction> out = new ArrayList<>();
    final TargetUnits units = readyTarget(List.of(send(1)), out);
    units.handle(relay(1, send(2)));
    final Action.RunCas cas = only(units.handle(cutover(1, List.of(send(2)))), Action.RunCas.class).getFirst();
    units.handle(new TargetEvent.DirectMessageArrived(Fixtures.OBJECT, send(3)));
    final var conflict = units.handle(new TargetEvent.CasAnswered(ID, cas.requestId(),
        CasOutcome.CONFLICT));
    final Action.ReReadStore read = only(conflict, Action.ReReadStore.class).getFirst();
    final var stale = units.handle(new TargetEvent.StoreReadAnswered(ID, read.requestId(), "owner:node-c",
        "v2"));
    assertThat(codes(stale)).containsExactly("relocation_stale");
    assertThat(only(stale, Action.RemoveStaging.class)).containsExactly(new Action.RemoveStaging(Action.Removal.STALE, null));
    assertThat(only(stale, Action.FailMessage.class)).extracting(Action.FailMessage::message)
        .containsExactly(send(1), send(2), send(3));
    assertThat(stale).noneMatch(a -> a instanceof Action.DispatchLocal || a instanceof Action.OpenDispatch
        || a instanceof Action.MergeBacklog);
    assertThat(units.unit(ID).stage()).isEqualTo(Stage.TARGET_REMOVED);
    assertThat(units.handle(new TargetEvent.DirectMessageArrived(Fixtures.OBJECT, send(4))))
        .containsExactly(new Action.FailMessage(send(4), "Unavailable"));
  }

  @Test
  @Spec("REL-20")
  @Spec("REL-21")
  void restoreValidityExpiryRemovesStagingAndLateAnswersReactivateNothing() {
    final List<TargetAction> out = new ArrayList<>();
    final TargetUnits units = readyTarget(List.of(), out);
    final Action.RunCas cas = only(units.handle(cutover(1, List.of())), Action.RunCas.class).getFirst();
    units.handle(new TargetEvent.CasIndeterminate(ID, cas.requestId()));
    final var expired = units.handle(new TargetEvent.ClockAdvanced(10_000));
    assertThat(expired.getFirst()).isEqualTo(new Action.Log(Action.Level.ERROR, "location_update_failed",
        "owner not confirmed by Restore validity 10000 ms"));
    assertThat(expired).contains(new Action.RemoveStaging(Action.Removal.LOCATION_UPDATE_FAILED, null));
    assertThat(expired).noneMatch(a -> a instanceof Action.SendToSessionOwner || a instanceof Action.OpenDispatch);
    assertThat(units.unit(ID).stage()).isEqualTo(Stage.TARGET_REMOVED);
    final var late = units.handle(new TargetEvent.CasAnswered(ID, cas.requestId(), CasOutcome.APPLIED));
    assertThat(codes(late)).containsExactly("late_store_answer");
    assertThat(late).hasSize(1);
    assertThat(units.unit(ID).stage()).isEqualTo(Stage.TARGET_REMOVED);
    // Removed after its relay-ready reply: a repeated Restore gets no failure (that could restore the source).
    assertThat(frames(units.handle(restore(ID, "0123456789".getBytes(StandardCharsets.US_ASCII), 3, 2, 10_000))))
        .isEmpty();
  }

  @Test
  @Spec("REL-08")
  void framesOfAnotherIdentityAreNeverLinkedToTheAssembly() {
    final TargetUnits units = new TargetUnits(Fixtures.SETTINGS, 0);
    units.handle(restore(ID, PAYLOAD, 3, 1, 10_000));
    final var foreign = units.handle(chunk(OTHER, 1, 0, "XXXX".getBytes()));
    assertThat(codes(foreign)).containsExactly("unknown_relocation");
    final var wrongConnection = units.handle(chunk(ID, 9, 0, "XXXX".getBytes()));
    assertThat(codes(wrongConnection)).containsExactly("stray_chunk");
    units.handle(chunk(ID, 1, 0, "0123".getBytes()));
    units.handle(chunk(ID, 1, 1, "4567".getBytes()));
    final var done = units.handle(chunk(ID, 1, 2, "89".getBytes()));
    assertThat(only(done, Action.RunRestore.class)).singleElement()
        .satisfies(r -> assertThat(r.payload()).isEqualTo(PAYLOAD));
  }

  @Test
  @Spec("REL-09")
  void theSameRestoreReusesProgressAndADifferentManifestIsAConflictFailure() {
    final TargetUnits units = new TargetUnits(Fixtures.SETTINGS, 0);
    assertThat(units.handle(restore(ID, PAYLOAD, 3, 1, 10_000))).containsExactly(
        new Action.RegisterTemporaryQueue());
    units.handle(chunk(ID, 1, 0, "0123".getBytes()));
    assertThat(units.handle(restore(ID, PAYLOAD, 3, 2, 10_000))).isEmpty(); // No new queue or assembly.
    units.handle(chunk(ID, 2, 1, "4567".getBytes()));
    final var conflict = units.handle(restore(ID, "0123456789AB".getBytes(), 3, 2, 10_000));
    assertThat(frames(conflict)).containsExactly(new Frame.Failed(ID, FailureCode.MANIFEST_CONFLICT));
    assertThat(only(conflict, Action.RemoveStaging.class)).hasSize(1);
    assertThat(conflict).noneMatch(a -> a instanceof Action.RunRestore || a instanceof Action.RegisterTemporaryQueue);
    assertThat(units.unit(ID).stage()).isEqualTo(Stage.TARGET_REMOVED);
  }

  @Test
  @Spec("REL-10")
  @Spec("LOC-24")
  void aChecksumMismatchFailsExplicitlyWithoutRestoreOrCas() {
    final TargetUnits units = new TargetUnits(Fixtures.SETTINGS, 0);
    final List<TargetAction> all = new ArrayList<>(units.handle(restore(ID, PAYLOAD, 3, 1, 10_000)));
    all.addAll(units.handle(chunk(ID, 1, 0, "0123".getBytes())));
    all.addAll(units.handle(chunk(ID, 1, 1, "4567".getBytes())));
    all.addAll(units.handle(chunk(ID, 1, 2, "8!".getBytes())));
    assertThat(frames(all)).containsExactly(new Frame.Failed(ID, FailureCode.CHECKSUM_MISMATCH));
    assertThat(all).noneMatch(a -> a instanceof Action.RunRestore || a instanceof Action.RunCas);
    assertThat(units.unit(ID).stage()).isEqualTo(Stage.TARGET_REMOVED);
    assertThat(units.handle(chunk(ID, 1, 2, "89".getBytes()))).extracting(a ->
        ((Action.Log) a).code()).containsExactly("stray_chunk"); // No retry, no repair.
    // The failure reply may be lost with its connection: the same Restore on a new connection gets it again.
    assertThat(frames(units.handle(restore(ID, PAYLOAD, 3, 2, 10_000))))
        .containsExactly(new Frame.Failed(ID, FailureCode.CHECKSUM_MISMATCH));
  }

  @Test
  @Spec("REL-09")
  void aChunkRestatedWithOtherBytesFailsExplicitlyAndNeverRestores() {
    final TargetUnits units = new TargetUnits(Fixtures.SETTINGS, 0);
    final List<TargetAction> all = new ArrayList<>(units.handle(restore(ID, PAYLOAD, 3, 1, 10_000)));
    all.addAll(units.handle(chunk(ID, 1, 0, "0123".getBytes())));
    assertThat(units.handle(chunk(ID, 1, 0, "0123".getBytes()))).isEmpty(); // the same bytes again: no change
    all.addAll(units.handle(chunk(ID, 1, 0, "9999".getBytes())));
    assertThat(frames(all)).containsExactly(new Frame.Failed(ID, FailureCode.MANIFEST_CONFLICT));
    assertThat(all).noneMatch(a -> a instanceof Action.RunRestore || a instanceof Action.RunCas);
    assertThat(units.unit(ID).stage()).isEqualTo(Stage.TARGET_REMOVED);
  }

  @Test
  @Spec("REL-32")
  void aNewIdentityAbortsAnUnfinishedPrepareAndTheLaterAttemptWins() {
    final TargetUnits units = new TargetUnits(Fixtures.SETTINGS, 0);
    units.handle(restore(ID, PAYLOAD, 3, 1, 10_000));
    units.handle(chunk(ID, 1, 0, "0123".getBytes()));
    final var newer = units.handle(restore(OTHER, PAYLOAD, 1, 1, 10_000));
    assertThat(frames(newer)).containsExactly(new Frame.Failed(ID, FailureCode.SUPERSEDED));
    assertThat(newer).containsSubsequence(new Action.RemoveStaging(Action.Removal.EXPLICIT_FAILURE,
        FailureCode.SUPERSEDED), new Action.RegisterTemporaryQueue());
    assertThat(units.unit(ID).stage()).isEqualTo(Stage.TARGET_REMOVED);
    assertThat(units.unitOf(Fixtures.OBJECT).identity()).isEqualTo(OTHER);
    assertThat(codes(units.handle(chunk(ID, 1, 1, "4567".getBytes()))))
        .containsExactly("stray_chunk"); // The old identity's late chunks are not linked.
  }

  /**
   * Spec 002 section 8.1: targetAttemptGeneration is compared for equality only, never ordered. An attempt with a
   * smaller number than the one preparing, arriving later, is simply another identity: it wins like any other.
   */
  @Test
  @Spec("REL-32")
  void aLaterAttemptWinsEvenWithASmallerTargetAttemptGeneration() {
    final TargetUnits units = new TargetUnits(Fixtures.SETTINGS, 0);
    assertThat(OTHER.targetAttemptGeneration()).isGreaterThan(ID.targetAttemptGeneration());
    units.handle(restore(OTHER, PAYLOAD, 3, 1, 10_000));
    final var later = units.handle(restore(ID, PAYLOAD, 3, 1, 10_000));
    assertThat(frames(later)).containsExactly(new Frame.Failed(OTHER, FailureCode.SUPERSEDED));
    assertThat(later).contains(new Action.RegisterTemporaryQueue());
    assertThat(units.unitOf(Fixtures.OBJECT).identity()).isEqualTo(ID);
  }

  /** A target whose Restore (valid 10 s from its command 40) finished with {@code carriedMs} in its payload. */
  private static TargetUnits restoredWithCarriedDeadline(final long carriedMs, final List<TargetAction> out) {
    final TargetUnits units = new TargetUnits(Fixtures.SETTINGS, 0);
    out.addAll(units.handle(restore(ID, PAYLOAD, 3, 1, 10_000)));
    out.addAll(units.handle(chunk(ID, 1, 0, "0123".getBytes(StandardCharsets.US_ASCII))));
    out.addAll(units.handle(chunk(ID, 1, 1, "4567".getBytes(StandardCharsets.US_ASCII))));
    out.addAll(units.handle(chunk(ID, 1, 2, "89".getBytes(StandardCharsets.US_ASCII))));
    out.addAll(units.handle(new TargetEvent.RestoreFinished(ID, List.of(), carriedMs)));
    out.addAll(units.handle(new TargetEvent.RelayReadySent(ID, 0)));
    return units;
  }

  @Test
  void aRestoreCarryingAShortDeadlineEndsAtThatDeadlineNotAtTheDefaultValidity() {
    final List<TargetAction> out = new ArrayList<>();
    final TargetUnits units = restoredWithCarriedDeadline(300, out);
    assertThat(frames(out)).containsExactly(new Frame.RelayReady(ID));
    assertThat(units.unit(ID).nextDeadlineMs()).isEqualTo(300);
    final Action.RunCas cas = only(units.handle(cutover(1, List.of())), Action.RunCas.class).getFirst();
    units.handle(new TargetEvent.CasIndeterminate(ID, cas.requestId()));
    assertThat(units.handle(new TargetEvent.ClockAdvanced(299))).noneMatch(Action.RemoveStaging.class::isInstance);
    assertThat(units.unit(ID).stage()).isEqualTo(Stage.STORE_RETRY);
    final var expired = units.handle(new TargetEvent.ClockAdvanced(300));
    assertThat(expired.getFirst()).isEqualTo(new Action.Log(Action.Level.ERROR, "location_update_failed",
        "owner not confirmed by Restore validity 300 ms"));
    assertThat(expired).contains(new Action.RemoveStaging(Action.Removal.LOCATION_UPDATE_FAILED, null));
    assertThat(units.unit(ID).stage()).isEqualTo(Stage.TARGET_REMOVED);
  }

  @Test
  void aCarriedDeadlineNeverExtendsValidityAndOneAlreadyPassedFailsBeforeRelayReady() {
    final List<TargetAction> out = new ArrayList<>();
    final TargetUnits longer = restoredWithCarriedDeadline(60_000, out);
    final Action.RunCas cas = only(longer.handle(cutover(1, List.of())), Action.RunCas.class).getFirst();
    longer.handle(new TargetEvent.CasIndeterminate(ID, cas.requestId()));
    assertThat(longer.unit(ID).nextDeadlineMs()).isEqualTo(10_000); // the validity of its command 40
    final TargetUnits passed = new TargetUnits(Fixtures.SETTINGS, 0);
    passed.handle(restore(ID, new byte[] {7}, 1, 1, 10_000));
    passed.handle(chunk(ID, 1, 0, new byte[] {7}));
    passed.handle(new TargetEvent.ClockAdvanced(400));
    assertThat(frames(passed.handle(new TargetEvent.RestoreFinished(ID, List.of(), 300))))
        .containsExactly(new Frame.Failed(ID, FailureCode.DEADLINE));
    assertThat(passed.unit(ID).stage()).isEqualTo(Stage.TARGET_REMOVED);
  }

  @Test
  void restoreFailureAndRestoreDeadlineFailExplicitlyBeforeRelayReady() {
    final TargetUnits units = new TargetUnits(Fixtures.SETTINGS, 0);
    units.handle(restore(ID, new byte[] {7}, 1, 1, 500));
    units.handle(chunk(ID, 1, 0, new byte[] {7}));
    assertThat(frames(units.handle(new TargetEvent.RestoreFailed(ID, "factory threw"))))
        .containsExactly(new Frame.Failed(ID, FailureCode.RESTORE_FAILED));
    final TargetUnits slow = new TargetUnits(Fixtures.SETTINGS, 0);
    slow.handle(restore(OTHER, PAYLOAD, 3, 1, 500));
    assertThat(frames(slow.handle(new TargetEvent.ClockAdvanced(500))))
        .containsExactly(new Frame.Failed(OTHER, FailureCode.DEADLINE));
  }
  @Test
  void theRestoreValidityLogLineNamesTheValidityNotAClockReading() {
    final TargetUnits units = new TargetUnits(Fixtures.SETTINGS, 1_000_000);
    units.handle(restore(ID, PAYLOAD, 3, 1, 1_000_500)); // arrives at 1 000 000 ms, valid 500 ms
    final var late = units.handle(new TargetEvent.ClockAdvanced(1_000_500));
    assertThat(frames(late)).containsExactly(new Frame.Failed(ID, FailureCode.DEADLINE));
    assertThat(late).filteredOn(Action.Log.class::isInstance).map(a -> ((Action.Log) a).detail())
        .anyMatch(d -> d.contains("Restore validity 500 ms passed")).noneMatch(d -> d.contains("1000500"));
  }

  @Test
  void aRefusedRestoreSendsTheDriversFailureCode() {
    final TargetUnits units = new TargetUnits(Fixtures.SETTINGS, 0);
    units.handle(restore(ID, new byte[] {7}, 1, 1, 500));
    units.handle(chunk(ID, 1, 0, new byte[] {7}));
    assertThat(frames(units.handle(new TargetEvent.RestoreFailed(ID, "the owner fence differs",
        FailureCode.TARGET_UNAVAILABLE)))).containsExactly(new Frame.Failed(ID, FailureCode.TARGET_UNAVAILABLE));
  }


  @Test
  @Spec("REL-06")
  void oneChunkAndManyChunksGiveTheSameTransitionFailureAndFollowResults() {
    for (final boolean corrupt : new boolean[] {false, true}) {
      final List<List<Stage>> stages = new ArrayList<>();
      final List<List<Action>> tails = new ArrayList<>();
      for (final int chunk : new int[] {10, 3}) {
        final RelocationSettings s = new RelocationSettings(RelocationSettings.DEFAULT_CHUNK_LIMIT, chunk, 1_000,
            30_000, 0);
        final SourceUnit src = new SourceUnit(ID, Fixtures.OBJECT, 1, s, InFlightBudget.peerDefault(), false, 0);
        final TargetUnits dst = new TargetUnits(s, 0);
        final List<Stage> seen = new ArrayList<>();
        src.handle(new SourceEvent.StartRequested());
        final List<Action> toTarget = new ArrayList<>(src.handle(new SourceEvent.PayloadCaptured(PAYLOAD)));
        final List<Action> back = new ArrayList<>();
        for (final Frame f : frames(toTarget)) {
          back.addAll(switch (f) {
            case Frame.Prepare p -> dst.handle(new TargetEvent.RestoreRequested(Fixtures.prepare(ID,
                p.totalLength(), p.chunkCount(), p.crc32c()), Fixtures.OBJECT, 1, 10_000, PLAN, false));
            case Frame.StateChunk c -> dst.handle(chunk(ID, 1, c.ordinal(),
                corrupt && c.ordinal() == 0 ? new byte[] {9} : c.bytes()));
            default -> List.of();
          });
        }
        if (!only(back, Action.RunRestore.class).isEmpty()) {
          back.addAll(dst.handle(new TargetEvent.RestoreFinished(ID, List.of())));
        }
        seen.add(dst.unit(ID).stage());
        final List<Action> tail = new ArrayList<>();
        for (final Frame f : frames(back)) {
          tail.addAll(switch (f) {
            case Frame.RelayReady r -> src.handle(new SourceEvent.RelayReadyArrived(ID));
            case Frame.Failed x -> src.handle(new SourceEvent.FailureArrived(ID, x.code()));
            default -> List.of();
          });
        }
        tail.addAll(src.handle(new SourceEvent.MessageArrived(send(1))));
        seen.add(src.stage());
        stages.add(seen);
        tails.add(tail.stream().filter(a -> !(a instanceof Action.RestoreSourceQueue)).toList());
      }
      assertThat(stages.get(0)).isEqualTo(stages.get(1));
      assertThat(tails.get(0)).isEqualTo(tails.get(1));
    }
  }

  /**
   * MEM-33: the same Restore again (same RelocationId, target attempt and owner generation: the same identity), on a
   * new connection, starts nothing over: no second temporary queue, no new assembly. The chunk of the first
   * connection still counts, and the work the temporary queue held before the repeat is merged after the commit.
   */
  @Test
  @Spec("MEM-33")
  void aDuplicateRestoreKeepsTheTemporaryQueueAndTheAssemblyProgress() {
    final TargetUnits units = new TargetUnits(Fixtures.SETTINGS, 0);
    assertThat(units.handle(restore(ID, PAYLOAD, 3, 1, 10_000))).containsExactly(new Action.RegisterTemporaryQueue());
    assertThat(units.handle(new TargetEvent.DirectMessageArrived(Fixtures.OBJECT, send(7)))).isEmpty();
    units.handle(chunk(ID, 1, 0, "0123".getBytes()));
    assertThat(units.handle(restore(ID, PAYLOAD, 3, 2, 10_000))).isEmpty();
    units.handle(chunk(ID, 2, 1, "4567".getBytes()));
    final var done = units.handle(chunk(ID, 2, 2, "89".getBytes()));
    assertThat(only(done, Action.RunRestore.class)).singleElement()
        .satisfies(r -> assertThat(r.payload()).isEqualTo(PAYLOAD)); // ordinal 0 came on connection 1
    assertThat(units.handle(new TargetEvent.RestoreFinished(ID, List.of())))
        .containsExactly(new Action.Send(2, new Frame.RelayReady(ID)));
    units.handle(new TargetEvent.RelayReadySent(ID, 0));
    final Action.RunCas cas = only(units.handle(cutover(2, List.of())), Action.RunCas.class).getFirst();
    final var opened = units.handle(new TargetEvent.CasAnswered(ID, cas.requestId(), CasOutcome.APPLIED));
    assertThat(only(opened, Action.MergeBacklog.class)).containsExactly(
        new Action.MergeBacklog(List.of(), List.of(), List.of(send(7))));
  }

  /**
   * MEM-32, LOC-19: after the target registered its temporary queue the source still takes the object's messages
   * (into its ingress hold) and the target only queues what reaches it. An explicit failure before the relay-ready
   * reply is accepted discards the temporary queue without running any of it, and the source gets back its original
   * payload and hold. Past that point a failure restores nothing.
   */
  @Test
  @Spec("MEM-32")
  @Spec("LOC-19")
  void onlyAnAbortBeforeRelayReadyDiscardsTheTemporaryQueueUnrunAndKeepsTheSourceOriginal() {
    final SourceUnit source = new SourceUnit(ID, Fixtures.OBJECT, 1, Fixtures.SETTINGS, InFlightBudget.peerDefault(),
        false, 0);
    source.handle(new SourceEvent.StartRequested());
    source.handle(new SourceEvent.PayloadCaptured(PAYLOAD));
    final TargetUnits target = new TargetUnits(Fixtures.SETTINGS, 0);
    final List<TargetAction> all = new ArrayList<>(target.handle(restore(ID, PAYLOAD, 3, 1, 10_000)));
    assertThat(all).containsExactly(new Action.RegisterTemporaryQueue());
    assertThat(source.handle(new SourceEvent.MessageArrived(send(1)))).isEmpty(); // held, not refused
    all.addAll(target.handle(new TargetEvent.DirectMessageArrived(Fixtures.OBJECT, request(2))));
    all.addAll(target.handle(chunk(ID, 1, 0, "0123".getBytes())));
    all.addAll(target.handle(chunk(ID, 1, 1, "4567".getBytes())));
    all.addAll(target.handle(chunk(ID, 1, 2, "8!".getBytes()))); // checksum mismatch: an explicit failure
    assertThat(frames(all)).containsExactly(new Frame.Failed(ID, FailureCode.CHECKSUM_MISMATCH));
    assertThat(all).contains(new Action.RemoveStaging(Action.Removal.EXPLICIT_FAILURE,
        FailureCode.CHECKSUM_MISMATCH), new Action.FailMessage(request(2), "Unavailable"));
    assertThat(all).noneMatch(a -> a instanceof Action.DispatchLocal || a instanceof Action.MergeBacklog
        || a instanceof Action.OpenDispatch || a instanceof Action.RunRestore || a instanceof Action.RunCas);
    final var restored = source.handle(new SourceEvent.FailureArrived(ID, FailureCode.CHECKSUM_MISMATCH));
    assertThat(restored.getFirst()).isInstanceOfSatisfying(Action.RestoreSourceQueue.class, r -> {
      assertThat(r.payload()).isEqualTo(PAYLOAD);
      assertThat(r.held()).containsExactly(send(1));
    });
    assertThat(restored.getLast()).isInstanceOf(Action.ReopenDispatch.class);

    final SourceUnit past = new SourceUnit(ID, Fixtures.OBJECT, 1, Fixtures.SETTINGS, InFlightBudget.peerDefault(),
        false, 0);
    past.handle(new SourceEvent.StartRequested());
    past.handle(new SourceEvent.PayloadCaptured(PAYLOAD));
    past.handle(new SourceEvent.RelayReadyArrived(ID));
    assertThat(past.handle(new SourceEvent.FailureArrived(ID, FailureCode.RESTORE_FAILED)))
        .noneMatch(a -> a instanceof Action.RestoreSourceQueue || a instanceof Action.ReopenDispatch);
    assertThat(past.stage()).isEqualTo(Stage.FOLLOW_ONLY);
  }

  /**
   * LOC-18: once a later attempt superseded it, the previous target attempt neither runs a CAS (its relay and
   * cutover change nothing) nor takes the object's new messages: those go to the current attempt's temporary queue.
   */
  @Test
  @Spec("LOC-18")
  void aPreviousTargetAttemptCanNeitherChangeTheOwnerNorReceiveNewMessages() {
    final TargetUnits units = new TargetUnits(Fixtures.SETTINGS, 0);
    units.handle(restore(ID, PAYLOAD, 3, 1, 10_000));
    units.handle(chunk(ID, 1, 0, "0123".getBytes()));
    units.handle(restore(OTHER, PAYLOAD, 3, 2, 10_000)); // the later attempt wins
    final List<TargetAction> old = new ArrayList<>();
    old.addAll(units.handle(chunk(ID, 1, 1, "4567".getBytes())));
    old.addAll(units.handle(chunk(ID, 1, 2, "89".getBytes())));
    old.addAll(units.handle(new TargetEvent.RestoreFinished(ID, List.of())));
    old.addAll(units.handle(new TargetEvent.RelayReadySent(ID, 0)));
    old.addAll(units.handle(relay(1, send(1))));
    old.addAll(units.handle(cutover(1, List.of(send(1)))));
    assertThat(old).noneMatch(a -> a instanceof Action.RunCas || a instanceof Action.RunRestore
        || a instanceof Action.MergeBacklog || a instanceof Action.OpenDispatch || a instanceof Action.DispatchLocal);
    assertThat(only(old, Action.FailMessage.class)).containsExactly(new Action.FailMessage(send(1), "Unavailable"));
    assertThat(units.unit(ID).stage()).isEqualTo(Stage.TARGET_REMOVED);
    assertThat(units.handle(new TargetEvent.DirectMessageArrived(Fixtures.OBJECT, send(2)))).isEmpty();
    final RelocationIdentity current = OTHER;
    units.handle(chunk(current, 2, 0, "0123".getBytes()));
    units.handle(chunk(current, 2, 1, "4567".getBytes()));
    units.handle(chunk(current, 2, 2, "89".getBytes()));
    units.handle(new TargetEvent.RestoreFinished(current, List.of()));
    units.handle(new TargetEvent.RelayReadySent(current, 0));
    final Action.RunCas cas = only(units.handle(new TargetEvent.CutoverArrived(current, 2, 0,
        RelayChecksum.of(List.of()))), Action.RunCas.class).getFirst();
    assertThat(cas.identity()).isEqualTo(current);
    assertThat(only(units.handle(new TargetEvent.CasAnswered(current, cas.requestId(), CasOutcome.APPLIED)),
        Action.MergeBacklog.class)).containsExactly(new Action.MergeBacklog(List.of(), List.of(), List.of(send(2))));
  }
}
