package dev.spotkit.relocation.session;

import static dev.spotkit.relocation.session.BarrierFixtures.SEAL;
import static dev.spotkit.relocation.session.BarrierFixtures.SOURCE;
import static dev.spotkit.relocation.session.BarrierFixtures.T0;
import static dev.spotkit.relocation.session.BarrierFixtures.client;
import static dev.spotkit.relocation.session.BarrierFixtures.msg;
import static dev.spotkit.relocation.session.BarrierFixtures.onlyLog;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.spotkit.relocation.Action.Level;
import dev.spotkit.relocation.wire.SessionGolden;
import dev.spotkit.relocation.wire.SessionRelocationCodec;
import dev.spotkit.relocation.wire.SessionRelocationFrame;
import dev.spotkit.relocation.wire.SessionRouteAction;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every {@code receiverCases} entry of session-relocation-barrier-v1.json, fed to a {@link SessionBarrier} as the
 * decoded golden bytes (mutated frames are encoded and decoded too). Two held messages ride along, so "changes
 * nothing" and "applied" are visible in what happens to them.
 */
class SessionBarrierGoldenCasesTest {

  static Stream<Arguments> receiverCases() {
    final List<Arguments> out = new ArrayList<>();
    for (JsonNode c : SessionGolden.fixture().get("receiverCases")) {
      out.add(Arguments.of(c.get("name").asText(), c));
    }
    return out.stream();
  }

  @Test
  void theFixtureHasTheSixKnownCases() {
    assertThat(receiverCases().map(a -> a.get()[0])).containsExactly("identicalSealDuplicate",
        "conflictingSealDuplicate", "identicalCommitDuplicate", "conflictingCommitDuplicate", "matchingAbort",
        "differentRelocationAbort");
  }

  /** The golden bytes of a vector, mutated by {@code key=value} when given, through the real decoder. */
  private static SessionRelocationFrame wire(final String vector, final JsonNode mutation) {
    final String m = mutation == null ? null : mutation.asText();
    return SessionRelocationCodec.decode(SessionRelocationCodec.encode(SessionGolden.frame(vector, m)));
  }

  /**
   * The route vector of a seal-then-route case. Note: {@code differentRelocationAbort} names no {@code route}
   * (only {@code routeMutation}); its name says it is the abort vector.
   */
  private static String routeVector(final JsonNode c) {
    if (c.has("route")) {
      return c.get("route").asText();
    }
    assertThat(c.get("name").asText()).endsWith("Abort");
    return "sessionRelocationRouteAbort";
  }

  private static SessionEvent arrival(final SessionRelocationFrame f, final long atMs) {
    return switch (f) {
      case SessionRelocationFrame.Seal s -> new SessionEvent.SealArrived(s, atMs);
      case SessionRelocationFrame.Route r -> new SessionEvent.RouteArrived(r, atMs);
      case SessionRelocationFrame.Sealed s -> throw new IllegalArgumentException("43 is the Session owner's reply");
    };
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("receiverCases")
  void everyReceiverCaseHasItsResult(final String name, final JsonNode c) {
    final SessionBarrier barrier = new SessionBarrier(BarrierFixtures.BINDING, SOURCE);
    final boolean duplicateCase = c.has("first");
    final SessionRelocationFrame first = wire(duplicateCase ? c.get("first").asText() : c.get("seal").asText(),
        null);
    final SessionRelocationFrame second = duplicateCase
        ? wire(c.has("retry") ? c.get("retry").asText() : c.get("first").asText(), c.get("retryMutation"))
        : wire(routeVector(c), c.get("routeMutation"));
    if (first instanceof SessionRelocationFrame.Route) {
      barrier.handle(new SessionEvent.SealArrived(SEAL, T0)); // A route update needs the seal it releases.
    }
    final long before = barrier.transitions();
    final List<SessionAction> firstActions = barrier.handle(arrival(first, T0 + 100));
    final BarrierStage stageAfterFirst = barrier.stage();
    barrier.handle(client(1, T0 + 110));
    barrier.handle(client(2, T0 + 120));
    final List<SessionAction> actions = barrier.handle(arrival(second, T0 + 200));

    final String result = c.get("result").asText();
    switch (result) {
      case "idempotent" -> {
        assertThat(actions).isEqualTo(firstActions).containsExactly(
            new SessionAction.SendSealed(SessionRelocationFrame.Sealed.answering(SEAL)));
        assertThat(barrier.stage()).isEqualTo(BarrierStage.SEALED);
      }
      case "protocolError" -> {
        final SessionAction.Log log = onlyLog(actions);
        assertThat(log.level()).isEqualTo(Level.ERROR);
        assertThat(log.code()).isEqualTo(second instanceof SessionRelocationFrame.Seal
            ? SessionBarrier.SESSION_SEAL_CONFLICT : SessionBarrier.SESSION_ROUTE_CONFLICT);
        assertThat(barrier.stage()).isEqualTo(stageAfterFirst);
      }
      case "alreadyApplied" -> {
        final SessionAction.Log log = onlyLog(actions);
        assertThat(log.level()).isEqualTo(Level.WARNING);
        assertThat(log.code()).isEqualTo(SessionBarrier.SESSION_ROUTE_ALREADY_APPLIED);
        assertThat(barrier.route()).isEqualTo(BarrierFixtures.TARGET);
      }
      case "applied" -> {
        assertThat(((SessionRelocationFrame.Route) second).action()).isInstanceOf(SessionRouteAction.Abort.class);
        assertThat(actions).containsExactly(new SessionAction.ForwardToActor(SOURCE, msg(1)),
            new SessionAction.ForwardToActor(SOURCE, msg(2)));
        assertThat(barrier.stage()).isEqualTo(BarrierStage.OPEN);
        assertThat(barrier.route()).isEqualTo(SOURCE);
      }
      case "stale" -> {
        final SessionAction.Log log = onlyLog(actions);
        assertThat(log.level()).isEqualTo(Level.WARNING);
        assertThat(log.code()).isEqualTo(SessionBarrier.LATE_SESSION_ROUTE_UPDATE);
        assertThat(barrier.stage()).isEqualTo(BarrierStage.SEALED);
        assertThat(barrier.held()).containsExactly(msg(1), msg(2));
      }
      default -> throw new AssertionError("unknown receiver result " + result + " in case " + name);
    }
    if (c.has("stateTransitions")) {
      assertThat(barrier.transitions() - before).as("state transitions of first + retry")
          .isEqualTo(c.get("stateTransitions").asLong());
    }
  }
}
