package dev.spotkit.relocation;

import static dev.spotkit.relocation.Fixtures.ID;
import static dev.spotkit.relocation.Fixtures.OBJECT;
import static dev.spotkit.relocation.Fixtures.SETTINGS;
import static dev.spotkit.relocation.Fixtures.frames;
import static dev.spotkit.relocation.Fixtures.only;
import static dev.spotkit.relocation.Fixtures.send;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SourceUnitTest {
  private final byte[] payload = "0123456789".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

  private SourceUnit paused(final InFlightBudget budget, final boolean bound, final List<SourceAction> sink) {
    final SourceUnit unit = new SourceUnit(ID, OBJECT, 1, SETTINGS, budget, bound, 0);
    sink.addAll(unit.handle(new SourceEvent.StartRequested()));
    sink.addAll(unit.handle(new SourceEvent.PayloadCaptured(payload)));
    return unit;
  }

  @Test
  void sealCapturesThenSendsManifestAndChunksOnTheSameConnection() {
    final List<SourceAction> out = new ArrayList<>();
    final SourceUnit unit = paused(InFlightBudget.peerDefault(), false, out);
    assertThat(out.get(0)).isInstanceOf(Action.PauseDispatch.class);
    assertThat(out.get(1)).isInstanceOf(Action.CapturePayload.class);
    assertThat(frames(out)).hasSize(4).first().isEqualTo(new Frame.Prepare(ID, OBJECT, 10, 3,
        RelayChecksum.ofBytes(payload)));
    assertThat(only(out, Action.Send.class)).allMatch(s -> s.connectionId() == 1);
    assertThat(unit.stage()).isEqualTo(Stage.SOURCE_PAUSED);
  }

  /**
   * The chunks are ranges of the captured payload itself, not copies (spec 001 section 4.2: the in-memory payload is
   * the source of truth), and the manifest carries the CRC-32C given with the payload, not one computed again.
   */
  @Test
  void chunksAreRangesOfTheCapturedPayloadAndTheGivenChecksumIsDeclared() {
    final SourceUnit unit = new SourceUnit(ID, OBJECT, 1, SETTINGS, InFlightBudget.peerDefault(), false, 0);
    unit.handle(new SourceEvent.StartRequested());
    final List<SourceAction> out = unit.handle(new SourceEvent.PayloadCaptured(payload, 0x1234_5678L));
    final List<Frame> sent = frames(out);
    assertThat(sent.get(0)).isEqualTo(new Frame.Prepare(ID, OBJECT, 10, 3, 0x1234_5678L));
    final List<Frame.StateChunk> chunks = sent.stream().skip(1).map(Frame.StateChunk.class::cast).toList();
    assertThat(chunks).allSatisfy(c -> assertThat(c.stream()).isSameAs(payload));
    assertThat(chunks).extracting(Frame.StateChunk::offset).containsExactly(0, 4, 8);
    assertThat(chunks).extracting(Frame.StateChunk::length).containsExactly(4, 4, 2);
    assertThat(chunks.get(2).bytes()).containsExactly('8', '9');
    assertThat(chunks.get(2)).isEqualTo(new Frame.StateChunk(ID, 2, new byte[] {'8', '9'}));
    assertThatThrownBy(() -> new SourceEvent.PayloadCaptured(payload, 1L << 32))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("crc32c 4294967296 is outside 0..4294967295");
    assertThatThrownBy(() -> new Frame.StateChunk(ID, 0, payload, 8, 3))
        .isInstanceOf(IndexOutOfBoundsException.class);
  }

  @Test
  @Spec("REL-03")
  @Spec("REL-04")
  void nothingIsRelayedBeforeRelayReadyAndSavedWorkIsNeverRelayed() {
    final List<SourceAction> out = new ArrayList<>();
    final SourceUnit unit = paused(InFlightBudget.peerDefault(), false, out);
    for (int i = 1; i <= 3; i++) {
      out.addAll(unit.handle(new SourceEvent.MessageArrived(send(i))));
    }
    out.addAll(unit.handle(new SourceEvent.ClockAdvanced(5_000)));
    assertThat(frames(out)).noneMatch(f -> f instanceof Frame.Relay || f instanceof Frame.Cutover);
    final var after = unit.handle(new SourceEvent.RelayReadyArrived(ID));
    // Only the post-capture ingress hold is relayed; the payload's saved work went only in the chunks.
    assertThat(frames(after)).containsExactly(new Frame.Relay(ID, send(1)), new Frame.Relay(ID, send(2)),
        new Frame.Relay(ID, send(3)), new Frame.Cutover(ID, 3, RelayChecksum.of(List.of(send(1), send(2),
            send(3)))));
  }

  @Test
  @Spec("REL-02")
  void cutoverDoesNotWaitForTheMailboxAndLaterWorkFollows() {
    final List<SourceAction> out = new ArrayList<>();
    final SourceUnit unit = paused(InFlightBudget.peerDefault(), false, out);
    unit.handle(new SourceEvent.MessageArrived(send(1)));
    final var boundary = unit.handle(new SourceEvent.RelayReadyArrived(ID));
    assertThat(frames(boundary)).last().isInstanceOf(Frame.Cutover.class);
    assertThat(unit.stage()).isEqualTo(Stage.FOLLOW_ONLY);
    // Messages keep arriving at the old address and are relayed to the target without any drain or wait.
    assertThat(frames(unit.handle(new SourceEvent.MessageArrived(send(2)))))
        .containsExactly(new Frame.Follow(ID, OBJECT, send(2)));
    assertThat(only(unit.handle(new SourceEvent.MessageArrived(send(3))), Action.DispatchLocal.class)).isEmpty();
  }

  @Test
  @Spec("REL-30")
  @Spec("REL-31")
  @Spec("LOC-24")
  void onlyAnExplicitFailureBeforeRelayReadyRestoresTheSourceAndTheAbortFollowsTheRestoration() {
    final List<SourceAction> out = new ArrayList<>();
    final SourceUnit unit = paused(InFlightBudget.peerDefault(), true, out);
    unit.handle(new SourceEvent.MessageArrived(send(1)));
    final var failed = unit.handle(new SourceEvent.FailureArrived(ID, FailureCode.CHECKSUM_MISMATCH));
    assertThat(failed).hasSize(3);
    assertThat(failed.get(0)).isInstanceOfSatisfying(Action.RestoreSourceQueue.class, r -> {
      assertThat(r.payload()).isEqualTo(payload);
      assertThat(r.held()).containsExactly(send(1));
    });
    assertThat(failed.get(1)).isEqualTo(new Action.SendToSessionOwner(new Frame.SessionRoute(ID, false)));
    assertThat(failed.get(2)).isInstanceOf(Action.ReopenDispatch.class);
    assertThat(unit.stage()).isEqualTo(Stage.SOURCE_RUNNING);
    assertThat(only(unit.handle(new SourceEvent.MessageArrived(send(2))), Action.DispatchLocal.class)).hasSize(1);
    assertThatThrownBy(() -> unit.handle(new SourceEvent.StartRequested())).hasMessage("SourceUnit " + ID
        + " was already started; a unit is single-use: create a new SourceUnit with a new targetAttemptGeneration"
        + " for another attempt");

    final SourceUnit past = paused(InFlightBudget.peerDefault(), true, new ArrayList<>());
    past.handle(new SourceEvent.RelayReadyArrived(ID));
    final var late = past.handle(new SourceEvent.FailureArrived(ID, FailureCode.RESTORE_FAILED));
    assertThat(late).containsExactly(new Action.Log(Action.Level.WARNING, "late_failure",
        "failure RESTORE_FAILED in stage FollowOnly changes nothing"));
    assertThat(past.stage()).isEqualTo(Stage.FOLLOW_ONLY);
  }

  @Test
  @Spec("REL-14")
  void theRetransmissionWindowResendsTheWholeBatchThenReleasesThePayloadExactlyOnce() {
    final List<SourceAction> out = new ArrayList<>();
    final SourceUnit unit = paused(InFlightBudget.peerDefault(), false, out);
    unit.handle(new SourceEvent.MessageArrived(send(1)));
    unit.handle(new SourceEvent.MessageArrived(send(2)));
    unit.handle(new SourceEvent.ClockAdvanced(100));
    unit.handle(new SourceEvent.RelayReadyArrived(ID));
    assertThat(unit.nextDeadlineMs()).isEqualTo(1_100);
    unit.handle(new SourceEvent.ConnectionLost());
    final var resent = unit.handle(new SourceEvent.ConnectionOpened(2));
    assertThat(only(resent, Action.Send.class)).allMatch(s -> s.connectionId() == 2);
    assertThat(frames(resent)).containsExactly(new Frame.Relay(ID, send(1)), new Frame.Relay(ID, send(2)),
        new Frame.Cutover(ID, 2, RelayChecksum.of(List.of(send(1), send(2)))));
    assertThat(unit.handle(new SourceEvent.ClockAdvanced(1_099))).isEmpty();
    assertThat(unit.handle(new SourceEvent.ClockAdvanced(1_100))).containsExactly(new Action.ReleasePayload());
    assertThat(unit.handle(new SourceEvent.ClockAdvanced(5_000))).isEmpty();
    assertThat(unit.handle(new SourceEvent.ConnectionOpened(3))).isEmpty(); // No retransmission afterwards.
    assertThat(unit.nextDeadlineMs()).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  @Spec("REL-12")
  void aFullBudgetDelaysTheNextSealWhileTheObjectKeepsServingAndALargerPayloadStillFinishes() {
    final InFlightBudget budget = new InFlightBudget(8, null); // Two 4-byte chunks in flight at most.
    final List<SourceAction> first = new ArrayList<>();
    final SourceUnit big = paused(budget, false, first);
    assertThat(only(first, Action.Send.class)).hasSize(3); // Manifest and two chunks: the third waits for room.
    assertThat(big.isWaitingForBudget()).isTrue();

    final SourceUnit next = new SourceUnit(Fixtures.OTHER, "actor-2", 1, SETTINGS, budget, false, 0);
    assertThat(next.handle(new SourceEvent.StartRequested())).isEmpty();
    assertThat(next.stage()).isEqualTo(Stage.SOURCE_RUNNING);
    assertThat(next.isWaitingForBudget()).isTrue();
    assertThat(next.handle(new SourceEvent.MessageArrived(send(9))))
        .containsExactly(new Action.DispatchLocal(send(9))); // It keeps processing during the wait.

    final var more = big.handle(new SourceEvent.ChunkReleased(0));
    assertThat(frames(more)).singleElement().isInstanceOfSatisfying(Frame.StateChunk.class,
        c -> assertThat(c.ordinal()).isEqualTo(2));
    big.handle(new SourceEvent.ChunkReleased(1));
    big.handle(new SourceEvent.ChunkReleased(2));
    assertThat(budget.usedBytes()).isZero();
    assertThat(big.isWaitingForBudget()).isFalse();
    assertThat(next.handle(new SourceEvent.BudgetChanged())).containsExactly(new Action.PauseDispatch(),
        new Action.CapturePayload());
  }

  @Test
  void aNodeWideBudgetLimitsUnitsOfEveryPeer() {
    final InFlightBudget node = new InFlightBudget(4, null);
    final InFlightBudget peerA = new InFlightBudget(InFlightBudget.DEFAULT_PEER_BYTES, node);
    final InFlightBudget peerB = new InFlightBudget(InFlightBudget.DEFAULT_PEER_BYTES, node);
    assertThat(peerA.tryCharge(4)).isTrue();
    assertThat(peerB.hasRoomFor(1)).isFalse();
    peerA.release(4);
    assertThat(peerB.tryCharge(4)).isTrue();
    assertThat(peerB.effectiveLimitBytes()).isEqualTo(4);
  }

  @Test
  void theSourceNeverTouchesTheLocationStore() {
    final List<SourceAction> all = new ArrayList<>();
    final SourceUnit unit = paused(InFlightBudget.peerDefault(), true, all);
    all.addAll(unit.handle(new SourceEvent.MessageArrived(send(1))));
    all.addAll(unit.handle(new SourceEvent.RelayReadyArrived(ID)));
    all.addAll(unit.handle(new SourceEvent.ConnectionOpened(2)));
    all.addAll(unit.handle(new SourceEvent.ClockAdvanced(40_000)));
    all.addAll(unit.handle(new SourceEvent.MessageArrived(send(2))));
    // No RunCas or ReReadStore can be among them: a SourceAction is neither (sealed), so the compiler proves it.
    assertThat(only(all, Action.FailMessage.class)).containsExactly(new Action.FailMessage(send(2), "Unavailable"));
  }

  @Test
  @Spec("REL-05")
  void onlyRelayReadyAndFailedAreReplies() {
    // Replies are the frames a source unit consumes; everything it sends is one-way and expects no answer.
    assertThat(List.of(new Frame.RelayReady(ID).command(), new Frame.Failed(ID, FailureCode.BUSY).command()))
        .containsExactly(30, 53);
    final List<SourceAction> out = new ArrayList<>();
    final SourceUnit unit = paused(InFlightBudget.peerDefault(), false, out);
    out.addAll(unit.handle(new SourceEvent.RelayReadyArrived(ID)));
    assertThat(frames(out)).allMatch(f -> f instanceof Frame.Prepare || f instanceof Frame.StateChunk
        || f instanceof Frame.Relay || f instanceof Frame.Cutover);
    assertThat(unit.nextDeadlineMs()).isEqualTo(1_000); // Only the retransmission window: no reply timer.
  }

  /**
   * MEM-30: a Restore retry (the connection broke before the relay-ready reply) sends the manifest and every chunk
   * again on the new connection from the payload the source keeps in memory: the chunks are ranges of that very
   * array, and a source unit has no action that could read a store.
   */
  @Test
  @Spec("MEM-30")
  void aRestoreRetryResendsThePayloadFromSourceMemory() {
    final List<SourceAction> out = new ArrayList<>();
    final SourceUnit unit = paused(InFlightBudget.peerDefault(), false, out);
    unit.handle(new SourceEvent.MessageArrived(send(1)));
    assertThat(unit.handle(new SourceEvent.ConnectionLost())).isEmpty();
    final var retry = unit.handle(new SourceEvent.ConnectionOpened(2));
    assertThat(only(retry, Action.Send.class)).hasSize(4).allMatch(s -> s.connectionId() == 2);
    final List<Frame> sent = frames(retry);
    assertThat(sent.getFirst()).isEqualTo(new Frame.Prepare(ID, OBJECT, 10, 3, RelayChecksum.ofBytes(payload)));
    assertThat(sent.stream().skip(1).map(Frame.StateChunk.class::cast).toList())
        .allSatisfy(c -> assertThat(c.stream()).isSameAs(payload))
        .extracting(Frame.StateChunk::ordinal).containsExactly(0, 1, 2);
    assertThat(unit.stage()).isEqualTo(Stage.SOURCE_PAUSED);
  }

  /**
   * REL-17: neither the source unit nor the Session owner's barrier has an action that reads or writes the Location
   * Store (both action types are sealed); only the target's actions include the CAS and its re-read.
   */
  @Test
  @Spec("REL-17")
  void neitherTheSourceNorTheSessionOwnerHasAnActionThatChangesTheLocationStore() {
    final List<Class<?>> storeActions = List.of(Action.RunCas.class, Action.ReReadStore.class);
    assertThat(List.of(TargetAction.class.getPermittedSubclasses())).containsAll(storeActions);
    assertThat(List.of(SourceAction.class.getPermittedSubclasses())).doesNotContainAnyElementsOf(storeActions)
        .isNotEmpty();
    final Class<?>[] session = dev.spotkit.relocation.session.SessionAction.class.getPermittedSubclasses();
    assertThat(session).isNotEmpty().noneMatch(c -> Action.class.isAssignableFrom(c)
        || c.getSimpleName().contains("Cas") || c.getSimpleName().contains("Store"));
  }
}
