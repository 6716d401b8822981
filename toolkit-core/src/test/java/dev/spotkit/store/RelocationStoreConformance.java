package dev.spotkit.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Relocation Store SPI conformance suite (FACTS.md "Relocation Store"; spec 002 section 10): put an immutable
 * payload at a fixed reference (Stored / AlreadyStored / Conflict), get, renew, idempotent delete, and the
 * limits. A provider's test extends it; toolkit-core publishes it in its test-jar. References are namespaced
 * per test.
 */
public abstract class RelocationStoreConformance {

  /** Test namespace. */
  protected String ns;
  /** The store under test. */
  protected RelocationStore store;

  /**
   * A store for one test (may be shared; references are namespaced).
   *
   * @return the store.
   */
  protected abstract RelocationStore newStore();

  /**
   * Moves the store's clock forward, if the provider can.
   *
   * @param by how far.
   * @return false when the provider cannot (tests that need it are skipped).
   */
  protected boolean advanceStoreTime(final Duration by) {
    return false;
  }

  @BeforeEach
  void setUpStore() {
    store = newStore();
    ns = "conf-" + UUID.randomUUID() + ":";
  }

  /** Waits for a stage. */
  protected <T> T await(final CompletionStage<T> stage) {
    try {
      return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError("store call failed or timed out", e);
    }
  }

  private RelocationReference ref(final String name) {
    return new RelocationReference(ns + name);
  }

  @Test
  public void aStoredPayloadIsReadBackUntilItsRetentionEnds() {
    final StoreBytes payload = StoreBytes.of(new byte[] {(byte) 0xca, (byte) 0xfe, 0, 1});
    final RelocationStore.PutResult.Stored stored = (RelocationStore.PutResult.Stored) await(
        store.put(ref("r"), payload, RelocationStore.DEFAULT_RETENTION));
    assertThat(stored.expiresAtMillis()).isEqualTo(stored.now().epochMillis() + Duration.ofHours(24).toMillis());
    final RelocationStore.GetResult.Found found = (RelocationStore.GetResult.Found) await(store.get(ref("r")));
    assertThat(found.payload()).isEqualTo(payload);
    assertThat(found.expiresAtMillis()).isEqualTo(stored.expiresAtMillis());
    assertThat(await(store.get(ref("other")))).isInstanceOf(RelocationStore.GetResult.Missing.class);
  }

  @Test
  public void theSameBytesAgainAreAlreadyStoredAndOtherBytesConflict() {
    final StoreBytes payload = StoreBytes.utf8("first message");
    final RelocationStore.PutResult.Stored stored = (RelocationStore.PutResult.Stored) await(
        store.put(ref("r"), payload, Duration.ofHours(1)));
    final RelocationStore.PutResult again = await(store.put(ref("r"), StoreBytes.utf8("first message"),
        Duration.ofHours(2)));
    assertThat(again).isInstanceOf(RelocationStore.PutResult.AlreadyStored.class);
    assertThat(((RelocationStore.PutResult.AlreadyStored) again).expiresAtMillis())
        .as("an idempotent put changes nothing, not even the retention").isEqualTo(stored.expiresAtMillis());
    assertThat(await(store.put(ref("r"), StoreBytes.utf8("other"), Duration.ofHours(1))))
        .isEqualTo(new RelocationStore.PutResult.Conflict());
    assertThat(((RelocationStore.GetResult.Found) await(store.get(ref("r")))).payload()).isEqualTo(payload);
  }

  @Test
  public void renewMovesTheExpiryAndMissingHasNothingToRenew() {
    await(store.put(ref("r"), StoreBytes.utf8("p"), Duration.ofMinutes(1)));
    final RelocationStore.RenewResult.Renewed renewed = (RelocationStore.RenewResult.Renewed) await(
        store.renew(ref("r"), Duration.ofHours(24)));
    assertThat(renewed.expiresAtMillis()).isEqualTo(renewed.now().epochMillis() + Duration.ofHours(24).toMillis());
    assertThat(((RelocationStore.GetResult.Found) await(store.get(ref("r")))).expiresAtMillis())
        .isEqualTo(renewed.expiresAtMillis());
    assertThat(await(store.renew(ref("none"), Duration.ofHours(1))))
        .isInstanceOf(RelocationStore.RenewResult.Missing.class);
  }

  @Test
  public void deleteIsIdempotentAndFreesTheReference() {
    await(store.put(ref("r"), StoreBytes.utf8("p"), Duration.ofHours(1)));
    await(store.delete(ref("r")));
    assertThat(await(store.get(ref("r")))).isInstanceOf(RelocationStore.GetResult.Missing.class);
    assertThat(await(store.delete(ref("r")))).isNotNull();
    assertThat(await(store.delete(ref("never")))).isNotNull();
    assertThat(await(store.put(ref("r"), StoreBytes.utf8("q"), Duration.ofHours(1))))
        .isInstanceOf(RelocationStore.PutResult.Stored.class);
  }

  @Test
  public void anExpiredPayloadIsMissing() {
    await(store.put(ref("r"), StoreBytes.utf8("p"), Duration.ofMinutes(1)));
    assumeTrue(advanceStoreTime(Duration.ofMinutes(2)), "provider cannot move its clock");
    assertThat(await(store.get(ref("r")))).isInstanceOf(RelocationStore.GetResult.Missing.class);
    assertThat(await(store.renew(ref("r"), Duration.ofMinutes(1))))
        .isInstanceOf(RelocationStore.RenewResult.Missing.class);
    assertThat(await(store.put(ref("r"), StoreBytes.utf8("other"), Duration.ofMinutes(1))))
        .isInstanceOf(RelocationStore.PutResult.Stored.class);
  }

  @Test
  public void limitsAreCheckedBeforeAnythingIsStored() {
    assertThatThrownBy(() -> new RelocationReference("")).isInstanceOf(StoreLimitException.class)
        .hasMessage("relocation reference of 0 UTF-8 bytes is outside the limit 1..4096 bytes; use a non-empty"
            + " reference");
    assertThatThrownBy(() -> new RelocationReference("r".repeat(4097))).isInstanceOf(StoreLimitException.class)
        .hasMessage("relocation reference of 4097 UTF-8 bytes is outside the limit 1..4096 bytes; use a shorter"
            + " reference");
    assertThatThrownBy(() -> store.put(ref("big"), StoreBytes.of(new byte[(16 << 20) + 1]), Duration.ofHours(1)))
        .isInstanceOf(StoreLimitException.class)
        .hasMessage("relocation payload of 16777217 bytes exceeds the limit of 16777216 bytes (16 MiB)");
    assertThatThrownBy(() -> store.put(ref("zero"), StoreBytes.utf8("p"), Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("retention PT0S must be at least 1 ms");
    assertThat(await(store.get(ref("big")))).isInstanceOf(RelocationStore.GetResult.Missing.class);
    assertThat(await(store.get(ref("zero")))).isInstanceOf(RelocationStore.GetResult.Missing.class);
    final RelocationReference longest = new RelocationReference(ns + "r".repeat(4096 - ns.length()));
    assertThat(await(store.put(longest, StoreBytes.utf8("p"), Duration.ofHours(1))))
        .isInstanceOf(RelocationStore.PutResult.Stored.class);
  }

  @Test
  public void concurrentPutsOfDifferentBytesStoreExactlyOne() throws Exception {
    final int threads = 8;
    final ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      for (int round = 0; round < 30; round++) {
        final RelocationReference reference = ref("race-" + round);
        final CountDownLatch start = new CountDownLatch(1);
        final List<Future<RelocationStore.PutResult>> puts = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          final StoreBytes payload = StoreBytes.utf8(t % 2 == 0 ? "even" : "odd " + t);
          puts.add(pool.submit(() -> {
            start.await();
            return await(store.put(reference, payload, Duration.ofHours(1)));
          }));
        }
        start.countDown();
        int stored = 0;
        int already = 0;
        for (Future<RelocationStore.PutResult> put : puts) {
          final RelocationStore.PutResult result = put.get(10, TimeUnit.SECONDS);
          stored += result instanceof RelocationStore.PutResult.Stored ? 1 : 0;
          already += result instanceof RelocationStore.PutResult.AlreadyStored ? 1 : 0;
        }
        assertThat(stored).as("must never: two payloads stored at %s", reference).isEqualTo(1);
        final StoreBytes winner = ((RelocationStore.GetResult.Found) await(store.get(reference))).payload();
        assertThat(already).as("AlreadyStored only for the winner's bytes")
            .isEqualTo(winner.asUtf8().equals("even") ? threads / 2 - 1 : 0);
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
