package dev.spotkit.core.location;

import dev.spotkit.core.ObjectGeneration;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.store.Condition;
import dev.spotkit.store.Mutation;
import dev.spotkit.store.ReadResult;
import dev.spotkit.store.StoreBytes;
import dev.spotkit.store.StoreException;
import dev.spotkit.store.StoreVersion;
import dev.spotkit.store.WriteBatch;
import dev.spotkit.store.WriteResult;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Reserve and Commit of several concurrent callers of one {@link PlacementBatches} as one readAll and one
 * all-or-nothing write per group (spec 002 sections 6.1 and 7; LOC-09, LOC-10, LOC-13), so creators on one node do
 * not race each other on the shared records every reservation conditions on (both generation counters, the node's
 * capacity record): raced one by one, all but one of N concurrent tries Conflict and read everything again.
 *
 * <p>Flat combining: a caller queues its operation and, when no other caller is running a group, runs one itself
 * for every queued operation (at most {@link #MAX_GROUP}, distinct authority keys); otherwise it parks until its
 * operation is answered or it is woken to run the next group. One caller alone runs a group of one: the same two
 * round trips per operation as without groups.
 *
 * <p>Per operation the result is what {@link PlacementBatches#reserve} or {@link PlacementBatches#commit} alone
 * would answer: each row is judged on its own (Existing, Refused, Changed, Missing, LeaseInvalid answer that caller
 * at once and leave the group), and every applied row is written in the same store request as its capacity change
 * and, for a reservation, its ObjectGeneration and first AuthorityOwnerGeneration. A group issues consecutive
 * generation values in queue order and advances each counter once, conditioned on the version read. A Conflict
 * re-reads and retries the whole group (at most the instance's maxAttempts tries); a lost answer is resolved by
 * re-reading the rows and comparing them byte for byte (spec 002 section 10).
 *
 * <p>Thread-safety: any thread; callers block (virtual threads). The lock only elects who runs the next group.
 */
final class PlacementGroups {
  /** At most this many operations go into one store request. */
  static final int MAX_GROUP = 32;
  /** A group's rows, capacity records and extra puts stay below this many bytes (the batch limit is 4 MiB). */
  static final long MAX_GROUP_BYTES = 2L << 20;

  private final PlacementBatches batches;
  private final dev.spotkit.store.LocationStore store;
  private final int maxAttempts;
  private final OpenReservations reservations;
  private final ReentrantLock lead = new ReentrantLock();
  private final ConcurrentLinkedQueue<Op<?>> queue = new ConcurrentLinkedQueue<>();

  PlacementGroups(final PlacementBatches batches, final dev.spotkit.store.LocationStore store, final int maxAttempts,
      final OpenReservations reservations) {
    this.batches = batches;
    this.store = store;
    this.maxAttempts = maxAttempts;
    this.reservations = reservations;
  }

  /** One queued operation and its answer; answered once, by whoever runs its group. */
  private abstract static class Op<T> {
    final Thread owner = Thread.currentThread();
    final String authKey;
    volatile boolean done;
    T result;
    RuntimeException failure;

    Op(final String authKey) {
      this.authKey = authKey;
    }
  }

  private static final class ReserveOp extends Op<PlacementBatches.Reservation> {
    final PlacementBatches.ReserveRequest request;

    ReserveOp(final PlacementBatches.ReserveRequest request) {
      super(request.key().logicalKey().preimage());
      this.request = request;
    }
  }

  private static final class CommitOp extends Op<PlacementBatches.Outcome> {
    final ObjectKey key;
    final StoreVersion reservedVersion;
    final StoreBytes payload;
    final List<Mutation> extra;
    final List<String> hints;

    CommitOp(final ObjectKey key, final StoreVersion reservedVersion, final StoreBytes payload,
        final List<Mutation> extra, final List<String> hints) {
      super(key.logicalKey().preimage());
      this.key = key;
      this.reservedVersion = reservedVersion;
      this.payload = payload;
      this.extra = List.copyOf(extra);
      this.hints = hints;
    }
  }

  PlacementBatches.Reservation reserve(final PlacementBatches.ReserveRequest request) {
    return run(new ReserveOp(request));
  }

  PlacementBatches.Outcome commit(final ObjectKey key, final StoreVersion reservedVersion, final StoreBytes payload,
      final List<Mutation> extra, final List<String> hints) {
    return run(new CommitOp(key, reservedVersion, payload, extra, hints));
  }

  /** Operations queued and not yet taken into a group (tests). */
  int queued() {
    return queue.size();
  }

  private <T> T run(final Op<T> op) {
    queue.add(op);
    boolean interrupted = false;
    while (!op.done) {
      if (lead.tryLock()) {
        try {
          if (!op.done) {
            runGroup();
          }
        } finally {
          lead.unlock();
          wakeNext(); // even when the group failed hard: queued callers must not wait for a leader that left
        }
      } else {
        LockSupport.park(this);
        if (Thread.interrupted()) {
          interrupted = true;
          if (queue.remove(op)) { // not taken into a group yet: nothing was sent for it
            Thread.currentThread().interrupt();
            throw new SpotkitException.Unavailable("interrupted while waiting to send a placement batch; nothing"
                + " was sent for it");
          }
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    if (op.failure != null) {
      throw op.failure;
    }
    return op.result;
  }

  /** Wakes the owner of the oldest queued operation to run the next group (an unpark is never lost). */
  private void wakeNext() {
    final Op<?> head = queue.peek();
    if (head != null) {
      LockSupport.unpark(head.owner);
    }
  }

  private static <T> void answer(final Op<T> op, final T result) {
    op.result = result;
    op.done = true;
    LockSupport.unpark(op.owner);
  }

  private static void fail(final Op<?> op, final RuntimeException failure) {
    op.failure = failure;
    op.done = true;
    LockSupport.unpark(op.owner);
  }

  /** Takes up to {@link #MAX_GROUP} queued operations with distinct keys and runs them; a repeat key waits. */
  private void runGroup() {
    final List<ReserveOp> reserves = new ArrayList<>();
    final List<CommitOp> commits = new ArrayList<>();
    final Set<String> keys = new HashSet<>();
    final List<Op<?>> later = new ArrayList<>();
    Op<?> next;
    while (reserves.size() + commits.size() < MAX_GROUP && (next = queue.poll()) != null) {
      if (!keys.add(next.authKey)) {
        later.add(next);
      } else if (next instanceof ReserveOp r) {
        reserves.add(r);
      } else {
        commits.add((CommitOp) next);
      }
    }
    queue.addAll(later);
    guarded(reserves, () -> reserveGroup(reserves));
    guarded(commits, () -> commitGroup(commits));
  }

  /** Runs a group; whatever escapes it answers every operation of the group still open. */
  private static void guarded(final List<? extends Op<?>> ops, final Runnable group) {
    if (ops.isEmpty()) {
      return;
    }
    try {
      group.run();
    } catch (RuntimeException e) {
      ops.stream().filter(op -> !op.done).forEach(op -> fail(op, e));
    } catch (Error e) {
      ops.stream().filter(op -> !op.done).forEach(op -> fail(op, new SpotkitException.InternalFailure(
          "placement batch failed: " + e, e)));
      throw e;
    }
  }

  private void reserveGroup(final List<ReserveOp> ops) {
    final List<ReserveOp> alone = new ArrayList<>();
    final String objectKey = GenerationCounter.OBJECT.key().preimage();
    final String ownerKey = GenerationCounter.AUTHORITY_OWNER.key().preimage();
    List<ReserveOp> open = ops;
    for (int attempt = 0; attempt < maxAttempts && !open.isEmpty(); attempt++) {
      final Set<String> keys = new LinkedHashSet<>(List.of(objectKey, ownerKey));
      for (ReserveOp op : open) {
        final PlacementBatches.Target t = op.request.target();
        keys.addAll(List.of(op.authKey, LocationKeys.meshNode(t.meshName(), t.routingIdHex()).preimage(),
            LocationKeys.ownerLease(t.ownerId()).preimage(), capKey(t)));
      }
      final StoreReads reads = new StoreReads(batches::readAll, List.copyOf(keys));
      final Map<String, Condition> conditions = new LinkedHashMap<>();
      final Map<String, NodeCapacityRecord> usage = new LinkedHashMap<>();
      final List<ReserveOp> included = new ArrayList<>();
      final List<AuthorityRecord> rows = new ArrayList<>();
      final List<StoreBytes> encoded = new ArrayList<>();
      Generations.Issued object = null;
      Generations.Issued owner = null;
      long bytes = 0;
      for (ReserveOp op : open) {
        try {
          final Optional<PlacementBatches.Reservation> answer = judge(op.request, reads, usage, conditions);
          if (answer == DEFER) {
            continue;
          }
          if (answer.isPresent()) {
            answer(op, answer.get());
            continue;
          }
          if (object == null) {
            object = Generations.prepare(GenerationCounter.OBJECT, reads.get(objectKey));
            owner = Generations.prepare(GenerationCounter.AUTHORITY_OWNER, reads.get(ownerKey));
          }
          final AuthorityRecord row = row(op.request, issue(object, included.size()),
              issue(owner, included.size()));
          final StoreBytes rowBytes = row.encode();
          if (!included.isEmpty() && bytes + rowBytes.size() > MAX_GROUP_BYTES) {
            alone.add(op); // over the group's byte budget: its own batch after the group
            continue;
          }
          bytes += rowBytes.size();
          final PlacementBatches.Target t = op.request.target();
          usage.put(capKey(t), usage.get(capKey(t)).reserve(op.request.capacity()));
          conditions.put(op.authKey, new Condition.ExpectAbsent(op.authKey));
          included.add(op);
          rows.add(row);
          encoded.add(rowBytes);
        } catch (RuntimeException e) {
          fail(op, e);
        }
      }
      if (!included.isEmpty()) {
        final int n = included.size();
        conditions.put(objectKey, object.condition());
        conditions.put(ownerKey, owner.condition());
        final List<Mutation> mutations = new ArrayList<>();
        for (int i = 0; i < n; i++) {
          mutations.add(Mutation.Put.of(included.get(i).authKey, encoded.get(i)));
        }
        usage.forEach((key, record) -> mutations.add(Mutation.Put.of(key, record.encode())));
        mutations.add(Mutation.Put.of(objectKey, Generations.encode(object.value() + n)));
        mutations.add(Mutation.Put.of(ownerKey, Generations.encode(owner.value() + n)));
        final Map<String, Written> written = write(WriteBatch.of(List.copyOf(conditions.values()), mutations),
            included, encoded, "reserve of " + n + " objects");
        for (int i = 0; i < n; i++) {
          final Written w = written.get(included.get(i).authKey);
          if (w != null) {
            reservations.remember(included.get(i).authKey, w.version(), rows.get(i));
            answer(included.get(i), new PlacementBatches.Reservation.Reserved(rows.get(i), w.version(), w.now()));
          }
        }
      }
      open = open.stream().filter(op -> !op.done && !alone.contains(op)).toList();
    }
    open.forEach(op -> fail(op, batches.exhausted("reserve of " + op.request.key().logicalKey())));
    for (ReserveOp op : alone) {
      try {
        answer(op, batches.reserveAlone(op.request));
      } catch (RuntimeException e) {
        fail(op, e);
      }
    }
  }

  /**
   * The checks of a lone reserve, in its order, against this try's reads and the capacity the group already
   * took: an answer when the caller is done (Existing or Refused), empty when the row can go into the batch (the
   * descriptor, lease and capacity conditions are added then).
   */
  /** A reservation that waits for the next try: full only because of the rows of its own group. */
  private static final Optional<PlacementBatches.Reservation> DEFER = Optional.of(
      new PlacementBatches.Reservation.Refused(PlacementBatches.Refusal.CAPACITY_FULL, null, "deferred"));

  private Optional<PlacementBatches.Reservation> judge(final PlacementBatches.ReserveRequest request,
      final StoreReads reads, final Map<String, NodeCapacityRecord> usage, final Map<String, Condition> conditions) {
    final PlacementBatches.Target t = request.target();
    final String authKey = request.key().logicalKey().preimage();
    if (reads.get(authKey) instanceof ReadResult.Found found) {
      return Optional.of(new PlacementBatches.Reservation.Existing(AuthorityRecord.decode(found.value()),
          found.version(), found.now()));
    }
    final String descKey = LocationKeys.meshNode(t.meshName(), t.routingIdHex()).preimage();
    final ReadResult desc = reads.get(descKey);
    final Optional<PlacementBatches.Reservation.Refused> notServing = batches.checkDescriptor(request, desc);
    if (notServing.isPresent()) {
      return Optional.of(notServing.get());
    }
    final Leases.Check lease = Leases.check(t.ownerId(), t.leaseGeneration(),
        reads.get(LocationKeys.ownerLease(t.ownerId()).preimage()));
    if (!lease.valid()) {
      return Optional.of(new PlacementBatches.Reservation.Refused(PlacementBatches.Refusal.LEASE_INVALID,
          t.hostRun(), lease.why()));
    }
    final String capKey = capKey(t);
    if (!(reads.get(capKey) instanceof ReadResult.Found capFound)) {
      return Optional.of(new PlacementBatches.Reservation.Refused(PlacementBatches.Refusal.NO_CAPACITY_RECORD,
          t.hostRun(), "no record at " + LocationKeys.nodeCapacity(t.meshName(), t.routingIdHex())));
    }
    final NodeCapacityRecord stored = NodeCapacityRecord.decode(capFound.value());
    final Optional<String> full = stored.whyFull(request.capacity());
    if (full.isPresent()) {
      return Optional.of(new PlacementBatches.Reservation.Refused(PlacementBatches.Refusal.CAPACITY_FULL,
          t.hostRun(), full.get()));
    }
    if (usage.computeIfAbsent(capKey, k -> stored).whyFull(request.capacity()).isPresent()) {
      return DEFER; // full only with this group's own reservations: judged again once they applied (or did not)
    }
    conditions.putIfAbsent(descKey, new Condition.ExpectVersion(descKey, ((ReadResult.Found) desc).version()));
    conditions.putIfAbsent(lease.condition().get().key(), lease.condition().get());
    conditions.putIfAbsent(capKey, new Condition.ExpectVersion(capKey, capFound.version()));
    return Optional.empty();
  }

  /** The i-th value of a group's issuance: as a lone reserve after i others would get it, or exhausted. */
  private static long issue(final Generations.Issued first, final int i) {
    final long value = first.value() + i;
    if (value > Generations.MAX_ISSUED || value < first.value()) {
      throw new SpotkitException.GenerationExhausted(first.counter().generationName() + " counter "
          + first.counter().key() + " reaches the exhausted sentinel " + Generations.SENTINEL + " (2^63-1): no"
          + " value is left in 1.." + Generations.MAX_ISSUED + " and the store was not changed");
    }
    return value;
  }

  private static AuthorityRecord row(final PlacementBatches.ReserveRequest request, final long objectGeneration,
      final long ownerGeneration) {
    final PlacementBatches.Target t = request.target();
    return new AuthorityRecord(request.payload(), new ObjectGeneration(objectGeneration),
        new AuthorityOwnerGeneration(ownerGeneration), t.ownerId(), t.leaseGeneration(),
        new AuthorityRecord.Allocation(AuthorityRecord.State.RESERVED, request.kind(), request.stableType(),
            t.meshName(), t.routingIdHex(), t.lifecycleGeneration(), request.capacity()),
        request.pendingCreation());
  }

  private static String capKey(final PlacementBatches.Target t) {
    return LocationKeys.nodeCapacity(t.meshName(), t.routingIdHex()).preimage();
  }

  private void commitGroup(final List<CommitOp> ops) {
    List<CommitOp> open = ops;
    final List<CommitOp> alone = new ArrayList<>();
    for (int attempt = 0; attempt < maxAttempts && !open.isEmpty(); attempt++) {
      final Set<String> keys = new LinkedHashSet<>();
      for (CommitOp op : open) {
        keys.add(op.authKey);
        keys.addAll(op.hints);
      }
      final StoreReads reads = new StoreReads(batches::readAll, List.copyOf(keys));
      final Map<String, Condition> conditions = new LinkedHashMap<>();
      final Map<String, NodeCapacityRecord> usage = new LinkedHashMap<>();
      final Set<String> written = new HashSet<>();
      final List<Mutation> mutations = new ArrayList<>();
      final List<CommitOp> included = new ArrayList<>();
      final List<AuthorityRecord> afters = new ArrayList<>();
      final List<StoreBytes> encoded = new ArrayList<>();
      long bytes = 0;
      for (CommitOp op : open) {
        try {
          final ReadResult read = reads.get(op.authKey);
          if (!(read instanceof ReadResult.Found found)) {
            answer(op, new PlacementBatches.Outcome.Missing(read.now()));
            continue;
          }
          final AuthorityRecord row = AuthorityRecord.decode(found.value());
          if (AggregatePointer.spotOf(row.payload()).isPresent()) {
            alone.add(op); // judged with its aggregate's owner: the lone path reads it
            continue;
          }
          if (!found.version().equals(op.reservedVersion)
              || row.allocation().state() != AuthorityRecord.State.RESERVED) {
            answer(op, new PlacementBatches.Outcome.Changed(row, found.version()));
            continue;
          }
          final String leaseKey = LocationKeys.ownerLease(row.ownerId()).preimage();
          final AuthorityRecord.Allocation a = row.allocation();
          final String capKey = LocationKeys.nodeCapacity(a.meshName(), a.routingIdHex()).preimage();
          reads.fetch(List.of(leaseKey, capKey));
          final Leases.Check lease = Leases.check(row.ownerId(), row.ownerLeaseGeneration(), reads.get(leaseKey));
          if (!lease.valid()) {
            answer(op, new PlacementBatches.Outcome.LeaseInvalid(lease.why()));
            continue;
          }
          final AuthorityRecord after = new AuthorityRecord(op.payload == null ? row.payload() : op.payload,
              row.objectGeneration(), row.authorityOwnerGeneration(), row.ownerId(), row.ownerLeaseGeneration(),
              new AuthorityRecord.Allocation(AuthorityRecord.State.ACTIVE, a.objectKind(), a.stableType(),
                  a.meshName(), a.routingIdHex(), a.descriptorLifecycleGeneration(), a.capacity()), null);
          final StoreBytes afterBytes = after.encode();
          final long opBytes = afterBytes.size() + extraBytes(op.extra);
          final boolean clash = op.extra.stream().anyMatch(m -> written.contains(m.key())
              || m.key().equals(capKey) || conditions.containsKey(m.key()) || m.key().equals(op.authKey));
          if (clash) {
            alone.add(op); // an extra put on a key the group already uses: its own batch after the group
            continue;
          }
          if (!included.isEmpty() && bytes + opBytes > MAX_GROUP_BYTES) {
            alone.add(op); // over the group's byte budget: its own batch after the group
            continue;
          }
          if (!(reads.get(capKey) instanceof ReadResult.Found capFound)) {
            throw new SpotkitException.InternalFailure("commit of " + op.key.logicalKey() + ": node capacity"
                + " record " + LocationKeys.nodeCapacity(a.meshName(), a.routingIdHex()) + " is missing while the"
                + " row holds " + a.capacity() + "; the store was not changed");
          }
          final NodeCapacityRecord current = usage.containsKey(capKey) ? usage.get(capKey)
              : NodeCapacityRecord.decode(capFound.value());
          try {
            usage.put(capKey, current.commit(a.capacity()));
          } catch (IllegalStateException e) {
            throw new SpotkitException.InternalFailure("commit of " + op.key.logicalKey() + ": " + e.getMessage()
                + "; the store was not changed", e);
          }
          bytes += opBytes;
          conditions.put(op.authKey, new Condition.ExpectVersion(op.authKey, found.version()));
          conditions.putIfAbsent(leaseKey, lease.condition().get());
          conditions.putIfAbsent(capKey, new Condition.ExpectVersion(capKey, capFound.version()));
          mutations.add(Mutation.Put.of(op.authKey, afterBytes));
          written.add(op.authKey);
          for (Mutation m : op.extra) {
            mutations.add(m);
            written.add(m.key());
          }
          included.add(op);
          afters.add(after);
          encoded.add(afterBytes);
        } catch (RuntimeException e) {
          fail(op, e);
        }
      }
      if (!included.isEmpty()) {
        usage.forEach((key, record) -> mutations.add(Mutation.Put.of(key, record.encode())));
        applyCommits(WriteBatch.of(List.copyOf(conditions.values()), mutations), included, afters, encoded);
      }
      open = open.stream().filter(op -> !op.done && !alone.contains(op)).toList();
    }
    open.forEach(op -> fail(op, batches.exhausted("commit of " + op.key.logicalKey())));
    alone.forEach(this::commitAlone);
  }

  private void commitAlone(final CommitOp op) {
    try {
      answer(op, batches.commitAlone(op.key, op.reservedVersion, op.payload, op.extra, op.hints));
    } catch (RuntimeException e) {
      fail(op, e);
    }
  }

  /** Writes a commit group's batch and answers each commit that applied; the others stay open. */
  private void applyCommits(final WriteBatch batch, final List<CommitOp> included, final List<AuthorityRecord> afters,
      final List<StoreBytes> encoded) {
    final Map<String, Written> done = write(batch, included, encoded, "commit of " + included.size() + " objects");
    for (int i = 0; i < included.size(); i++) {
      final Written w = done.get(included.get(i).authKey);
      if (w != null) {
        answer(included.get(i), new PlacementBatches.Outcome.Done(Optional.of(afters.get(i)),
            Optional.of(w.version()), w.now()));
      }
    }
  }

  private static long extraBytes(final List<Mutation> extra) {
    long n = 0;
    for (Mutation m : extra) {
      n += m.key().length() * 3L + (m instanceof Mutation.Put p ? p.value().size() : 0);
    }
    return n;
  }

  /** An applied row: its new version and StoreNow. */
  private record Written(StoreVersion version, dev.spotkit.store.StoreNow now) {
  }

  /**
   * Writes a group's batch: every row's version on Applied, none on Conflict. When the answer is lost
   * (Indeterminate), re-reads the rows: the batch applied when they hold exactly what was written.
   */
  private Map<String, Written> write(final WriteBatch batch, final List<? extends Op<?>> included,
      final List<StoreBytes> expected, final String what) {
    final Map<String, Written> out = new HashMap<>();
    final WriteResult result;
    try {
      result = StoreCalls.await(store.write(batch), batches.callTimeout(), "write of " + what);
    } catch (SpotkitException.Unavailable e) {
      if (!(e.getCause() instanceof StoreException.Indeterminate)) {
        throw e;
      }
      final List<String> keys = included.stream().map(op -> op.authKey).toList();
      final List<ReadResult> again = batches.readAll(keys);
      for (int i = 0; i < keys.size(); i++) {
        if (again.get(i) instanceof ReadResult.Found found && found.value().equals(expected.get(i))) {
          out.put(keys.get(i), new Written(found.version(), found.now()));
        }
      }
      return out;
    }
    if (result instanceof WriteResult.Applied applied) {
      for (Op<?> op : included) {
        out.put(op.authKey, new Written(applied.version(op.authKey), applied.now()));
      }
    }
    return out;
  }
}
