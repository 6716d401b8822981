package dev.spotkit.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spotkit.store.InMemoryLocationStore;
import dev.spotkit.store.StoreFaults;
import dev.spotkit.testkit.TestMesh;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The owner lease gates new work on a running node (spec 002 section 5). */
class LeaseAdmissionTest {
  record Poke() {}

  /** Counts pokes and timer ticks. */
  static final class Counter implements Actor {
    static final AtomicInteger TICKS = new AtomicInteger();
    private final ActorContext ctx;

    Counter(final ActorContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public void configure(final ActorHandlers on) {
      on.message(Poke.class, p -> ctx.timers().every("tick", Duration.ofMillis(20), TICKS::incrementAndGet));
    }
  }

  private TestMesh mesh;
  private InMemoryLocationStore store;
  private MeshNode node;

  @AfterEach
  void close() {
    if (mesh != null) {
      store.faults().clear();
      mesh.close();
    }
  }

  private static boolean leaseCall(final StoreFaults.Call call) {
    return call.keys().stream().anyMatch(k -> k.startsWith("owner-lease\0"));
  }

  @Test
  @Spec("LOC-04")
  void stalledRenewalsStopMessagesTimersCreationsAndStoreWritesUntilARenewalAnswers() throws Exception {
    // renew 100 ms, TTL 3 s, renew timeout 200 ms, fencing margin 2.5 s: admission ends ~0.5 s after the last
    // answered renewal, long before the store could expire the lease record
    final java.util.List<NodeEvent> events = new java.util.concurrent.CopyOnWriteArrayList<>();
    mesh = TestMesh.builder().meshName("lease").node(b -> b.eventListener(events::add)
        .ownerLease(Duration.ofMillis(100), Duration.ofSeconds(3), Duration.ofMillis(200), Duration.ofMillis(2500)))
        .objectServer(s -> s.entrySpot(TestNodes.PlainEntry::new)
            .actor("counter", Counter::new, a -> a.disableRelocation()))
        .start(1);
    store = mesh.locationStore();
    node = mesh.node(0);
    node.actors().getOrCreate("c", "counter").await();
    node.toActor("c").send(new Poke());
    Awaitility.await().atMost(5, TimeUnit.SECONDS).until(() -> Counter.TICKS.get() > 3);

    final StoreFaults.Stall stall = store.faults().stallNext(1_000_000, LeaseAdmissionTest::leaseCall);
    Awaitility.await().atMost(5, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(20)).untilAsserted(() ->
        assertThatThrownBy(() -> node.toActor("c").send(new Poke()))
            .isInstanceOf(SpotkitException.Unavailable.class).hasMessageContaining("admission deadline"));
    final int ticksAtStop = Counter.TICKS.get();
    assertThatThrownBy(() -> node.actors().getOrCreate("d", "counter").await())
        .isInstanceOf(SpotkitException.Unavailable.class);
    assertThatThrownBy(() -> node.toActor("c").request(new Poke(), Object.class).await())
        .isInstanceOf(SpotkitException.Unavailable.class);
    // no timer callback is offered past the deadline: at most the ticks already queued run
    assertThat(Counter.TICKS.get()).isLessThanOrEqualTo(ticksAtStop + 1);

    store.faults().clear();
    stall.timeOut(); // the stalled renewals never applied; the next renewal answers and restores admission
    Awaitility.await().atMost(5, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(20))
        .ignoreException(SpotkitException.Unavailable.class).untilAsserted(() -> node.toActor("c").send(new Poke()));
    assertThat(node.actors().getOrCreate("d", "counter").await().id().value()).isEqualTo("d");
    // the event feed said both: admission stopped, then admitted again (the lease itself was never lost)
    Awaitility.await().atMost(5, TimeUnit.SECONDS).untilAsserted(() -> assertThat(events.stream()
        .filter(NodeEvent.LeaseAdmissionChanged.class::isInstance).map(e -> ((NodeEvent.LeaseAdmissionChanged) e)
        .admitting()).toList()).containsExactly(false, true));
    assertThat(events).noneMatch(NodeEvent.LeaseLost.class::isInstance);
  }
}
