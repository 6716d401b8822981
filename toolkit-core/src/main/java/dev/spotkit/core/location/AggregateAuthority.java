package dev.spotkit.core.location;

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
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The Location Store side of a SpotWide User Spot aggregate move (spec 000 section 7; spec 002 sections 1.2, 3.3, 8.1
 * and 8.2; MEM-36, LOC-16, LOC-20): the aggregate authority ({@link AggregateRecord}), its inventory
 * ({@link InventoryTree}), the member rows that point at it ({@link AggregatePointer}), the one target-only CAS that
 * moves the Spot and every member, and resolution of a member's owner through the aggregate.
 *
 * <table>
 *   <caption>The batches and what each changes</caption>
 *   <tr><th>operation</th><th>who</th><th>conditions</th><th>mutations</th></tr>
 *   <tr><td>{@link #seal}</td><td>source, at the Spot's turn boundary</td><td>aggregate absent (first move) or at the
 *       version read; each member row at the version read</td><td>the aggregate record (first move only, owner copied
 *       from the Spot row); inventory chunks; member rows re-pointed at the aggregate (effective owner
 *       unchanged)</td></tr>
 *   <tr><td>{@link #commit}</td><td>target only, after Restore</td><td>aggregate and Spot row at the versions the seal
 *       fixed; target owner lease; both node capacity records; the AuthorityOwnerGeneration counter</td><td>aggregate
 *       owner, generation + 1, AggregateId, inventory root/count/digest; Spot row owner; source capacity retired and
 *       target capacity active for the whole bundle (1 Spot, 1 Spot-type slot, one Actor slot per member); counter
 *       advanced. Member rows are not written.</td></tr>
 * </table>
 *
 * <p>Nothing a seal writes changes any resolver answer: the aggregate starts with the Spot row's owner, and a row is
 * re-pointed only while its own owner is that owner. The new inventory is named by the aggregate only through the
 * commit. Blocking: every call waits for each store call at most the timeout given; virtual threads only.
 * Thread-safety: stateless apart from the store; any thread.
 */
public final class AggregateAuthority {
  /** Member rows re-pointed per batch. */
  static final int POINT_BATCH = 256;
  private final LocationStore store;
  private final Duration timeout;
  private final int maxAttempts;

  /**
   * @param store the Location Store.
   * @param timeout the longest wait of each store call, positive.
   * @param maxAttempts tries of a batch that conflicts because a counter or capacity record moved, at least 1.
   */
  public AggregateAuthority(final LocationStore store, final Duration timeout, final int maxAttempts) {
    this.store = Objects.requireNonNull(store, "store");
    this.timeout = Objects.requireNonNull(timeout, "timeout");
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts " + maxAttempts + " must be at least 1");
    }
    this.maxAttempts = maxAttempts;
  }

  /**
   * A stored aggregate record with the version it was read at.
   *
   * @param record the record.
   * @param version its StoreVersion.
   */
  public record Stored(AggregateRecord record, StoreVersion version) {
  }

  /**
   * What a seal fixed: the versions the target's CAS expects and the inventory it names.
   *
   * @param aggregateVersion the aggregate record's version after the seal.
   * @param spotVersion the Spot row's version at the seal.
   * @param aggregate the aggregate record after the seal (source owner).
   * @param tree the inventory written.
   * @param memberVersions the new StoreVersion of each member row the seal pointed at the aggregate, by ActorId (a
   *     row that pointed already is absent): the source's cells take them, so their later writes still match.
   */
  public record Sealed(StoreVersion aggregateVersion, StoreVersion spotVersion, AggregateRecord aggregate,
      InventoryTree tree, Map<String, StoreVersion> memberVersions) {
    /**
     * Copies the map.
     *
     * @throws NullPointerException when the map is null.
     */
    public Sealed {
      memberVersions = Map.copyOf(memberVersions);
    }

    /**
     * What a seal fixed, without member versions (the target's view, from the source's manifest).
     *
     * @param aggregateVersion the aggregate record's version after the seal.
     * @param spotVersion the Spot row's version at the seal.
     * @param aggregate the aggregate record after the seal, or null when not known.
     * @param tree the inventory.
     */
    public Sealed(final StoreVersion aggregateVersion, final StoreVersion spotVersion, final AggregateRecord aggregate,
        final InventoryTree tree) {
      this(aggregateVersion, spotVersion, aggregate, tree, Map.of());
    }
  }

  /** The answer of {@link #commit}. */
  public sealed interface Outcome {
    /**
     * The CAS applied: the target owns the Spot and every member.
     *
     * @param record the aggregate after the change.
     * @param version its version.
     * @param now StoreNow of the write.
     * @param previousInventoryRoot the root the aggregate named before (its chunks can go once unshared, see
     *     {@link InventoryTree#deleteReplaced}).
     */
    record Committed(AggregateRecord record, StoreVersion version, StoreNow now, String previousInventoryRoot)
        implements Outcome {
    }

    /**
     * The aggregate or the Spot row is not at the version the seal fixed (another move committed, or the Spot
     * ended); nothing changed.
     *
     * @param why what differed.
     */
    record Changed(String why) implements Outcome {
    }

    /**
     * The target's owner lease is not valid; nothing changed.
     *
     * @param why the lease check's answer.
     */
    record LeaseInvalid(String why) implements Outcome {
    }
  }

  /**
   * Reads the aggregate of a Spot.
   *
   * @param spotId the SpotId.
   * @return the record and version, or empty when none was recorded.
   * @throws SpotkitException.Unavailable when the store fails.
   * @throws RecordDecodeException when the value is unreadable.
   */
  public Optional<Stored> read(final String spotId) {
    final ReadResult r = get(LocationKeys.aggregate(spotId).preimage());
    return r instanceof ReadResult.Found f ? Optional.of(new Stored(AggregateRecord.decode(f.value()), f.version()))
        : Optional.empty();
  }
  /**
   * The aggregate of {@code spotId} when it names the move {@code aggregateId} on node {@code routingIdHex}: the
   * way source and target tell, after a commit without a definite answer, whether that move's CAS applied (spec 002
   * section 10: never guess, re-read).
   *
   * @param spotId the SpotWide User Spot.
   * @param aggregateId the move's AggregateId.
   * @param routingIdHex the target node's RoutingId, 16 lowercase hex digits.
   * @return the stored aggregate when that move committed; empty when it did not (or the Spot ended).
   * @throws SpotkitException.Unavailable when the store fails.
   * @throws RecordDecodeException when the value is unreadable.
   */
  public Optional<Stored> committedMove(final String spotId, final String aggregateId, final String routingIdHex) {
    return read(spotId).filter(a -> a.record().aggregateId().equals(aggregateId)
        && a.record().routingIdHex().equals(routingIdHex));
  }


  /**
   * The row as the resolver must see it: a row that points at an aggregate ({@link AggregatePointer}) gets the
   * aggregate's owner, LeaseGeneration, AuthorityOwnerGeneration and allocation node; every other row, and a
   * pointer whose aggregate is gone (the Spot ended), is returned as it is. Blocks for one read when the row points.
   *
   * @param store the Location Store.
   * @param row a decoded authority row.
   * @param timeout the longest wait of the read.
   * @return the effective row.
   * @throws SpotkitException.Unavailable when the store fails.
   */
  public static AuthorityRecord effective(final LocationStore store, final AuthorityRecord row,
      final Duration timeout) {
    final Optional<String> spot = AggregatePointer.spotOf(row.payload());
    if (spot.isEmpty()) {
      return row;
    }
    final ReadResult r = StoreCalls.await(store.read(LocationKeys.aggregate(spot.get()).preimage()), timeout,
        "read of the aggregate of Spot '" + spot.get() + "'");
    return r instanceof ReadResult.Found f ? follow(row, AggregateRecord.decode(f.value())) : row;
  }

  /**
   * {@link #effective} for many rows at once: each aggregate the rows point at is read once, not once per row (an
   * aggregate move stages and opens thousands of members of one Spot; spec 000 section 7). Rows that do not point,
   * and rows whose aggregate is gone, are returned as they are.
   *
   * @param store the Location Store.
   * @param rows decoded authority rows, any number.
   * @param timeout the longest wait of each aggregate read.
   * @return the effective rows, in the order given.
   * @throws SpotkitException.Unavailable when the store fails.
   * @throws RecordDecodeException when an aggregate value is unreadable.
   */
  public static List<AuthorityRecord> effectiveAll(final LocationStore store, final List<AuthorityRecord> rows,
      final Duration timeout) {
    final Map<String, Optional<AggregateRecord>> aggregates = new java.util.HashMap<>();
    final List<AuthorityRecord> out = new ArrayList<>(rows.size());
    for (AuthorityRecord row : rows) {
      final Optional<String> spot = AggregatePointer.spotOf(row.payload());
      if (spot.isEmpty()) {
        out.add(row);
        continue;
      }
      final Optional<AggregateRecord> aggregate = aggregates.computeIfAbsent(spot.get(), id -> {
        final ReadResult r = StoreCalls.await(store.read(LocationKeys.aggregate(id).preimage()), timeout,
            "read of the aggregate of Spot '" + id + "'");
        return r instanceof ReadResult.Found f ? Optional.of(AggregateRecord.decode(f.value())) : Optional.empty();
      });
      out.add(aggregate.map(a -> follow(row, a)).orElse(row));
    }
    return out;
  }

  /**
   * A member row with the owner of its aggregate.
   *
   * @param row the member's row.
   * @param aggregate its aggregate.
   * @return the row naming the aggregate's owner.
   */
  static AuthorityRecord follow(final AuthorityRecord row, final AggregateRecord aggregate) {
    final AuthorityRecord.Allocation a = row.allocation();
    return new AuthorityRecord(row.payload(), row.objectGeneration(), aggregate.authorityOwnerGeneration(),
        aggregate.ownerId(), aggregate.ownerLeaseGeneration(), new AuthorityRecord.Allocation(a.state(),
        a.objectKind(), a.stableType(), aggregate.meshName(), aggregate.routingIdHex(),
        aggregate.descriptorLifecycleGeneration(), a.capacity()), row.pendingCreation());
  }

  /**
   * The source's seal step (spec 000 section 7 steps 1-2): records the aggregate on its first move, stores the
   * inventory of {@code participants} as immutable chunks, and points every member row at the aggregate. Changes no
   * owner and no resolver answer.
   *
   * @param spotId the SpotWide User Spot.
   * @param aggregateId the move's AggregateId, 32 lowercase hex, non-zero.
   * @param participants the Spot and every member Actor at the seal.
   * @param ownerId the OwnerId of the node sealing (it must own the Spot).
   * @return the versions and inventory the target's commit expects.
   * @throws SpotkitException.NotFound when the Spot row is missing or not Ready.
   * @throws SpotkitException.InvalidOperation when this node does not own the Spot, the Spot is not a User Spot, or a
   *     member row is missing, belongs elsewhere or has another owner.
   * @throws SpotkitException.Unavailable when the store fails or keeps conflicting.
   */
  public Sealed seal(final String spotId, final String aggregateId, final List<InventoryEntry> participants,
      final String ownerId) {
    final InventoryTree tree = InventoryTree.build(spotId, participants);
    final String spotKey = ObjectKey.spot(spotId).logicalKey().preimage();
    final ReadResult spotRead = get(spotKey);
    if (!(spotRead instanceof ReadResult.Found spotFound)) {
      throw new SpotkitException.NotFound("User Spot '" + spotId + "' has no location record");
    }
    final AuthorityRecord spot = AuthorityRecord.decode(spotFound.value());
    if (spot.allocation().objectKind() != PlacementKind.USER_SPOT
        || spot.allocation().state() != AuthorityRecord.State.ACTIVE) {
      throw new SpotkitException.InvalidOperation("Spot '" + spotId + "' is a " + spot.allocation().objectKind()
          .wire() + " in state " + spot.allocation().state().wire() + "; only a Ready User Spot moves as an"
          + " aggregate");
    }
    if (!spot.ownerId().equals(ownerId)) {
      throw new SpotkitException.InvalidOperation("Spot '" + spotId + "' is owned by " + spot.ownerId() + ", not by"
          + " " + ownerId + "; only its owner seals it");
    }
    tree.write(store, timeout);
    final Stored aggregate = ensure(spotId, aggregateId, spot, tree);
    final List<String> members = participants.stream().filter(e -> e.objectKind() == PlacementKind.ACTOR)
        .map(InventoryEntry::id).toList();
    final Map<String, StoreVersion> versions = new java.util.HashMap<>();
    for (int from = 0; from < members.size(); from += POINT_BATCH) {
      point(spotId, aggregate, members.subList(from, Math.min(members.size(), from + POINT_BATCH)), versions);
    }
    return new Sealed(aggregate.version(), spotFound.version(), aggregate.record(), tree, versions);
  }

  /** The aggregate as it is, or recorded now with the Spot row's owner; its owner must be the Spot row's. */
  private Stored ensure(final String spotId, final String aggregateId, final AuthorityRecord spot,
      final InventoryTree tree) {
    final String key = LocationKeys.aggregate(spotId).preimage();
    for (int attempt = 0; attempt < maxAttempts; attempt++) {
      final Optional<Stored> current = read(spotId);
      final boolean stale = current.isPresent()
          && current.get().record().spotObjectGeneration() != spot.objectGeneration().value();
      if (current.isPresent() && !stale) {
        final AggregateRecord a = current.get().record();
        if (!a.ownerId().equals(spot.ownerId()) || !a.routingIdHex().equals(spot.allocation().routingIdHex())) {
          throw new SpotkitException.InvalidOperation("the aggregate of Spot '" + spotId + "' names owner "
              + a.ownerId() + " on node " + a.routingIdHex() + " but the Spot row names " + spot.ownerId()
              + " on node " + spot.allocation().routingIdHex());
        }
        return current.get();
      }
      final AuthorityRecord.Allocation s = spot.allocation();
      final AggregateRecord first = new AggregateRecord(spotId, s.stableType(), spot.objectGeneration().value(),
          aggregateId, 1, tree.count(),
          tree.rootSha256Hex(), tree.digestSha256Hex(), spot.ownerId(), spot.ownerLeaseGeneration(),
          spot.authorityOwnerGeneration(), s.meshName(), s.routingIdHex(), s.descriptorLifecycleGeneration());
      // a record of an earlier incarnation of this SpotId (its node stopped before removing it) is replaced
      final Condition expected = stale ? new Condition.ExpectVersion(key, current.get().version())
          : new Condition.ExpectAbsent(key);
      final WriteResult r = StoreCalls.await(store.write(WriteBatch.of(List.of(expected),
          List.of(Mutation.Put.of(key, first.encode())))), timeout, "write of the aggregate of Spot '" + spotId + "'");
      if (r instanceof WriteResult.Applied applied) {
        return new Stored(first, applied.version(key));
      }
    }
    throw new SpotkitException.Unavailable("the aggregate record of Spot '" + spotId + "' changed " + maxAttempts
        + " times in a row while it was being recorded; retry");
  }

  /** Points one batch of member rows at the aggregate, conditioned on each row and the aggregate's version. */
  private void point(final String spotId, final Stored aggregate, final List<String> members,
      final Map<String, StoreVersion> versions) {
    final String aggKey = LocationKeys.aggregate(spotId).preimage();
    final StoreBytes pointer = AggregatePointer.payload(spotId);
    for (int attempt = 0; attempt < maxAttempts; attempt++) {
      final List<Condition> conditions = new ArrayList<>(List.of(new Condition.ExpectVersion(aggKey,
          aggregate.version())));
      final List<Mutation> mutations = new ArrayList<>();
      final List<String> keys = new ArrayList<>(members.size());
      for (String id : members) {
        keys.add(ObjectKey.actor(id).logicalKey().preimage());
      }
      // the batch's rows in one request, not one round trip per member
      final List<ReadResult> reads = StoreCalls.await(store.readAll(keys), timeout, "read of " + keys.size()
          + " member rows of Spot '" + spotId + "'");
      for (int i = 0; i < members.size(); i++) {
        final String id = members.get(i);
        final String key = keys.get(i);
        final ReadResult r = reads.get(i);
        if (!(r instanceof ReadResult.Found found)) {
          throw new SpotkitException.InvalidOperation("member Actor '" + id + "' of Spot '" + spotId + "' has no"
              + " location record; the aggregate cannot include it");
        }
        final AuthorityRecord row = AuthorityRecord.decode(found.value());
        if (!spotId.equals(AggregatePointer.membershipOf(row.payload()))) {
          throw new SpotkitException.InvalidOperation("Actor '" + id + "' is recorded as a member of '"
              + AggregatePointer.membershipOf(row.payload()) + "', not of Spot '" + spotId + "'");
        }
        if (AggregatePointer.spotOf(row.payload()).isPresent()) {
          continue; // follows the aggregate already
        }
        if (!row.ownerId().equals(aggregate.record().ownerId())
            || !row.allocation().routingIdHex().equals(aggregate.record().routingIdHex())) {
          throw new SpotkitException.InvalidOperation("member Actor '" + id + "' of Spot '" + spotId + "' is owned"
              + " by " + row.ownerId() + ", not by the aggregate's owner " + aggregate.record().ownerId());
        }
        conditions.add(new Condition.ExpectVersion(key, found.version()));
        mutations.add(Mutation.Put.of(key, new AuthorityRecord(pointer, row.objectGeneration(),
            row.authorityOwnerGeneration(), row.ownerId(), row.ownerLeaseGeneration(), row.allocation(),
            row.pendingCreation()).encode()));
      }
      if (mutations.isEmpty()) {
        return;
      }
      final WriteResult r = StoreCalls.await(store.write(WriteBatch.of(conditions, mutations)), timeout,
          "pointing " + mutations.size() + " member rows at the aggregate of Spot '" + spotId + "'");
      if (r instanceof WriteResult.Applied applied) {
        for (Mutation m : mutations) {
          versions.put(m.key().substring(m.key().lastIndexOf('\0') + 1), applied.version(m.key()));
        }
        return;
      }
    }
    throw new SpotkitException.Unavailable("member rows of Spot '" + spotId + "' or its aggregate kept changing ("
        + maxAttempts + " conflicts in a row) while they were pointed at the aggregate; retry");
  }

  /**
   * The target-only aggregate CAS (spec 000 section 7 step 5; spec 002 section 8.1; MEM-36, LOC-16, LOC-20): in one
   * all-or-nothing batch the aggregate and the Spot row name {@code target}, the aggregate gets generation + 1, the
   * move's AggregateId and the sealed inventory's root, count and digest, both get the next AuthorityOwnerGeneration,
   * and the whole capacity bundle moves from the source node to the target node. The inventory is read and verified
   * first (root, count, digest). Member rows are not written: they follow the aggregate. A Conflict caused by a
   * counter or capacity record moving is retried after re-reading; an aggregate or Spot row at another version is
   * the answer ({@link Outcome.Changed}). A lost answer is resolved by re-reading the aggregate.
   *
   * @param sealed what the source's seal fixed.
   * @param aggregateId the move's AggregateId.
   * @param target the target host run (the new owner).
   * @return Committed, Changed or LeaseInvalid.
   * @throws SpotkitException.CapacityExceeded when the target node has no room for the whole bundle (nothing
   *     changed: all or none).
   * @throws SpotkitException.DataLost when the sealed inventory is missing or does not verify.
   * @throws SpotkitException.InternalFailure when the target's capacity record is missing.
   * @throws SpotkitException.Unavailable when the store fails or conflicts {@code maxAttempts} times.
   */
  public Outcome commit(final Sealed sealed, final String aggregateId, final PlacementBatches.Target target) {
    final InventoryTree tree = sealed.tree();
    final String spotId = tree.spotId();
    final String aggKey = LocationKeys.aggregate(spotId).preimage();
    final String spotKey = ObjectKey.spot(spotId).logicalKey().preimage();
    final String what = "aggregate relocation of Spot '" + spotId + "' to node " + target.routingIdHex();
    InventoryTree.read(store, spotId, tree.rootSha256Hex(), tree.count(), tree.digestSha256Hex(), timeout);
    for (int attempt = 0; attempt < maxAttempts; attempt++) {
      final ReadResult aggRead = get(aggKey);
      if (!(aggRead instanceof ReadResult.Found aggFound) || !aggFound.version().equals(sealed.aggregateVersion())) {
        return new Outcome.Changed("the aggregate of Spot '" + spotId + "' is not at the sealed version");
      }
      final ReadResult spotRead = get(spotKey);
      if (!(spotRead instanceof ReadResult.Found spotFound) || !spotFound.version().equals(sealed.spotVersion())) {
        return new Outcome.Changed("the row of Spot '" + spotId + "' is not at the sealed version");
      }
      final AggregateRecord before = AggregateRecord.decode(aggFound.value());
      final AuthorityRecord spot = AuthorityRecord.decode(spotFound.value());
      final Leases.Check lease = Leases.check(store, target.ownerId(), target.leaseGeneration(), timeout);
      if (!lease.valid()) {
        return new Outcome.LeaseInvalid(lease.why());
      }
      final AuthorityRecord.Capacity bundle = new AuthorityRecord.Capacity(tree.count() - 1, 1,
          new AuthorityRecord.SpotTypeSlot(PlacementKind.USER_SPOT, before.stableType(), 1));
      final String sourceCap = LocationKeys.nodeCapacity(before.meshName(), before.routingIdHex()).preimage();
      final String targetCap = LocationKeys.nodeCapacity(target.meshName(), target.routingIdHex()).preimage();
      if (sourceCap.equals(targetCap)) {
        throw new SpotkitException.InvalidOperation(what + ": the aggregate is already on that node");
      }
      final ReadResult targetRead = get(targetCap);
      if (!(targetRead instanceof ReadResult.Found targetFound)) {
        throw new SpotkitException.InternalFailure(what + ": the target's node capacity record is missing; the"
            + " store was not changed");
      }
      final NodeCapacityRecord targetUsage = NodeCapacityRecord.decode(targetFound.value());
      final Optional<String> full = targetUsage.whyFull(bundle);
      if (full.isPresent()) {
        throw new SpotkitException.CapacityExceeded(what + ": the target node has no room for the whole aggregate"
            + " (" + tree.count() + " participants): " + full.get());
      }
      final List<Condition> conditions = new ArrayList<>(List.of(new Condition.ExpectVersion(aggKey,
          aggFound.version()), new Condition.ExpectVersion(spotKey, spotFound.version()), lease.condition().get(),
          new Condition.ExpectVersion(targetCap, targetFound.version())));
      final List<Mutation> mutations = new ArrayList<>();
      final ReadResult sourceRead = get(sourceCap);
      if (sourceRead instanceof ReadResult.Found sourceFound) {
        try {
          mutations.add(Mutation.Put.of(sourceCap, NodeCapacityRecord.decode(sourceFound.value()).retire(bundle)
              .encode()));
        } catch (IllegalStateException e) {
          // reads are not one snapshot: a concurrent commit may have retired the bundle after the aggregate was read
          final ReadResult again = get(aggKey);
          if (!(again instanceof ReadResult.Found f) || !f.version().equals(sealed.aggregateVersion())) {
            return new Outcome.Changed("the aggregate of Spot '" + spotId + "' moved while this CAS was prepared");
          }
          throw new SpotkitException.InternalFailure(what + ": " + e.getMessage() + "; the store was not changed", e);
        }
        conditions.add(new Condition.ExpectVersion(sourceCap, sourceFound.version()));
      } else {
        conditions.add(new Condition.ExpectAbsent(sourceCap)); // the source node is gone: nothing to give back
      }
      final Generations.Issued aog = Generations.prepare(GenerationCounter.AUTHORITY_OWNER,
          get(GenerationCounter.AUTHORITY_OWNER.key().preimage()));
      conditions.add(aog.condition());
      final AggregateRecord after = new AggregateRecord(spotId, before.stableType(), before.spotObjectGeneration(),
          aggregateId,
          before.aggregateGeneration() + 1, tree.count(), tree.rootSha256Hex(), tree.digestSha256Hex(),
          target.ownerId(), target.leaseGeneration(), aog.authorityOwnerGeneration(), target.meshName(),
          target.routingIdHex(), target.lifecycleGeneration());
      final AuthorityRecord.Allocation s = spot.allocation();
      final AuthorityRecord spotAfter = new AuthorityRecord(spot.payload(), spot.objectGeneration(),
          aog.authorityOwnerGeneration(), target.ownerId(), target.leaseGeneration(), new AuthorityRecord.Allocation(
          AuthorityRecord.State.ACTIVE, s.objectKind(), s.stableType(), target.meshName(), target.routingIdHex(),
          target.lifecycleGeneration(), s.capacity()), null);
      final StoreBytes afterBytes = after.encode();
      mutations.add(0, Mutation.Put.of(aggKey, afterBytes));
      mutations.add(1, Mutation.Put.of(spotKey, spotAfter.encode()));
      mutations.add(Mutation.Put.of(targetCap, targetUsage.reserve(bundle).commit(bundle).encode()));
      mutations.add(aog.advance());
      final Optional<Outcome.Committed> done = write(WriteBatch.of(conditions, mutations), aggKey, afterBytes, after,
          before.inventoryRoot(), what);
      if (done.isPresent()) {
        return done.get();
      }
    }
    throw new SpotkitException.Unavailable(what + " conflicted " + maxAttempts + " times in a row (counters or"
        + " capacity records kept moving); nothing was changed by this call; retry later");
  }

  private Optional<Outcome.Committed> write(final WriteBatch batch, final String aggKey, final StoreBytes expected,
      final AggregateRecord after, final String previousRoot, final String what) {
    final WriteResult result;
    try {
      result = StoreCalls.await(store.write(batch), timeout, "write of " + what);
    } catch (SpotkitException.Unavailable e) {
      if (!(e.getCause() instanceof StoreException.Indeterminate)) {
        throw e;
      }
      final ReadResult again = get(aggKey); // spec 002 section 10: never guess, re-read
      if (again instanceof ReadResult.Found found && found.value().equals(expected)) {
        return Optional.of(new Outcome.Committed(after, found.version(), found.now(), previousRoot));
      }
      return Optional.empty();
    }
    if (result instanceof WriteResult.Applied applied) {
      return Optional.of(new Outcome.Committed(after, applied.version(aggKey), applied.now(), previousRoot));
    }
    return Optional.empty();
  }

  private ReadResult get(final String key) {
    return StoreCalls.await(store.read(key), timeout, "read of " + key.replace("\0", "\\0"));
  }
}
