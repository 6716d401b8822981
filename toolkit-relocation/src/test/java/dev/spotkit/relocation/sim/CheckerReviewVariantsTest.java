package dev.spotkit.relocation.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spotkit.relocation.Action;
import dev.spotkit.relocation.Frame;
import dev.spotkit.relocation.TargetEvent;
import dev.spotkit.relocation.wire.CoordinatorFence;
import dev.spotkit.relocation.wire.RelocationId;
import dev.spotkit.relocation.wire.RelocationIdentity;
import dev.spotkit.relocation.wire.Rid;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * Broken target variants from the checker review (blind spots of the seeded simulator): each must be reported by
 * the {@link Checker} within a bounded number of seeds, with the violation named.
 */
class CheckerReviewVariantsTest {
  private static final int SEEDS = 1_000;
  private static final RelocationIdentity IDENTITY = new RelocationIdentity(new RelocationId(7, 11), 3,
      new CoordinatorFence("owner-a", 1, Rid.ofUtf8("node-a"), 1, "v1"));

  /** A target variant: wraps the real machine. */
  private interface Variant extends Function<Function<TargetEvent, List<Action>>, Function<TargetEvent, List<Action>>> {
  }

  /** The first violation the checker reports for the variant within {@link #SEEDS} seeds, or null. */
  private static String firstFailure(final Variant variant) {
    for (long seed = 1; seed <= SEEDS; seed++) {
      final Checker c = new Simulator(Scenario.draw(seed), variant).run();
      if (c.failed()) {
        return "seed " + seed + ": " + c.failure();
      }
    }
    return null;
  }

  /** Rewrites each action of the real target (null drops it). */
  private static Variant rewriting(final UnaryOperator<Action> rewrite) {
    return real -> e -> {
      final List<Action> out = new ArrayList<>();
      for (final Action a : real.apply(e)) {
        final Action b = rewrite.apply(a);
        if (b != null) {
          out.add(b);
        }
      }
      return out;
    };
  }

  /** Spec 001 sections 4.5, 6: the CAS carries the unit's key, the version first read and the target's fence. */
  @Test
  void casWithWrongKeyStaleExpectedVersionAndForeignFenceIsCaught() {
    final String failure = firstFailure(rewriting(a -> a instanceof Action.RunCas c
        ? new Action.RunCas(c.requestId(), c.identity(), "some/other/key", "v999", "owner:node-z") : a));
    assertThat(failure).isNotNull().contains("is not the unit's");
  }

  /** Section 6: a CAS with a foreign fence alone is flagged (the simulated store would answer a conflict). */
  @Test
  void casWithForeignFenceOnlyIsCaught() {
    final String failure = firstFailure(rewriting(a -> a instanceof Action.RunCas c
        ? new Action.RunCas(c.requestId(), c.identity(), c.key(), c.expectedVersion(), "owner:node-z") : a));
    assertThat(failure).isNotNull().contains("is not the unit's");
  }

  /** Section 4.3: the temporary queue is registered before any chunk, relay or direct work is accepted. */
  @Test
  void droppedTemporaryQueueRegistrationIsCaught() {
    final String failure = firstFailure(rewriting(a -> a instanceof Action.RegisterTemporaryQueue ? null : a));
    assertThat(failure).isNotNull().contains("before registering its temporary queue");
  }

  /** Sections 4.6, 7: a bound session gets the route commit after the committed CAS. */
  @Test
  void droppedSessionRouteCommitIsCaught() {
    final String failure = firstFailure(rewriting(a -> a instanceof Action.SendToSessionOwner s
        && s.frame().commit() ? null : a));
    assertThat(failure).isNotNull().contains("Session route commits");
  }

  /** Sections 4.5, 6: no Session route update after the staging was removed. */
  @Test
  void sessionRouteCommitAfterRemovalIsCaught() {
    final String failure = firstFailure(real -> e -> {
      final List<Action> out = new ArrayList<>(real.apply(e));
      for (final Action a : List.copyOf(out)) {
        if (a instanceof Action.RemoveStaging) {
          out.add(new Action.SendToSessionOwner(new Frame.SessionRoute(IDENTITY, true)));
        }
      }
      return out;
    });
    assertThat(failure).isNotNull().contains("Session route commit after the staging was removed");
  }

  /** Sections 4.4, 4.6: on the fallback path a relay record that reached the target still runs or is failed. */
  @Test
  void preBoundarySpanDroppedOnFallbackIsCaught() {
    final String failure = firstFailure(real -> {
      final boolean[] fallback = {false};
      return e -> {
        final List<Action> out = new ArrayList<>();
        for (final Action a : real.apply(e)) {
          if (a instanceof Action.Log l && l.code().equals("cutover_timeout")) {
            fallback[0] = true;
          }
          if (a instanceof Action.MergeBacklog m && fallback[0]) {
            out.add(new Action.MergeBacklog(m.savedWork(), List.of(), m.postBoundary()));
          } else {
            out.add(a);
          }
        }
        return out;
      };
    });
    assertThat(failure).isNotNull().contains("fallback relay accepted");
  }
}
