package dev.spotkit.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.spotkit.core.Spec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Location Store SPI conformance suite (FACTS.md "Location Store provider contract"; spec 002 sections 6 and
 * 10). A provider's test extends it and supplies {@link #newStore()}; toolkit-core publishes it in its test-jar.
 *
 * <p>Every test works under its own random key prefix, so a provider may hand out one shared store. Tests that
 * need the store's clock to move call {@link #advanceStoreTime}; a provider that cannot move time returns false
 * there and those tests are skipped. Each concurrency test names the outcome it must never see.
 */
public abstract class LocationStoreConformance {

  /** Test namespace: every key of a test starts with it. */
  protected String ns;
  /** The store under test. */
  protected LocationStore store;

  /**
   * A store for one test. It may be shared with other tests (keys are namespaced).
   *
   * @return the store.
   */
  protected abstract LocationStore newStore();

  /**
   * Moves the store's clock forward, if the provider can.
   *
   * @param by how far.
   * @return false when the provider cannot (tests that need it are skipped).
   */
  protected boolean advanceStoreTime(final Duration by) {
    return false;
  }

  /**
   * The longest wait for one call.
   *
   * @return the timeout.
   */
  protected Duration timeout() {
    return Duration.ofSeconds(10);
  }

  @BeforeEach
  void setUpStore() {
    store = newStore();
    ns = "conf-" + UUID.randomUUID() + ":";
  }

  /** Waits for a stage. */
  protected <T> T await(final java.util.concurrent.CompletionStage<T> stage) {
    try {
      return stage.toCompletableFuture().get(timeout().toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      throw new AssertionError("store call failed or timed out", e);
    }
  }

  /** Reads a key. */
  protected ReadResult read(final String key) {
    return await(store.read(key));
  }

  /** Writes a batch. */
  protected WriteResult write(final List<Condition> conditions, final List<Mutation> mutations) {
    return await(store.write(WriteBatch.of(conditions, mutations)));
  }

  /** Puts one value unconditionally and returns its version. */
  protected StoreVersion put(final String key, final String value) {
    final WriteResult result = write(List.of(), List.of(Mutation.Put.of(key, StoreBytes.utf8(value))));
    assertThat(result).isInstanceOf(WriteResult.Applied.class);
    return ((WriteResult.Applied) result).version(key);
  }

  /** Every live key under the namespace with its value, by a full scan. */
  protected Map<String, String> scanAll(final String prefix, final int limit) {
    final Map<String, String> all = new LinkedHashMap<>();
    Optional<ScanCursor> cursor = Optional.empty();
    for (int pages = 0; pages < 10_000; pages++) {
      final ScanResult result = await(store.scan(new ScanRequest(prefix, cursor, limit)));
      assertThat(result).isInstanceOf(ScanResult.Page.class);
      final ScanResult.Page page = (ScanResult.Page) result;
      for (ScanEntry entry : page.entries()) {
        assertThat(all.put(entry.key(), entry.value().asUtf8())).as("key %s repeated", entry.key()).isNull();
      }
      if (page.next().isEmpty()) {
        return all;
      }
      cursor = page.next();
    }
    throw new AssertionError("scan did not end in 10,000 pages");
  }

  // ---------------------------------------------------------------- read and write

  @Test
  public void readOfAnAbsentKeyIsMissingWithStoreNowAndCreatesNothing() {
    final ReadResult result = read(ns + "absent");
    assertThat(result).isInstanceOf(ReadResult.Missing.class);
    assertThat(result.now().epochMillis()).isPositive();
    assertThat(read(ns + "absent")).isInstanceOf(ReadResult.Missing.class);
    assertThat(scanAll(ns, 1000)).isEmpty();
  }

  @Test
  public void aPutIsReadBackWithItsBytesVersionAndNoExpiry() {
    final byte[] bytes = {0, 1, 2, (byte) 0xff, 0x7f};
    final WriteResult result = write(List.of(new Condition.ExpectAbsent(ns + "k")),
        List.of(Mutation.Put.of(ns + "k", StoreBytes.of(bytes))));
    final WriteResult.Applied applied = (WriteResult.Applied) result;
    assertThat(applied.versions()).containsOnlyKeys(ns + "k");
    final ReadResult.Found found = (ReadResult.Found) read(ns + "k");
    assertThat(found.value().toByteArray()).containsExactly(bytes);
    assertThat(found.version()).isEqualTo(applied.version(ns + "k"));
    assertThat(found.expiresAtMillis()).isEmpty();
    assertThat(found.now().epochMillis()).isGreaterThanOrEqualTo(applied.now().epochMillis());
  }

  @Test
  public void everyPutOfAKeyGetsAVersionItNeverHadBefore() {
    final Set<StoreVersion> versions = new HashSet<>();
    for (int i = 0; i < 20; i++) {
      assertThat(versions.add(put(ns + "k", "v" + (i % 2)))).as("version reused at put %d", i).isTrue();
    }
    write(List.of(), List.of(new Mutation.Delete(ns + "k")));
    assertThat(versions.add(put(ns + "k", "v0"))).as("version reused after delete").isTrue();
  }

  @Test
  public void expectVersionHoldsOnlyForTheCurrentVersion() {
    final StoreVersion first = put(ns + "k", "one");
    final StoreVersion second = put(ns + "k", "two");
    assertThat(write(List.of(new Condition.ExpectVersion(ns + "k", first)),
        List.of(Mutation.Put.of(ns + "k", StoreBytes.utf8("three"))))).isEqualTo(new WriteResult.Conflict());
    assertThat(((ReadResult.Found) read(ns + "k")).value().asUtf8()).isEqualTo("two");
    assertThat(write(List.of(new Condition.ExpectVersion(ns + "k", second)),
        List.of(Mutation.Put.of(ns + "k", StoreBytes.utf8("three"))))).isInstanceOf(WriteResult.Applied.class);
    assertThat(write(List.of(new Condition.ExpectVersion(ns + "absent", second)),
        List.of(Mutation.Put.of(ns + "x", StoreBytes.utf8("x"))))).isEqualTo(new WriteResult.Conflict());
  }

  @Test
  public void expectAbsentFailsOnALiveKeyAndHoldsAfterDelete() {
    put(ns + "k", "one");
    assertThat(write(List.of(new Condition.ExpectAbsent(ns + "k")),
        List.of(Mutation.Put.of(ns + "k", StoreBytes.utf8("two"))))).isEqualTo(new WriteResult.Conflict());
    assertThat(write(List.of(), List.of(new Mutation.Delete(ns + "k")))).isInstanceOf(WriteResult.Applied.class);
    assertThat(read(ns + "k")).isInstanceOf(ReadResult.Missing.class);
    assertThat(write(List.of(new Condition.ExpectAbsent(ns + "k")),
        List.of(Mutation.Put.of(ns + "k", StoreBytes.utf8("two"))))).isInstanceOf(WriteResult.Applied.class);
  }

  @Test
  public void aBatchWithOneFailingConditionChangesNothing() {
    final StoreVersion a = put(ns + "a", "a0");
    final StoreVersion b = put(ns + "b", "b0");
    put(ns + "c", "c0");
    final WriteResult result = write(
        List.of(new Condition.ExpectVersion(ns + "a", a), new Condition.ExpectVersion(ns + "b", b),
            new Condition.ExpectAbsent(ns + "c")),
        List.of(Mutation.Put.of(ns + "a", StoreBytes.utf8("a1")), Mutation.Put.of(ns + "new", StoreBytes.utf8("n")),
            new Mutation.Delete(ns + "b")));
    assertThat(result).isEqualTo(new WriteResult.Conflict());
    assertThat(scanAll(ns, 1000)).containsExactly(Map.entry(ns + "a", "a0"), Map.entry(ns + "b", "b0"),
        Map.entry(ns + "c", "c0"));
    assertThat(((ReadResult.Found) read(ns + "a")).version()).isEqualTo(a);
  }

  @Test
  public void aBatchWhoseConditionsHoldAppliesEveryMutation() {
    final StoreVersion a = put(ns + "a", "a0");
    put(ns + "b", "b0");
    final WriteResult.Applied applied = (WriteResult.Applied) write(
        List.of(new Condition.ExpectVersion(ns + "a", a), new Condition.ExpectAbsent(ns + "c")),
        List.of(Mutation.Put.of(ns + "a", StoreBytes.utf8("a1")), Mutation.Put.of(ns + "c", StoreBytes.utf8("c1")),
            new Mutation.Delete(ns + "b"), new Mutation.Delete(ns + "never")));
    assertThat(applied.versions()).containsOnlyKeys(ns + "a", ns + "c");
    assertThat(scanAll(ns, 1000)).containsExactly(Map.entry(ns + "a", "a1"), Map.entry(ns + "c", "c1"));
    assertThat(((ReadResult.Found) read(ns + "c")).version()).isEqualTo(applied.version(ns + "c"));
  }

  @Test
  public void aConditionsOnlyBatchChecksVersionsWithoutChangingThem() {
    final StoreVersion a = put(ns + "a", "a0");
    assertThat(write(List.of(new Condition.ExpectVersion(ns + "a", a)), List.of()))
        .isInstanceOf(WriteResult.Applied.class);
    assertThat(((ReadResult.Found) read(ns + "a")).version()).isEqualTo(a);
  }

  @Test
  public void aRetentionExpiresTheValueAtTheBatchStoreNowPlusRetention() {
    final WriteResult.Applied applied = (WriteResult.Applied) write(List.of(),
        List.of(Mutation.Put.expiring(ns + "lease", StoreBytes.utf8("x"), Duration.ofSeconds(15))));
    final ReadResult.Found found = (ReadResult.Found) read(ns + "lease");
    assertThat(found.expiresAtMillis()).isEqualTo(OptionalLong.of(applied.now().epochMillis() + 15_000));
    put(ns + "lease", "y");
    assertThat(((ReadResult.Found) read(ns + "lease")).expiresAtMillis()).as("a put without retention").isEmpty();
  }

  @Test
  public void anExpiredValueIsMissingAndAbsentForConditions() {
    final StoreVersion version = ((WriteResult.Applied) write(List.of(),
        List.of(Mutation.Put.expiring(ns + "lease", StoreBytes.utf8("x"), Duration.ofSeconds(15))))).version(ns
        + "lease");
    put(ns + "forever", "f");
    assumeTrue(advanceStoreTime(Duration.ofSeconds(16)), "provider cannot move its clock");
    assertThat(read(ns + "lease")).isInstanceOf(ReadResult.Missing.class);
    assertThat(read(ns + "forever")).isInstanceOf(ReadResult.Found.class);
    assertThat(write(List.of(new Condition.ExpectVersion(ns + "lease", version)), List.of()))
        .isEqualTo(new WriteResult.Conflict());
    assertThat(write(List.of(new Condition.ExpectAbsent(ns + "lease")),
        List.of(Mutation.Put.of(ns + "lease", StoreBytes.utf8("new"))))).isInstanceOf(WriteResult.Applied.class);
    assertThat(scanAll(ns, 10)).containsOnlyKeys(ns + "forever", ns + "lease");
  }

  // ---------------------------------------------------------------- readAll (one request, several keys)

  @Test
  public void readAllAnswersWhatReadAnswersForEachKeyInOrderWithOneStoreNow() {
    final StoreVersion a = put(ns + "a", "alpha");
    final StoreVersion b = ((WriteResult.Applied) write(List.of(), List.of(Mutation.Put.expiring(ns + "b",
        StoreBytes.utf8("beta"), Duration.ofHours(1))))).version(ns + "b");
    final List<ReadResult> all = await(store.readAll(List.of(ns + "b", ns + "absent", ns + "a", ns + "b")));
    assertThat(all).hasSize(4);
    final ReadResult.Found first = (ReadResult.Found) all.get(0);
    assertThat(first.value().asUtf8()).isEqualTo("beta");
    assertThat(first.version()).isEqualTo(b);
    assertThat(first.expiresAtMillis()).isEqualTo(((ReadResult.Found) read(ns + "b")).expiresAtMillis());
    assertThat(all.get(1)).isInstanceOf(ReadResult.Missing.class);
    assertThat(((ReadResult.Found) all.get(2)).version()).isEqualTo(a);
    assertThat(((ReadResult.Found) all.get(2)).value().asUtf8()).isEqualTo("alpha");
    assertThat(((ReadResult.Found) all.get(2)).expiresAtMillis()).isEmpty();
    assertThat(((ReadResult.Found) all.get(3)).version()).isEqualTo(b);
    assertThat(all).extracting(ReadResult::now).as("one point in time, one StoreNow").containsOnly(first.now());
    assertThat(scanAll(ns, 1000)).as("reading created nothing").containsOnlyKeys(ns + "a", ns + "b");
  }

  @Test
  public void readAllShowsAnExpiredOrDeletedValueAsMissing() {
    write(List.of(), List.of(Mutation.Put.expiring(ns + "lease", StoreBytes.utf8("x"), Duration.ofSeconds(15))));
    put(ns + "gone", "g");
    write(List.of(), List.of(new Mutation.Delete(ns + "gone")));
    assertThat(await(store.readAll(List.of(ns + "gone")))).singleElement().isInstanceOf(ReadResult.Missing.class);
    assumeTrue(advanceStoreTime(Duration.ofSeconds(16)), "provider cannot move its clock");
    assertThat(await(store.readAll(List.of(ns + "lease", ns + "gone"))))
        .allSatisfy(r -> assertThat(r).isInstanceOf(ReadResult.Missing.class));
  }

  @Test
  public void readAllRefusesNoKeysMoreThan2048KeysOrABadKeyAtOnce() {
    assertThatThrownBy(() -> store.readAll(List.of())).isInstanceOf(StoreLimitException.class);
    final List<String> tooMany = new ArrayList<>();
    for (int i = 0; i <= StoreLimits.MAX_BATCH_KEYS; i++) {
      tooMany.add(ns + i);
    }
    assertThatThrownBy(() -> store.readAll(tooMany)).isInstanceOf(StoreLimitException.class);
    assertThatThrownBy(() -> store.readAll(List.of(ns + "ok", ""))).isInstanceOf(StoreLimitException.class);
    assertThatThrownBy(() -> store.readAll(List.of(ns + "x".repeat(1025)))).isInstanceOf(StoreLimitException.class);
    final List<ReadResult> atLimit = await(store.readAll(tooMany.subList(0, StoreLimits.MAX_BATCH_KEYS)));
    assertThat(atLimit).hasSize(StoreLimits.MAX_BATCH_KEYS)
        .allSatisfy(r -> assertThat(r).isInstanceOf(ReadResult.Missing.class));
  }

  /**
   * The batch shapes crash recovery relies on (issue 15, {@code PlacementBatches.sweepAbandoned}): a sweep conditioned
   * on a row's version and on its owner's lease key being absent conflicts while the lease lives, applies in one step
   * once the lease expired in the store, and the old owner's renewal (conditioned on its lease version) and writes
   * (conditioned on the old row version) then conflict, while the re-creation (row absent) applies.
   */
  @Test
  public void aSweepConditionedOnAnExpiredLeaseAppliesOnlyOnceItLapsedAndFencesTheOldOwner() {
    final String lease = ns + "lease";
    final String row = ns + "row";
    final String cap = ns + "cap";
    final StoreVersion leaseVersion = ((WriteResult.Applied) write(List.of(), List.of(Mutation.Put.expiring(lease,
        StoreBytes.utf8("owner-1"), Duration.ofSeconds(15))))).version(lease);
    final StoreVersion rowVersion = put(row, "ready on owner-1");
    final StoreVersion capVersion = put(cap, "1 active");
    final List<Condition> sweep = List.of(new Condition.ExpectVersion(row, rowVersion),
        new Condition.ExpectAbsent(lease), new Condition.ExpectVersion(cap, capVersion));
    final List<Mutation> sweepMutations = List.of(new Mutation.Delete(row), Mutation.Put.of(cap,
        StoreBytes.utf8("0 active")));
    assertThat(write(sweep, sweepMutations)).as("the owner is alive").isEqualTo(new WriteResult.Conflict());
    assertThat(((ReadResult.Found) read(row)).version()).isEqualTo(rowVersion);

    assumeTrue(advanceStoreTime(Duration.ofSeconds(16)), "provider cannot move its clock");
    assertThat(write(sweep, sweepMutations)).isInstanceOf(WriteResult.Applied.class);
    assertThat(read(row)).isInstanceOf(ReadResult.Missing.class);
    assertThat(((ReadResult.Found) read(cap)).value().asUtf8()).isEqualTo("0 active");
    assertThat(write(sweep, sweepMutations)).as("applies once").isEqualTo(new WriteResult.Conflict());

    assertThat(write(List.of(new Condition.ExpectVersion(lease, leaseVersion)), List.of(Mutation.Put.expiring(lease,
        StoreBytes.utf8("owner-1"), Duration.ofSeconds(15))))).as("the old owner's renewal")
        .isEqualTo(new WriteResult.Conflict());
    assertThat(write(List.of(new Condition.ExpectVersion(row, rowVersion)), List.of(Mutation.Put.of(row,
        StoreBytes.utf8("old owner's change"))))).as("the old owner's row write").isEqualTo(new WriteResult.Conflict());
    assertThat(write(List.of(new Condition.ExpectAbsent(row)), List.of(Mutation.Put.of(row,
        StoreBytes.utf8("creating on owner-2"))))).as("the re-creation").isInstanceOf(WriteResult.Applied.class);
    assertThat(read(lease)).isInstanceOf(ReadResult.Missing.class);
  }

  @Test
  public void keysMayHoldNulSeparatorsAndAnyUnicode() {
    final String key = ns + "authority\0actor\0\u00e9\uD83D\uDE00";
    put(key, "v");
    assertThat(((ReadResult.Found) read(key)).value().asUtf8()).isEqualTo("v");
    assertThat(read(ns + "authority\0actor\0e\u0301\uD83D\uDE00")).as("no normalisation")
        .isInstanceOf(ReadResult.Missing.class);
  }

  // ---------------------------------------------------------------- limits

  @Test
  public void keysOutsideOneTo1024Utf8BytesAreRefusedBeforeAnythingChanges() {
    assertThatThrownBy(() -> store.read(""))
        .isInstanceOf(StoreLimitException.class)
        .hasMessage("store key of 0 UTF-8 bytes is outside the limit 1..1024 bytes; use a non-empty key");
    final String tooLong = ns + "x".repeat(1025 - ns.length());
    assertThatThrownBy(() -> Mutation.Put.of(tooLong, StoreBytes.utf8("v")))
        .isInstanceOf(StoreLimitException.class)
        .hasMessage("store key of 1025 UTF-8 bytes is outside the limit 1..1024 bytes; use a shorter key")
        .satisfies(e -> {
          assertThat(((StoreLimitException) e).value()).isEqualTo(1025);
          assertThat(((StoreLimitException) e).limit()).isEqualTo(1024);
        });
    final String twoByteChars = ns + "\u00e9".repeat((1025 - ns.length()) / 2 + 1);
    assertThatThrownBy(() -> new Condition.ExpectAbsent(twoByteChars)).isInstanceOf(StoreLimitException.class);
    final String longest = ns + "x".repeat(1024 - ns.length());
    put(longest, "v");
    assertThat(read(longest)).isInstanceOf(ReadResult.Found.class);
    assertThat(scanAll(ns, 1000)).containsOnlyKeys(longest);
  }

  @Test
  public void valuesOverOneMebibyteAreRefused() {
    assertThatThrownBy(() -> Mutation.Put.of(ns + "k", StoreBytes.of(new byte[(1 << 20) + 1])))
        .isInstanceOf(StoreLimitException.class)
        .hasMessage("store value of 1048577 bytes exceeds the limit of 1048576 bytes (1 MiB); split it over"
            + " several keys");
    write(List.of(), List.of(Mutation.Put.of(ns + "k", StoreBytes.of(new byte[1 << 20]))));
    assertThat(((ReadResult.Found) read(ns + "k")).value().size()).isEqualTo(1 << 20);
  }

  @Test
  public void versionsOutsideOneTo4096Utf8BytesAreRefused() {
    assertThatThrownBy(() -> new StoreVersion("")).isInstanceOf(StoreLimitException.class)
        .hasMessage("store version of 0 UTF-8 bytes is outside the limit 1..4096 bytes; use a non-empty version");
    assertThatThrownBy(() -> new StoreVersion("9".repeat(4097))).isInstanceOf(StoreLimitException.class)
        .hasMessage("store version of 4097 UTF-8 bytes is outside the limit 1..4096 bytes; use a shorter version");
    final StoreVersion longest = new StoreVersion("9".repeat(4096));
    put(ns + "k", "v");
    assertThat(write(List.of(new Condition.ExpectVersion(ns + "k", longest)), List.of()))
        .isEqualTo(new WriteResult.Conflict());
  }

  @Test
  public void batchesOver2048DistinctKeysAreRefusedAndAtTheLimitApply() {
    final List<Mutation> over = new ArrayList<>();
    for (int i = 0; i < 2049; i++) {
      over.add(Mutation.Put.of(ns + i, StoreBytes.utf8("v")));
    }
    assertThatThrownBy(() -> WriteBatch.of(List.of(), over)).isInstanceOf(StoreLimitException.class)
        .hasMessage("write batch touches 2049 distinct keys, over the limit of 2048; split it into several batches");
    final List<Condition> conditions = new ArrayList<>();
    for (int i = 0; i < 1024; i++) {
      conditions.add(new Condition.ExpectAbsent(ns + i));
      conditions.add(new Condition.ExpectAbsent(ns + "c" + i));
    }
    assertThatThrownBy(() -> WriteBatch.of(conditions, List.of(Mutation.Put.of(ns + "extra", StoreBytes.utf8("v")))))
        .as("conditions and mutations count together").isInstanceOf(StoreLimitException.class);
    assertThat(write(List.of(), over.subList(0, 2048))).isInstanceOf(WriteResult.Applied.class);
    assertThat(scanAll(ns, 1000)).hasSize(2048);
  }

  @Test
  public void batchesOverFourMebibytesAreRefused() {
    final List<Mutation> mutations = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      mutations.add(Mutation.Put.of(ns + i, StoreBytes.of(new byte[1 << 20])));
    }
    final long bytes = 4L * (1 << 20) + 4L * (ns.length() + 1);
    assertThatThrownBy(() -> WriteBatch.of(List.of(), mutations)).isInstanceOf(StoreLimitException.class)
        .hasMessage("write batch of " + bytes + " bytes exceeds the limit of 4194304 bytes (4 MiB); split it into"
            + " several batches");
    assertThat(write(List.of(), mutations.subList(0, 3))).isInstanceOf(WriteResult.Applied.class);
  }

  @Test
  public void aKeyTwiceAmongConditionsOrAmongMutationsIsRefused() {
    assertThatThrownBy(() -> WriteBatch.of(List.of(new Condition.ExpectAbsent(ns + "k"),
        new Condition.ExpectAbsent(ns + "k")), List.of())).isInstanceOf(StoreLimitException.class)
        .hasMessage("key '" + ns + "k' appears twice among the conditions of one write batch; give each key at most"
            + " one");
    assertThatThrownBy(() -> WriteBatch.of(List.of(), List.of(Mutation.Put.of(ns + "k\0x", StoreBytes.utf8("v")),
        new Mutation.Delete(ns + "k\0x")))).isInstanceOf(StoreLimitException.class)
        .hasMessage("key '" + ns + "k\\0x' appears twice among the mutations of one write batch; give each key at"
            + " most one");
    assertThatThrownBy(() -> WriteBatch.of(List.of(), List.of())).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a write batch needs at least one condition or mutation");
    assertThat(write(List.of(new Condition.ExpectAbsent(ns + "k")),
        List.of(Mutation.Put.of(ns + "k", StoreBytes.utf8("v"))))).as("one condition and one mutation per key")
        .isInstanceOf(WriteResult.Applied.class);
  }

  @Test
  public void scanLimitsAndCursorSizesAreChecked() {
    assertThatThrownBy(() -> ScanRequest.first(ns, 0)).isInstanceOf(StoreLimitException.class)
        .hasMessage("scan limit 0 is outside 1..1000 entries per page");
    assertThatThrownBy(() -> ScanRequest.first(ns, 1001)).isInstanceOf(StoreLimitException.class)
        .hasMessage("scan limit 1001 is outside 1..1000 entries per page");
    assertThatThrownBy(() -> new ScanCursor(StoreBytes.of(new byte[4097]))).isInstanceOf(StoreLimitException.class)
        .hasMessage("scan cursor of 4097 bytes is outside the limit 1..4096 bytes; pass back the cursor of the"
            + " previous page unchanged");
    assertThatThrownBy(() -> new ScanCursor(StoreBytes.empty())).isInstanceOf(StoreLimitException.class);
  }

  // ---------------------------------------------------------------- concurrency

  @Test
  public void concurrentConditionalWritesHaveExactlyOneWinnerPerVersion() throws Exception {
    final int threads = 8;
    final int rounds = 40;
    final ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      for (int round = 0; round < rounds; round++) {
        final StoreVersion seen = put(ns + "contended", "round " + round);
        final CountDownLatch start = new CountDownLatch(1);
        final List<Future<WriteResult>> attempts = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          final String value = "writer " + t;
          attempts.add(pool.submit(() -> {
            start.await();
            return await(store.write(WriteBatch.of(List.of(new Condition.ExpectVersion(ns + "contended", seen)),
                List.of(Mutation.Put.of(ns + "contended", StoreBytes.utf8(value))))));
          }));
        }
        start.countDown();
        int winners = 0;
        String winner = null;
        for (int t = 0; t < threads; t++) {
          if (attempts.get(t).get(timeout().toMillis(), TimeUnit.MILLISECONDS) instanceof WriteResult.Applied) {
            winners++;
            winner = "writer " + t;
          }
        }
        assertThat(winners).as("must never: two winners (or none) for one version in round %d", round)
            .isEqualTo(1);
        assertThat(((ReadResult.Found) read(ns + "contended")).value().asUtf8()).isEqualTo(winner);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  public void concurrentCreatesOfOneAbsentKeyHaveExactlyOneWinner() throws Exception {
    final int threads = 8;
    final ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      for (int round = 0; round < 40; round++) {
        final String key = ns + "create-" + round;
        final CountDownLatch start = new CountDownLatch(1);
        final List<Future<WriteResult>> attempts = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          attempts.add(pool.submit(() -> {
            start.await();
            return await(store.write(WriteBatch.of(List.of(new Condition.ExpectAbsent(key)),
                List.of(Mutation.Put.of(key, StoreBytes.utf8(Thread.currentThread().getName()))))));
          }));
        }
        start.countDown();
        int winners = 0;
        for (Future<WriteResult> attempt : attempts) {
          if (attempt.get(timeout().toMillis(), TimeUnit.MILLISECONDS) instanceof WriteResult.Applied) {
            winners++;
          }
        }
        assertThat(winners).as("must never: two creators of %s", key).isEqualTo(1);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  public void aCountedSequenceUnderContentionNeverIssuesAValueTwiceOrSkipsOne() throws Exception {
    final int threads = 6;
    final int perThread = 40;
    final String counter = ns + "counter";
    final Set<Long> issued = ConcurrentHashMap.newKeySet();
    final AtomicInteger duplicates = new AtomicInteger();
    final ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      final CountDownLatch start = new CountDownLatch(1);
      final List<Future<?>> workers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        workers.add(pool.submit(() -> {
          start.await();
          for (int n = 0; n < perThread; n++) {
            if (!issued.add(issueOne(counter))) {
              duplicates.incrementAndGet();
            }
          }
          return null;
        }));
      }
      start.countDown();
      for (Future<?> worker : workers) {
        worker.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(duplicates).as("must never: one value issued twice (a lost update)").hasValue(0);
    assertThat(issued).hasSize(threads * perThread);
    assertThat(issued.stream().mapToLong(Long::longValue).max().orElseThrow()).isEqualTo(threads * perThread);
  }

  private long issueOne(final String counter) {
    for (int attempt = 0; attempt < 100_000; attempt++) {
      final ReadResult current = read(counter);
      final long next = current instanceof ReadResult.Found found ? Long.parseLong(found.value().asUtf8()) : 1;
      final Condition condition = current instanceof ReadResult.Found found
          ? new Condition.ExpectVersion(counter, found.version()) : new Condition.ExpectAbsent(counter);
      if (write(List.of(condition), List.of(Mutation.Put.of(counter, StoreBytes.utf8(Long.toString(next + 1)))))
          instanceof WriteResult.Applied) {
        return next;
      }
    }
    throw new AssertionError("no progress in 100,000 attempts");
  }

  // ---------------------------------------------------------------- scan

  @Test
  public void aScanReturnsOnlyThePrefixInUtf8ByteOrder() {
    final List<String> suffixes = List.of("b", "a", "\uFFFD", "\uD83D\uDE00", "\u00e9", "a\0z", "A", "aa");
    for (String suffix : suffixes) {
      put(ns + "p/" + suffix, suffix);
    }
    put(ns + "q/a", "outside");
    put(ns + "p", "the prefix itself without the slash");
    final List<String> expected = List.of("A", "a", "a\0z", "aa", "b", "\u00e9", "\uFFFD", "\uD83D\uDE00");
    assertThat(new ArrayList<>(scanAll(ns + "p/", 3).values())).as("UTF-8 byte order, not UTF-16 order")
        .containsExactlyElementsOf(expected);
    final ScanResult.Page empty = (ScanResult.Page) await(store.scan(ScanRequest.first(ns + "none/", 10)));
    assertThat(empty.entries()).isEmpty();
    assertThat(empty.next()).isEmpty();
  }

  @Test
  @Spec("LOC-08")
  public void pagesHoldAtMostTheLimitAndCursorsAtMost4096Bytes() {
    final Map<String, String> expected = new TreeMap<>();
    final List<Mutation> batch = new ArrayList<>();
    for (int i = 0; i < 2345; i++) {
      final String key = ns + String.format("%05d", i);
      expected.put(key, "v" + i);
      batch.add(Mutation.Put.of(key, StoreBytes.utf8("v" + i)));
      if (batch.size() == 1000) {
        write(List.of(), List.copyOf(batch));
        batch.clear();
      }
    }
    write(List.of(), batch);
    final List<Integer> sizes = new ArrayList<>();
    final List<String> keys = new ArrayList<>();
    Optional<ScanCursor> cursor = Optional.empty();
    do {
      final ScanResult.Page page = (ScanResult.Page) await(store.scan(new ScanRequest(ns, cursor, 1000)));
      sizes.add(page.entries().size());
      page.entries().forEach(e -> keys.add(e.key()));
      cursor = page.next();
      cursor.ifPresent(c -> assertThat(c.token().size()).isBetween(1, 4096));
    } while (cursor.isPresent() && sizes.size() < 100);
    assertThat(sizes.stream().mapToInt(Integer::intValue).sum()).isEqualTo(2345);
    assertThat(sizes).allMatch(s -> s <= 1000);
    assertThat(keys).containsExactlyElementsOf(expected.keySet());
  }

  @Test
  @Spec("LOC-08")
  public void pagesHoldAtMostFourMebibytes() {
    for (int i = 0; i < 7; i++) {
      write(List.of(), List.of(Mutation.Put.of(ns + i, StoreBytes.of(new byte[(1 << 20) - 16]))));
    }
    Optional<ScanCursor> cursor = Optional.empty();
    int seen = 0;
    int pages = 0;
    do {
      final ScanResult.Page page = (ScanResult.Page) await(store.scan(new ScanRequest(ns, cursor, 1000)));
      assertThat(page.entries().stream().mapToLong(ScanEntry::pageBytes).sum()).isLessThanOrEqualTo(4L << 20);
      assertThat(page.entries()).isNotEmpty();
      seen += page.entries().size();
      cursor = page.next();
      pages++;
    } while (cursor.isPresent() && pages < 20);
    assertThat(seen).isEqualTo(7);
    assertThat(pages).isGreaterThanOrEqualTo(2);
  }

  @Test
  @Spec("LOC-08")
  public void aScanReadsOnePointInTimeWhileWritesGoOnBetweenPages() {
    final Map<String, String> atStart = new TreeMap<>();
    final List<Mutation> batch = new ArrayList<>();
    for (int i = 0; i < 1500; i += 2) {
      final String key = ns + String.format("%05d", i);
      atStart.put(key, "v" + i);
      batch.add(Mutation.Put.of(key, StoreBytes.utf8("v" + i)));
    }
    write(List.of(), batch);
    final Map<String, String> seen = new LinkedHashMap<>();
    ScanResult.Page page = (ScanResult.Page) await(store.scan(ScanRequest.first(ns, 100)));
    int round = 0;
    while (true) {
      page.entries().forEach(e -> assertThat(seen.put(e.key(), e.value().asUtf8())).as("repeated").isNull());
      // writes after every page: delete unread and read keys, add keys on both sides, change unread values
      final int at = 200 * round % 1500;
      write(List.of(), List.of(new Mutation.Delete(ns + String.format("%05d", (at + 700) % 1500 / 2 * 2)),
          new Mutation.Delete(ns + String.format("%05d", at / 2 * 2)),
          Mutation.Put.of(ns + String.format("%05d", (at + 1) % 1500), StoreBytes.utf8("new")),
          Mutation.Put.of(ns + String.format("%05d", (at + 901) % 1500), StoreBytes.utf8("new")),
          Mutation.Put.of(ns + String.format("%05d", (at + 1002) % 1500 / 2 * 2), StoreBytes.utf8("changed"))));
      round++;
      if (page.next().isEmpty() || round > 100) {
        break;
      }
      page = (ScanResult.Page) await(store.scan(ScanRequest.next(ns, page.next().get(), 100)));
    }
    assertThat(seen).as("must never: a repeat, a skip, a later key or a later value").isEqualTo(atStart);
  }

  @Test
  @Spec("LOC-08")
  public void aScanStaysConsistentWithAConcurrentWriter() throws Exception {
    final Map<String, String> atStart = new TreeMap<>();
    final List<Mutation> batch = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      final String key = ns + String.format("%04d", i * 2);
      atStart.put(key, "v" + i);
      batch.add(Mutation.Put.of(key, StoreBytes.utf8("v" + i)));
    }
    write(List.of(), batch);
    final Map<String, String> seen = new LinkedHashMap<>();
    final AtomicBoolean done = new AtomicBoolean();
    final Semaphore progress = new Semaphore(0);
    final ExecutorService writer = Executors.newSingleThreadExecutor();
    int pages = 0;
    try {
      ScanResult.Page page = (ScanResult.Page) await(store.scan(ScanRequest.first(ns, 37)));
      final Future<Integer> writes = writer.submit(() -> {
        int n = 0;
        while (!done.get() && n < 100_000) {
          final int i = n % 1000;
          await(store.write(WriteBatch.unconditional(
              new Mutation.Delete(ns + String.format("%04d", (i * 7 % 1000) * 2)),
              Mutation.Put.of(ns + String.format("%04d", i * 2 + 1), StoreBytes.utf8("new")),
              Mutation.Put.of(ns + String.format("%04d", (i * 13 + 1) % 1000 * 2), StoreBytes.utf8("changed")))));
          n++;
          progress.release();
        }
        return n;
      });
      for (; pages < 1000; pages++) {
        page.entries().forEach(e -> assertThat(seen.put(e.key(), e.value().asUtf8())).as("repeated").isNull());
        if (page.next().isEmpty()) {
          break;
        }
        // at least one concurrent write lands between any two pages; the writer does not wait for the scan
        assertThat(progress.tryAcquire(10, TimeUnit.SECONDS)).as("writer made progress").isTrue();
        page = (ScanResult.Page) await(store.scan(ScanRequest.next(ns, page.next().get(), 37)));
      }
      done.set(true);
      assertThat(writes.get(60, TimeUnit.SECONDS)).isGreaterThanOrEqualTo(pages);
    } finally {
      done.set(true);
      writer.shutdownNow();
    }
    assertThat(pages).isGreaterThan(20);
    assertThat(seen).as("must never: a repeat, a skip, a later key or a later value").isEqualTo(atStart);
  }

  @Test
  public void aForeignOrForgedCursorIsScanExpired() {
    for (int i = 0; i < 5; i++) {
      put(ns + "a/" + i, "v");
      put(ns + "b/" + i, "v");
    }
    final ScanResult.Page first = (ScanResult.Page) await(store.scan(ScanRequest.first(ns + "a/", 2)));
    assertThat(first.next()).isPresent();
    assertThat(await(store.scan(ScanRequest.next(ns + "b/", first.next().get(), 2))))
        .as("a cursor used for another list").isEqualTo(new ScanResult.Expired());
    assertThat(await(store.scan(ScanRequest.next(ns + "a/", new ScanCursor(StoreBytes.utf8("forged")), 2))))
        .isEqualTo(new ScanResult.Expired());
  }

  @Test
  public void anIdleScanExpiresWhenTheStoreClockMovesOn() {
    for (int i = 0; i < 5; i++) {
      put(ns + i, "v");
    }
    final ScanResult.Page first = (ScanResult.Page) await(store.scan(ScanRequest.first(ns, 2)));
    assumeTrue(advanceStoreTime(Duration.ofHours(1)), "provider cannot move its clock");
    assertThat(await(store.scan(ScanRequest.next(ns, first.next().orElseThrow(), 2))))
        .isEqualTo(new ScanResult.Expired());
  }

  @Test
  public void storedBytesCannotBeChangedThroughTheCallersArray() {
    final byte[] bytes = {1, 2, 3};
    write(List.of(), List.of(Mutation.Put.of(ns + "k", StoreBytes.of(bytes))));
    bytes[0] = 9;
    final ReadResult.Found found = (ReadResult.Found) read(ns + "k");
    found.value().toByteArray()[1] = 9;
    assertThat(((ReadResult.Found) read(ns + "k")).value().toByteArray()).containsExactly(1, 2, 3);
  }
}
