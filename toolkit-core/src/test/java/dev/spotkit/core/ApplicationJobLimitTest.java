package dev.spotkit.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.spotkit.store.InMemoryLocationStore;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The node's Application Job Queue limit bounds the handler turns running at once. */
class ApplicationJobLimitTest {

  record Hold() {}

  record Touch() {}

  final CountDownLatch holding = new CountDownLatch(1);
  final CountDownLatch release = new CountDownLatch(1);
  final AtomicInteger touched = new AtomicInteger();

  final class Busy implements Actor {
    Busy(final ActorContext ctx) {
    }

    @Override
    public void configure(final ActorHandlers on) {
      on.message(Hold.class, h -> {
        holding.countDown();
        release.await(10, TimeUnit.SECONDS);
      }).message(Touch.class, t -> touched.incrementAndGet());
    }
  }

  @Test
  void withALimitOfOneABlockedTurnHoldsTheOnlyPermitAndOthersRunAfterIt() throws Exception {
    try (MeshNode node = MeshNode.builder().locationStore(new InMemoryLocationStore()).workers(2)
        .applicationJobLimit(1)
        .objectServer(s -> s.entrySpot(TestNodes.PlainEntry::new).actor("busy", Busy::new,
            a -> a.disableRelocation()))
        .start()) {
      node.actors().getOrCreate("a", "busy").await();
      node.actors().getOrCreate("b", "busy").await();
      node.toActor("a").send(new Hold());
      assertThat(holding.await(5, TimeUnit.SECONDS)).isTrue();
      node.toActor("b").send(new Touch());
      // Two workers are free, but the one permit is held by the blocked turn: b waits (must never run now).
      await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> touched.get() == 0);
      release.countDown();
      await().atMost(Duration.ofSeconds(5)).until(() -> touched.get() == 1);
    } finally {
      release.countDown();
    }
  }

  @Test
  void theLimitMustBePositive() {
    assertThatThrownBy(() -> MeshNode.builder().applicationJobLimit(0))
        .isInstanceOf(SpotkitException.InvalidOperation.class)
        .hasMessage("applicationJobLimit 0 must be 1..2147483647 (2147483647 = unlimited)");
  }
}
