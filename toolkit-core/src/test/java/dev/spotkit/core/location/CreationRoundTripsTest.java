package dev.spotkit.core.location;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spotkit.core.Spec;
import dev.spotkit.store.CountingLocationStore;
import dev.spotkit.store.Mutation;
import dev.spotkit.store.ReadResult;
import dev.spotkit.store.StoreBytes;
import dev.spotkit.store.StoreVersion;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * How many Location Store requests (round trips on Redis) a creation takes through {@link PlacementBatches}, counted
 * by a {@link CountingLocationStore} around the in-memory store (the Redis store's own count is asserted by
 * {@code RedisLocationStoreCreationRoundTripsTest}): reserve is one readAll of the row, descriptor, owner lease,
 * capacity record and both counters, then one write; commit is one readAll of the row with the keys its reservation
 * named, then one write. Issue 16: at most 4 per creation (it was 11).
 */
class CreationRoundTripsTest {
  private final MeshFixture f = new MeshFixture();
  private final NodePeer node = f.node("0a01", NodeState.SERVING, 100, 5, List.of(MeshFixture.actorType("player", 0)));
  private final CountingLocationStore counting = new CountingLocationStore(f.store);
  private final PlacementBatches batches = new PlacementBatches(counting, MeshFixture.TIMEOUT,
      PlacementBatches.DEFAULT_ATTEMPTS);
  private final String terminalKey = LogicalKey.of("creation-terminal", "0a01", "1", "op").preimage();

  private PlacementBatches.ReserveRequest actor(final String id) {
    return new PlacementBatches.ReserveRequest(ObjectKey.actor(id), PlacementKind.ACTOR, "player",
        PlacementBatches.Target.of(node), StoreBytes.empty(), null);
  }

  @Test
  @Spec("LOC-10")
  @Spec("LOC-13")
  void aCreationIsFourRequestsReserveTwoAndCommitTwo() {
    final PlacementBatches.Reservation.Reserved reserved = (PlacementBatches.Reservation.Reserved)
        batches.reserve(actor("alice"));
    assertThat(counting.readAlls()).isEqualTo(1);
    assertThat(counting.writes()).isEqualTo(1);
    assertThat(counting.requests()).isEqualTo(2);

    final PlacementBatches.Outcome outcome = batches.commit(ObjectKey.actor("alice"), reserved.version(),
        List.of(Mutation.Put.of(terminalKey, StoreBytes.utf8("created"))));
    assertThat(outcome).isInstanceOf(PlacementBatches.Outcome.Done.class);
    assertThat(counting.reads()).as("no single-key read on the creation path").isZero();
    assertThat(counting.requests()).as("reserve + commit").isEqualTo(4);
    // the same result as before: Ready row, slot active, terminal record in the same batch
    final PlacementBatches.Outcome.Done done = (PlacementBatches.Outcome.Done) outcome;
    assertThat(done.record().orElseThrow().allocation().state()).isEqualTo(AuthorityRecord.State.ACTIVE);
    assertThat(f.capacity("0a01").actors()).isEqualTo(new NodeCapacityRecord.Slots(1, 0, 5));
    assertThat(f.store.read(terminalKey).toCompletableFuture().join()).isInstanceOf(ReadResult.Found.class);
  }

  @Test
  void aCommitOfAReservationMadeElsewhereReadsTheRowThenItsLeaseAndCapacityTogether() {
    final PlacementBatches.Reservation.Reserved reserved = (PlacementBatches.Reservation.Reserved)
        f.batches.reserve(actor("bob"));
    assertThat(batches.commit(ObjectKey.actor("bob"), reserved.version(), List.of()))
        .isInstanceOf(PlacementBatches.Outcome.Done.class);
    assertThat(counting.requests()).as("row; lease + capacity; write").isEqualTo(3);
    assertThat(counting.reads()).isZero();
  }

  @Test
  void anExistingRowIsOneRequestAndAnAbortTwo() {
    final PlacementBatches.Reservation.Reserved reserved = (PlacementBatches.Reservation.Reserved)
        batches.reserve(actor("carol"));
    final long before = counting.requests();
    assertThat(batches.reserve(actor("carol"))).isInstanceOf(PlacementBatches.Reservation.Existing.class);
    assertThat(counting.requests() - before).isEqualTo(1);
    assertThat(batches.abort(ObjectKey.actor("carol"), reserved.version(), List.of()))
        .isInstanceOf(PlacementBatches.Outcome.Done.class);
    assertThat(counting.requests() - before).isEqualTo(3);
    assertThat(f.capacity("0a01").actors()).isEqualTo(new NodeCapacityRecord.Slots(0, 0, 5));
  }

  @Test
  @Spec("LOC-13")
  void aCommitWhoseCapacityRecordMovedSinceTheReservationStillCommitsWithTheCurrentRecord() {
    final PlacementBatches.Reservation.Reserved first = (PlacementBatches.Reservation.Reserved)
        batches.reserve(actor("dave"));
    batches.reserve(actor("erin")); // moves the capacity record after dave's reservation
    final long before = counting.requests();
    assertThat(batches.commit(ObjectKey.actor("dave"), first.version(), List.of()))
        .isInstanceOf(PlacementBatches.Outcome.Done.class);
    assertThat(counting.requests() - before).as("the capacity record is read with the row, not remembered")
        .isEqualTo(2);
    assertThat(f.capacity("0a01").actors()).isEqualTo(new NodeCapacityRecord.Slots(1, 1, 5));
  }

  @Test
  void aCommitAfterTheOwnerLeaseExpiredIsLeaseInvalidAndWritesNothing() {
    final PlacementBatches.Reservation.Reserved reserved = (PlacementBatches.Reservation.Reserved)
        batches.reserve(actor("frank"));
    final long writes = counting.writes();
    f.advanceSeconds(MeshFixture.LEASE_TTL.toSeconds() + 1);
    assertThat(batches.commit(ObjectKey.actor("frank"), reserved.version(), List.of()))
        .isInstanceOf(PlacementBatches.Outcome.LeaseInvalid.class);
    assertThat(counting.writes()).isEqualTo(writes);
    assertThat(f.capacity("0a01").actors()).isEqualTo(new NodeCapacityRecord.Slots(0, 1, 5));
  }

  /**
   * The target-only relocation CAS (spec 001 section 6): told the source node, it reads the row, the target's owner
   * lease, both capacity records and the AuthorityOwnerGeneration counter in one request and writes in a second
   * (issue 16: it read them one by one, 6 reads and a write); not told, the source's record is read once the row names
   * it (3 requests). Either way the row names the target and one slot moves from the source to the target.
   */
  @Test
  void aRelocationCasIsTwoRequestsWhenTheSourceNodeIsNamedAndThreeWhenNot() {
    final NodePeer other = f.node("0a02", NodeState.SERVING, 100, 5, List.of(MeshFixture.actorType("player", 0)));
    final StoreVersion[] version = new StoreVersion[2];
    for (int i = 0; i < 2; i++) {
      final String id = "mover-" + i;
      final PlacementBatches.Reservation.Reserved reserved = (PlacementBatches.Reservation.Reserved)
          batches.reserve(actor(id));
      version[i] = ((PlacementBatches.Outcome.Done) batches.commit(ObjectKey.actor(id), reserved.version(),
          List.of())).version().orElseThrow();
    }
    long before = counting.requests();
    final PlacementBatches.Outcome named = batches.relocate(ObjectKey.actor("mover-0"), version[0],
        PlacementBatches.Target.of(other), StoreBytes.utf8("room"), "0a01");
    assertThat(named).isInstanceOf(PlacementBatches.Outcome.Done.class);
    assertThat(counting.requests() - before).as("one readAll, one write").isEqualTo(2);
    before = counting.requests();
    final PlacementBatches.Outcome unnamed = batches.relocate(ObjectKey.actor("mover-1"), version[1],
        PlacementBatches.Target.of(other), StoreBytes.utf8("room"), null);
    assertThat(unnamed).isInstanceOf(PlacementBatches.Outcome.Done.class);
    assertThat(counting.requests() - before).as("row and the rest; the source's capacity; write").isEqualTo(3);
    assertThat(counting.reads()).as("no single-key read").isZero();
    final PlacementBatches.Outcome.Done done = (PlacementBatches.Outcome.Done) named;
    assertThat(done.record().orElseThrow().allocation().routingIdHex()).isEqualTo("0a02");
    assertThat(f.capacity("0a01").actors().active()).isZero();
    assertThat(f.capacity("0a02").actors().active()).isEqualTo(2);
  }
}
