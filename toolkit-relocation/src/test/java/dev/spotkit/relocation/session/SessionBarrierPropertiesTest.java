package dev.spotkit.relocation.session;

import static dev.spotkit.relocation.session.BarrierFixtures.ABORT;
import static dev.spotkit.relocation.session.BarrierFixtures.COMMIT;
import static dev.spotkit.relocation.session.BarrierFixtures.SEAL;
import static dev.spotkit.relocation.session.BarrierFixtures.SOURCE;
import static dev.spotkit.relocation.session.BarrierFixtures.TARGET;
import static dev.spotkit.relocation.session.BarrierFixtures.forwards;
import static dev.spotkit.relocation.session.BarrierFixtures.msg;
import static dev.spotkit.relocation.session.BarrierFixtures.open;
import static org.assertj.core.api.Assertions.assertThat;

import dev.spotkit.relocation.Message;
import dev.spotkit.relocation.Spec;
import dev.spotkit.relocation.wire.SessionRelocationFrame;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * Ordering under random interleavings: session messages before the seal, during it and after the 44, plus
 * duplicate seals, spurious timers and stale updates, all within the seal timeout. Whatever the interleaving, the
 * messages reach the Actor exactly once each, in input order, the held ones before every later one.
 */
class SessionBarrierPropertiesTest {

  /** One scripted input: a client message, or one of the frames / timer ticks. */
  enum Step { MESSAGE, DUPLICATE_SEAL, CLOCK, STALE_ROUTE }

  @Provide
  Arbitrary<List<Step>> noise() {
    return Arbitraries.of(Step.class).list().ofMaxSize(60);
  }

  private static List<Message> run(final List<Step> before, final int sealAt, final int updateAt,
      final SessionRelocationFrame.Route update, final List<SessionAction> all) {
    final SessionBarrier b = open();
    final List<Message> sent = new ArrayList<>();
    long now = 0;
    for (int i = 0; i <= before.size(); i++) {
      now += 10; // 61 steps of 10 ms stay well inside the 3,000 ms seal timeout.
      if (i == sealAt) {
        all.addAll(b.handle(new SessionEvent.SealArrived(SEAL, now)));
      }
      if (i == updateAt) {
        all.addAll(b.handle(new SessionEvent.RouteArrived(update, now)));
      }
      if (i == before.size()) {
        break;
      }
      switch (before.get(i)) {
        case MESSAGE -> {
          final Message m = msg(sent.size() + 1);
          sent.add(m);
          all.addAll(b.handle(new SessionEvent.ClientMessageArrived(m, now)));
        }
        case DUPLICATE_SEAL -> all.addAll(b.handle(new SessionEvent.SealArrived(SEAL, now)));
        case CLOCK -> all.addAll(b.handle(new SessionEvent.ClockAdvanced(now)));
        case STALE_ROUTE -> all.addAll(b.handle(new SessionEvent.RouteArrived(
            BarrierFixtures.route("sessionRelocationRouteCommit", "bindingGeneration=99"), now)));
      }
    }
    return sent;
  }

  @Spec("REL-26")
  @Property(tries = 500)
  void afterACommitTheTargetGetsEveryMessageInInputOrderHeldBeforeLater(
      @ForAll("noise") final List<Step> steps, @ForAll @IntRange(min = 0, max = 60) final int a,
      @ForAll @IntRange(min = 0, max = 60) final int c) {
    final int sealAt = Math.min(Math.min(a, c), steps.size());
    final int commitAt = Math.min(Math.max(a, c), steps.size());
    final List<SessionAction> all = new ArrayList<>();
    final List<Message> sent = run(steps, sealAt, commitAt, COMMIT, all);

    assertThat(forwards(all)).extracting(SessionAction.ForwardToActor::message).isEqualTo(sent);
    final int switchAt = all.indexOf(new SessionAction.SwitchRoute(SOURCE, TARGET));
    assertThat(switchAt).isNotNegative();
    assertThat(all.subList(0, switchAt)).noneMatch(x -> x instanceof SessionAction.ForwardToActor f
        && f.route().equals(TARGET));
    assertThat(all.subList(switchAt, all.size())).noneMatch(x -> x instanceof SessionAction.ForwardToActor f
        && f.route().equals(SOURCE));
    assertThat(all).noneMatch(x -> x instanceof SessionAction.CloseSession);
  }

  @Property(tries = 300)
  void afterAnAbortTheSourceGetsEveryMessageInInputOrder(
      @ForAll("noise") final List<Step> steps, @ForAll @IntRange(min = 0, max = 60) final int a,
      @ForAll @IntRange(min = 0, max = 60) final int c) {
    final int sealAt = Math.min(Math.min(a, c), steps.size());
    final int abortAt = Math.min(Math.max(a, c), steps.size());
    final List<SessionAction> all = new ArrayList<>();
    final List<Message> sent = run(steps, sealAt, abortAt, ABORT, all);

    assertThat(forwards(all)).extracting(SessionAction.ForwardToActor::message).isEqualTo(sent);
    assertThat(forwards(all)).allMatch(f -> f.route().equals(SOURCE));
    assertThat(all).noneMatch(x -> x instanceof SessionAction.SwitchRoute || x instanceof SessionAction.CloseSession);
  }
}
