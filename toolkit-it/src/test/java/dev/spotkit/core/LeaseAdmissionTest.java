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

  record Hold(int seq) {}

  /**
   * Runs a 20 ms timer from its creation; its first {@link Hold} blocks the turn until {@link #GATE} opens; notes
   * every Hold's sequence number and every tick.
   */
  static final class Holder implements Actor {
    static final java.util.concurrent.CountDownLatch GATE = new java.util.concurrent.CountDownLatch(1);
    static final java.util.concurrent.CountDownLatch HOLDING = new java.util.concurrent.CountDownLatch(1);
    static final java.util.List<Integer> RAN = new java.util.concurrent.CopyOnWriteArrayList<>();
    static final AtomicInteger TICKS = new AtomicInteger();
    private final ActorContext ctx;

    Holder(final ActorContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public void configure(final ActorHandlers on) {
      ctx.timers().every("tick", Duration.ofMillis(20), TICKS::incrementAndGet);
      on.message(Hold.class, h -> {
        RAN.add(h.seq());
        if (h.seq() == 0) {
          HOLDING.countDown();
          GATE.await(30, TimeUnit.SECONDS);
        }
      });
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

  @Test
  @Spec("LOC-04")
  void workQueuedBeforeTheDeadlineDoesNotStartAfterItAndRunsInOrderOnceARenewalAnswers() throws Exception {
    mesh = TestMesh.builder().meshName("lease-queued").node(b -> b
        .ownerLease(Duration.ofMillis(100), Duration.ofSeconds(3), Duration.ofMillis(200), Duration.ofMillis(2500)))
        .objectServer(s -> s.entrySpot(TestNodes.PlainEntry::new)
            .actor("holder", Holder::new, a -> a.disableRelocation()))
        .start(1);
    store = mesh.locationStore();
    node = mesh.node(0);
    node.actors().getOrCreate("h", "holder").await();
    Awaitility.await().atMost(5, TimeUnit.SECONDS).until(() -> Holder.TICKS.get() > 0);
    for (int i = 0; i < 20; i++) {
      node.toActor("h").send(new Hold(i));
    }
    assertThat(Holder.HOLDING.await(10, TimeUnit.SECONDS)).as("the first Hold's turn started").isTrue();
    // behind the blocked turn: Holds 1..19 and one tick (the timer queues no second tick while one waits)

    final StoreFaults.Stall stall = store.faults().stallNext(1_000_000, LeaseAdmissionTest::leaseCall);
    Awaitility.await().atMost(5, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(20)).untilAsserted(() ->
        assertThatThrownBy(() -> node.toActor("h").send(new Hold(-1)))
            .isInstanceOf(SpotkitException.Unavailable.class).hasMessageContaining("admission deadline"));
    final int ticksAtDeadline = Holder.TICKS.get();
    Holder.GATE.countDown(); // the turn ends past the deadline: nothing queued behind it may start now
    Awaitility.await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2))
        .until(() -> Holder.RAN.size() == 1 && Holder.TICKS.get() == ticksAtDeadline);

    store.faults().clear();
    stall.timeOut(); // the next renewal answers: the queued Holds run, in order, none lost; the timer ticks again
    Awaitility.await().atMost(10, TimeUnit.SECONDS).untilAsserted(() -> assertThat(Holder.RAN.stream()
        .filter(seq -> seq >= 0)).containsExactlyElementsOf(java.util.stream.IntStream.range(0, 20).boxed().toList()));
    assertThat(Holder.RAN.subList(0, 20)).as("the probes sent until admission stopped run after Holds 0..19")
        .doesNotContain(-1);
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> Holder.TICKS.get() > ticksAtDeadline + 2);
  }
}
