package dev.spotkit.relocation.session;

import static dev.spotkit.relocation.session.BarrierFixtures.ABORT;
import static dev.spotkit.relocation.session.BarrierFixtures.BINDING;
import static dev.spotkit.relocation.session.BarrierFixtures.COMMIT;
import static dev.spotkit.relocation.session.BarrierFixtures.SEAL;
import static dev.spotkit.relocation.session.BarrierFixtures.SOURCE;
import static dev.spotkit.relocation.session.BarrierFixtures.T0;
import static dev.spotkit.relocation.session.BarrierFixtures.TARGET;
import static dev.spotkit.relocation.session.BarrierFixtures.client;
import static dev.spotkit.relocation.session.BarrierFixtures.msg;
import static dev.spotkit.relocation.session.BarrierFixtures.onlyLog;
import static dev.spotkit.relocation.session.BarrierFixtures.open;
import static dev.spotkit.relocation.session.BarrierFixtures.route;
import static dev.spotkit.relocation.session.BarrierFixtures.seal;
import static dev.spotkit.relocation.session.BarrierFixtures.sealed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spotkit.relocation.Action.Level;
import dev.spotkit.relocation.Spec;
import dev.spotkit.relocation.session.SessionAction.CloseReason;
import dev.spotkit.relocation.wire.ActorRoute;
import dev.spotkit.relocation.wire.RelocationId;
import dev.spotkit.relocation.wire.Rid;
import dev.spotkit.relocation.wire.SessionBinding;
import dev.spotkit.relocation.wire.SessionRelocationFrame;
import dev.spotkit.relocation.wire.SessionRouteAction;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SessionBarrierTest {

  private static List<SessionAction> commitAt(final SessionBarrier b, final long atMs) {
    return b.handle(new SessionEvent.RouteArrived(COMMIT, atMs));
  }

  @Test
  void anOpenBindingForwardsToItsRouteAndASealIsAnsweredWith43() {
    final SessionBarrier b = open();
    assertThat(b.handle(client(1, 10))).containsExactly(new SessionAction.ForwardToActor(SOURCE, msg(1)));
    assertThat(b.handle(new SessionEvent.SealArrived(SEAL, T0)))
        .containsExactly(new SessionAction.SendSealed(SessionRelocationFrame.Sealed.answering(SEAL)));
    assertThat(b.stage()).isEqualTo(BarrierStage.SEALED);
    assertThat(b.seal()).contains(SEAL);
    assertThat(b.nextDeadlineMs()).isEqualTo(OptionalLong.of(T0 + 3_000));
    assertThat(b.transitions()).isEqualTo(1);
  }

  @Spec("REL-26")
  @Test
  void heldMessagesAreSubmittedToTheTargetAfterTheRouteSwitchAndOnlyThenIsTheSealReleased() {
    final SessionBarrier b = sealed();
    for (int i = 1; i <= 3; i++) {
      assertThat(b.handle(client(i, T0 + i))).as("held, nothing submitted").isEmpty();
    }
    assertThat(b.held()).containsExactly(msg(1), msg(2), msg(3));

    final List<SessionAction> step = commitAt(b, T0 + 500);

    assertThat(step).containsExactly(new SessionAction.SwitchRoute(SOURCE, TARGET),
        new SessionAction.ForwardToActor(TARGET, msg(1)), new SessionAction.ForwardToActor(TARGET, msg(2)),
        new SessionAction.ForwardToActor(TARGET, msg(3)));
    assertThat(b.stage()).isEqualTo(BarrierStage.OPEN);
    assertThat(b.seal()).isEmpty();
    assertThat(b.held()).isEmpty();
    assertThat(b.route()).isEqualTo(TARGET);
    assertThat(b.nextDeadlineMs()).isEmpty();
    assertThat(b.handle(client(4, T0 + 501))).containsExactly(new SessionAction.ForwardToActor(TARGET, msg(4)));
  }

  @Test
  void aMatchingAbortReleasesTheSealAndResubmitsHeldToTheSourceRouteInOrder() {
    final SessionBarrier b = sealed();
    b.handle(client(1, T0 + 1));
    b.handle(client(2, T0 + 2));
    assertThat(b.handle(new SessionEvent.RouteArrived(ABORT, T0 + 10))).containsExactly(
        new SessionAction.ForwardToActor(SOURCE, msg(1)), new SessionAction.ForwardToActor(SOURCE, msg(2)));
    assertThat(b.stage()).isEqualTo(BarrierStage.OPEN);
    assertThat(b.route()).isEqualTo(SOURCE);
    assertThat(b.handle(client(3, T0 + 11))).containsExactly(new SessionAction.ForwardToActor(SOURCE, msg(3)));
    // The aborted relocation cannot seal again; a new relocation can.
    assertThat(onlyLog(b.handle(new SessionEvent.SealArrived(SEAL, T0 + 12))).code())
        .isEqualTo(SessionBarrier.STALE_SESSION_SEAL);
    final SessionRelocationFrame.Seal next = seal("relocationLow=10");
    assertThat(b.handle(new SessionEvent.SealArrived(next, T0 + 13)))
        .containsExactly(new SessionAction.SendSealed(SessionRelocationFrame.Sealed.answering(next)));
  }

  @Test
  void anAbortReadBeforeItsSealKeepsThatSealFromSealingTheBindingForGood() {
    // The source gave up waiting for 43 and aborted; its 42 is read here only after the abort. Installed, that seal
    // would hold the client's frames until the seal timeout closed the session: no 44 of that relocation comes.
    final SessionBarrier b = open();
    assertThat(onlyLog(b.handle(new SessionEvent.RouteArrived(ABORT, T0))).code())
        .isEqualTo(SessionBarrier.LATE_SESSION_ROUTE_UPDATE);
    assertThat(onlyLog(b.handle(new SessionEvent.SealArrived(SEAL, T0 + 1))).code())
        .isEqualTo(SessionBarrier.STALE_SESSION_SEAL);
    assertThat(b.stage()).isEqualTo(BarrierStage.OPEN);
    assertThat(b.handle(client(1, T0 + 2))).containsExactly(new SessionAction.ForwardToActor(SOURCE, msg(1)));
    // Another relocation still seals.
    final SessionRelocationFrame.Seal next = seal("relocationLow=10");
    assertThat(b.handle(new SessionEvent.SealArrived(next, T0 + 3)))
        .containsExactly(new SessionAction.SendSealed(SessionRelocationFrame.Sealed.answering(next)));
  }

  @Test
  void anUpdateThatDoesNotRerouteTheSealedRouteIsAConflictAndChangesNothing() {
    final SessionBarrier b = sealed();
    b.handle(client(1, T0 + 1));
    final SessionRelocationFrame.Route wrongAbort = new SessionRelocationFrame.Route(ABORT.relocationId(),
        ABORT.coordinatorFence(), ABORT.senderRole(), ABORT.binding(), new SessionRouteAction.Abort(12));
    final SessionAction.Log log = onlyLog(b.handle(new SessionEvent.RouteArrived(wrongAbort, T0 + 2)));
    assertThat(log.level()).isEqualTo(Level.ERROR);
    assertThat(log.code()).isEqualTo(SessionBarrier.SESSION_ROUTE_CONFLICT);
    assertThat(b.stage()).isEqualTo(BarrierStage.SEALED);
    assertThat(b.held()).containsExactly(msg(1));
    final List<SessionAction> stale = b.handle(new SessionEvent.RouteArrived(route("sessionRelocationRouteCommit",
        "sourceAuthorityOwnerGeneration=10"), T0 + 3));
    assertThat(onlyLog(stale).code()).isEqualTo(SessionBarrier.SESSION_ROUTE_CONFLICT);
    assertThat(commitAt(b, T0 + 4)).hasSize(2);
  }

  @Spec("REL-28")
  @Test
  void theSealTimesOutAtExactly3000MsFromTheSealsArrivalStampAndCloses() {
    final SessionBarrier b = sealed();
    b.handle(client(1, T0 + 100));
    b.handle(client(2, T0 + 2_999)); // Stamped in time: held, however late it is processed.
    // A duplicate seal does not re-arm the timeout.
    assertThat(b.handle(new SessionEvent.SealArrived(SEAL, T0 + 2_000))).hasSize(1);
    assertThat(b.handle(new SessionEvent.ClockAdvanced(T0 + 2_999))).isEmpty();
    assertThat(b.stage()).isEqualTo(BarrierStage.SEALED);
    assertThat(b.nextDeadlineMs()).isEqualTo(OptionalLong.of(T0 + 3_000));

    assertThat(b.handle(new SessionEvent.ClockAdvanced(T0 + 3_000)))
        .containsExactly(new SessionAction.CloseSession(CloseReason.SEAL_TIMEOUT, List.of(msg(1), msg(2))));

    assertThat(b.stage()).isEqualTo(BarrierStage.CLOSED);
    assertThat(b.seal()).isEmpty();
    assertThat(b.held()).isEmpty();
    assertThat(b.nextDeadlineMs()).isEmpty();
    assertThat(b.handle(new SessionEvent.ClockAdvanced(T0 + 9_000))).isEmpty();
    assertThat(b.transitions()).isEqualTo(2);
  }

  @Test
  void aCommitStamped2999MsAfterTheSealAppliesEvenIfProcessedLate() {
    final SessionBarrier b = sealed();
    b.handle(client(1, T0 + 5));
    // No timer event was fed: the driver read the frame in time and processes it after the deadline's wall time.
    assertThat(commitAt(b, T0 + 2_999)).containsExactly(new SessionAction.SwitchRoute(SOURCE, TARGET),
        new SessionAction.ForwardToActor(TARGET, msg(1)));
    assertThat(b.stage()).isEqualTo(BarrierStage.OPEN);
  }

  @Spec("REL-28")
  @Test
  void aMessageStampedAtTheDeadlineClosesTheSessionAndIsReportedDroppedAfterTheHeldOnes() {
    final SessionBarrier b = sealed();
    b.handle(client(1, T0 + 1));
    assertThat(b.handle(client(2, T0 + 3_000)))
        .containsExactly(new SessionAction.CloseSession(CloseReason.SEAL_TIMEOUT, List.of(msg(1), msg(2))));
    assertThat(b.handle(client(3, T0 + 3_001)))
        .containsExactly(new SessionAction.CloseSession(CloseReason.SEAL_TIMEOUT, List.of(msg(3))));
  }

  @Spec("REL-29")
  @ParameterizedTest(name = "{0} ms after the seal")
  @ValueSource(longs = {3_000, 3_001, 60_000})
  void aRouteUpdateAfterTheTimeoutOnlyLogsAWarning(final long after) {
    final SessionBarrier b = sealed();
    b.handle(client(1, T0 + 1));
    b.handle(new SessionEvent.ClockAdvanced(T0 + 3_000));
    final long transitions = b.transitions();
    for (SessionRelocationFrame.Route late : List.of(COMMIT, ABORT)) {
      final SessionAction.Log log = onlyLog(b.handle(new SessionEvent.RouteArrived(late, T0 + after)));
      assertThat(log.level()).isEqualTo(Level.WARNING);
      assertThat(log.code()).isEqualTo("late_session_route_update");
    }
    assertThat(b.stage()).isEqualTo(BarrierStage.CLOSED);
    assertThat(b.route()).isEqualTo(SOURCE);
    assertThat(b.seal()).isEmpty();
    assertThat(b.transitions()).isEqualTo(transitions);
    assertThat(onlyLog(b.handle(new SessionEvent.SealArrived(SEAL, T0 + after))).code())
        .isEqualTo(SessionBarrier.STALE_SESSION_SEAL);
  }

  @Spec("REL-29")
  @Test
  void aCommitStampedAtTheDeadlineClosesFirstAndIsThenLate() {
    final SessionBarrier b = sealed();
    b.handle(client(1, T0 + 1));
    final List<SessionAction> step = commitAt(b, T0 + 3_000);
    assertThat(step).hasSize(2);
    assertThat(step.get(0)).isEqualTo(new SessionAction.CloseSession(CloseReason.SEAL_TIMEOUT, List.of(msg(1))));
    assertThat(step.get(1)).isInstanceOfSatisfying(SessionAction.Log.class,
        l -> assertThat(l.code()).isEqualTo(SessionBarrier.LATE_SESSION_ROUTE_UPDATE));
    assertThat(b.route()).isEqualTo(SOURCE);
    assertThat(step).noneMatch(a -> a instanceof SessionAction.SwitchRoute || a instanceof SessionAction.ForwardToActor);
  }

  @Spec("MEM-39")
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"relocationHigh=8", "relocationLow=10", "coordinatorOwnerId=other",
      "coordinatorLeaseGeneration=4", "coordinatorNodeRid=elsewhere", "coordinatorNodeGeneration=3",
      "expectedAuthorityStoreVersion=store-v18", "actorId=actor-2", "objectGeneration=6",
      "sessionOwnerNodeRid=elsewhere", "sessionOwnerNodeGeneration=3", "sessionOwnerId=other",
      "sessionOwnerLeaseGeneration=9", "sessionRid=session-2", "bindingGeneration=7"})
  void aCommitForAnotherRelocationSessionBindingActorOrGenerationChangesNothing(final String mutation) {
    final SessionBarrier b = sealed();
    b.handle(client(1, T0 + 1));
    for (String vector : List.of("sessionRelocationRouteCommit", "sessionRelocationRouteAbort")) {
      final SessionAction.Log log = onlyLog(b.handle(new SessionEvent.RouteArrived(route(vector, mutation),
          T0 + 2)));
      assertThat(log.code()).isEqualTo(SessionBarrier.LATE_SESSION_ROUTE_UPDATE);
    }
    assertThat(b.stage()).isEqualTo(BarrierStage.SEALED);
    assertThat(b.route()).isEqualTo(SOURCE);
    assertThat(b.held()).containsExactly(msg(1));
    assertThat(b.transitions()).isEqualTo(1);
  }

  @Spec("MEM-39")
  @Test
  void onlyTheReroutedBindingChangesAndItKeepsActorIdAndObjectGeneration() {
    final SessionBarrier one = sealed();
    final SessionBinding otherActor = new SessionBinding(BINDING.sessionOwner(), BINDING.sessionRid(),
        BINDING.bindingGeneration(), "actor-2", 3);
    final ActorRoute otherRoute = new ActorRoute(Rid.ofUtf8("source"), 2, 21, 13);
    final SessionBarrier two = new SessionBarrier(otherActor, otherRoute);
    final SessionRelocationFrame.Seal sealTwo = new SessionRelocationFrame.Seal(new RelocationId(7, 11),
        SEAL.coordinatorFence(), SEAL.senderRole(), otherActor, otherRoute);
    assertThat(two.handle(new SessionEvent.SealArrived(sealTwo, T0))).hasSize(1);
    // Actor-1's seal does not touch actor-2's binding.
    assertThat(onlyLog(two.handle(new SessionEvent.SealArrived(SEAL, T0))).code())
        .isEqualTo(SessionBarrier.STALE_SESSION_SEAL);
    two.handle(client(7, T0 + 1));

    assertThat(commitAt(one, T0 + 5)).first().isEqualTo(new SessionAction.SwitchRoute(SOURCE, TARGET));
    assertThat(onlyLog(commitAt(two, T0 + 5)).code()).isEqualTo(SessionBarrier.LATE_SESSION_ROUTE_UPDATE);

    assertThat(one.route()).isEqualTo(TARGET);
    assertThat(one.binding()).isEqualTo(BINDING);
    assertThat(one.binding().actorId()).isEqualTo("actor-1");
    assertThat(one.binding().objectGeneration()).isEqualTo(5);
    assertThat(two.route()).isEqualTo(otherRoute);
    assertThat(two.stage()).isEqualTo(BarrierStage.SEALED);
    assertThat(two.held()).containsExactly(msg(7));
  }

  @Test
  void aSealForAnotherBindingOrRouteIsStaleAndLeavesTheBindingOpen() {
    final SessionBarrier b = open();
    for (String mutation : List.of("bindingGeneration=7", "sessionRid=session-2", "objectGeneration=6",
        "sourceAuthorityOwnerGeneration=12", "sourceNodeRid=elsewhere")) {
      final SessionAction.Log log = onlyLog(b.handle(new SessionEvent.SealArrived(seal(mutation), T0)));
      assertThat(log.code()).as(mutation).isEqualTo(SessionBarrier.STALE_SESSION_SEAL);
      assertThat(log.level()).isEqualTo(Level.WARNING);
    }
    assertThat(b.stage()).isEqualTo(BarrierStage.OPEN);
    assertThat(b.transitions()).isZero();
  }

  @Test
  void aSecondRelocationWhileSealedIsAConflictAndAfterTheCommitItSealsTheTargetRoute() {
    final SessionBarrier b = sealed();
    assertThat(onlyLog(b.handle(new SessionEvent.SealArrived(seal("relocationLow=10"), T0 + 1))).code())
        .isEqualTo(SessionBarrier.SESSION_SEAL_CONFLICT);
    commitAt(b, T0 + 2);
    final SessionRelocationFrame.Seal fromTarget = new SessionRelocationFrame.Seal(new RelocationId(7, 10),
        COMMIT.coordinatorFence(), SEAL.senderRole(), BINDING, TARGET);
    assertThat(b.handle(new SessionEvent.SealArrived(fromTarget, T0 + 3))).hasSize(1);
    assertThat(b.stage()).isEqualTo(BarrierStage.SEALED);
    assertThat(b.nextDeadlineMs()).isEqualTo(OptionalLong.of(T0 + 3 + 3_000));
    // The first relocation's commit, repeated now, belongs to no current seal.
    assertThat(onlyLog(commitAt(b, T0 + 4)).code()).isEqualTo(SessionBarrier.LATE_SESSION_ROUTE_UPDATE);
  }

  @Test
  void aConfiguredTimeoutIsUsedAndSpuriousClockEventsDoNothing() {
    final SessionBarrier b = new SessionBarrier(BINDING, SOURCE, 50);
    assertThat(b.handle(new SessionEvent.ClockAdvanced(10))).isEmpty();
    b.handle(new SessionEvent.SealArrived(SEAL, 100));
    assertThat(b.handle(new SessionEvent.ClockAdvanced(149))).isEmpty();
    assertThat(b.handle(new SessionEvent.ClockAdvanced(150))).hasSize(1);
  }

  @Test
  void misuseIsRefusedWithTheValueAndTheLimit() {
    assertThatThrownBy(() -> new SessionBarrier(BINDING, SOURCE, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("sealTimeoutMs 0 must be positive (default 3000 ms)");
    assertThatThrownBy(() -> new SessionEvent.ClockAdvanced(-1))
        .hasMessage("atMs -1 must be in 0..9223372036854775807 (the driver's monotonic clock, ms)");
    assertThatThrownBy(() -> open().handle(null)).hasMessage("event must not be null");
    assertThatThrownBy(() -> new SessionBarrier(null, SOURCE)).hasMessage("binding must not be null");
  }
}
