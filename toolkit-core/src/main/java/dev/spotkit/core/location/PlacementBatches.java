package dev.spotkit.core.location;

import dev.spotkit.core.ObjectGeneration;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.store.Condition;
import dev.spotkit.store.LocationStore;
import dev.spotkit.store.Mutation;
import dev.spotkit.store.ReadResult;
import dev.spotkit.store.StoreBytes;
import dev.spotkit.store.StoreException;
import dev.spotkit.store.StoreNow;
import dev.spotkit.store.StoreVersion;
import dev.spotkit.store.WriteBatch;
import dev.spotkit.store.WriteResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Reserve, Commit, Abort and Delete of spec 002 section 6.1 as single all-or-nothing Location Store batches, each
 * with a typed result. Every batch changes the authority row and the target's {@link NodeCapacityRecord} together
 * (LOC-13, LOC-17), so usage never drifts from the rows that hold it.
 *
 * <table>
 *   <caption>What each batch checks and changes</caption>
 *   <tr><th>operation</th><th>conditions</th><th>mutations</th></tr>
 *   <tr><td>reserve</td><td>authority absent; descriptor, target owner lease, capacity record and both counters
 *       at the versions read</td><td>authority Creating (allocation reserved); reserved += bundle; counters
 *       advanced</td></tr>
 *   <tr><td>commit</td><td>authority at the reservation's version; owner lease; capacity</td><td>authority Ready
 *       (allocation active, pendingCreation cleared); reserved -= bundle, active += bundle; caller's extra
 *       puts</td></tr>
 *   <tr><td>abort</td><td>authority at the reservation's version; capacity</td><td>authority deleted; reserved
 *       -= bundle; caller's extra puts</td></tr>
 *   <tr><td>delete</td><td>authority Ready at the ObjectGeneration given; owner lease; capacity</td><td>authority
 *       deleted; active -= bundle; caller's extra puts</td></tr>
 *   <tr><td>sweep</td><td>authority Ready at the version read; its owner lease gone (absent, or another run's
 *       record at the version read); capacity (or absent)</td><td>authority deleted; active -= bundle</td></tr>
 * </table>
 *
 * <p>Conflicts: a Conflict is retried, after re-reading everything, only while the authority row is still the
 * one the operation is about, i.e. when the Conflict can only have come from a counter, the capacity record, the
 * descriptor or the lease moving. When the row appeared or changed, that is the answer ({@link Reservation.Existing}
 * or {@link Outcome.Changed}), never retried. At most {@code maxAttempts} tries, then
 * {@link SpotkitException.Unavailable}. A write whose answer was lost ({@link StoreException.Indeterminate}) is
 * never guessed: the authority row is re-read and compared byte for byte with what was written (spec 002
 * section 10).
 *
 * <p>Round trips (issue 16; one store request each, {@link LocationStore#readAll} for reads): reserve 2, commit 2
 * when this instance reserved (row, lease and capacity read together) else 3, abort likewise, delete 3. Concurrent
 * reserves and commits of one instance go out as one readAll and one write per group ({@link PlacementGroups}),
 * each caller answered as a lone call would be.
 *
 * <p>Blocking: waits for each store call at most the timeout given; call from virtual threads only.
 * Thread-safety: any thread; the state kept is the keys each open reservation's commit will need (bounded) and the
 * queue of grouped calls.
 */
public final class PlacementBatches {
  /** Default bound on tries per operation: enough for 64 writers racing on one capacity record. */
  public static final int DEFAULT_ATTEMPTS = 64;

  private final LocationStore store;
  private final Duration timeout;
  private final int maxAttempts;
  /** Keys the commit of each open reservation of this instance will need (one round trip fewer per commit). */
  private final OpenReservations reservations = new OpenReservations();
  /** Concurrent reserves and commits of this instance, one store request per group. */
  private final PlacementGroups groups;
  /** No store call starts or waits past this; null for none. */
  private final dev.spotkit.core.Deadline deadline;

  /**
   * Batches over {@code store}.
   *
   * @param store the Location Store.
   * @param timeout the longest wait of each store call, positive.
   * @param maxAttempts tries per operation, 1..10000.
   * @throws IllegalArgumentException when a bound is out of range.
   */
  public PlacementBatches(final LocationStore store, final Duration timeout, final int maxAttempts) {
    this(store, timeout, maxAttempts, null);
  }

  /**
   * Batches over {@code store} bounded by {@code deadline} as well: each store call waits at most the smaller of
   * {@code timeout} and the time left, and none starts once the deadline passed (a relocation CAS bounded by Restore
   * validity, spec 001 section 4.5: the retry deadline is the absolute deadline the Restore carries).
   *
   * @param store the Location Store.
   * @param timeout the longest wait of each store call, positive.
   * @param maxAttempts tries per operation, 1..10000.
   * @param deadline the absolute end of every call, or null for none.
   * @throws IllegalArgumentException when a bound is out of range.
   */
  public PlacementBatches(final LocationStore store, final Duration timeout, final int maxAttempts,
      final dev.spotkit.core.Deadline deadline) {
    this.deadline = deadline;
    this.store = Objects.requireNonNull(store, "store");
    this.timeout = Objects.requireNonNull(timeout, "timeout");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("store call timeout " + timeout + " must be positive");
    }
    if (maxAttempts < 1 || maxAttempts > 10_000) {
      throw new IllegalArgumentException("maxAttempts " + maxAttempts + " is outside 1..10000");
    }
    this.maxAttempts = maxAttempts;
    this.groups = new PlacementGroups(this, store, maxAttempts, reservations);
  }

  /**
   * The node a reservation targets: the run picked from {@link NodeDirectory#readMesh(String)}.
   *
   * @param meshName the RouteMesh name.
   * @param routingIdHex the RoutingId, lowercase hex.
   * @param lifecycleGeneration the node run the allocation is fixed to.
   * @param ownerId the target host run's OwnerId (becomes the row's ownerId).
   * @param leaseGeneration the target host run's LeaseGeneration (the row's ownerLeaseGeneration).
   */
  public record Target(String meshName, String routingIdHex, long lifecycleGeneration, String ownerId,
      LeaseGeneration leaseGeneration) {
    /**
     * Checks for null: throws NullPointerException when a part is null.
     */
    public Target {
      Objects.requireNonNull(meshName, "meshName");
      Objects.requireNonNull(routingIdHex, "routingIdHex");
      Objects.requireNonNull(ownerId, "ownerId");
      Objects.requireNonNull(leaseGeneration, "leaseGeneration");
    }

    /**
     * The target of a peer.
     *
     * @param peer a live peer.
     * @return its target.
     */
    public static Target of(final NodePeer peer) {
      return new Target(peer.meshName(), peer.routingIdHex(), peer.lifecycleGeneration(), peer.ownerId(),
          peer.leaseGeneration());
    }

    NodePeer.HostRun hostRun() {
      return new NodePeer.HostRun(routingIdHex, lifecycleGeneration);
    }
  }

  /**
   * What to reserve.
   *
   * @param key the object's authority key; an Actor needs kind ACTOR, a Spot USER_SPOT or INSTANCE_SPOT.
   * @param kind actor, userSpot or instanceSpot (the Entry Spot is not placed and takes no capacity).
   * @param stableType the factory's stable type, UTF-8 1..255 bytes.
   * @param target the chosen node run.
   * @param payload framework-internal bytes for the row (no key or placement information in it).
   * @param pendingCreation the creation in progress, or null.
   */
  public record ReserveRequest(ObjectKey key, PlacementKind kind, String stableType, Target target,
      StoreBytes payload, AuthorityRecord.PendingCreation pendingCreation) {
    /**
     * Checks that the kind fits the key.
     *
     * @throws IllegalArgumentException when the kind is ENTRY_SPOT or does not match the key's kind.
     */
    public ReserveRequest {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(kind, "kind");
      Objects.requireNonNull(stableType, "stableType");
      Objects.requireNonNull(target, "target");
      Objects.requireNonNull(payload, "payload");
      if (kind == PlacementKind.ENTRY_SPOT) {
        throw new IllegalArgumentException("the Entry Spot is not placed and takes no capacity (spec 002 section"
            + " 4); its own node writes its row");
      }
      if ((kind == PlacementKind.ACTOR) != (key.kind() == AuthorityKind.ACTOR)) {
        throw new IllegalArgumentException("placement kind " + kind.wire() + " does not fit authority key kind "
            + key.kind().segment() + " of '" + key.id() + "'");
      }
    }

    /**
     * The capacity bundle this request secures (spec 002 section 3.3).
     *
     * @return one Actor slot, or one Spot slot plus one slot of the Spot's kind and type.
     */
    public AuthorityRecord.Capacity capacity() {
      return kind == PlacementKind.ACTOR ? AuthorityRecord.Capacity.actor()
          : AuthorityRecord.Capacity.spot(kind, stableType);
    }
  }

  /** Why a target run refused a reservation; the caller excludes that run and may pick another. */
  public enum Refusal {
    /** The descriptor is missing, of another run, or not Serving. */
    NOT_SERVING,
    /** The target did not register the kind and stable type. */
    NOT_REGISTERED,
    /** The target's owner lease is missing, expired or of another run. */
    LEASE_INVALID,
    /** The bundle would take active + reserved over a limit. */
    CAPACITY_FULL,
    /** The target published no node capacity record yet ({@link #publishLimits}). */
    NO_CAPACITY_RECORD
  }

  /** Outcome of {@link #reserve(ReserveRequest)}. */
  public sealed interface Reservation {
    /**
     * This call won: the Creating row and the reserved slots are stored (LOC-09, LOC-13).
     *
     * @param record the row as written (allocation reserved).
     * @param version its StoreVersion, to pass to commit or abort.
     * @param now StoreNow of the write.
     */
    record Reserved(AuthorityRecord record, StoreVersion version, StoreNow now) implements Reservation {
    }

    /**
     * A row already exists: the answer, not an error. The caller compares kind and type (AlreadyExists,
     * TypeMismatch, or wait for the Creating row) and never runs a second factory.
     *
     * @param record the current row.
     * @param version its StoreVersion.
     * @param now StoreNow of the read.
     */
    record Existing(AuthorityRecord record, StoreVersion version, StoreNow now) implements Reservation {
    }

    /**
     * The target run refused; nothing changed. Exclude {@code hostRun} and pick again until the deadline.
     *
     * @param reason why.
     * @param hostRun the refusing run.
     * @param detail the values behind the reason.
     */
    record Refused(Refusal reason, NodePeer.HostRun hostRun, String detail) implements Reservation {
      /**
       * The refusal as the typed error a caller with no other candidate reports.
       *
       * @return CapacityExceeded for CAPACITY_FULL, NotFound for NOT_REGISTERED, else Unavailable.
       */
      public SpotkitException toException() {
        final String message = "node " + hostRun.routingIdHex() + " run " + hostRun.lifecycleGeneration()
            + " refused the reservation (" + reason + "): " + detail;
        return switch (reason) {
          case CAPACITY_FULL -> new SpotkitException.CapacityExceeded(message);
          case NOT_REGISTERED -> new SpotkitException.NotFound(message);
          case NOT_SERVING, LEASE_INVALID, NO_CAPACITY_RECORD -> new SpotkitException.Unavailable(message);
        };
      }
    }
  }

  /** Outcome of {@link #commit}, {@link #abort} and {@link #delete}. */
  public sealed interface Outcome {
    /**
     * Applied in one batch.
     *
     * @param record the row after the change (commit), or empty when it was deleted (abort, delete).
     * @param version the row's new StoreVersion (commit), or empty.
     * @param now StoreNow of the write (or of the re-read that confirmed a write whose answer was lost).
     */
    record Done(Optional<AuthorityRecord> record, Optional<StoreVersion> version, StoreNow now) implements Outcome {
    }

    /**
     * There is no row; nothing changed.
     *
     * @param now StoreNow of the read.
     */
    record Missing(StoreNow now) implements Outcome {
    }

    /**
     * The row is not the one the operation is about (another version, generation or state); nothing changed.
     * Applying commit or abort to anything but that reservation, or delete to a Reserved row, ends here.
     *
     * @param current the current row.
     * @param version its StoreVersion.
     */
    record Changed(AuthorityRecord current, StoreVersion version) implements Outcome {
    }

    /**
     * The row's owner lease is missing, expired or of another run; nothing changed.
     *
     * @param why the reason.
     */
    record LeaseInvalid(String why) implements Outcome {
    }
  }

  /**
   * Reserve (spec 002 sections 6.1 and 7): Missing to Creating, with the capacity bundle, ObjectGeneration and
   * the first AuthorityOwnerGeneration issued in the same batch. Two store requests when alone; concurrent callers
   * of this instance share them (consecutive generation values in arrival order, one counter advance per group).
   *
   * @param request what and where.
   * @return Reserved, Existing or Refused.
   * @throws SpotkitException.GenerationExhausted when a counter holds the sentinel (nothing written).
   * @throws SpotkitException.Unavailable when the store fails or conflicts {@code maxAttempts} times.
   * @throws RecordDecodeException when a row or record is unreadable.
   */
  public Reservation reserve(final ReserveRequest request) {
    return groups.reserve(request);
  }

  /** Reserve on its own: one readAll, one write per try (a row too large to share a group's batch). */
  Reservation reserveAlone(final ReserveRequest request) {
    final Target t = request.target();
    final String authKey = request.key().logicalKey().preimage();
    final String descKey = LocationKeys.meshNode(t.meshName(), t.routingIdHex()).preimage();
    final String capKey = LocationKeys.nodeCapacity(t.meshName(), t.routingIdHex()).preimage();
    // every key the batch depends on is known before the first read: one readAll, one write (2 round trips)
    final List<String> keys = List.of(authKey, descKey, LocationKeys.ownerLease(t.ownerId()).preimage(), capKey,
        GenerationCounter.OBJECT.key().preimage(), GenerationCounter.AUTHORITY_OWNER.key().preimage());
    final AuthorityRecord.Capacity bundle = request.capacity();
    for (int attempt = 0; attempt < maxAttempts; attempt++) {
      final List<ReadResult> reads = readAll(keys);
      if (reads.get(0) instanceof ReadResult.Found found) {
        return new Reservation.Existing(AuthorityRecord.decode(found.value()), found.version(), found.now());
      }
      final ReadResult desc = reads.get(1);
      final Optional<Reservation.Refused> notServing = checkDescriptor(request, desc);
      if (notServing.isPresent()) {
        return notServing.get();
      }
      final Leases.Check lease = Leases.check(t.ownerId(), t.leaseGeneration(), reads.get(2));
      if (!lease.valid()) {
        return new Reservation.Refused(Refusal.LEASE_INVALID, t.hostRun(), lease.why());
      }
      if (!(reads.get(3) instanceof ReadResult.Found capFound)) {
        return new Reservation.Refused(Refusal.NO_CAPACITY_RECORD, t.hostRun(), "no record at "
            + LocationKeys.nodeCapacity(t.meshName(), t.routingIdHex()));
      }
      final NodeCapacityRecord usage = NodeCapacityRecord.decode(capFound.value());
      final Optional<String> full = usage.whyFull(bundle);
      if (full.isPresent()) {
        return new Reservation.Refused(Refusal.CAPACITY_FULL, t.hostRun(), full.get());
      }
      final Generations.Issued object = Generations.prepare(GenerationCounter.OBJECT, reads.get(4));
      final Generations.Issued owner = Generations.prepare(GenerationCounter.AUTHORITY_OWNER, reads.get(5));
      final AuthorityRecord record = new AuthorityRecord(request.payload(), object.objectGeneration(),
          owner.authorityOwnerGeneration(), t.ownerId(), t.leaseGeneration(), new AuthorityRecord.Allocation(
          AuthorityRecord.State.RESERVED, request.kind(), request.stableType(), t.meshName(), t.routingIdHex(),
          t.lifecycleGeneration(), bundle), request.pendingCreation());
      final StoreBytes bytes = record.encode();
      final WriteBatch batch = WriteBatch.of(List.of(new Condition.ExpectAbsent(authKey),
          new Condition.ExpectVersion(descKey, ((ReadResult.Found) desc).version()), lease.condition().get(),
          new Condition.ExpectVersion(capKey, capFound.version()), object.condition(), owner.condition()),
          List.of(Mutation.Put.of(authKey, bytes), Mutation.Put.of(capKey, usage.reserve(bundle).encode()),
              object.advance(), owner.advance()));
      final Optional<Written> written = write(batch, authKey, bytes, "reserve of " + request.key().logicalKey());
      if (written.isPresent()) {
        final StoreVersion version = written.get().version().orElseThrow();
        reservations.remember(authKey, version, record);
        return new Reservation.Reserved(record, version, written.get().now());
      }
    }
    throw exhausted("reserve of " + request.key().logicalKey());
  }

  Optional<Reservation.Refused> checkDescriptor(final ReserveRequest request, final ReadResult desc) {
    final Target t = request.target();
    if (!(desc instanceof ReadResult.Found found)) {
      return Optional.of(new Reservation.Refused(Refusal.NOT_SERVING, t.hostRun(), "descriptor "
          + LocationKeys.meshNode(t.meshName(), t.routingIdHex()) + " is missing"));
    }
    final MeshNodeDescriptorRecord d = MeshNodeDescriptorRecord.decode(found.value());
    if (d.descriptor().lifecycleGeneration() != t.lifecycleGeneration() || !d.ownerId().equals(t.ownerId())
        || !d.leaseGeneration().equals(t.leaseGeneration())) {
      return Optional.of(new Reservation.Refused(Refusal.NOT_SERVING, t.hostRun(), "descriptor is now run "
          + d.descriptor().lifecycleGeneration() + " of owner " + d.ownerId() + " lease " + d.leaseGeneration()));
    }
    if (d.descriptor().state() != NodeState.SERVING) {
      return Optional.of(new Reservation.Refused(Refusal.NOT_SERVING, t.hostRun(), "state is "
          + d.descriptor().state().wire()));
    }
    if (!NodePeer.of(d).registers(request.kind(), request.stableType())) {
      return Optional.of(new Reservation.Refused(Refusal.NOT_REGISTERED, t.hostRun(), request.kind().wire()
          + " type '" + request.stableType() + "' is not registered"));
    }
    return Optional.empty();
  }

  /**
   * Commit (spec 002 section 6.1, section 7 "Approved"): that reservation's Creating to Ready, its reserved slots
   * to active, and the caller's extra puts (e.g. the creation's final result) in the same batch (LOC-10).
   *
   * @param key the object.
   * @param reservedVersion the StoreVersion {@link Reservation.Reserved} returned.
   * @param extra further mutations of the same batch (keys other than the row and the capacity record).
   * @return Done (with the Ready row), Missing, Changed or LeaseInvalid.
   * @throws SpotkitException.Unavailable when the store fails or conflicts {@code maxAttempts} times.
   * @throws SpotkitException.InternalFailure when the capacity record is missing or holds fewer reserved slots.
   */
  public Outcome commit(final ObjectKey key, final StoreVersion reservedVersion, final List<Mutation> extra) {
    return commit(key, reservedVersion, null, extra);
  }

  /**
   * Commit that also replaces the row's framework-internal payload (e.g. the Actor's membership, known only on
   * the target), in the same batch.
   *
   * @param key the object.
   * @param reservedVersion the StoreVersion {@link Reservation.Reserved} returned.
   * @param payload the row's new payload, or null to keep it.
   * @param extra further mutations of the same batch (keys other than the row and the capacity record).
   * @return Done (with the Ready row), Missing, Changed or LeaseInvalid.
   * @throws SpotkitException.Unavailable when the store fails or conflicts {@code maxAttempts} times.
   * @throws SpotkitException.InternalFailure when the capacity record is missing or holds fewer reserved slots.
   */
  public Outcome commit(final ObjectKey key, final StoreVersion reservedVersion, final StoreBytes payload,
      final List<Mutation> extra) {
    final List<String> hints = reservations.take(key.logicalKey().preimage(), reservedVersion);
    return hints.isEmpty() ? commitAlone(key, reservedVersion, payload, extra, hints)
        : groups.commit(key, reservedVersion, payload, extra, hints);
  }

  /** Commit on its own: the row with {@code hints}, what else it needs, one write per try. */
  Outcome commitAlone(final ObjectKey key, final StoreVersion reservedVersion, final StoreBytes payload,
      final List<Mutation> extra, final List<String> hints) {
    return change(key, "commit", extra, hints, (record, version) -> {
      if (!version.equals(reservedVersion) || record.allocation().state() != AuthorityRecord.State.RESERVED) {
        return null;
      }
      final AuthorityRecord.Allocation a = record.allocation();
      return new Plan(new AuthorityRecord(payload == null ? record.payload() : payload, record.objectGeneration(),
          record.authorityOwnerGeneration(), record.ownerId(), record.ownerLeaseGeneration(),
          new AuthorityRecord.Allocation(AuthorityRecord.State.ACTIVE, a.objectKind(), a.stableType(), a.meshName(),
              a.routingIdHex(), a.descriptorLifecycleGeneration(), a.capacity()), null), LeaseRule.LIVE,
          NodeCapacityRecord::commit, false);
    });
  }

  /**
   * Abort (spec 002 section 6.1, section 7 decline, exception or framework failure): that reservation's
   * Creating row deleted and its reserved slots returned in one batch, with the caller's extra puts (LOC-10).
   * The owner lease is not checked: recovery aborts reservations of runs that are gone.
   *
   * @param key the object.
   * @param reservedVersion the StoreVersion {@link Reservation.Reserved} returned.
   * @param extra further mutations of the same batch.
   * @return Done, Missing or Changed.
   * @throws SpotkitException.Unavailable when the store fails or conflicts {@code maxAttempts} times.
   * @throws SpotkitException.InternalFailure when the capacity record holds fewer reserved slots. A missing
   *     capacity record (the target node is gone and removed it) means nothing to give back: the row is deleted.
   */
  public Outcome abort(final ObjectKey key, final StoreVersion reservedVersion, final List<Mutation> extra) {
    return change(key, "abort", extra, reservations.take(key.logicalKey().preimage(), reservedVersion),
        (record, version) ->
        !version.equals(reservedVersion) || record.allocation().state() != AuthorityRecord.State.RESERVED ? null
            : new Plan(null, LeaseRule.NONE, NodeCapacityRecord::release, true));
  }

  /**
   * Recovery of an abandoned reservation: aborts the Creating row at {@code version} only when its owner run's
   * lease is no longer valid (the target died before Ready, spec 002 section 7), so a waiting GetOrCreate can
   * compete again instead of waiting for a creation that cannot finish.
   *
   * @param key the object.
   * @param version the Creating row's StoreVersion as read.
   * @return true when this call aborted it; false when the row changed or its owner is alive.
   * @throws SpotkitException.Unavailable when the store fails.
   */
  public boolean abortAbandoned(final ObjectKey key, final StoreVersion version) {
    final ReadResult read = read(key.logicalKey().preimage());
    if (!(read instanceof ReadResult.Found found) || !found.version().equals(version)) {
      return false;
    }
    final AuthorityRecord row = AuthorityRecord.decode(found.value());
    if (row.allocation().state() != AuthorityRecord.State.RESERVED
        || Leases.check(store, row.ownerId(), row.ownerLeaseGeneration(), callTimeout()).valid()) {
      return false;
    }
    return abort(key, version, List.of()) instanceof Outcome.Done;
  }

  /**
   * Sweep of a Ready row whose owner is gone (crash recovery, issue 15; spec 002 section 3.3: "only a Framework
   * task responsible for recovery replaces the owner or deletes the record, conditioned on the first-read
   * StoreVersion"). In one batch, only while the row is still Ready at {@code version} and its (effective) owner
   * run's lease is still gone (missing: conditioned absent; another run: conditioned at the version read), the row
   * is deleted and its active slots are retired from its node's capacity record (a node whose record is gone
   * returns nothing, conditioned absent). The object's in-memory state died with its owner; nothing is moved. The
   * next Reserve of the id issues a new, higher ObjectGeneration from the store-wide counter.
   *
   * <p>Fencing: the owner's lease record is missing only after the store's TTL ran out, which is at least one
   * fencing margin after that run's own local admission deadline (spec 002 section 5), so a run that comes back
   * (a paused process resumed) stopped admitting new work a margin before this batch can apply, and every write
   * it still attempts is conditioned on its lease version (missing now) or on this row's version (gone now).
   *
   * @param key the object.
   * @param version the Ready row's StoreVersion as read.
   * @return true when this call deleted the row; false when the row changed, is not Ready, or its owner is alive
   *     (or its lease record is unreadable: not proof either way).
   * @throws SpotkitException.Unavailable when the store fails or conflicts {@code maxAttempts} times.
   */
  public boolean sweepAbandoned(final ObjectKey key, final StoreVersion version) {
    return change(key, "sweep", List.of(), List.of(), (record, found) -> !found.equals(version) || record.allocation()
        .state() != AuthorityRecord.State.ACTIVE ? null : new Plan(null, LeaseRule.GONE, NodeCapacityRecord::retire,
        true)) instanceof Outcome.Done;
  }

  /**
   * Delete (spec 002 section 6.1, section 7.2 Destroy/Close): the Ready row of {@code generation} deleted and its
   * active slots returned in the same batch, after confirming the current owner lease (LOC-17). A Reserved row, or
   * one naming another owner (a move kept the ObjectGeneration and committed away: spec 001 section 6), is Changed.
   *
   * @param key the object.
   * @param generation the ObjectGeneration of the caller's ref; another generation is Changed.
   * @param owner the routing id (16 lowercase hex digits) of the host run deleting it; another owner is Changed.
   * @param extra further mutations of the same batch.
   * @return Done, Missing, Changed or LeaseInvalid.
   * @throws SpotkitException.Unavailable when the store fails or conflicts {@code maxAttempts} times.
   * @throws SpotkitException.InternalFailure when the capacity record holds fewer active slots (none: gives none).
   */
  public Outcome delete(final ObjectKey key, final ObjectGeneration generation, final String owner,
      final List<Mutation> extra) {
    return change(key, "delete", extra, List.of(), (record, version) -> !record.objectGeneration().equals(generation)
        || record.allocation().state() != AuthorityRecord.State.ACTIVE || !record.allocation().routingIdHex()
        .equals(owner) ? null : new Plan(null, LeaseRule.LIVE, NodeCapacityRecord::retire, true));
  }

  /**
   * Delete of a Ready row only while it is still at {@code version}: the row and its active slots go in one batch,
   * as {@link #delete}. For an incarnation whose move passed the target's relay-ready reply without a commit (spec
   * 001 section 9): its recorded owner removes the row it still holds, and a row the target changed meanwhile (its
   * CAS committed after all) is left alone.
   *
   * @param key the object.
   * @param version the StoreVersion the row must still have.
   * @return Done, Missing, Changed (another version, or not Ready) or LeaseInvalid.
   * @throws SpotkitException.Unavailable when the store fails or conflicts {@code maxAttempts} times.
   */
  public Outcome deleteAt(final ObjectKey key, final StoreVersion version) {
    return change(key, "delete", List.of(), List.of(), (record, found) -> !found.equals(version)
        || record.allocation().state() != AuthorityRecord.State.ACTIVE
        ? null : new Plan(null, LeaseRule.LIVE, NodeCapacityRecord::retire, true));
  }

  /**
   * The target-only relocation CAS (spec 001 sections 4.5 and 6, spec 000 section 4.2 step 6, MEM-20, MEM-21): in
   * one batch, only while the authority row still has {@code expectedVersion} (the source values first read), the
   * row names {@code target} as owner and {@code payload} as membership, keeps its ObjectGeneration and gets the
   * next AuthorityOwnerGeneration; the source node's active slots are returned and the target's taken. Conditions:
   * the row's version, the target's owner lease, both capacity records and the AuthorityOwnerGeneration counter; a
   * source capacity record that is gone (its node closed and removed it) is conditioned absent and left alone.
   * A Conflict caused by a counter or capacity record moving is retried after re-reading; a row at another version
   * is the answer ({@link Outcome.Changed}), never retried. A lost answer is resolved by re-reading the row.
   *
   * <p>Every key the batch depends on is read in one {@link LocationStore#readAll} when the caller names the source
   * node (the row, the target's owner lease, both capacity records, the AuthorityOwnerGeneration counter): a try is
   * then 2 round trips, one more when the row follows an aggregate or is not on the node named (every key read is
   * pinned by a condition, so a wrong guess costs a read, never a wrong write).
   *
   * @param key the object's authority key.
   * @param expectedVersion the StoreVersion the relocation read the source values at.
   * @param target the target host run (new owner and allocation).
   * @param payload the row's new membership payload.
   * @param sourceRoutingIdHex the routing id (hex) of the node the row is expected to be allocated on, or null
   *     when not known (its capacity record is then read once the row names it).
   * @return Done (the new row and version), Changed, Missing or LeaseInvalid.
   * @throws SpotkitException.CapacityExceeded when the target node has no room for the row's bundle.
   * @throws SpotkitException.InternalFailure when the target's capacity record is missing.
   * @throws SpotkitException.Unavailable when the store fails or conflicts {@code maxAttempts} times.
   */
  public Outcome relocate(final ObjectKey key, final StoreVersion expectedVersion, final Target target,
      final StoreBytes payload, final String sourceRoutingIdHex) {
    return RelocationCas.relocate(this, key, expectedVersion, target, payload, sourceRoutingIdHex);
  }

  /**
   * A member row that points at its SpotWide User Spot's aggregate ({@link AggregatePointer}) is judged with the
   * aggregate's owner and allocation node (spec 000 section 7), and the batch is conditioned on the aggregate's
   * version, so it cannot apply across an aggregate move; other rows are returned as they are.
   */
  AuthorityRecord effective(final AuthorityRecord row, final List<Condition> conditions,
      final StoreReads reads) {
    final Optional<String> spot = AggregatePointer.spotOf(row.payload());
    if (spot.isEmpty()) {
      return row;
    }
    final String aggKey = LocationKeys.aggregate(spot.get()).preimage();
    final ReadResult r = reads.get(aggKey);
    if (!(r instanceof ReadResult.Found f)) {
      conditions.add(new Condition.ExpectAbsent(aggKey));
      return row;
    }
    conditions.add(new Condition.ExpectVersion(aggKey, f.version()));
    return AggregateAuthority.follow(row, AggregateRecord.decode(f.value()));
  }

  /**
   * The row after the change (null: delete it), whether to pin the owner lease, the usage change, and whether
   * a missing capacity record means "nothing to give back" (the row's node is gone and its record with it).
   */
  private record Plan(AuthorityRecord after, LeaseRule lease, UsageChange usage, boolean returnsSlots) {
  }

  /** What a batch requires of the row's (effective) owner lease. */
  private enum LeaseRule {
    /** Not read, not conditioned (abort: recovery aborts reservations of runs that are gone). */
    NONE,
    /** Valid, and pinned at the version read (commit, delete). */
    LIVE,
    /** Gone for good, and pinned so (missing: absent; another run: its version) (sweep of an abandoned row). */
    GONE
  }

  private interface UsageChange {
    NodeCapacityRecord apply(NodeCapacityRecord usage, AuthorityRecord.Capacity bundle);
  }

  /** Decides from the current row: a plan, or null when the row is not the one the operation is about. */
  private interface Decide {
    Plan plan(AuthorityRecord record, StoreVersion version);
  }

  /**
   * One try of read-decide-write over the row and what it depends on. Round trips: one readAll of the row and
   * {@code hints} (the keys the row is expected to need: its owner lease, its node's capacity record, its aggregate),
   * one readAll of whatever the row turned out to need beyond the hints (none when they were right; the aggregate
   * first when the row follows one), one write. Every key read is pinned by a condition, so a guess that was wrong
   * costs a round trip, never a wrong write.
   */
  private Outcome change(final ObjectKey key, final String op, final List<Mutation> extra, final List<String> hints,
      final Decide decide) {
    final String authKey = key.logicalKey().preimage();
    final String what = op + " of " + key.logicalKey();
    final List<String> first = new ArrayList<>(1 + hints.size());
    first.add(authKey);
    first.addAll(hints);
    for (int attempt = 0; attempt < maxAttempts; attempt++) {
      final StoreReads reads = new StoreReads(this::readAll, first);
      final ReadResult read = reads.get(authKey);
      if (!(read instanceof ReadResult.Found found)) {
        return new Outcome.Missing(read.now());
      }
      final List<Condition> conditions = new ArrayList<>(List.of(new Condition.ExpectVersion(authKey,
          found.version())));
      final AuthorityRecord record = effective(AuthorityRecord.decode(found.value()), conditions, reads);
      final Plan plan = decide.plan(record, found.version());
      if (plan == null) {
        return new Outcome.Changed(record, found.version());
      }
      final AuthorityRecord.Allocation a = record.allocation();
      final LogicalKey capLogical = LocationKeys.nodeCapacity(a.meshName(), a.routingIdHex());
      final String capKey = capLogical.preimage();
      final String leaseKey = LocationKeys.ownerLease(record.ownerId()).preimage();
      reads.fetch(plan.lease() == LeaseRule.NONE ? List.of(capKey) : List.of(leaseKey, capKey));
      if (plan.lease() != LeaseRule.NONE) {
        final Leases.Check lease = Leases.check(record.ownerId(), record.ownerLeaseGeneration(), reads.get(leaseKey));
        if (plan.lease() == LeaseRule.LIVE) {
          if (!lease.valid()) {
            return new Outcome.LeaseInvalid(lease.why());
          }
          conditions.add(lease.condition().get());
        } else {
          if (!lease.gone()) {
            return new Outcome.Changed(record, found.version()); // its owner is alive (or unreadable): not abandoned
          }
          conditions.add(lease.deadCondition().get());
        }
      }
      final ReadResult cap = reads.get(capKey);
      final NodeCapacityRecord usage;
      if (cap instanceof ReadResult.Found capFound) {
        try {
          usage = plan.usage().apply(NodeCapacityRecord.decode(capFound.value()), a.capacity());
        } catch (IllegalStateException e) {
          // row and record came from two requests: a row removed between them (its slots returned by another
          // node's batch) makes them disagree for a moment. Only a disagreement read in one request is real.
          final List<ReadResult> both = readAll(List.of(authKey, capKey));
          if (!(both.get(0) instanceof ReadResult.Found row && row.version().equals(found.version())
              && both.get(1) instanceof ReadResult.Found capNow && capNow.version().equals(capFound.version()))) {
            continue; // it moved on: the next try reads it afresh (Missing or Changed, typically)
          }
          throw new SpotkitException.InternalFailure(what + ": " + e.getMessage() + "; the store was not changed",
              e);
        }
        conditions.add(new Condition.ExpectVersion(capKey, capFound.version()));
      } else if (plan.returnsSlots()) {
        // spec 002 sections 4 and 7: the row's node is gone and removed its capacity record; there is nothing
        // to give back, and the row must still go (an abandoned reservation stays abortable)
        usage = null;
        conditions.add(new Condition.ExpectAbsent(capKey));
      } else {
        throw new SpotkitException.InternalFailure(what + ": node capacity record " + capLogical + " is missing"
            + " while the row holds " + a.capacity() + "; the store was not changed");
      }
      final List<Mutation> mutations = new ArrayList<>();
      final StoreBytes after = plan.after() == null ? null : plan.after().encode();
      mutations.add(after == null ? new Mutation.Delete(authKey) : Mutation.Put.of(authKey, after));
      if (usage != null) {
        mutations.add(Mutation.Put.of(capKey, usage.encode()));
      }
      mutations.addAll(extra);
      final Optional<Written> written = write(WriteBatch.of(conditions, mutations), authKey, after, what);
      if (written.isPresent()) {
        return new Outcome.Done(Optional.ofNullable(plan.after()), written.get().version(), written.get().now());
      }
    }
    throw exhausted(what);
  }

  /**
   * Stores {@code limits} as the node's capacity limits (startup, or a limit change): creates the record with no
   * usage when missing, else keeps every count and replaces the limits ({@link NodeCapacityRecord#withLimitsOf}).
   * Limits lowered below the current use block new reservations only.
   *
   * @param meshName the node's MeshName.
   * @param routingIdHex the node's RoutingId, lowercase hex.
   * @param limits the limits (counts ignored), e.g. {@link NodeCapacityRecord#limitsOf}.
   * @return the record as stored.
   * @throws SpotkitException.Unavailable when the store fails or conflicts {@code maxAttempts} times.
   */
  public NodeCapacityRecord publishLimits(final String meshName, final String routingIdHex,
      final NodeCapacityRecord limits) {
    final String capKey = LocationKeys.nodeCapacity(meshName, routingIdHex).preimage();
    final NodeCapacityRecord empty = new NodeCapacityRecord(NodeCapacityRecord.Slots.NONE,
        NodeCapacityRecord.Slots.NONE, List.of());
    for (int attempt = 0; attempt < maxAttempts; attempt++) {
      final ReadResult read = read(capKey);
      final NodeCapacityRecord merged;
      final Condition condition;
      if (read instanceof ReadResult.Found found) {
        final NodeCapacityRecord current = NodeCapacityRecord.decode(found.value());
        merged = current.withLimitsOf(limits);
        if (merged.equals(current)) {
          return current;
        }
        condition = new Condition.ExpectVersion(capKey, found.version());
      } else {
        merged = empty.withLimitsOf(limits);
        condition = new Condition.ExpectAbsent(capKey);
      }
      final WriteResult result = StoreCalls.await(store.write(WriteBatch.of(List.of(condition),
          List.of(Mutation.Put.of(capKey, merged.encode())))), callTimeout(),
          "write of " + capKey.replace("\0", "\\0"));
      if (result instanceof WriteResult.Applied) {
        return merged;
      }
    }
    throw exhausted("capacity limits of node " + routingIdHex);
  }

  /**
   * Reads the capacity records of {@code peers}, one read each.
   *
   * @param peers live peers.
   * @return RoutingId hex to record, in the peers' order; a peer without a record is absent.
   * @throws SpotkitException.Unavailable when the store fails.
   * @throws RecordDecodeException when a record is unreadable.
   */
  public Map<String, NodeCapacityRecord> readCapacities(final List<NodePeer> peers) {
    final Map<String, NodeCapacityRecord> out = new LinkedHashMap<>();
    for (NodePeer peer : peers) {
      if (read(LocationKeys.nodeCapacity(peer.meshName(), peer.routingIdHex()).preimage())
          instanceof ReadResult.Found found) {
        out.put(peer.routingIdHex(), NodeCapacityRecord.decode(found.value()));
      }
    }
    return out;
  }

  PlacementGroups groups() {
    return groups;
  }

  /**
   * The wait of the next store call: the timeout, or less when the deadline is nearer.
   *
   * @throws SpotkitException.Unavailable when the deadline passed: the call is not sent, so nothing changes.
   */
  /** @return tries per operation, 1..10000. */
  int maxAttempts() {
    return maxAttempts;
  }

  Duration callTimeout() {
    if (deadline == null) {
      return timeout;
    }
    final Duration left = deadline.remaining();
    if (left.isZero() || left.isNegative()) {
      throw new SpotkitException.Unavailable("the deadline of this store operation passed; the next store call was"
          + " not sent");
    }
    return left.compareTo(timeout) < 0 ? left : timeout;
  }

  private ReadResult read(final String key) {
    return StoreCalls.await(store.read(key), callTimeout(), "read of " + key.replace("\0", "\\0"));
  }

  /** Reads {@code keys} in one store request ({@link LocationStore#readAll}): one round trip. */
  List<ReadResult> readAll(final List<String> keys) {
    final List<ReadResult> out = StoreCalls.await(store.readAll(keys), callTimeout(), "read of " + keys.size()
        + " keys from " + keys.get(0).replace("\0", "\\0"));
    if (out.size() != keys.size()) {
      throw new SpotkitException.InternalFailure("the location store answered " + out.size() + " results for a"
          + " read of " + keys.size() + " keys");
    }
    return out;
  }

  /** An applied write: the row's new version (empty when deleted) and StoreNow. */
  record Written(Optional<StoreVersion> version, StoreNow now) {
  }

  /**
   * Writes {@code batch}; empty on Conflict. When the answer is lost (Indeterminate), re-reads {@code authKey}:
   * it applied when the row holds exactly {@code expected} (or is gone, when {@code expected} is null).
   */
  Optional<Written> write(final WriteBatch batch, final String authKey, final StoreBytes expected,
      final String what) {
    final WriteResult result;
    try {
      result = StoreCalls.await(store.write(batch), callTimeout(), "write of " + what);
    } catch (SpotkitException.Unavailable e) {
      if (!(e.getCause() instanceof StoreException.Indeterminate)) {
        throw e;
      }
      final ReadResult again = read(authKey);
      if (again instanceof ReadResult.Found found && found.value().equals(expected)) {
        return Optional.of(new Written(Optional.of(found.version()), found.now()));
      }
      if (again instanceof ReadResult.Missing missing && expected == null) {
        return Optional.of(new Written(Optional.empty(), missing.now()));
      }
      return Optional.empty();
    }
    if (result instanceof WriteResult.Applied applied) {
      return Optional.of(new Written(Optional.ofNullable(applied.versions().get(authKey)), applied.now()));
    }
    return Optional.empty();
  }

  SpotkitException.Unavailable exhausted(final String what) {
    return new SpotkitException.Unavailable(what + " conflicted " + maxAttempts + " times in a row (counters,"
        + " capacity record, descriptor or lease kept moving); nothing was changed by this call; retry later");
  }
}
