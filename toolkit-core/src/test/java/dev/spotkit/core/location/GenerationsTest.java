package dev.spotkit.core.location;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spotkit.core.ObjectGeneration;
import dev.spotkit.core.Spec;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.store.Condition;
import dev.spotkit.store.InMemoryLocationStore;
import dev.spotkit.store.Mutation;
import dev.spotkit.store.ReadResult;
import dev.spotkit.store.ScanRequest;
import dev.spotkit.store.ScanResult;
import dev.spotkit.store.StoreBytes;
import dev.spotkit.store.WriteBatch;
import dev.spotkit.store.WriteResult;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Generation counters (spec 002 section 3.2): three sequences, the exhausted sentinel, nothing on read. */
class GenerationsTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(5);
  private final AtomicLong millis = new AtomicLong(1_700_000_000_000L);
  private final InMemoryLocationStore store = new InMemoryLocationStore(() -> Instant.ofEpochMilli(millis.get()),
      Duration.ofSeconds(60));

  private ReadResult read(final LogicalKey key) {
    return store.read(key.preimage()).toCompletableFuture().join();
  }

  private String counterValue(final GenerationCounter counter) {
    return read(counter.key()) instanceof ReadResult.Found found ? found.value().asUtf8() : "absent";
  }

  private void seed(final GenerationCounter counter, final long storedNext) {
    store.write(WriteBatch.unconditional(Mutation.Put.of(counter.key().preimage(), Generations.encode(storedNext))));
  }

  @Test
  void anAbsentCounterIssuesOneAndStoresTwo() {
    final Generations.Issued issued = Generations.issueAlone(store, GenerationCounter.OBJECT, TIMEOUT, 1);
    assertThat(issued.value()).isEqualTo(1);
    assertThat(issued.objectGeneration()).isEqualTo(new ObjectGeneration(1));
    assertThat(counterValue(GenerationCounter.OBJECT)).isEqualTo("2");
    assertThat(Generations.issueAlone(store, GenerationCounter.OBJECT, TIMEOUT, 1).value()).isEqualTo(2);
  }

  @Test
  @Spec("LOC-01")
  void theThreeGenerationsComeFromThreeCountersAndNeverSwap() {
    seed(GenerationCounter.OBJECT, 100);
    seed(GenerationCounter.AUTHORITY_OWNER, 200);
    seed(GenerationCounter.OWNER_LEASE, 300);
    final Generations.Issued object = Generations.issueAlone(store, GenerationCounter.OBJECT, TIMEOUT, 1);
    assertThat(counterValue(GenerationCounter.AUTHORITY_OWNER)).isEqualTo("200");
    assertThat(counterValue(GenerationCounter.OWNER_LEASE)).isEqualTo("300");
    final Generations.Issued owner = Generations.issueAlone(store, GenerationCounter.AUTHORITY_OWNER, TIMEOUT, 1);
    final Generations.Issued lease = Generations.issueAlone(store, GenerationCounter.OWNER_LEASE, TIMEOUT, 1);
    assertThat(List.of(object.value(), owner.value(), lease.value())).containsExactly(100L, 200L, 300L);
    assertThat(List.of(counterValue(GenerationCounter.OBJECT), counterValue(GenerationCounter.AUTHORITY_OWNER),
        counterValue(GenerationCounter.OWNER_LEASE))).containsExactly("101", "201", "301");
    assertThatThrownBy(object::leaseGeneration).isInstanceOf(IllegalStateException.class)
        .hasMessage("a ObjectGeneration was issued; it is not a LeaseGeneration");
    assertThatThrownBy(lease::authorityOwnerGeneration).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(owner::objectGeneration).isInstanceOf(IllegalStateException.class);
    final AuthorityRecord row = new AuthorityRecord(StoreBytes.empty(), object.objectGeneration(),
        owner.authorityOwnerGeneration(), "owner-a", lease.leaseGeneration(),
        new AuthorityRecord.Allocation(AuthorityRecord.State.ACTIVE, PlacementKind.ACTOR, "chat", "main", "01", 1,
            AuthorityRecord.Capacity.actor()), null);
    final AuthorityRecord back = AuthorityRecord.decode(row.encode());
    assertThat(back.objectGeneration().value()).isEqualTo(100);
    assertThat(back.authorityOwnerGeneration().value()).isEqualTo(200);
    assertThat(back.ownerLeaseGeneration().value()).isEqualTo(300);
  }

  @Test
  @Spec("LOC-02")
  void theSentinelIsExhaustedEveryTimeAndTheStoreDoesNotChange() {
    seed(GenerationCounter.OBJECT, Generations.MAX_ISSUED);
    final Generations.Issued last = Generations.issueAlone(store, GenerationCounter.OBJECT, TIMEOUT, 1);
    assertThat(last.value()).as("the last issued value is 2^63-2").isEqualTo(Long.MAX_VALUE - 1);
    assertThat(counterValue(GenerationCounter.OBJECT)).isEqualTo("9223372036854775807");
    final ReadResult.Found before = (ReadResult.Found) read(GenerationCounter.OBJECT.key());
    final long writes = store.appliedWrites();
    for (int i = 0; i < 3; i++) {
      assertThatThrownBy(() -> Generations.issueAlone(store, GenerationCounter.OBJECT, TIMEOUT, 5))
          .isInstanceOf(SpotkitException.GenerationExhausted.class)
          .hasMessage("ObjectGeneration counter zlink:v11:object-counter holds the exhausted sentinel"
              + " 9223372036854775807 (2^63-1): no value is left in 1..9223372036854775806 and the store was not"
              + " changed");
    }
    assertThatThrownBy(() -> Generations.prepare(GenerationCounter.OWNER_LEASE, before))
        .as("any counter holding the sentinel").isInstanceOf(SpotkitException.GenerationExhausted.class);
    assertThat(store.appliedWrites()).isEqualTo(writes);
    assertThat(((ReadResult.Found) read(GenerationCounter.OBJECT.key())).version()).isEqualTo(before.version());
  }

  @Test
  void aCounterThatIsNotACanonicalDecimalIsRefused() {
    for (String bad : List.of("0", "-1", "007", "1.0", "9223372036854775808", "", "\"5\"")) {
      store.write(WriteBatch.unconditional(Mutation.Put.of(GenerationCounter.OBJECT.key().preimage(),
          StoreBytes.utf8(bad))));
      assertThatThrownBy(() -> Generations.issueAlone(store, GenerationCounter.OBJECT, TIMEOUT, 1)).as(bad)
          .isInstanceOf(RecordDecodeException.Malformed.class);
    }
  }

  @Test
  void issuingInTheGatingBatchFailsTogetherWithTheGatedRecord() {
    final String row = LocationKeys.authority(AuthorityKind.ACTOR, "alice").preimage();
    store.write(WriteBatch.unconditional(Mutation.Put.of(row, StoreBytes.utf8("someone else's"))));
    final Generations.Issued next = Generations.prepare(GenerationCounter.OBJECT, read(GenerationCounter.OBJECT.key()));
    final WriteResult result = store.write(WriteBatch.of(List.of(next.condition(), new Condition.ExpectAbsent(row)),
        List.of(next.advance(), Mutation.Put.of(row, StoreBytes.utf8("mine"))))).toCompletableFuture().join();
    assertThat(result).isEqualTo(new WriteResult.Conflict());
    assertThat(counterValue(GenerationCounter.OBJECT)).as("no value consumed by a failed batch").isEqualTo("absent");
  }

  @Test
  @Spec("LOC-27")
  void objectGenerationsFromManyThreadsAreOneStoreWideSequence() throws Exception {
    final Set<Long> issued = ConcurrentHashMap.newKeySet();
    final ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      final CountDownLatch start = new CountDownLatch(1);
      final List<Future<List<Long>>> workers = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        workers.add(pool.submit(() -> {
          start.await();
          final List<Long> mine = new ArrayList<>();
          for (int i = 0; i < 50; i++) {
            mine.add(Generations.issueAlone(store, GenerationCounter.OBJECT, TIMEOUT, 10_000).value());
          }
          return mine;
        }));
      }
      start.countDown();
      for (Future<List<Long>> worker : workers) {
        final List<Long> mine = worker.get(60, TimeUnit.SECONDS);
        assertThat(mine).as("monotonic per caller").isSorted();
        mine.forEach(v -> assertThat(issued.add(v)).as("must never: %d issued twice", v).isTrue());
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(issued).hasSize(200).allMatch(v -> v >= 1 && v <= 200);
  }

  @Test
  @Spec("LOC-06")
  void readingAMissingRecordCreatesNoGenerationAndRowsNeverExpire() {
    assertThat(LocationRecords.read(store, ObjectKey.actor("nobody"))).isEmpty();
    assertThat(LocationRecords.read(store, ObjectKey.spot("nowhere"))).isEmpty();
    final ScanResult.Page all = (ScanResult.Page) store.scan(ScanRequest.first("", 1000)).toCompletableFuture()
        .join();
    assertThat(all.entries()).as("no counter, no row, no version was created").isEmpty();
    assertThat(store.appliedWrites()).isZero();
    final AuthorityRecord row = new AuthorityRecord(StoreBytes.empty(), new ObjectGeneration(1),
        new AuthorityOwnerGeneration(1), "owner-a", new LeaseGeneration(1), new AuthorityRecord.Allocation(
            AuthorityRecord.State.ACTIVE, PlacementKind.ACTOR, "chat", "main", "01", 1,
            AuthorityRecord.Capacity.actor()), null);
    store.write(WriteBatch.unconditional(Mutation.Put.of(ObjectKey.actor("kept").logicalKey().preimage(),
        row.encode())));
    millis.addAndGet(Duration.ofDays(3650).toMillis());
    assertThat(LocationRecords.read(store, ObjectKey.actor("kept"))).get()
        .satisfies(s -> assertThat(s.authority()).isEqualTo(row));
  }
}
