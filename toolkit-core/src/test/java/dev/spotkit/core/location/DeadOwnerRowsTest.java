package dev.spotkit.core.location;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spotkit.core.Spec;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.store.ReadResult;
import dev.spotkit.store.StoreBytes;
import dev.spotkit.store.StoreFaults;
import dev.spotkit.store.StoreVersion;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * One pass of the background dead-owner sweep ({@link DeadOwnerRows}): rows of a dead owner go with their capacity
 * slots, rows of live owners, of this run and of other meshes are never written, the page bound holds and the next
 * pass goes on where the last one stopped, and two passes at once remove each row once.
 */
class DeadOwnerRowsTest {
  private static final String DEAD = "0a01";
  private static final String LIVE = "0a02";
  private final MeshFixture f = new MeshFixture();
  private final NodePeer dead = f.node(DEAD, NodeState.SERVING, 100, 1000,
      List.of(MeshFixture.actorType("player", 0), MeshFixture.spotType(PlacementKind.USER_SPOT, "room", 0)));
  private final NodePeer live = f.node(LIVE, NodeState.SERVING, 100, 1000,
      List.of(MeshFixture.actorType("player", 0)));
  private final DeadOwnerRows rows = new DeadOwnerRows(f.store, f.batches, MeshFixture.TIMEOUT);

  private StoreVersion ready(final ObjectKey key, final PlacementKind kind, final String type, final NodePeer on) {
    final PlacementBatches.Reservation.Reserved r = reserved(key, kind, type, on);
    return ((PlacementBatches.Outcome.Done) f.batches.commit(key, r.version(), List.of())).version().orElseThrow();
  }

  private PlacementBatches.Reservation.Reserved reserved(final ObjectKey key, final PlacementKind kind,
      final String type, final NodePeer on) {
    return (PlacementBatches.Reservation.Reserved) f.batches.reserve(new PlacementBatches.ReserveRequest(key, kind,
        type, PlacementBatches.Target.of(on), StoreBytes.empty(), null));
  }

  /** The dead node's lease lapses in the store (TTL 15 s); the live node renews its own. */
  private void killDead() {
    f.advanceSeconds(16);
    f.putLease("owner-" + LIVE, 1);
  }

  private ReadResult read(final ObjectKey key) {
    return f.read(key.logicalKey());
  }

  private DeadOwnerRows.Pass pass(final DeadOwnerRows.Position from, final int maxPages) {
    return rows.sweep(MeshFixture.MESH, "owner-self", from, maxPages, () -> true);
  }

  @Test
  @Spec("LOC-17")
  void aPassRemovesTheRowsOfADeadOwnerWithTheirSlotsAndNeverWritesALiveOnesRow() {
    final List<ObjectKey> deadRows = List.of(ObjectKey.actor("p1"), ObjectKey.actor("p2"), ObjectKey.actor("p3"));
    for (ObjectKey key : deadRows) {
      ready(key, PlacementKind.ACTOR, "player", dead);
    }
    ready(ObjectKey.spot("room-1"), PlacementKind.USER_SPOT, "room", dead);
    reserved(ObjectKey.actor("p4"), PlacementKind.ACTOR, "player", dead); // Creating: its owner dies before Ready
    final StoreVersion liveRow = ready(ObjectKey.actor("q1"), PlacementKind.ACTOR, "player", live);
    assertThat(f.capacity(DEAD).actors()).isEqualTo(new NodeCapacityRecord.Slots(3, 1, 1000));

    final long writes = f.store.appliedWrites();
    final DeadOwnerRows.Pass alive = pass(DeadOwnerRows.Position.START, 10);
    assertThat(alive.removed()).isZero();
    assertThat(alive.next()).isEqualTo(DeadOwnerRows.Position.START);
    assertThat(f.store.appliedWrites()).as("must never: a live owner's row written").isEqualTo(writes);

    killDead();
    final long renewed = f.store.appliedWrites(); // the live node's renewal
    assertThat(rows.sweep("another-mesh", "owner-self", DeadOwnerRows.Position.START, 10, () -> true).removed())
        .as("rows of another mesh are that mesh's business").isZero();
    assertThat(f.store.appliedWrites()).isEqualTo(renewed);
    final DeadOwnerRows.Pass pass = pass(DeadOwnerRows.Position.START, 10);
    assertThat(pass.swept()).isEqualTo(4);
    assertThat(pass.aborted()).isEqualTo(1);
    assertThat(pass.pages()).isEqualTo(2);
    assertThat(pass.next()).isEqualTo(DeadOwnerRows.Position.START);
    assertThat(pass.failure()).isEmpty();
    assertThat(f.store.appliedWrites()).as("one batch per row").isEqualTo(renewed + 5);
    for (ObjectKey key : List.of(ObjectKey.actor("p1"), ObjectKey.actor("p2"), ObjectKey.actor("p3"),
        ObjectKey.actor("p4"), ObjectKey.spot("room-1"))) {
      assertThat(read(key)).as(key.id()).isInstanceOf(ReadResult.Missing.class);
    }
    assertThat(f.capacity(DEAD).actors()).as("slots returned").isEqualTo(new NodeCapacityRecord.Slots(0, 0, 1000));
    assertThat(f.capacity(DEAD).spots().active()).isZero();
    assertThat(read(ObjectKey.actor("q1"))).isInstanceOfSatisfying(ReadResult.Found.class,
        found -> assertThat(found.version()).as("the live owner's row untouched").isEqualTo(liveRow));

    assertThat(pass(DeadOwnerRows.Position.START, 10).removed()).as("nothing left").isZero();
  }

  /**
   * With a grace, the first pass that finds an owner run gone only notes it (store time): its Ready rows wait, so a
   * live target of a move from that owner still runs its CAS on the row; a pass once the grace passed sweeps them. A
   * Creating row has no target and is aborted at once.
   */
  @Test
  @Spec("LOC-17")
  void withAGraceTheFirstPassThatFindsAnOwnerGoneOnlyNotesItAndAPassAfterTheGraceSweeps() {
    final DeadOwnerRows graced = new DeadOwnerRows(f.store, f.batches, MeshFixture.TIMEOUT, Duration.ofSeconds(20));
    final StoreVersion row = ready(ObjectKey.actor("p1"), PlacementKind.ACTOR, "player", dead);
    reserved(ObjectKey.actor("p2"), PlacementKind.ACTOR, "player", dead);
    killDead();
    final DeadOwnerRows.Pass first = graced.sweep(MeshFixture.MESH, "owner-self", DeadOwnerRows.Position.START, 10,
        () -> true);
    assertThat(first.swept()).isZero();
    assertThat(first.waiting()).isEqualTo(1);
    assertThat(first.aborted()).as("a Creating row has no move to wait for").isEqualTo(1);
    assertThat(read(ObjectKey.actor("p1"))).isInstanceOfSatisfying(ReadResult.Found.class,
        found -> assertThat(found.version()).isEqualTo(row));

    f.advanceSeconds(19);
    f.putLease("owner-" + LIVE, 1);
    assertThat(graced.sweep(MeshFixture.MESH, "owner-self", DeadOwnerRows.Position.START, 10, () -> true).swept())
        .as("19 s of store time after it was first seen gone").isZero();
    f.advanceSeconds(2);
    f.putLease("owner-" + LIVE, 1);
    final DeadOwnerRows.Pass after = graced.sweep(MeshFixture.MESH, "owner-self", DeadOwnerRows.Position.START, 10,
        () -> true);
    assertThat(after.swept()).isEqualTo(1);
    assertThat(after.waiting()).isZero();
    assertThat(read(ObjectKey.actor("p1"))).isInstanceOf(ReadResult.Missing.class);
  }

  /**
   * A sweep reads the row, then its owner's lease and capacity record in a second request. When another node's sweep
   * removes the row (and returns its slot) between the two, the record no longer covers the row: that is the row
   * moving on, not a store that disagrees with itself, so the sweep reads both again and finds the row gone instead
   * of failing InternalFailure (seen under load in {@link #twoPassesAtOnceRemoveEachRowOnce}).
   */
  @Test
  void aRowSweptByAnotherNodeBetweenTheTwoReadsOfASweepIsMissingNotADisagreement() throws Exception {
    final ObjectKey key = ObjectKey.actor("p1");
    final StoreVersion version = ready(key, PlacementKind.ACTOR, "player", dead);
    killDead();
    final String capKey = LocationKeys.nodeCapacity(MeshFixture.MESH, DEAD).preimage();
    final StoreFaults.Stall stall = f.store.faults().stallNext(1, call -> call.kind() == StoreFaults.Kind.READ
        && call.touches(capKey) && !call.touches(key.logicalKey().preimage()));
    final ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      final Future<Boolean> first = pool.submit(() -> f.batches.sweepAbandoned(key, version));
      assertThat(stall.awaitStalled(1, Duration.ofSeconds(10))).as("the first sweep read the row").isTrue();
      assertThat(f.batches.sweepAbandoned(key, version)).as("another node's sweep").isTrue();
      stall.release();
      assertThat(first.get(10, TimeUnit.SECONDS)).as("the row is gone: nothing left to sweep").isFalse();
    } finally {
      pool.shutdownNow();
    }
    assertThat(f.capacity(DEAD).actors()).isEqualTo(new NodeCapacityRecord.Slots(0, 0, 1000));
  }

  @Test
  void theRowsOfTheCallingRunAreNeverWrittenEvenWhenItsLeaseReadsAsGone() {
    ready(ObjectKey.actor("mine"), PlacementKind.ACTOR, "player", dead);
    killDead();
    assertThat(rows.sweep(MeshFixture.MESH, "owner-" + DEAD, DeadOwnerRows.Position.START, 10, () -> true)
        .removed()).isZero();
    assertThat(read(ObjectKey.actor("mine"))).isInstanceOf(ReadResult.Found.class);
  }

  @Test
  @Spec("LOC-08")
  void aPassStopsAtItsPageBoundAndTheNextGoesOnWhereItStopped() {
    for (int i = 0; i < DeadOwnerRows.PAGE_SIZE + 50; i++) {
      ready(ObjectKey.actor("p" + i), PlacementKind.ACTOR, "player", dead);
    }
    ready(ObjectKey.spot("room-1"), PlacementKind.USER_SPOT, "room", dead);
    killDead();

    final DeadOwnerRows.Pass first = pass(DeadOwnerRows.Position.START, 1);
    assertThat(first.pages()).isEqualTo(1);
    assertThat(first.swept()).isEqualTo(DeadOwnerRows.PAGE_SIZE);
    assertThat(first.next().kind()).isEqualTo(AuthorityKind.ACTOR);
    assertThat(first.next().cursor()).isPresent();
    final DeadOwnerRows.Pass second = pass(first.next(), 1);
    assertThat(second.swept()).isEqualTo(50);
    assertThat(second.next()).isEqualTo(new DeadOwnerRows.Position(AuthorityKind.SPOT, java.util.Optional.empty()));
    final DeadOwnerRows.Pass third = pass(second.next(), 1);
    assertThat(third.swept()).isEqualTo(1);
    assertThat(third.next()).as("a full cycle ended").isEqualTo(DeadOwnerRows.Position.START);
    assertThat(f.capacity(DEAD).actors().active()).isZero();
  }

  @Test
  void aPassThatMayNotGoOnReadsNothing() {
    ready(ObjectKey.actor("p1"), PlacementKind.ACTOR, "player", dead);
    killDead();
    final DeadOwnerRows.Pass pass = rows.sweep(MeshFixture.MESH, "owner-self", DeadOwnerRows.Position.START, 10,
        () -> false);
    assertThat(pass.pages()).isZero();
    assertThat(pass.next()).isEqualTo(DeadOwnerRows.Position.START);
    assertThat(read(ObjectKey.actor("p1"))).isInstanceOf(ReadResult.Found.class);
  }

  @Test
  void aStoreFailureEndsThePassWithUnavailableAndTheNextPassSweeps() {
    ready(ObjectKey.actor("p1"), PlacementKind.ACTOR, "player", dead);
    ready(ObjectKey.actor("p2"), PlacementKind.ACTOR, "player", dead);
    killDead();
    f.store.faults().failNext(1, c -> c.kind() == StoreFaults.Kind.WRITE && c.touches(ObjectKey.actor("p2")
        .logicalKey().preimage()));
    assertThatThrownBy(() -> pass(DeadOwnerRows.Position.START, 10))
        .isInstanceOf(SpotkitException.Unavailable.class);
    assertThat(read(ObjectKey.actor("p1"))).as("removed before the failure: stays removed")
        .isInstanceOf(ReadResult.Missing.class);
    assertThat(read(ObjectKey.actor("p2"))).isInstanceOf(ReadResult.Found.class);
    assertThat(pass(DeadOwnerRows.Position.START, 10).swept()).isEqualTo(1);
    assertThat(read(ObjectKey.actor("p2"))).isInstanceOf(ReadResult.Missing.class);
    assertThat(f.capacity(DEAD).actors().active()).isZero();
  }

  /** Must never: a row removed twice, or its slots retired twice (the capacity record would go below zero). */
  @Test
  void twoPassesAtOnceRemoveEachRowOnce() throws Exception {
    final int n = 120;
    for (int i = 0; i < n; i++) {
      ready(ObjectKey.actor("p" + i), PlacementKind.ACTOR, "player", dead);
    }
    killDead();
    final ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      final CountDownLatch start = new CountDownLatch(1);
      final List<Future<DeadOwnerRows.Pass>> passes = new ArrayList<>();
      for (int t = 0; t < 2; t++) {
        passes.add(pool.submit(() -> {
          start.await();
          return pass(DeadOwnerRows.Position.START, 10);
        }));
      }
      start.countDown();
      int removed = 0;
      for (Future<DeadOwnerRows.Pass> pass : passes) {
        final DeadOwnerRows.Pass done = pass.get(30, TimeUnit.SECONDS);
        assertThat(done.failure()).isEmpty();
        removed += done.removed();
      }
      assertThat(removed).as("each row removed by exactly one pass").isEqualTo(n);
    } finally {
      pool.shutdownNow();
    }
    assertThat(f.capacity(DEAD).actors()).isEqualTo(new NodeCapacityRecord.Slots(0, 0, 1000));
  }
}
