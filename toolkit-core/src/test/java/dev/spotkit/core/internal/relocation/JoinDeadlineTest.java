package dev.spotkit.core.internal.relocation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.spotkit.core.Actor;
import dev.spotkit.core.ActorContext;
import dev.spotkit.core.ActorHandlers;
import dev.spotkit.core.EntrySpot;
import dev.spotkit.core.EntrySpotContext;
import dev.spotkit.core.MeshNode;
import dev.spotkit.core.Spec;
import dev.spotkit.core.internal.join.PendingJoin;
import dev.spotkit.core.internal.runtime.Turn;
import dev.spotkit.store.InMemoryLocationStore;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The default join timeout, observed on the registered barrier itself. */
class JoinDeadlineTest {

  record Go() {}

  static final class Entry implements EntrySpot {
    private final EntrySpotContext ctx;

    Entry(final EntrySpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public EntrySpotContext context() {
      return ctx;
    }

  }

  @Test
  @Spec("MEM-12")
  void anOmittedTimeoutIsFiveSecondsFixedAsAnAbsoluteDeadlineAtDefer() {
    final AtomicLong remainingNanos = new AtomicLong(-1);
    final AtomicLong beforeDefer = new AtomicLong();
    final class Joiner implements Actor {
      private final ActorContext ctx;

      Joiner(final ActorContext ctx) {
        this.ctx = ctx;
      }

      @Override
      public void configure(final ActorHandlers on) {
        on.message(Go.class, g -> {
          beforeDefer.set(System.nanoTime());
          ctx.joinEntrySpot().defer();
          final PendingJoin join = Turn.current().joins.get(0);
          remainingNanos.set(join.deadline().nanoTime() - beforeDefer.get());
        });
      }
    }
    try (MeshNode node = MeshNode.builder().locationStore(new InMemoryLocationStore())
        .objectServer(s -> s.entrySpot(Entry::new).actor("j", Joiner::new, a -> a.disableRelocation())).start()) {
      node.actors().getOrCreate("j1", "j").await();
      node.toActor("j1").send(new Go());
      await().atMost(Duration.ofSeconds(5)).until(() -> remainingNanos.get() >= 0);
      assertThat(Duration.ofNanos(remainingNanos.get()))
          .isBetween(Duration.ofSeconds(5), Duration.ofSeconds(5).plusMillis(500));
    }
  }
}
