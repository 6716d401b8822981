package dev.spotkit.core.location;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spotkit.store.InMemoryLocationStore;
import dev.spotkit.store.Mutation;
import dev.spotkit.store.ReadResult;
import dev.spotkit.store.WriteBatch;
import dev.spotkit.store.WriteResult;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/** A store on a movable clock with helpers that bring up nodes: lease, descriptor, capacity limits. */
final class MeshFixture {
  static final Duration TIMEOUT = Duration.ofSeconds(5);
  static final Duration LEASE_TTL = Duration.ofSeconds(15);
  static final String MESH = "chat";

  final AtomicLong millis = new AtomicLong(1_700_000_000_000L);
  final InMemoryLocationStore store = new InMemoryLocationStore(() -> Instant.ofEpochMilli(millis.get()),
      Duration.ofSeconds(60));
  final NodeDirectory directory = new NodeDirectory(store, TIMEOUT, 10);
  final PlacementBatches batches = new PlacementBatches(store, TIMEOUT, PlacementBatches.DEFAULT_ATTEMPTS);

  void advanceSeconds(final long seconds) {
    millis.addAndGet(seconds * 1000);
  }

  static MeshNodeDescriptorRecord.Capability actorType(final String type, final int limit) {
    return new MeshNodeDescriptorRecord.Capability(PlacementKind.ACTOR, type,
        MeshNodeDescriptorRecord.Policy.UNSPECIFIED, false, limit);
  }

  static MeshNodeDescriptorRecord.Capability spotType(final PlacementKind kind, final String type,
      final int limit) {
    return new MeshNodeDescriptorRecord.Capability(kind, type, MeshNodeDescriptorRecord.Policy.RECREATE, false,
        limit);
  }

  static MeshNodeDescriptorRecord descriptor(final String mesh, final String ridHex, final String owner,
      final long lease, final long revision, final NodeState state, final int weight, final int actorLimit,
      final List<MeshNodeDescriptorRecord.Capability> caps) {
    final MeshNodeDescriptorRecord.Usage none = new MeshNodeDescriptorRecord.Usage(0, 0, 0);
    return new MeshNodeDescriptorRecord(owner, new LeaseGeneration(lease), revision,
        new MeshNodeDescriptorRecord.Descriptor(mesh, ridHex, 1, "tcp://" + ridHex + ":7000", null, Map.of(), 1,
            caps, MeshNodeDescriptorRecord.Role.SERVER, weight, new MeshNodeDescriptorRecord.Usage(0, 0, actorLimit),
            none, List.of(), 0, 0, null, state, "id-" + ridHex, 0));
  }

  void putLease(final String owner, final long generation) {
    final WriteResult r = store.write(WriteBatch.unconditional(Mutation.Put.expiring(
        LocationKeys.ownerLease(owner).preimage(), new OwnerLeaseRecord(owner, new LeaseGeneration(generation))
            .encode(), LEASE_TTL))).toCompletableFuture().join();
    assertThat(r).isInstanceOf(WriteResult.Applied.class);
  }

  /** Lease, descriptor (revision 1) and capacity limits of one node; returns the live peer view. */
  NodePeer node(final String ridHex, final NodeState state, final int weight, final int actorLimit,
      final List<MeshNodeDescriptorRecord.Capability> caps) {
    final String owner = "owner-" + ridHex;
    putLease(owner, 1);
    final MeshNodeDescriptorRecord record = descriptor(MESH, ridHex, owner, 1, 1, state, weight, actorLimit, caps);
    assertThat(directory.publish(record)).isInstanceOf(NodeDirectory.Published.Stored.class);
    batches.publishLimits(MESH, ridHex, NodeCapacityRecord.limitsOf(record.descriptor()));
    return NodePeer.of(record);
  }

  NodeCapacityRecord capacity(final String ridHex) {
    final ReadResult r = store.read(LocationKeys.nodeCapacity(MESH, ridHex).preimage()).toCompletableFuture().join();
    return NodeCapacityRecord.decode(((ReadResult.Found) r).value());
  }

  ReadResult read(final LogicalKey key) {
    return store.read(key.preimage()).toCompletableFuture().join();
  }
}
