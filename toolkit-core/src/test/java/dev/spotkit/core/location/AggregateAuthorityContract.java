package dev.spotkit.core.location;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spotkit.core.ObjectGeneration;
import dev.spotkit.core.Spec;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.store.LocationStore;
import dev.spotkit.store.Mutation;
import dev.spotkit.store.ReadResult;
import dev.spotkit.store.ScanRequest;
import dev.spotkit.store.ScanResult;
import dev.spotkit.store.StoreBytes;
import dev.spotkit.store.WriteBatch;
import dev.spotkit.store.WriteResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Location Store contract of a SpotWide User Spot aggregate (spec 000 section 7; spec 002 sections 1.2, 8.1 and
 * 8.2), run on every store provider: the inventory tree, the member rows that point at the aggregate, the one
 * target-only CAS and resolution through the aggregate. Subclasses give the store.
 */
public abstract class AggregateAuthorityContract {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);
  private static final String MESH = "chat";
  private static final String ROOM = "room-1";
  private CountingStore store;
  private PlacementBatches batches;
  private AggregateAuthority aggregates;
  private NodePeer a;
  private NodePeer b;
  private NodePeer c;

  /**
   * A new, empty store for each test (a provider may share one server and isolate tests by key prefix).
   *
   * @return the store.
   */
  protected abstract LocationStore newStore();

  @BeforeEach
  public void nodes() {
    store = new CountingStore(newStore());
    batches = new PlacementBatches(store, TIMEOUT, PlacementBatches.DEFAULT_ATTEMPTS);
    aggregates = new AggregateAuthority(store, TIMEOUT, PlacementBatches.DEFAULT_ATTEMPTS);
    a = node("0a01", 5_000);
    b = node("0b02", 5_000);
    c = node("0c03", 5_000);
  }

  private NodePeer node(final String ridHex, final int actorLimit) {
    final String owner = "owner-" + ridHex;
    final WriteResult lease = store.write(WriteBatch.unconditional(Mutation.Put.expiring(
        LocationKeys.ownerLease(owner).preimage(), new OwnerLeaseRecord(owner, new LeaseGeneration(1)).encode(),
        Duration.ofMinutes(10)))).toCompletableFuture().join(); // outlives a slow test: 60 s lapsed once under load
    assertThat(lease).isInstanceOf(WriteResult.Applied.class);
    final MeshNodeDescriptorRecord record = MeshFixture.descriptor(MESH, ridHex, owner, 1, 1, NodeState.SERVING, 100,
        actorLimit, List.of(MeshFixture.actorType("player", 0),
            MeshFixture.spotType(PlacementKind.USER_SPOT, "room", 10)));
    assertThat(new NodeDirectory(store, TIMEOUT, 10).publish(record)).isInstanceOf(NodeDirectory.Published.Stored.class);
    batches.publishLimits(MESH, ridHex, NodeCapacityRecord.limitsOf(record.descriptor()));
    return NodePeer.of(record);
  }

  /** A Ready User Spot and {@code members} Ready member Actors on node {@code on}; returns the inventory. */
  private List<InventoryEntry> room(final NodePeer on, final int members) {
    final List<InventoryEntry> out = new ArrayList<>();
    out.add(ready(ObjectKey.spot(ROOM), PlacementKind.USER_SPOT, "room", on, StoreBytes.empty()));
    for (int i = 0; i < members; i++) {
      out.add(ready(ObjectKey.actor(member(i)), PlacementKind.ACTOR, "player", on, StoreBytes.utf8(ROOM)));
    }
    return out;
  }

  private static String member(final int i) {
    return "player-" + i;
  }

  private InventoryEntry ready(final ObjectKey key, final PlacementKind kind, final String type, final NodePeer on,
      final StoreBytes payload) {
    final PlacementBatches.Reservation reservation = batches.reserve(new PlacementBatches.ReserveRequest(key, kind,
        type, PlacementBatches.Target.of(on), payload, null));
    assertThat(reservation).isInstanceOf(PlacementBatches.Reservation.Reserved.class);
    final PlacementBatches.Reservation.Reserved r = (PlacementBatches.Reservation.Reserved) reservation;
    final PlacementBatches.Outcome.Done done = (PlacementBatches.Outcome.Done) batches.commit(key, r.version(),
        payload, List.of());
    final AuthorityRecord row = done.record().orElseThrow();
    return new InventoryEntry(kind, key.id(), row.objectGeneration().value(), row.authorityOwnerGeneration().value(),
        MeshNodeDescriptorRecord.Policy.RECREATE);
  }

  private String ownerNode(final ObjectKey key) {
    return LocationRecords.read(store, key).orElseThrow().authority().allocation().routingIdHex();
  }

  private NodeCapacityRecord capacity(final NodePeer node) {
    final ReadResult r = store.read(LocationKeys.nodeCapacity(MESH, node.routingIdHex()).preimage())
        .toCompletableFuture().join();
    return NodeCapacityRecord.decode(((ReadResult.Found) r).value());
  }

  private Map<String, StoreBytes> memberRows(final int members) {
    final Map<String, StoreBytes> rows = new HashMap<>();
    for (int i = 0; i < members; i++) {
      final String key = ObjectKey.actor(member(i)).logicalKey().preimage();
      rows.put(key, ((ReadResult.Found) store.read(key).toCompletableFuture().join()).value());
    }
    return rows;
  }

  private static String aggregateId(final int n) {
    return String.format("%032x", n);
  }

  @Test
  public void memberRowsReadManyAtOnceAgreeWithOneByOneAndReadTheAggregateOnce() {
    final int members = 2_100; // more than one request of at most 2,048 keys
    assertThat(aggregates.commit(aggregates.seal(ROOM, aggregateId(12), room(a, members), a.ownerId()),
        aggregateId(12), PlacementBatches.Target.of(b))).isInstanceOf(AggregateAuthority.Outcome.Committed.class);
    final List<ObjectKey> keys = new ArrayList<>();
    for (int i = 0; i < members; i++) {
      keys.add(ObjectKey.actor(member(i)));
    }
    keys.add(ObjectKey.actor("nobody"));
    final String aggregateKey = LocationKeys.aggregate(ROOM).preimage();
    final long aggregateReads = store.reads.getOrDefault(aggregateKey, new AtomicLong()).get();

    final List<java.util.Optional<LocationRecords.Stored>> all = LocationRecords.readAll(store, keys, TIMEOUT);

    assertThat(store.reads.get(aggregateKey).get()).isEqualTo(aggregateReads + 1); // once, not once per member
    assertThat(all).hasSize(members + 1);
    assertThat(all.get(members)).isEmpty();
    for (int i = 0; i < members; i++) {
      final LocationRecords.Stored one = LocationRecords.read(store, keys.get(i), TIMEOUT).orElseThrow();
      assertThat(all.get(i)).contains(one);
      assertThat(one.authority().ownerId()).isEqualTo(b.ownerId()); // the pointer followed to the new owner
    }
  }

  @Test
  @Spec("MEM-36")
  @Spec("LOC-20")
  @Spec("SPOT-07")
  public void oneCasMovesTheSpotAndEveryMemberWithoutWritingTheMemberRows() {
    final int members = 1_100; // two leaves and an index chunk
    final List<InventoryEntry> inventory = room(a, members);
    final AggregateAuthority.Sealed sealed = aggregates.seal(ROOM, aggregateId(1), inventory, a.ownerId());
    assertThat(sealed.tree().count()).isEqualTo(members + 1);
    assertThat(sealed.tree().chunks()).hasSize(3);
    final Map<String, StoreBytes> before = memberRows(members);
    final long writes = store.applied.get();

    final AggregateAuthority.Outcome outcome = aggregates.commit(sealed, aggregateId(1),
        PlacementBatches.Target.of(b));

    assertThat(outcome).isInstanceOf(AggregateAuthority.Outcome.Committed.class);
    assertThat(store.applied.get()).isEqualTo(writes + 1); // one CAS
    assertThat(memberRows(members)).isEqualTo(before); // must never: a member row published one at a time
    assertThat(ownerNode(ObjectKey.spot(ROOM))).isEqualTo("0b02");
    final long aog = LocationRecords.read(store, ObjectKey.spot(ROOM)).orElseThrow().authority()
        .authorityOwnerGeneration().value();
    for (int i = 0; i < members; i++) {
      final LocationRecords.Stored row = LocationRecords.read(store, ObjectKey.actor(member(i))).orElseThrow();
      assertThat(row.authority().allocation().routingIdHex()).isEqualTo("0b02");
      assertThat(row.authority().ownerId()).isEqualTo(b.ownerId());
      assertThat(row.authority().authorityOwnerGeneration().value()).isEqualTo(aog);
      assertThat(row.authority().objectGeneration().value()).isEqualTo(inventory.get(i + 1).objectGeneration());
      assertThat(row.record().membership()).isEqualTo(ROOM);
    }
    final AggregateRecord agg = aggregates.read(ROOM).orElseThrow().record();
    assertThat(agg.aggregateGeneration()).isEqualTo(2);
    assertThat(agg.participantCount()).isEqualTo(members + 1);
    assertThat(agg.inventoryRoot()).isEqualTo(sealed.tree().rootSha256Hex());
    assertThat(agg.authorityOwnerGeneration().value()).isEqualTo(aog);
    assertThat(capacity(a).actors().active()).isZero();
    assertThat(capacity(a).spots().active()).isZero();
    assertThat(capacity(b).actors()).isEqualTo(new NodeCapacityRecord.Slots(members, 0, 5_000));
    assertThat(capacity(b).spots().active()).isEqualTo(1);
    assertThat(capacity(b).spotType(PlacementKind.USER_SPOT, "room").active()).isEqualTo(1);
  }

  @Test
  @Spec("MEM-36")
  public void sealingChangesNoResolverAnswer() {
    final List<InventoryEntry> inventory = room(a, 50);
    final AggregateAuthority.Sealed sealed = aggregates.seal(ROOM, aggregateId(7), inventory, a.ownerId());
    for (int i = 0; i < 50; i++) {
      final LocationRecords.Stored row = LocationRecords.read(store, ObjectKey.actor(member(i))).orElseThrow();
      assertThat(row.authority().allocation().routingIdHex()).isEqualTo("0a01");
      assertThat(AggregatePointer.spotOf(AuthorityRecord.decode(((ReadResult.Found) store.read(ObjectKey.actor(
          member(i)).logicalKey().preimage()).toCompletableFuture().join()).value()).payload())).contains(ROOM);
    }
    assertThat(sealed.aggregate().ownerId()).isEqualTo(a.ownerId());
    assertThat(capacity(a).actors().active()).isEqualTo(50);
    // a second seal by the owner (the next attempt) keeps the aggregate and re-points nothing
    final long writes = store.applied.get();
    final AggregateAuthority.Sealed again = aggregates.seal(ROOM, aggregateId(8), inventory, a.ownerId());
    assertThat(again.aggregateVersion()).isEqualTo(sealed.aggregateVersion());
    assertThat(store.applied.get() - writes).isEqualTo(1); // the chunks only
  }

  @Test
  @Spec("MEM-36")
  public void twoTargetsCommittingTheSameSealMakeExactlyOneOwner() throws Exception {
    final AggregateAuthority.Sealed sealed = aggregates.seal(ROOM, aggregateId(2), room(a, 20), a.ownerId());
    final ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      final CountDownLatch start = new CountDownLatch(1);
      final List<Future<AggregateAuthority.Outcome>> results = new ArrayList<>();
      for (NodePeer target : List.of(b, c)) {
        results.add(pool.submit(() -> {
          start.await();
          return aggregates.commit(sealed, aggregateId(2), PlacementBatches.Target.of(target));
        }));
      }
      start.countDown();
      final List<AggregateAuthority.Outcome> outcomes = new ArrayList<>();
      for (Future<AggregateAuthority.Outcome> f : results) {
        outcomes.add(f.get(30, TimeUnit.SECONDS));
      }
      assertThat(outcomes).filteredOn(AggregateAuthority.Outcome.Committed.class::isInstance).hasSize(1);
      assertThat(outcomes).filteredOn(AggregateAuthority.Outcome.Changed.class::isInstance).hasSize(1);
    } finally {
      pool.shutdownNow();
    }
    final String winner = ownerNode(ObjectKey.spot(ROOM));
    for (int i = 0; i < 20; i++) { // must never: two owners among the participants
      assertThat(ownerNode(ObjectKey.actor(member(i)))).isEqualTo(winner);
    }
    assertThat(capacity(b).actors().active() + capacity(c).actors().active()).isEqualTo(20);
    assertThat(capacity(a).actors().active()).isZero();
  }

  @Test
  @Spec("LOC-16")
  public void aTargetWithoutRoomForTheWholeRoomChangesNothing() {
    final NodePeer small = node("0d04", 10);
    final AggregateAuthority.Sealed sealed = aggregates.seal(ROOM, aggregateId(3), room(a, 11), a.ownerId());
    final long writes = store.applied.get();
    assertThatThrownBy(() -> aggregates.commit(sealed, aggregateId(3), PlacementBatches.Target.of(small)))
        .isInstanceOf(SpotkitException.CapacityExceeded.class)
        .hasMessageContaining("no room for the whole aggregate (12 participants)");
    assertThat(store.applied.get()).isEqualTo(writes);
    assertThat(ownerNode(ObjectKey.spot(ROOM))).isEqualTo("0a01");
    assertThat(ownerNode(ObjectKey.actor(member(0)))).isEqualTo("0a01");
    assertThat(capacity(small).actors().active()).isZero();
    assertThat(capacity(a).actors().active()).isEqualTo(11);
    // the source keeps everything, and the same seal still commits to a target with room
    assertThat(aggregates.commit(sealed, aggregateId(3), PlacementBatches.Target.of(b)))
        .isInstanceOf(AggregateAuthority.Outcome.Committed.class);
  }

  @Test
  @Spec("MEM-36")
  @Spec("SPOT-07")
  public void theRoomMovesAToBToCAndAnOldSealCannotMoveItBack() {
    final List<InventoryEntry> inventory = room(a, 30);
    final AggregateAuthority.Sealed first = aggregates.seal(ROOM, aggregateId(4), inventory, a.ownerId());
    assertThat(aggregates.commit(first, aggregateId(4), PlacementBatches.Target.of(b)))
        .isInstanceOf(AggregateAuthority.Outcome.Committed.class);
    assertThatThrownBy(() -> aggregates.seal(ROOM, aggregateId(5), inventory, a.ownerId()))
        .isInstanceOf(SpotkitException.InvalidOperation.class).hasMessageContaining("only its owner seals it");
    final AggregateAuthority.Sealed second = aggregates.seal(ROOM, aggregateId(5), inventory, b.ownerId());
    assertThat(aggregates.commit(second, aggregateId(5), PlacementBatches.Target.of(c)))
        .isInstanceOf(AggregateAuthority.Outcome.Committed.class);
    assertThat(aggregates.commit(first, aggregateId(4), PlacementBatches.Target.of(b)))
        .isInstanceOf(AggregateAuthority.Outcome.Changed.class);
    assertThat(aggregates.read(ROOM).orElseThrow().record().aggregateGeneration()).isEqualTo(3);
    for (int i = 0; i < 30; i++) {
      assertThat(ownerNode(ObjectKey.actor(member(i)))).isEqualTo("0c03");
    }
    assertThat(capacity(b).actors().active()).isZero();
    assertThat(capacity(c).actors().active()).isEqualTo(30);
  }

  @Test
  @Spec("LOC-17")
  public void aMemberDeletedAfterTheMoveReturnsItsSlotOnTheNewOwner() {
    final List<InventoryEntry> inventory = room(a, 5);
    assertThat(aggregates.commit(aggregates.seal(ROOM, aggregateId(6), inventory, a.ownerId()), aggregateId(6),
        PlacementBatches.Target.of(b))).isInstanceOf(AggregateAuthority.Outcome.Committed.class);
    assertThat(batches.delete(ObjectKey.actor(member(0)), new ObjectGeneration(inventory.get(1).objectGeneration()),
        a.routingIdHex(), List.of())).as("the node it moved from").isInstanceOf(PlacementBatches.Outcome.Changed.class);
    final PlacementBatches.Outcome deleted = batches.delete(ObjectKey.actor(member(0)),
        new ObjectGeneration(inventory.get(1).objectGeneration()), b.routingIdHex(), List.of());
    assertThat(deleted).isInstanceOf(PlacementBatches.Outcome.Done.class);
    assertThat(capacity(b).actors().active()).isEqualTo(4);
    assertThat(capacity(a).actors().active()).isZero();
    assertThat(LocationRecords.read(store, ObjectKey.actor(member(0)))).isEmpty();
  }

  @Test
  public void aSpotRecreatedUnderTheSameIdStartsAFreshAggregate() {
    final List<InventoryEntry> old = room(a, 3);
    assertThat(aggregates.commit(aggregates.seal(ROOM, aggregateId(10), old, a.ownerId()), aggregateId(10),
        PlacementBatches.Target.of(b))).isInstanceOf(AggregateAuthority.Outcome.Committed.class);
    // the incarnation ends on b without removing its aggregate (as after an abrupt stop), then the id is reused on a
    for (InventoryEntry e : old) {
      final ObjectKey key = e.objectKind() == PlacementKind.USER_SPOT ? ObjectKey.spot(e.id()) : ObjectKey.actor(e.id());
      assertThat(batches.delete(key, new ObjectGeneration(e.objectGeneration()), b.routingIdHex(), List.of()))
          .isInstanceOf(PlacementBatches.Outcome.Done.class);
    }
    final List<InventoryEntry> again = room(a, 2);
    final AggregateAuthority.Sealed sealed = aggregates.seal(ROOM, aggregateId(11), again, a.ownerId());
    assertThat(sealed.aggregate().ownerId()).isEqualTo(a.ownerId());
    assertThat(sealed.aggregate().aggregateGeneration()).isEqualTo(1);
    assertThat(sealed.aggregate().spotObjectGeneration()).isEqualTo(again.get(0).objectGeneration());
    assertThat(aggregates.commit(sealed, aggregateId(11), PlacementBatches.Target.of(c)))
        .isInstanceOf(AggregateAuthority.Outcome.Committed.class);
    assertThat(ownerNode(ObjectKey.actor(member(1)))).isEqualTo("0c03");
  }

  @Test
  public void aReplacedInventoryIsDeletedAndTheCurrentOneKept() {
    final List<InventoryEntry> inventory = room(a, 1_100);
    final AggregateAuthority.Sealed first = aggregates.seal(ROOM, aggregateId(12), inventory, a.ownerId());
    final AggregateAuthority.Outcome.Committed toB = (AggregateAuthority.Outcome.Committed) aggregates.commit(first,
        aggregateId(12), PlacementBatches.Target.of(b));
    assertThat(InventoryTree.deleteReplaced(store, ROOM, toB.previousInventoryRoot(), toB.record().inventoryRoot(),
        TIMEOUT)).isZero(); // the first move's aggregate was recorded with this very inventory
    final List<InventoryEntry> moved = new ArrayList<>();
    for (InventoryEntry e : inventory) { // every participant's owner fence is the aggregate's now
      moved.add(new InventoryEntry(e.objectKind(), e.id(), e.objectGeneration(),
          toB.record().authorityOwnerGeneration().value(), e.policy()));
    }
    final AggregateAuthority.Sealed second = aggregates.seal(ROOM, aggregateId(13), moved, b.ownerId());
    assertThat(second.tree().rootSha256Hex()).isNotEqualTo(first.tree().rootSha256Hex());
    final AggregateAuthority.Outcome.Committed toC = (AggregateAuthority.Outcome.Committed) aggregates.commit(second,
        aggregateId(13), PlacementBatches.Target.of(c));
    assertThat(toC.previousInventoryRoot()).isEqualTo(first.tree().rootSha256Hex());
    assertThat(InventoryTree.deleteReplaced(store, ROOM, toC.previousInventoryRoot(), toC.record().inventoryRoot(),
        TIMEOUT)).isEqualTo(3);
    for (String hash : first.tree().hashes()) { // every chunk of the replaced inventory is gone
      assertThat(store.read(LocationKeys.aggregateInventory(ROOM, hash).preimage()).toCompletableFuture().join())
          .isInstanceOf(ReadResult.Missing.class);
    }
    assertThat(InventoryTree.read(store, ROOM, second.tree().rootSha256Hex(), second.tree().count(),
        second.tree().digestSha256Hex(), TIMEOUT)).hasSize(1_101); // the current inventory is whole
  }

  @Test
  public void aChangedMissingOrMiscountedInventoryIsDataLost() {
    final List<InventoryEntry> entries = new ArrayList<>();
    entries.add(new InventoryEntry(PlacementKind.USER_SPOT, ROOM, 1, 1, MeshNodeDescriptorRecord.Policy.SNAPSHOT));
    for (int i = 0; i < 2_500; i++) {
      entries.add(new InventoryEntry(PlacementKind.ACTOR, member(i), 2 + i, 1,
          MeshNodeDescriptorRecord.Policy.RECREATE));
    }
    final InventoryTree tree = InventoryTree.build(ROOM, entries);
    assertThat(tree.chunks()).hasSize(4); // three leaves (1024, 1024, 453) and one index
    assertThat(tree.chunks()).allSatisfy(ch -> assertThat(ch.bytes().size()).isLessThanOrEqualTo(1 << 20));
    assertThat(tree.chunks().subList(0, 3)).extracting(InventoryTree.Chunk::entries).containsExactly(1024, 1024, 453);
    tree.write(store, TIMEOUT);
    final List<InventoryEntry> back = InventoryTree.read(store, ROOM, tree.rootSha256Hex(), tree.count(),
        tree.digestSha256Hex(), TIMEOUT);
    assertThat(back).hasSize(2_501).isSortedAccordingTo(InventoryEntry.ORDER).containsExactlyInAnyOrderElementsOf(
        entries);
    assertThatThrownBy(() -> InventoryTree.read(store, ROOM, tree.rootSha256Hex(), 2_500, tree.digestSha256Hex(),
        TIMEOUT)).isInstanceOf(SpotkitException.DataLost.class).hasMessageContaining("holds 2501 entries");
    assertThatThrownBy(() -> InventoryTree.read(store, ROOM, tree.rootSha256Hex(), tree.count(), "0".repeat(64),
        TIMEOUT)).isInstanceOf(SpotkitException.DataLost.class).hasMessageContaining("has digest");
    final String leaf = tree.chunks().get(1).sha256Hex();
    store.write(WriteBatch.unconditional(Mutation.Put.of(LocationKeys.aggregateInventory(ROOM, leaf).preimage(),
        tree.chunks().get(0).bytes()))).toCompletableFuture().join();
    assertThatThrownBy(() -> InventoryTree.read(store, ROOM, tree.rootSha256Hex(), tree.count(),
        tree.digestSha256Hex(), TIMEOUT)).isInstanceOf(SpotkitException.DataLost.class)
        .hasMessage("inventory chunk " + leaf + " of the aggregate of Spot 'room-1' does not hash to its key"
            + " (changed)");
    InventoryTree.delete(store, ROOM, List.of(leaf), TIMEOUT);
    assertThatThrownBy(() -> InventoryTree.read(store, ROOM, tree.rootSha256Hex(), tree.count(),
        tree.digestSha256Hex(), TIMEOUT)).isInstanceOf(SpotkitException.DataLost.class)
        .hasMessageContaining("is missing");
  }

  @Test
  public void aDuplicateParticipantOrAnEmptyInventoryIsRefused() {
    final InventoryEntry spot = new InventoryEntry(PlacementKind.USER_SPOT, ROOM, 1, 1,
        MeshNodeDescriptorRecord.Policy.RECREATE);
    final InventoryEntry p = new InventoryEntry(PlacementKind.ACTOR, "p", 2, 1, MeshNodeDescriptorRecord.Policy.RECREATE);
    assertThatThrownBy(() -> InventoryTree.build(ROOM, List.of(spot, p, p)))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("participant actor 'p' appears twice in the"
            + " inventory of Spot 'room-1'");
    assertThatThrownBy(() -> InventoryTree.build(ROOM, List.of())).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  public void theAggregateRecordRoundTrips() {
    final AggregateRecord r = new AggregateRecord(ROOM, "room", 12, aggregateId(9), 4, 1_001, "ab".repeat(32),
        "cd".repeat(32), "owner-0b02", new LeaseGeneration(3), new AuthorityOwnerGeneration(17), MESH, "0b02", 3);
    assertThat(AggregateRecord.decode(r.encode())).isEqualTo(r);
    assertThat(r.encode().asUtf8()).startsWith("{\"recordVersion\":1,\"spotId\":\"room-1\",\"stableType\":\"room\","
        + "\"spotObjectGeneration\":\"12\",\"aggregateId\":\"00000000000000000000000000000009\","
        + "\"aggregateGeneration\":\"4\"");
    assertThatThrownBy(() -> new AggregateRecord(ROOM, "room", 1, aggregateId(0), 1, 1, "r", "d", "o",
        new LeaseGeneration(1), new AuthorityOwnerGeneration(1), MESH, "0b02", 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not all zero");
  }

  /** Counts applied writes of the store under test. */
  private static final class CountingStore implements LocationStore {
    final AtomicLong applied = new AtomicLong();
    /** Single-key reads by key (the default readAll reads each key on its own). */
    final Map<String, AtomicLong> reads = new java.util.concurrent.ConcurrentHashMap<>();
    private final LocationStore inner;

    CountingStore(final LocationStore inner) {
      this.inner = inner;
    }

    @Override
    public CompletionStage<ReadResult> read(final String key) {
      reads.computeIfAbsent(key, k -> new AtomicLong()).incrementAndGet();
      return inner.read(key);
    }

    @Override
    public CompletionStage<WriteResult> write(final WriteBatch batch) {
      return inner.write(batch).thenApply(r -> {
        if (r instanceof WriteResult.Applied) {
          applied.incrementAndGet();
        }
        return r;
      });
    }

    @Override
    public CompletionStage<ScanResult> scan(final ScanRequest request) {
      return inner.scan(request);
    }
  }
}
