package dev.spotkit.relocation.session;

import dev.spotkit.relocation.Message;
import dev.spotkit.relocation.wire.ActorRoute;
import dev.spotkit.relocation.wire.SessionBinding;
import dev.spotkit.relocation.wire.SessionGolden;
import dev.spotkit.relocation.wire.SessionRelocationFrame;
import dev.spotkit.relocation.wire.SessionRouteAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** The golden frames as barrier inputs, and helpers to read actions. */
final class BarrierFixtures {
  static final SessionRelocationFrame.Seal SEAL = (SessionRelocationFrame.Seal) SessionGolden.frame(
      "sessionRelocationSeal");
  static final SessionRelocationFrame.Route COMMIT = route("sessionRelocationRouteCommit", null);
  static final SessionRelocationFrame.Route ABORT = route("sessionRelocationRouteAbort", null);
  static final SessionBinding BINDING = SessionGolden.binding();
  static final ActorRoute SOURCE = SessionGolden.sourceRoute();
  static final ActorRoute TARGET = ((SessionRouteAction.Commit) COMMIT.action()).target();
  /** The seal's arrival stamp in most tests. */
  static final long T0 = 1_000;

  private BarrierFixtures() {
  }

  static SessionRelocationFrame.Route route(final String vector, final String mutation) {
    return (SessionRelocationFrame.Route) SessionGolden.frame(vector, mutation);
  }

  static SessionRelocationFrame.Seal seal(final String mutation) {
    return (SessionRelocationFrame.Seal) SessionGolden.frame("sessionRelocationSeal", mutation);
  }

  static SessionBarrier open() {
    return new SessionBarrier(BINDING, SOURCE);
  }

  /** A barrier sealed by the golden seal at {@link #T0}. */
  static SessionBarrier sealed() {
    final SessionBarrier b = open();
    b.handle(new SessionEvent.SealArrived(SEAL, T0));
    return b;
  }

  static Message msg(final int n) {
    return n % 2 == 0 ? Message.send(("push-" + n).getBytes(StandardCharsets.UTF_8))
        : Message.request(n, 100 + n, 60_000, ("request-" + n).getBytes(StandardCharsets.UTF_8));
  }

  static SessionEvent.ClientMessageArrived client(final int n, final long atMs) {
    return new SessionEvent.ClientMessageArrived(msg(n), atMs);
  }

  static SessionAction.Log onlyLog(final List<SessionAction> actions) {
    if (actions.size() != 1 || !(actions.get(0) instanceof SessionAction.Log log)) {
      throw new AssertionError("expected exactly one Log, got " + actions);
    }
    return log;
  }

  static List<SessionAction.ForwardToActor> forwards(final List<SessionAction> actions) {
    final List<SessionAction.ForwardToActor> out = new ArrayList<>();
    for (SessionAction a : actions) {
      if (a instanceof SessionAction.ForwardToActor f) {
        out.add(f);
      }
    }
    return out;
  }
}
