package dev.spotkit.core.location;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spotkit.core.Spec;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.store.InMemoryLocationStore;
import dev.spotkit.store.ReadResult;
import dev.spotkit.store.StoreFaults;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Owner lease and local admission deadline (spec 002 sections 3.1 and 5). */
class OwnerLeaseTest {
  private static final long SEC = 1_000_000_000L;
  private static final long STORE_T0 = 1_700_000_000_000L;
  private final AtomicLong storeMillis = new AtomicLong(STORE_T0);
  private final AtomicLong nanos = new AtomicLong(42 * SEC);
  private final long t0 = nanos.get();
  private final InMemoryLocationStore store = new InMemoryLocationStore(
      () -> Instant.ofEpochMilli(storeMillis.get()), Duration.ofSeconds(60));
  private final String leaseKey = LocationKeys.ownerLease("owner-a").preimage();
  private final OwnerLease lease = new OwnerLease(store, "owner-a", LeaseSettings.DEFAULTS, nanos::get);

  private void advance(final long seconds) {
    nanos.addAndGet(seconds * SEC);
    storeMillis.addAndGet(seconds * 1000);
  }

  private static boolean done(final CompletableFuture<Boolean> f) throws Exception {
    return f.get(5, TimeUnit.SECONDS);
  }

  private boolean leaseCall(final StoreFaults.Call call) {
    return call.kind() == StoreFaults.Kind.WRITE && call.touches(leaseKey);
  }

  @Test
  @Spec("LOC-03")
  void defaultsHold() {
    assertThat(LeaseSettings.DEFAULTS.renewInterval()).isEqualTo(Duration.ofSeconds(5));
    assertThat(LeaseSettings.DEFAULTS.ttl()).isEqualTo(Duration.ofSeconds(15));
    assertThat(LeaseSettings.DEFAULTS.renewTimeout()).isEqualTo(Duration.ofSeconds(3));
    assertThat(LeaseSettings.DEFAULTS.fencingMargin()).isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  @Spec("LOC-03")
  void violationsAreStartupErrorsWithTheValues() {
    assertThatThrownBy(() -> new LeaseSettings(Duration.ofSeconds(5), Duration.ofSeconds(15),
        Duration.ofSeconds(3), Duration.ofSeconds(8)))
        .isInstanceOf(SpotkitException.NotConfigured.class)
        .hasMessage("owner lease settings violate renew interval + renew timeout < owner lease TTL - owner lease"
            + " fencing margin (spec 002 section 5): 5000 ms + 3000 ms = 8000 ms is not below 15000 ms - 8000 ms"
            + " = 7000 ms");
    assertThatThrownBy(() -> new LeaseSettings(Duration.ofSeconds(5), Duration.ofSeconds(15),
        Duration.ofSeconds(5), Duration.ofSeconds(5)))
        .isInstanceOf(SpotkitException.NotConfigured.class)
        .hasMessage("owner lease settings violate renew interval + renew timeout < owner lease TTL - owner lease"
            + " fencing margin (spec 002 section 5): 5000 ms + 5000 ms = 10000 ms is not below 15000 ms - 5000 ms"
            + " = 10000 ms");
    assertThatThrownBy(() -> new LeaseSettings(Duration.ofSeconds(5), Duration.ofSeconds(15),
        Duration.ZERO, Duration.ofSeconds(5)))
        .isInstanceOf(SpotkitException.NotConfigured.class)
        .hasMessage("renew timeout must be positive, was 0 ms (spec 002 section 5)");
    assertThatThrownBy(() -> new LeaseSettings(Duration.ofSeconds(-1), Duration.ofSeconds(15),
        Duration.ofSeconds(3), Duration.ofSeconds(5)))
        .isInstanceOf(SpotkitException.NotConfigured.class)
        .hasMessage("renew interval must be positive, was -1000 ms (spec 002 section 5)");
    assertThat(new LeaseSettings(Duration.ofSeconds(5), Duration.ofSeconds(15), Duration.ofMillis(4999),
        Duration.ofSeconds(5)).renewTimeout()).isEqualTo(Duration.ofMillis(4999));
  }

  @Test
  @Spec("LOC-04")
  void acquireThenAdmit() {
    assertThat(lease.isAdmitting()).isFalse();
    assertThat(lease.acquire()).isEqualTo(new LeaseGeneration(1));
    assertThat(lease.isAdmitting()).isTrue();
    lease.admit("descriptor publishing");
    assertThat(lease.deadlineNanos()).isEqualTo(t0 + 10 * SEC);
    final ReadResult read = store.read(leaseKey).toCompletableFuture().join();
    assertThat(read).isInstanceOf(ReadResult.Found.class);
    final ReadResult.Found found = (ReadResult.Found) read;
    assertThat(OwnerLeaseRecord.decode(found.value())).isEqualTo(new OwnerLeaseRecord("owner-a",
        new LeaseGeneration(1)));
    assertThat(found.expiresAtMillis().getAsLong()).isEqualTo(STORE_T0 + 15_000);
    final OwnerLease other = new OwnerLease(store, "owner-b", LeaseSettings.DEFAULTS, nanos::get);
    assertThat(other.acquire()).isEqualTo(new LeaseGeneration(2));
    assertThatThrownBy(lease::acquire).isInstanceOf(SpotkitException.InvalidOperation.class);
  }

  @Test
  @Spec("LOC-04")
  void stalledRenewalStopsAdmissionAtTheDeadline() throws Exception {
    lease.acquire();
    final StoreFaults.Stall stall = store.faults().stallNext(1, this::leaseCall);
    advance(5);
    final CompletableFuture<Boolean> renewal = lease.renewNow().toCompletableFuture();
    assertThat(renewal).isNotDone();
    advance(4);
    lease.admit("timer start");
    advance(1);
    assertThat(lease.isAdmitting()).isFalse();
    assertThatThrownBy(() -> lease.admit("object message"))
        .isInstanceOf(SpotkitException.Unavailable.class)
        .hasMessage("owner lease owner-lease/owner-a passed its local admission deadline 0 ms ago (deadline at"
            + " monotonic " + (t0 + 10 * SEC) + " ns, now " + (t0 + 10 * SEC) + " ns); object message is refused"
            + " until a renewal answers in time (spec 002 section 5)");
    assertThat(lease.isAdmitting()).isFalse();
    assertThat(lease.admissionStops()).isEqualTo(1);
    stall.timeOut(); // Indeterminate: re-read; the record is still ours but the answer is not fresh enough
    assertThat(done(renewal)).isTrue();
    assertThat(lease.deadlineNanos()).isEqualTo(t0 + 10 * SEC);
    assertThat(lease.isAdmitting()).isFalse();
    assertThat(lease.admissionStops()).isEqualTo(1);
  }

  @Test
  @Spec("LOC-04")
  void lateAnswerRestoresNothingOnlyAFreshOneDoes() throws Exception {
    lease.acquire();
    final StoreFaults.Stall stall = store.faults().stallNext(1, this::leaseCall);
    advance(5);
    final CompletableFuture<Boolean> late = lease.renewNow().toCompletableFuture();
    nanos.addAndGet(11 * SEC); // local t0+16 s; the store's clock (t0+5 s) lags: only local differences count
    assertThat(lease.isAdmitting()).isFalse();
    stall.release();
    assertThat(done(late)).isTrue();
    assertThat(lease.deadlineNanos()).isEqualTo(t0 + 15 * SEC); // sent at t0+5 s + TTL - margin: already past
    assertThat(lease.isAdmitting()).isFalse();
    assertThatThrownBy(() -> lease.admit("relocation change")).isInstanceOf(SpotkitException.Unavailable.class);
    assertThat(done(lease.renewNow().toCompletableFuture())).isTrue();
    assertThat(lease.deadlineNanos()).isEqualTo(t0 + 26 * SEC);
    assertThat(lease.isAdmitting()).isTrue();
    lease.admit("relocation change");
    assertThat(lease.admissionStops()).isEqualTo(1);
  }

  @Test
  @Spec("LOC-04")
  void renewalPastTheTimeoutIsAbandonedAndTheNextOneReReadsFirst() throws Exception {
    lease.acquire();
    final StoreFaults.Stall stall = store.faults().stallNext(1, this::leaseCall);
    advance(5);
    final CompletableFuture<Boolean> first = lease.renewNow().toCompletableFuture();
    advance(2);
    assertThat(lease.renewNow().toCompletableFuture()).isSameAs(first);
    advance(4);
    assertThat(lease.isAdmitting()).isFalse();
    final CompletableFuture<Boolean> second = lease.renewNow().toCompletableFuture();
    assertThat(done(first)).isFalse();
    assertThat(done(second)).isTrue();
    assertThat(lease.deadlineNanos()).isEqualTo(t0 + 21 * SEC);
    assertThat(lease.isAdmitting()).isTrue();
    stall.release(); // the abandoned write now meets a changed version: Conflict, ignored
    assertThat(lease.deadlineNanos()).isEqualTo(t0 + 21 * SEC);
    advance(1);
    assertThat(done(lease.renewNow().toCompletableFuture())).isTrue();
    assertThat(lease.deadlineNanos()).isEqualTo(t0 + 22 * SEC);
  }

  @Test
  @Spec("LOC-04")
  void lostAnswerIsResolvedByReReading() throws Exception {
    lease.acquire();
    final long writesBefore = store.appliedWrites();
    store.faults().loseAnswerOfNext(1, this::leaseCall);
    advance(5);
    assertThat(done(lease.renewNow().toCompletableFuture())).isTrue();
    assertThat(store.appliedWrites()).isEqualTo(writesBefore + 1);
    assertThat(lease.deadlineNanos()).isEqualTo(t0 + 15 * SEC);
    advance(3);
    assertThat(done(lease.renewNow().toCompletableFuture())).isTrue(); // expects the re-read version
    assertThat(store.appliedWrites()).isEqualTo(writesBefore + 2);
    assertThat(lease.deadlineNanos()).isEqualTo(t0 + 18 * SEC);
    store.faults().failNext(1, this::leaseCall);
    advance(1);
    assertThat(done(lease.renewNow().toCompletableFuture())).isFalse(); // not applied: no re-read needed
    assertThat(done(lease.renewNow().toCompletableFuture())).isTrue();
    assertThat(lease.deadlineNanos()).isEqualTo(t0 + 19 * SEC);
  }

  @Test
  @Spec("LOC-04")
  void acquireWithLostAnswerReReadsInsteadOfIssuingAgain() {
    store.faults().loseAnswerOfNext(1, this::leaseCall);
    assertThat(lease.acquire()).isEqualTo(new LeaseGeneration(1));
    assertThat(lease.deadlineNanos()).isEqualTo(t0 + 10 * SEC);
    assertThat(lease.isAdmitting()).isTrue();
    final OwnerLease other = new OwnerLease(store, "owner-b", LeaseSettings.DEFAULTS, nanos::get);
    assertThat(other.acquire()).isEqualTo(new LeaseGeneration(2));
  }

  @Test
  @Spec("LOC-04")
  void expiredLeaseIsLost() throws Exception {
    lease.acquire();
    advance(16);
    assertThat(done(lease.renewNow().toCompletableFuture())).isFalse();
    assertThat(lease.isAdmitting()).isFalse();
    assertThatThrownBy(() -> lease.admit("factory result"))
        .isInstanceOf(SpotkitException.Unavailable.class)
        .hasMessageContaining("was lost");
    assertThat(done(lease.renewNow().toCompletableFuture())).isFalse();
    assertThat(lease.admissionStops()).isEqualTo(1);
  }

  @Test
  @Spec("LOC-04")
  void tickRenewsOnTheInterval() {
    lease.acquire();
    final long writes = store.appliedWrites();
    for (int i = 0; i < 4; i++) {
      advance(1);
      lease.tick();
    }
    assertThat(store.appliedWrites()).isEqualTo(writes);
    advance(1);
    lease.tick();
    assertThat(store.appliedWrites()).isEqualTo(writes + 1);
    assertThat(lease.deadlineNanos()).isEqualTo(t0 + 15 * SEC);
    assertThat(lease.isAdmitting()).isTrue();
  }
}
