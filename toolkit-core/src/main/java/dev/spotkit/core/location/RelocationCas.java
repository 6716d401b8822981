package dev.spotkit.core.location;

import dev.spotkit.core.SpotkitException;
import dev.spotkit.store.Condition;
import dev.spotkit.store.Mutation;
import dev.spotkit.store.ReadResult;
import dev.spotkit.store.StoreBytes;
import dev.spotkit.store.StoreVersion;
import dev.spotkit.store.WriteBatch;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The body of {@link PlacementBatches#relocate}, the target-only relocation CAS (spec 001 sections 4.5 and 6): one
 * {@link StoreReads} per try, then one conditioned write. Thread-safe as its {@link PlacementBatches} is.
 */
final class RelocationCas {
  private RelocationCas() {
  }

  /** See {@link PlacementBatches#relocate}. */
  static PlacementBatches.Outcome relocate(final PlacementBatches b, final ObjectKey key,
      final StoreVersion expectedVersion, final PlacementBatches.Target target, final StoreBytes payload,
      final String sourceRoutingIdHex) {
    final String authKey = key.logicalKey().preimage();
    final String what = "relocation of " + key.logicalKey() + " to node " + target.routingIdHex();
    final String leaseKey = LocationKeys.ownerLease(target.ownerId()).preimage();
    final String targetCap = LocationKeys.nodeCapacity(target.meshName(), target.routingIdHex()).preimage();
    final String aogKey = GenerationCounter.AUTHORITY_OWNER.key().preimage();
    final List<String> first = new ArrayList<>(List.of(authKey, leaseKey, targetCap, aogKey));
    if (sourceRoutingIdHex != null) {
      first.add(LocationKeys.nodeCapacity(target.meshName(), sourceRoutingIdHex).preimage());
    }
    for (int attempt = 0; attempt < b.maxAttempts(); attempt++) {
      final StoreReads reads = new StoreReads(b::readAll, first);
      final ReadResult read = reads.get(authKey);
      if (!(read instanceof ReadResult.Found found)) {
        return new PlacementBatches.Outcome.Missing(read.now());
      }
      final List<Condition> follows = new ArrayList<>();
      final AuthorityRecord record = b.effective(AuthorityRecord.decode(found.value()), follows, reads);
      if (!found.version().equals(expectedVersion)) {
        return new PlacementBatches.Outcome.Changed(record, found.version());
      }
      final Leases.Check lease = Leases.check(target.ownerId(), target.leaseGeneration(), reads.get(leaseKey));
      if (!lease.valid()) {
        return new PlacementBatches.Outcome.LeaseInvalid(lease.why());
      }
      final AuthorityRecord.Allocation a = record.allocation();
      final String sourceCap = LocationKeys.nodeCapacity(a.meshName(), a.routingIdHex()).preimage();
      if (sourceCap.equals(targetCap)) {
        throw new SpotkitException.InvalidOperation(what + ": the row is already allocated on that node");
      }
      final ReadResult sourceRead = reads.get(sourceCap);
      final ReadResult targetRead = reads.get(targetCap);
      if (!(targetRead instanceof ReadResult.Found targetFound)) {
        throw new SpotkitException.InternalFailure(what + ": the target's node capacity record is missing; the"
            + " store was not changed");
      }
      final NodeCapacityRecord targetUsage = NodeCapacityRecord.decode(targetFound.value());
      final Optional<String> full = targetUsage.whyFull(a.capacity());
      if (full.isPresent()) {
        throw new SpotkitException.CapacityExceeded(what + ": the target node is full: " + full.get());
      }
      // Spec 002 sections 4 and 7: a source node that is gone removed its capacity record; there is nothing to give
      // back there, and the move still commits (as a delete of such a row does).
      final Condition sourceCondition;
      final List<Mutation> sourceMutation;
      if (sourceRead instanceof ReadResult.Found sourceFound) {
        final NodeCapacityRecord sourceUsage;
        try {
          sourceUsage = NodeCapacityRecord.decode(sourceFound.value()).retire(a.capacity());
        } catch (IllegalStateException e) {
          throw new SpotkitException.InternalFailure(what + ": " + e.getMessage() + "; the store was not changed",
              e);
        }
        sourceCondition = new Condition.ExpectVersion(sourceCap, sourceFound.version());
        sourceMutation = List.of(Mutation.Put.of(sourceCap, sourceUsage.encode()));
      } else {
        sourceCondition = new Condition.ExpectAbsent(sourceCap);
        sourceMutation = List.of();
      }
      final Generations.Issued aog = Generations.prepare(GenerationCounter.AUTHORITY_OWNER, reads.get(aogKey));
      final AuthorityRecord after = new AuthorityRecord(payload, record.objectGeneration(),
          aog.authorityOwnerGeneration(), target.ownerId(), target.leaseGeneration(),
          new AuthorityRecord.Allocation(AuthorityRecord.State.ACTIVE, a.objectKind(), a.stableType(),
              target.meshName(), target.routingIdHex(), target.lifecycleGeneration(), a.capacity()), null);
      final List<Condition> conditions = new ArrayList<>(List.of(new Condition.ExpectVersion(authKey,
          found.version()), lease.condition().get(), sourceCondition, new Condition.ExpectVersion(targetCap,
          targetFound.version()), aog.condition()));
      conditions.addAll(follows);
      final List<Mutation> mutations = new ArrayList<>(List.of(Mutation.Put.of(authKey, after.encode())));
      mutations.addAll(sourceMutation);
      mutations.add(Mutation.Put.of(targetCap, targetUsage.reserve(a.capacity()).commit(a.capacity()).encode()));
      mutations.add(aog.advance());
      final Optional<PlacementBatches.Written> written = b.write(WriteBatch.of(conditions, mutations), authKey,
          after.encode(), what);
      if (written.isPresent()) {
        return new PlacementBatches.Outcome.Done(Optional.of(after), written.get().version(), written.get().now());
      }
    }
    throw b.exhausted(what);
  }
}
