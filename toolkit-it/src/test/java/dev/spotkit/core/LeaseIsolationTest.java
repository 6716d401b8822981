package dev.spotkit.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spotkit.store.InMemoryLocationStore;
import dev.spotkit.store.StoreFaults;
import dev.spotkit.testkit.TestMesh;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A user callback never runs on a system thread, and admission is judged by time (spec 002 section 5, LOC-04):
 * a {@code whenComplete} callback of a timed-out request that blocks for seconds neither stops the owner-lease
 * renewals nor keeps the node admitting work past its local admission deadline.
 */
class LeaseIsolationTest {
  record Stall() {}

  record Poke() {}

  static volatile CountDownLatch release = new CountDownLatch(1);

  /** Never answers a Stall before {@link #release}. */
  static final class Staller implements Actor {
    Staller(final ActorContext ctx) {
    }

    @Override
    public void configure(final ActorHandlers on) {
      on.request(Stall.class, s -> release.await(20, TimeUnit.SECONDS) ? "late" : "never")
          .message(Poke.class, p -> { });
    }
  }

  private TestMesh mesh;
  private InMemoryLocationStore store;
  private final AtomicInteger leaseCalls = new AtomicInteger();
  private final CountDownLatch unblockCallback = new CountDownLatch(1);
  private MeshNode node;

  private static boolean leaseCall(final StoreFaults.Call call) {
    return call.keys().stream().anyMatch(k -> k.startsWith("owner-lease\0"));
  }

  @BeforeEach
  void start() {
    release = new CountDownLatch(1);
    // renew 100 ms, TTL 3 s, renew timeout 200 ms, fencing margin 2.5 s: admission ends ~0.5 s after the last
    // answered renewal; the store expires the lease 3 s after the last applied one
    mesh = TestMesh.builder().meshName("isolation")
        .node(b -> b.ownerLease(Duration.ofMillis(100), Duration.ofSeconds(3), Duration.ofMillis(200),
            Duration.ofMillis(2500)))
        .objectServer(s -> s.entrySpot(TestNodes.PlainEntry::new)
            .actor("staller", Staller::new, a -> a.disableRelocation()))
        .start(1);
    store = mesh.locationStore();
    node = mesh.node(0);
    node.actors().getOrCreate("s", "staller").await();
    // counts the lease calls that reach the store (a rule that never matches; its predicate sees every call)
    store.faults().failNext(1, call -> {
      if (leaseCall(call)) {
        leaseCalls.incrementAndGet();
      }
      return false;
    });
  }

  @AfterEach
  void close() {
    unblockCallback.countDown();
    release.countDown();
    store.faults().clear();
    mesh.close();
  }

  /** Starts a request that times out after 100 ms and whose callback then blocks until the test ends. */
  private Thread blockingCallbackOfATimedOutRequest() throws InterruptedException {
    final CountDownLatch inCallback = new CountDownLatch(1);
    final AtomicReference<Thread> ranOn = new AtomicReference<>();
    node.toActor("s").request(new Stall(), String.class).timeout(Duration.ofMillis(100)).toFuture()
        .whenComplete((reply, failure) -> {
          ranOn.set(Thread.currentThread());
          inCallback.countDown();
          try {
            unblockCallback.await(10, TimeUnit.SECONDS); // the user's blocking callback (8 s in the report)
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
    assertThat(inCallback.await(5, TimeUnit.SECONDS)).as("the timed-out request's callback ran").isTrue();
    return ranOn.get();
  }

  @Test
  @Spec("LOC-04")
  void aBlockingCallbackOfATimedOutRequestDoesNotStopLeaseRenewals() throws Exception {
    final Thread callbackThread = blockingCallbackOfATimedOutRequest();
    assertThat(callbackThread.getName()).as("the callback's thread").doesNotStartWith("spotkit-");
    final int before = leaseCalls.get();
    // renewals go on every ~100 ms while the callback blocks: 10 more well within 3 s (before: none at all,
    // the callback held the one timer thread that also renewed the lease)
    Awaitility.await().atMost(3, TimeUnit.SECONDS).until(() -> leaseCalls.get() >= before + 10);
    node.toActor("s").send(new Poke()); // still admitting: the lease is renewed
  }

  @Test
  @Spec("LOC-04")
  void aStalledRenewalStopsAdmissionByTimeWhileACallbackBlocks() throws Exception {
    blockingCallbackOfATimedOutRequest();
    final StoreFaults.Stall stall = store.faults().stallNext(1_000_000, LeaseIsolationTest::leaseCall);
    final long stalledAt = System.nanoTime();
    // the last answered renewal fixed the local admission deadline at most ~0.5 s ahead; past it no new work is
    // admitted, whatever any thread is doing (before: admission stayed open until the callback returned)
    Awaitility.await().atMost(2500, TimeUnit.MILLISECONDS).pollInterval(Duration.ofMillis(10)).untilAsserted(() ->
        assertThatThrownBy(() -> node.toActor("s").send(new Poke()))
            .isInstanceOf(SpotkitException.Unavailable.class).hasMessageContaining("admission deadline"));
    assertThat(Duration.ofNanos(System.nanoTime() - stalledAt)).as("refused within the lease TTL")
        .isLessThan(Duration.ofSeconds(3));
    store.faults().clear();
    stall.timeOut();
  }
}
