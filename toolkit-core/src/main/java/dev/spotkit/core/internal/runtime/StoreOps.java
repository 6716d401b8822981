package dev.spotkit.core.internal.runtime;

import dev.spotkit.core.SpotkitException;
import dev.spotkit.core.location.AuthorityRecord;
import dev.spotkit.core.location.GenerationCounter;
import dev.spotkit.core.location.Generations;
import dev.spotkit.core.location.LeaseGeneration;
import dev.spotkit.core.location.LocationRecord;
import dev.spotkit.core.location.LocationRecords;
import dev.spotkit.core.location.OwnerLease;
import dev.spotkit.core.location.PlacementBatches;
import dev.spotkit.store.StoreBytes;
import dev.spotkit.store.StoreVersion;
import dev.spotkit.core.location.PlacementKind;
import dev.spotkit.core.location.RecordState;
import dev.spotkit.core.location.StoreCalls;
import dev.spotkit.store.Condition;
import dev.spotkit.store.LocationStore;
import dev.spotkit.store.Mutation;
import dev.spotkit.store.ReadResult;
import dev.spotkit.store.WriteBatch;
import dev.spotkit.store.WriteResult;
import java.time.Duration;
import java.util.List;

/**
 * The runtime's writes to the Location Store, with store failures mapped to typed errors. Each cell's row
 * version is tracked on the cell; a cell's writes are serialized by its lifecycle (creation, join chain,
 * close), so one writer at a time per row.
 *
 * <p>Rows are canonical {@link AuthorityRecord}s at {@code authority\0{actor|spot}\0{id}}. The first write of a
 * row (Missing to Creating, or the Entry Spot's Missing to Ready) issues its AuthorityOwnerGeneration in the same
 * batch. Every row names this host run's OwnerId and LeaseGeneration (from its {@link OwnerLease}), and every write
 * is admitted by the lease first (spec 002 section 5, LOC-04): past the local admission deadline no row changes.
 * ObjectGenerations are issued in a batch of their own before the row, because the creation path needs the value
 * before the row exists.
 */
public final class StoreOps {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);
  private static final int ATTEMPTS = 64;
  private final LocationStore store;
  private final OwnerLease ownerLease;
  private final String owner;
  private final String meshName;
  private final String routingIdHex;
  private final PlacementBatches batches;

  /**
   * @param store the Location Store.
   * @param ownerLease the acquired lease of this host run; its OwnerId owns every row written here.
   * @param meshName this node's MeshName.
   * @param routingIdHex this node's RoutingId in hex.
   */
  StoreOps(final LocationStore store, final OwnerLease ownerLease, final String meshName,
      final String routingIdHex) {
    this.store = store;
    this.ownerLease = ownerLease;
    this.owner = ownerLease.record().ownerId();
    this.meshName = meshName;
    this.routingIdHex = routingIdHex;
    this.batches = new PlacementBatches(store, TIMEOUT, PlacementBatches.DEFAULT_ATTEMPTS);
  }

  /** The host run's lifecycle generation: its LeaseGeneration (one per run, store-wide monotonic). */
  public long lifecycleGeneration() {
    return lease().value();
  }

  public OwnerLease ownerLease() {
    return ownerLease;
  }

  /** Admits a store change (LOC-04); throws Unavailable past the local admission deadline. */
  void admit(final String what) {
    if (!ownerLease.admitsNow()) {
      ownerLease.admit(what);
    }
  }

  public LocationStore store() {
    return store;
  }

  public PlacementBatches batches() {
    return batches;
  }

  /** This host run as a placement target. */
  public PlacementBatches.Target self() {
    final LeaseGeneration leaseGeneration = lease();
    return new PlacementBatches.Target(meshName, routingIdHex, leaseGeneration.value(), owner, leaseGeneration);
  }

  /**
   * Reserve on this node (spec 002 section 6.1): Missing to Creating with the capacity bundle, ObjectGeneration
   * and first AuthorityOwnerGeneration in one batch; the cell adopts the row.
   *
   * @throws SpotkitException.AlreadyExists when a row exists (another creator holds this id).
   * @throws SpotkitException.CapacityExceeded when this node is full.
   */
  public void reserve(final Cell cell, final String membership) {
    reserve(cell, membership, null);
  }

  /**
   * Reserve on this node with a creation in progress recorded in the row (an Instance Spot's first message in
   * the Relocation Store, spec 002 section 7.1).
   *
   * @throws SpotkitException.AlreadyExists when a row exists (another creator holds this id).
   * @throws SpotkitException.CapacityExceeded when this node is full.
   */
  public void reserve(final Cell cell, final String membership, final AuthorityRecord.PendingCreation pending) {
    admit("a creation reservation");
    final PlacementBatches.Reservation reservation = batches.reserve(new PlacementBatches.ReserveRequest(cell.key,
        kind(cell), cell.stableType, self(), payload(membership), pending));
    switch (reservation) {
      case PlacementBatches.Reservation.Reserved reserved -> adopt(cell, reserved.record(), reserved.version());
      case PlacementBatches.Reservation.Existing existing -> throw new SpotkitException.AlreadyExists(
          cell.describe() + " already has a location record; another creator holds this id");
      case PlacementBatches.Reservation.Refused refused -> throw refused.toException();
    }
  }

  /** The cell takes over a Creating row reserved for this node (here or by a coordinator on another node). */
  public void adopt(final Cell cell, final AuthorityRecord row, final StoreVersion version) {
    cell.generation = row.objectGeneration().value();
    cell.storeRecord = LocationRecords.fromAuthority(cell.key, row);
    cell.storeVersion = version;
  }

  /**
   * Commit (spec 002 section 6.1): the cell's Creating row to Ready, reserved slots to active, plus
   * {@code extra} (the creation's terminal record), in one batch (LOC-10).
   *
   * @throws SpotkitException.Unavailable when the row changed under the creation or the lease is invalid.
   */
  public void commit(final Cell cell, final String membership, final List<Mutation> extra) {
    admit("a creation commit");
    final PlacementBatches.Outcome outcome = batches.commit(cell.key, cell.storeVersion, payload(membership),
        extra);
    if (!(outcome instanceof PlacementBatches.Outcome.Done done)) {
      throw new SpotkitException.Unavailable("the Creating record of " + cell.describe() + " could not be"
          + " committed: " + outcome);
    }
    cell.storeRecord = LocationRecords.fromAuthority(cell.key, done.record().orElseThrow());
    cell.storeVersion = done.version().orElseThrow();
  }

  /**
   * Abort: the cell's Creating row deleted and its slots returned, plus {@code extra}, in one batch; never
   * throws (logs).
   */
  void abort(final Cell cell, final List<Mutation> extra) {
    if (cell.storeRecord == null) {
      return;
    }
    try {
      final PlacementBatches.Outcome outcome = batches.abort(cell.key, cell.storeVersion, extra);
      if (!(outcome instanceof PlacementBatches.Outcome.Done)) {
        NodeRuntime.LOG.warn("abort of the reservation of {} found {}", cell.describe(), outcome);
      }
      cell.storeRecord = null;
    } catch (RuntimeException e) {
      NodeRuntime.LOG.warn("could not abort the reservation of {}", cell.describe(), e);
    }
  }

  private static StoreBytes payload(final String membership) {
    return membership == null ? StoreBytes.empty() : StoreBytes.utf8(membership);
  }

  private static PlacementKind kind(final Cell cell) {
    return cell instanceof SpotCell spot ? switch (spot.kind) {
      case ENTRY -> PlacementKind.ENTRY_SPOT;
      case USER -> PlacementKind.USER_SPOT;
      case INSTANCE -> PlacementKind.INSTANCE_SPOT;
    } : PlacementKind.ACTOR;
  }

  /** The Entry Spot's generation: it is not placed (no reservation), so it is issued alone. */
  public long issueGeneration() {
    admit("issuing an ObjectGeneration");
    return Generations.issueAlone(store, GenerationCounter.OBJECT, TIMEOUT, ATTEMPTS).value();
  }

  /** Writes the cell's next record, conditional on the version this node last wrote. */
  public void update(final Cell cell, final LocationRecord next) {
    if (cell.storeRecord == null) {
      if (!create(cell, next)) {
        throw new SpotkitException.Unavailable("the location record of " + cell.describe()
            + " appeared under this node (expected none)");
      }
      return;
    }
    final String key = cell.key.logicalKey().preimage();
    final LocationRecord record = next.withAuthorityOwnerGeneration(cell.storeRecord.authorityOwnerGeneration());
    final WriteResult result = write(WriteBatch.of(List.of(new Condition.ExpectVersion(key, cell.storeVersion)),
        List.of(Mutation.Put.of(key, authority(cell, record).encode()))));
    if (result instanceof WriteResult.Applied applied) {
      cell.storeVersion = applied.version(key);
      cell.storeRecord = record;
    } else {
      throw new SpotkitException.Unavailable("the location record of " + cell.describe()
          + " changed under this node (expected version " + cell.storeVersion + ")");
    }
  }

  /** The cell's first record when no reservation was needed (the Entry Spot). */
  public LocationRecord readyRecord(final Cell cell, final String membership) {
    return new LocationRecord(cell.key, cell.generation, cell.stableType, owner, membership, RecordState.READY);
  }

  /**
   * Removes the cell's row if this node holds one; never throws (logs). A Creating row is aborted; a Ready
   * row is deleted with its active slots returned in the same batch (LOC-17); the Entry Spot's row, which
   * holds no capacity, is deleted alone.
   */
  void remove(final Cell cell) {
    if (cell.storeRecord == null) {
      return;
    }
    if (ownerLease.isLost()) { // fail-stop: nothing is written under a dead lease; its rows are recovered
      NodeRuntime.LOG.debug("owner lease lost: the location record of {} is left for recovery", cell.describe());
      cell.storeRecord = null;
      return;
    }
    if (cell.storeRecord.state() == RecordState.CREATING) {
      abort(cell, cell.terminal.ended());
      return;
    }
    try {
      if (kind(cell) == PlacementKind.ENTRY_SPOT) {
        final String key = cell.key.logicalKey().preimage();
        write(WriteBatch.of(List.of(new Condition.ExpectVersion(key, cell.storeVersion)),
            List.of(new Mutation.Delete(key))));
      } else {
        admit("a Location Store delete");
        // A User Spot's aggregate record (spec 000 section 7) stays: member rows that point at it may be deleted
        // after the Spot's row and still need its owner; a later Spot of the same id replaces it (its
        // spotObjectGeneration differs).
        final PlacementBatches.Outcome outcome = batches.delete(cell.key,
            new dev.spotkit.core.ObjectGeneration(cell.generation), routingIdHex, List.of());
        if (!(outcome instanceof PlacementBatches.Outcome.Done)) {
          NodeRuntime.LOG.warn("delete of the location record of {} found {}", cell.describe(), outcome);
        }
      }
      cell.storeRecord = null;
    } catch (RuntimeException e) {
      NodeRuntime.LOG.warn("could not delete the location record of {}", cell.describe(), e);
    }
  }

  /**
   * Deletes the Ready row of {@code key} with its active slots only while it is still at {@code version} (an
   * incarnation whose move did not commit, spec 001 section 9; see {@link PlacementBatches#deleteAt}); never throws
   * (logs). Nothing is written under a lost lease.
   *
   * @param key the object.
   * @param version the StoreVersion the row must still have.
   * @return true when this call deleted the row.
   */
  public boolean removeAt(final dev.spotkit.core.location.ObjectKey key, final StoreVersion version) {
    if (ownerLease.isLost()) {
      return false;
    }
    try {
      admit("a Location Store delete");
      final PlacementBatches.Outcome outcome = batches.deleteAt(key, version);
      if (!(outcome instanceof PlacementBatches.Outcome.Done)) {
        NodeRuntime.LOG.debug("delete of the location record of {} at version {} found {}", key.logicalKey(),
            version, outcome);
      }
      return outcome instanceof PlacementBatches.Outcome.Done;
    } catch (RuntimeException e) {
      NodeRuntime.LOG.warn("could not delete the location record of {}", key.logicalKey(), e);
      return false;
    }
  }

  /**
   * Writes the row's first version with a new AuthorityOwnerGeneration in one batch; a Conflict caused by the
   * counter moving is retried, one caused by an existing row is the answer.
   *
   * @return false when the row exists.
   */
  private boolean create(final Cell cell, final LocationRecord record) {
    final LeaseGeneration leaseGeneration = lease();
    final String key = cell.key.logicalKey().preimage();
    final String counterKey = GenerationCounter.AUTHORITY_OWNER.key().preimage();
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      final Generations.Issued aog = Generations.prepare(GenerationCounter.AUTHORITY_OWNER,
          StoreCalls.await(store.read(counterKey), TIMEOUT, "read of " + GenerationCounter.AUTHORITY_OWNER.key()));
      final LocationRecord first = record.withAuthorityOwnerGeneration(aog.value());
      final WriteResult result = write(WriteBatch.of(List.of(new Condition.ExpectAbsent(key), aog.condition()),
          List.of(Mutation.Put.of(key, authority(cell, first, leaseGeneration).encode()), aog.advance())));
      if (result instanceof WriteResult.Applied applied) {
        cell.storeVersion = applied.version(key);
        cell.storeRecord = first;
        return true;
      }
      if (StoreCalls.await(store.read(key), TIMEOUT, "read of " + cell.key.logicalKey())
          instanceof ReadResult.Found) {
        return false;
      }
    }
    throw new SpotkitException.Unavailable("the AuthorityOwnerGeneration counter changed under " + ATTEMPTS
        + " attempts in a row while creating the location record of " + cell.describe() + "; retry");
  }

  private LeaseGeneration lease() {
    return ownerLease.record().leaseGeneration();
  }

  private AuthorityRecord authority(final Cell cell, final LocationRecord record) {
    return authority(cell, record, lease());
  }

  private AuthorityRecord authority(final Cell cell, final LocationRecord record, final LeaseGeneration leaseGen) {
    return LocationRecords.toAuthority(record, kind(cell), leaseGen, meshName, routingIdHex, leaseGen.value());
  }

  private WriteResult write(final WriteBatch batch) {
    admit("a Location Store change");
    return StoreCalls.await(store.write(batch), TIMEOUT, "write");
  }
}
