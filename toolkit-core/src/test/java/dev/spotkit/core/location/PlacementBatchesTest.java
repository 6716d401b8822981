package dev.spotkit.core.location;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spotkit.core.ObjectGeneration;
import dev.spotkit.core.Spec;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.store.Mutation;
import dev.spotkit.store.ReadResult;
import dev.spotkit.store.StoreBytes;
import dev.spotkit.store.StoreFaults;
import dev.spotkit.store.StoreVersion;
import dev.spotkit.store.WriteBatch;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;

/** Reserve, Commit, Abort and Delete as single batches (spec 002 sections 6.1 and 7). */
class PlacementBatchesTest {
  private static final int THREADS = 16;
  private final MeshFixture f = new MeshFixture();
  private final NodePeer node = f.node("0a01", NodeState.SERVING, 100, 5,
      List.of(MeshFixture.actorType("player", 0), MeshFixture.spotType(PlacementKind.USER_SPOT, "room", 2)));
  private final String terminalKey = LogicalKey.of("creation-terminal", "0a01", "1", "op").preimage();

  private PlacementBatches.ReserveRequest actor(final String id) {
    return new PlacementBatches.ReserveRequest(ObjectKey.actor(id), PlacementKind.ACTOR, "player",
        PlacementBatches.Target.of(node), StoreBytes.empty(), null);
  }

  private PlacementBatches.Reservation.Reserved reserved(final String id) {
    return (PlacementBatches.Reservation.Reserved) f.batches.reserve(actor(id));
  }

  private <T> List<T> race(final IntFunction<Callable<T>> task) throws Exception {
    final ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try {
      final CountDownLatch start = new CountDownLatch(1);
      final List<Future<T>> futures = new ArrayList<>();
      for (int i = 0; i < THREADS; i++) {
        final Callable<T> call = task.apply(i);
        futures.add(pool.submit(() -> {
          start.await();
          return call.call();
        }));
      }
      start.countDown();
      final List<T> out = new ArrayList<>();
      for (Future<T> future : futures) {
        out.add(future.get(30, TimeUnit.SECONDS));
      }
      return out;
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  @Spec("LOC-09")
  void sixteenThreadsReservingOneIdMakeExactlyOneCreating() throws Exception {
    final List<PlacementBatches.Reservation> results = race(i -> () -> f.batches.reserve(actor("alice")));
    final List<PlacementBatches.Reservation.Reserved> winners = results.stream()
        .filter(PlacementBatches.Reservation.Reserved.class::isInstance)
        .map(PlacementBatches.Reservation.Reserved.class::cast).toList();
    assertThat(winners).hasSize(1); // must never: two Creating rows, two factories
    final AuthorityRecord won = winners.get(0).record();
    assertThat(results).filteredOn(PlacementBatches.Reservation.Existing.class::isInstance).hasSize(THREADS - 1)
        .allSatisfy(r -> assertThat(((PlacementBatches.Reservation.Existing) r).record()).isEqualTo(won));
    assertThat(won.allocation().state()).isEqualTo(AuthorityRecord.State.RESERVED);
    assertThat(f.capacity("0a01").actors()).isEqualTo(new NodeCapacityRecord.Slots(0, 1, 5));
    assertThat(Generations.decode(GenerationCounter.OBJECT, ((ReadResult.Found) f.read(
        LocationKeys.OBJECT_COUNTER)).value())).isEqualTo(won.objectGeneration().value() + 1);
  }

  @Test
  @Spec("LOC-13")
  @Spec("MEM-02")
  void sixteenThreadsNeverTakeANodePastItsLimitOfFive() throws Exception {
    final AtomicBoolean done = new AtomicBoolean();
    final AtomicInteger worst = new AtomicInteger();
    final Thread observer = new Thread(() -> {
      for (int i = 0; i < 1_000_000 && !done.get(); i++) {
        final NodeCapacityRecord.Slots s = f.capacity("0a01").actors();
        worst.accumulateAndGet(s.active() + s.reserved(), Math::max);
      }
    });
    observer.start();
    final List<PlacementBatches.Reservation> results = race(i -> () -> f.batches.reserve(actor("p" + i)));
    done.set(true);
    observer.join(10_000);
    assertThat(results).filteredOn(PlacementBatches.Reservation.Reserved.class::isInstance).hasSize(5);
    assertThat(results).filteredOn(PlacementBatches.Reservation.Refused.class::isInstance).hasSize(THREADS - 5)
        .allSatisfy(r -> assertThat(((PlacementBatches.Reservation.Refused) r).reason())
            .isEqualTo(PlacementBatches.Refusal.CAPACITY_FULL));
    assertThat(worst.get()).isLessThanOrEqualTo(5); // must never: active + reserved above the limit
    assertThat(f.capacity("0a01").actors()).isEqualTo(new NodeCapacityRecord.Slots(0, 5, 5));
    final long rows = results.stream().filter(PlacementBatches.Reservation.Reserved.class::isInstance)
        .map(r -> ((PlacementBatches.Reservation.Reserved) r).record()).filter(r -> r.allocation().state()
            == AuthorityRecord.State.RESERVED).count();
    assertThat(rows).isEqualTo(5);
    final PlacementBatches.Reservation.Refused refused = (PlacementBatches.Reservation.Refused) results.stream()
        .filter(PlacementBatches.Reservation.Refused.class::isInstance).findFirst().orElseThrow();
    assertThat(refused.toException()).isInstanceOf(SpotkitException.CapacityExceeded.class)
        .hasMessage("node 0a01 run 1 refused the reservation (CAPACITY_FULL): actors 0 active + 5 reserved + 1"
            + " wanted > limit 5");
  }

  @Test
  @Spec("LOC-10")
  void commitMakesReadyMovesSlotsAndStoresTheResultInOneWrite() {
    final PlacementBatches.Reservation.Reserved r = reserved("alice");
    final long writes = f.store.appliedWrites();
    final PlacementBatches.Outcome outcome = f.batches.commit(ObjectKey.actor("alice"), r.version(),
        List.of(Mutation.Put.of(terminalKey, StoreBytes.utf8("created"))));
    assertThat(f.store.appliedWrites()).isEqualTo(writes + 1);
    final PlacementBatches.Outcome.Done done = (PlacementBatches.Outcome.Done) outcome;
    assertThat(done.record().orElseThrow().allocation().state()).isEqualTo(AuthorityRecord.State.ACTIVE);
    assertThat(LocationRecords.read(f.store, ObjectKey.actor("alice")).orElseThrow().version())
        .isEqualTo(done.version().orElseThrow());
    assertThat(f.capacity("0a01").actors()).isEqualTo(new NodeCapacityRecord.Slots(1, 0, 5));
    assertThat(f.store.read(terminalKey).toCompletableFuture().join()).isInstanceOf(ReadResult.Found.class);
    assertThat(f.batches.commit(ObjectKey.actor("alice"), r.version(), List.of()))
        .isInstanceOf(PlacementBatches.Outcome.Changed.class);
    assertThat(f.store.appliedWrites()).isEqualTo(writes + 1);
  }

  @Test
  @Spec("MEM-05")
  void abortDeletesTheCreatingRowAndReturnsTheReservedSlots() {
    final PlacementBatches.ReserveRequest room = new PlacementBatches.ReserveRequest(ObjectKey.spot("r1"),
        PlacementKind.USER_SPOT, "room", PlacementBatches.Target.of(node), StoreBytes.empty(), null);
    final PlacementBatches.Reservation.Reserved r = (PlacementBatches.Reservation.Reserved) f.batches.reserve(room);
    assertThat(f.capacity("0a01").spotType(PlacementKind.USER_SPOT, "room"))
        .isEqualTo(new NodeCapacityRecord.Slots(0, 1, 2));
    assertThat(f.batches.abort(ObjectKey.spot("r1"), new StoreVersion("999"), List.of()))
        .isInstanceOf(PlacementBatches.Outcome.Changed.class);
    final long writes = f.store.appliedWrites();
    assertThat(f.batches.abort(ObjectKey.spot("r1"), r.version(), List.of(Mutation.Put.of(terminalKey,
        StoreBytes.utf8("rejected"))))).isInstanceOf(PlacementBatches.Outcome.Done.class);
    assertThat(f.store.appliedWrites()).isEqualTo(writes + 1);
    assertThat(f.read(ObjectKey.spot("r1").logicalKey())).isInstanceOf(ReadResult.Missing.class);
    assertThat(f.capacity("0a01").spots()).isEqualTo(new NodeCapacityRecord.Slots(0, 0, 0));
    assertThat(f.capacity("0a01").spotType(PlacementKind.USER_SPOT, "room"))
        .isEqualTo(new NodeCapacityRecord.Slots(0, 0, 2));
    assertThat(f.batches.abort(ObjectKey.spot("r1"), r.version(), List.of()))
        .isInstanceOf(PlacementBatches.Outcome.Missing.class);
  }

  @Test
  @Spec("MEM-05")
  void abortAndDeleteOfARowWhoseNodeRemovedItsCapacityRecordSucceedWithNothingToGiveBack() {
    final PlacementBatches.Reservation.Reserved creating = reserved("gone-creating");
    final PlacementBatches.Reservation.Reserved ready = reserved("gone-ready");
    f.batches.commit(ObjectKey.actor("gone-ready"), ready.version(), List.of());
    final LogicalKey cap = LocationKeys.nodeCapacity(MeshFixture.MESH, "0a01");
    f.store.write(WriteBatch.unconditional(new Mutation.Delete(cap.preimage()))).toCompletableFuture().join(); // the node stopped

    assertThat(f.batches.abort(ObjectKey.actor("gone-creating"), creating.version(), List.of()))
        .isInstanceOf(PlacementBatches.Outcome.Done.class);
    assertThat(f.read(ObjectKey.actor("gone-creating").logicalKey())).isInstanceOf(ReadResult.Missing.class);
    assertThat(f.batches.delete(ObjectKey.actor("gone-ready"), ready.record().objectGeneration(), "0a01", List.of()))
        .isInstanceOf(PlacementBatches.Outcome.Done.class);
    assertThat(f.read(ObjectKey.actor("gone-ready").logicalKey())).isInstanceOf(ReadResult.Missing.class);
    assertThat(f.read(cap)).isInstanceOf(ReadResult.Missing.class); // no record invented
  }

  @Test
  @Spec("LOC-17")
  void deleteConfirmsTheLeaseAndReturnsCapacityInTheSameWrite() {
    final PlacementBatches.Reservation.Reserved r = reserved("alice");
    assertThat(f.batches.delete(ObjectKey.actor("alice"), r.record().objectGeneration(), "0a01", List.of()))
        .isInstanceOf(PlacementBatches.Outcome.Changed.class); // Delete of a Reserved row changes nothing
    f.batches.commit(ObjectKey.actor("alice"), r.version(), List.of());
    assertThat(f.batches.delete(ObjectKey.actor("alice"), new ObjectGeneration(999), "0a01", List.of()))
        .isInstanceOf(PlacementBatches.Outcome.Changed.class);
    // another host run than the recorded owner (e.g. the node a move committed away from, closing): nothing changes
    assertThat(f.batches.delete(ObjectKey.actor("alice"), r.record().objectGeneration(), "0a02", List.of()))
        .isInstanceOf(PlacementBatches.Outcome.Changed.class);
    final long writes = f.store.appliedWrites();
    assertThat(f.batches.delete(ObjectKey.actor("alice"), r.record().objectGeneration(), "0a01", List.of()))
        .isInstanceOf(PlacementBatches.Outcome.Done.class);
    assertThat(f.store.appliedWrites()).isEqualTo(writes + 1);
    assertThat(f.read(ObjectKey.actor("alice").logicalKey())).isInstanceOf(ReadResult.Missing.class);
    assertThat(f.capacity("0a01").actors()).isEqualTo(new NodeCapacityRecord.Slots(0, 0, 5));

    final PlacementBatches.Reservation.Reserved bob = reserved("bob");
    f.batches.commit(ObjectKey.actor("bob"), bob.version(), List.of());
    f.advanceSeconds(16);
    final long before = f.store.appliedWrites();
    assertThat(f.batches.delete(ObjectKey.actor("bob"), bob.record().objectGeneration(), "0a01", List.of()))
        .isInstanceOfSatisfying(PlacementBatches.Outcome.LeaseInvalid.class, l -> assertThat(l.why())
            .isEqualTo("owner lease owner-lease\\0owner-0a01 is missing (expired or released)"));
    assertThat(f.store.appliedWrites()).isEqualTo(before);
    assertThat(f.capacity("0a01").actors()).isEqualTo(new NodeCapacityRecord.Slots(1, 0, 5));
  }

  @Test
  @Spec("LOC-01")
  void sweepDeletesAReadyRowOnlyOnceItsOwnerLeaseIsGoneAndTheNextReserveIssuesAHigherGeneration() {
    final PlacementBatches.Reservation.Reserved r = reserved("alice");
    final PlacementBatches.Outcome.Done ready = (PlacementBatches.Outcome.Done) f.batches.commit(
        ObjectKey.actor("alice"), r.version(), List.of());
    final StoreVersion readyVersion = ready.version().orElseThrow();
    final long writes = f.store.appliedWrites();
    assertThat(f.batches.sweepAbandoned(ObjectKey.actor("alice"), r.version())).as("a Creating row's version")
        .isFalse();
    assertThat(f.batches.sweepAbandoned(ObjectKey.actor("alice"), readyVersion)).as("owner alive").isFalse();
    assertThat(f.store.appliedWrites()).isEqualTo(writes); // must never: a live owner's row swept

    f.advanceSeconds(16); // the owner's lease lapses in the store (TTL 15 s): node 0a01 is gone
    assertThat(f.batches.sweepAbandoned(ObjectKey.actor("alice"), new StoreVersion("999"))).isFalse();
    assertThat(f.batches.sweepAbandoned(ObjectKey.actor("alice"), readyVersion)).isTrue();
    assertThat(f.store.appliedWrites()).isEqualTo(writes + 1); // row and capacity in one batch
    assertThat(f.read(ObjectKey.actor("alice").logicalKey())).isInstanceOf(ReadResult.Missing.class);
    assertThat(f.capacity("0a01").actors()).isEqualTo(new NodeCapacityRecord.Slots(0, 0, 5));
    // the dead owner's own Delete of its old incarnation finds nothing to change
    assertThat(f.batches.delete(ObjectKey.actor("alice"), r.record().objectGeneration(), "0a01", List.of()))
        .isInstanceOf(PlacementBatches.Outcome.Missing.class);

    final NodePeer live = f.node("0a02", NodeState.SERVING, 100, 5, List.of(MeshFixture.actorType("player", 0)));
    final PlacementBatches.Reservation.Reserved again = (PlacementBatches.Reservation.Reserved) f.batches.reserve(
        new PlacementBatches.ReserveRequest(ObjectKey.actor("alice"), PlacementKind.ACTOR, "player",
            PlacementBatches.Target.of(live), StoreBytes.empty(), null));
    assertThat(again.record().objectGeneration().value()).isGreaterThan(r.record().objectGeneration().value());
    assertThat(again.record().ownerId()).isEqualTo("owner-0a02");
  }

  @Test
  void aMeshReadThatSweepsDeletesAGoneNodesDescriptorAndCapacityRecordAndNothingOfALiveOne() {
    f.advanceSeconds(16); // node 0a01's lease lapses
    final NodePeer live = f.node("0a02", NodeState.SERVING, 100, 5, List.of(MeshFixture.actorType("player", 0)));
    final LogicalKey goneDesc = LocationKeys.meshNode(MeshFixture.MESH, "0a01");
    assertThat(f.directory.readMesh(MeshFixture.MESH)).containsExactly(live);
    assertThat(f.read(goneDesc)).as("a plain read sweeps nothing").isInstanceOf(ReadResult.Found.class);

    assertThat(f.directory.readMesh(MeshFixture.MESH, true)).containsExactly(live);
    assertThat(f.read(goneDesc)).isInstanceOf(ReadResult.Missing.class);
    assertThat(f.read(LocationKeys.nodeCapacity(MeshFixture.MESH, "0a01"))).isInstanceOf(ReadResult.Missing.class);
    assertThat(f.read(LocationKeys.meshNode(MeshFixture.MESH, "0a02"))).isInstanceOf(ReadResult.Found.class);
    assertThat(f.capacity("0a02").actors()).isEqualTo(new NodeCapacityRecord.Slots(0, 0, 5));
  }

  @Test
  void refusalsChangeNothingAndNameTheReason() {
    final long writes = f.store.appliedWrites();
    final PlacementBatches.ReserveRequest unknownType = new PlacementBatches.ReserveRequest(ObjectKey.actor("x"),
        PlacementKind.ACTOR, "ghost", PlacementBatches.Target.of(node), StoreBytes.empty(), null);
    assertThat(f.batches.reserve(unknownType)).isEqualTo(new PlacementBatches.Reservation.Refused(
        PlacementBatches.Refusal.NOT_REGISTERED, node.hostRun(), "actor type 'ghost' is not registered"));
    final NodePeer draining = f.node("0b02", NodeState.DRAINING, 100, 0, List.of(MeshFixture.actorType("player",
        0)));
    final long afterSetup = f.store.appliedWrites();
    assertThat(f.batches.reserve(new PlacementBatches.ReserveRequest(ObjectKey.actor("x"), PlacementKind.ACTOR,
        "player", PlacementBatches.Target.of(draining), StoreBytes.empty(), null)))
        .isEqualTo(new PlacementBatches.Reservation.Refused(PlacementBatches.Refusal.NOT_SERVING,
            draining.hostRun(), "state is draining"));
    f.advanceSeconds(16);
    assertThat(f.batches.reserve(actor("x"))).isInstanceOfSatisfying(PlacementBatches.Reservation.Refused.class,
        r -> assertThat(r.reason()).isEqualTo(PlacementBatches.Refusal.LEASE_INVALID));
    assertThat(f.store.appliedWrites()).isEqualTo(afterSetup);
    assertThat(writes).isLessThan(afterSetup);
    assertThat(f.read(ObjectKey.actor("x").logicalKey())).isInstanceOf(ReadResult.Missing.class);
  }

  @Test
  void exhaustedCounterWritesNothing() {
    f.store.write(WriteBatch.unconditional(Mutation.Put.of(LocationKeys.AUTHORITY_OWNER_COUNTER.preimage(),
        Generations.encode(Generations.SENTINEL)))).toCompletableFuture().join();
    final long writes = f.store.appliedWrites();
    assertThatThrownBy(() -> f.batches.reserve(actor("alice")))
        .isInstanceOf(SpotkitException.GenerationExhausted.class);
    assertThat(f.store.appliedWrites()).isEqualTo(writes);
    assertThat(f.capacity("0a01").actors()).isEqualTo(new NodeCapacityRecord.Slots(0, 0, 5));
  }

  @Test
  void aLostAnswerIsConfirmedByReReadingNotByWritingAgain() {
    final String authKey = ObjectKey.actor("alice").logicalKey().preimage();
    f.store.faults().loseAnswerOfNext(1, c -> c.kind() == StoreFaults.Kind.WRITE && c.touches(authKey));
    final PlacementBatches.Reservation.Reserved r = reserved("alice");
    assertThat(LocationRecords.read(f.store, ObjectKey.actor("alice")).orElseThrow().version())
        .isEqualTo(r.version());
    assertThat(f.capacity("0a01").actors()).isEqualTo(new NodeCapacityRecord.Slots(0, 1, 5));
    f.store.faults().failNext(1, c -> c.kind() == StoreFaults.Kind.WRITE && c.touches(authKey));
    assertThatThrownBy(() -> f.batches.commit(ObjectKey.actor("alice"), r.version(), List.of()))
        .isInstanceOf(SpotkitException.Unavailable.class);
    assertThat(f.capacity("0a01").actors()).isEqualTo(new NodeCapacityRecord.Slots(0, 1, 5));
  }

  @Test
  void requestsCheckKindAgainstKey() {
    assertThatThrownBy(() -> new PlacementBatches.ReserveRequest(ObjectKey.spot("s"), PlacementKind.ACTOR, "t",
        PlacementBatches.Target.of(node), StoreBytes.empty(), null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("placement kind actor does not fit authority key kind spot of 's'");
    assertThatThrownBy(() -> new PlacementBatches.ReserveRequest(ObjectKey.spot("s"), PlacementKind.ENTRY_SPOT,
        "entry", PlacementBatches.Target.of(node), StoreBytes.empty(), null))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
