package dev.spotkit.core.location;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.spotkit.core.Spec;
import dev.spotkit.store.CountingLocationStore;
import dev.spotkit.store.StoreBytes;
import dev.spotkit.store.StoreFaults;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Concurrent reserves and commits of one {@link PlacementBatches} go out as one readAll and one write per group
 * ({@link PlacementGroups}), each caller getting the answer a lone call would give (spec 002 sections 6.1 and 7).
 */
class PlacementGroupsTest {
  private final MeshFixture f = new MeshFixture();
  private final NodePeer node = f.node("0a01", NodeState.SERVING, 100, 5, List.of(MeshFixture.actorType("player", 0)));
  private final CountingLocationStore counting = new CountingLocationStore(f.store);
  private final PlacementBatches batches = new PlacementBatches(counting, MeshFixture.TIMEOUT,
      PlacementBatches.DEFAULT_ATTEMPTS);
  private final ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  private PlacementBatches.ReserveRequest actor(final String id) {
    return new PlacementBatches.ReserveRequest(ObjectKey.actor(id), PlacementKind.ACTOR, "player",
        PlacementBatches.Target.of(node), StoreBytes.empty(), null);
  }

  /**
   * Queues one reserve per id behind a held leader, one at a time, so the queue order is the list's order whatever
   * order the threads get a core in.
   */
  private List<Future<PlacementBatches.Reservation>> queueInOrder(final List<String> ids) {
    final List<Future<PlacementBatches.Reservation>> futures = new ArrayList<>();
    for (String id : ids) {
      futures.add(pool.submit(() -> batches.reserve(actor(id))));
      final int depth = futures.size();
      await().atMost(Duration.ofSeconds(10)).until(() -> batches.groups().queued() == depth);
    }
    return futures;
  }

  private static <T> List<T> results(final List<Future<T>> futures) throws Exception {
    final List<T> out = new ArrayList<>();
    for (Future<T> future : futures) {
      out.add(future.get(30, TimeUnit.SECONDS));
    }
    return out;
  }

  /** Holds the first caller's write so the next callers queue behind it; returns that caller's future. */
  private Future<PlacementBatches.Reservation> leaderHeldAtItsWrite(final StoreFaults.Stall[] stall)
      throws Exception {
    final String first = ObjectKey.actor("first").logicalKey().preimage();
    stall[0] = f.store.faults().stallNext(1, c -> c.kind() == StoreFaults.Kind.WRITE && c.touches(first));
    final Future<PlacementBatches.Reservation> leader = pool.submit(() -> batches.reserve(actor("first")));
    assertThat(stall[0].awaitStalled(1, Duration.ofSeconds(10))).isTrue();
    return leader;
  }

  @Test
  @Spec("LOC-09")
  @Spec("LOC-13")
  void callersQueuedBehindARunningGroupGoOutAsOneReadAndOneWrite() throws Exception {
    final StoreFaults.Stall[] stall = new StoreFaults.Stall[1];
    final Future<PlacementBatches.Reservation> leader = leaderHeldAtItsWrite(stall);
    final List<Future<PlacementBatches.Reservation>> queued = queueInOrder(List.of("b", "c", "d", "e"));
    final long before = counting.requests();
    stall[0].release();
    assertThat(leader.get(10, TimeUnit.SECONDS)).isInstanceOf(PlacementBatches.Reservation.Reserved.class);
    final List<PlacementBatches.Reservation> answers = results(queued);
    assertThat(counting.requests() - before).as("the four queued reserves: one readAll, one write").isEqualTo(2);
    assertThat(answers).allSatisfy(a -> assertThat(a).isInstanceOf(PlacementBatches.Reservation.Reserved.class));
    final List<Long> generations = answers.stream()
        .map(a -> ((PlacementBatches.Reservation.Reserved) a).record().objectGeneration().value()).toList();
    final long firstGeneration = ((PlacementBatches.Reservation.Reserved) leader.get()).record().objectGeneration()
        .value();
    assertThat(generations).as("consecutive values after the leader's, in queue order").containsExactly(
        firstGeneration + 1, firstGeneration + 2, firstGeneration + 3, firstGeneration + 4);
    assertThat(f.capacity("0a01").actors()).isEqualTo(new NodeCapacityRecord.Slots(0, 5, 5));
    for (PlacementBatches.Reservation a : answers) {
      final PlacementBatches.Reservation.Reserved r = (PlacementBatches.Reservation.Reserved) a;
      assertThat(LocationRecords.read(f.store, ObjectKey.actor(
          "bcde".substring(answers.indexOf(a), answers.indexOf(a) + 1))).orElseThrow().version())
          .isEqualTo(r.version());
    }
  }

  @Test
  @Spec("LOC-09")
  void aGroupAnswersEachCallerAsALoneCallWouldExistingFullAndTheSameIdTwice() throws Exception {
    final PlacementBatches.Reservation.Reserved taken = (PlacementBatches.Reservation.Reserved)
        batches.reserve(actor("taken"));
    final StoreFaults.Stall[] stall = new StoreFaults.Stall[1];
    final Future<PlacementBatches.Reservation> leader = leaderHeldAtItsWrite(stall);
    // 3 slots left of 5 once "first" applies: the queued "taken" is Existing, "x" twice makes one Creating
    final List<Future<PlacementBatches.Reservation>> queued = queueInOrder(List.of("taken", "x", "x", "y", "z",
        "w"));
    stall[0].release();
    assertThat(leader.get(10, TimeUnit.SECONDS)).isInstanceOf(PlacementBatches.Reservation.Reserved.class);
    final List<PlacementBatches.Reservation> answers = results(queued);
    assertThat(answers.get(0)).isEqualTo(new PlacementBatches.Reservation.Existing(taken.record(), taken.version(),
        ((PlacementBatches.Reservation.Existing) answers.get(0)).now()));
    assertThat(answers.subList(1, 3)).as("one Creating for x, the other caller sees it")
        .hasAtLeastOneElementOfType(PlacementBatches.Reservation.Reserved.class)
        .hasAtLeastOneElementOfType(PlacementBatches.Reservation.Existing.class);
    assertThat(answers.subList(3, 6)).filteredOn(PlacementBatches.Reservation.Reserved.class::isInstance)
        .hasSize(2);
    assertThat(answers.subList(3, 6)).filteredOn(a -> a instanceof PlacementBatches.Reservation.Refused r
        && r.reason() == PlacementBatches.Refusal.CAPACITY_FULL && r.hostRun() != null).hasSize(1);
    assertThat(f.capacity("0a01").actors()).isEqualTo(new NodeCapacityRecord.Slots(0, 5, 5));
  }

  @Test
  @Spec("LOC-10")
  void aLostAnswerOfAGroupWriteIsConfirmedByReReadingEveryRow() throws Exception {
    final StoreFaults.Stall[] stall = new StoreFaults.Stall[1];
    final Future<PlacementBatches.Reservation> leader = leaderHeldAtItsWrite(stall);
    final String b = ObjectKey.actor("b").logicalKey().preimage();
    f.store.faults().loseAnswerOfNext(1, c -> c.kind() == StoreFaults.Kind.WRITE && c.touches(b));
    final List<Future<PlacementBatches.Reservation>> queued = queueInOrder(List.of("b", "c"));
    stall[0].release();
    leader.get(10, TimeUnit.SECONDS);
    final List<PlacementBatches.Reservation> answers = results(queued);
    assertThat(answers).allSatisfy(a -> assertThat(a).isInstanceOf(PlacementBatches.Reservation.Reserved.class));
    assertThat(f.capacity("0a01").actors()).as("applied once").isEqualTo(new NodeCapacityRecord.Slots(0, 3, 5));
  }

  @Test
  @Spec("LOC-10")
  void concurrentCreationsFromTwoInstancesRacingOnOneStoreAllCommitOnce() throws Exception {
    final NodePeer big = f.node("0a02", NodeState.SERVING, 100, 1000, List.of(MeshFixture.actorType("player", 0)));
    final PlacementBatches other = new PlacementBatches(f.store, MeshFixture.TIMEOUT,
        PlacementBatches.DEFAULT_ATTEMPTS);
    final List<Future<Long>> futures = new ArrayList<>();
    for (int i = 0; i < 64; i++) {
      final PlacementBatches mine = i % 2 == 0 ? batches : other;
      final String id = "n" + i;
      futures.add(pool.submit(() -> {
        final PlacementBatches.Reservation.Reserved r = (PlacementBatches.Reservation.Reserved) mine.reserve(
            new PlacementBatches.ReserveRequest(ObjectKey.actor(id), PlacementKind.ACTOR, "player",
                PlacementBatches.Target.of(big), StoreBytes.empty(), null));
        final PlacementBatches.Outcome o = mine.commit(ObjectKey.actor(id), r.version(), List.of());
        assertThat(o).isInstanceOf(PlacementBatches.Outcome.Done.class);
        return r.record().objectGeneration().value();
      }));
    }
    assertThat(results(futures)).doesNotHaveDuplicates().hasSize(64);
    assertThat(f.capacity("0a02").actors()).isEqualTo(new NodeCapacityRecord.Slots(64, 0, 1000));
  }
}
