package dev.spotkit.core.internal.runtime;

import dev.spotkit.core.internal.mesh.RouteMesh;
import dev.spotkit.core.location.LocationKeys;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.core.location.MeshNodeDescriptorRecord;
import dev.spotkit.core.location.NodeCapacityRecord;
import dev.spotkit.core.location.NodeDirectory;
import dev.spotkit.core.location.NodeState;
import dev.spotkit.core.location.OwnerLeaseRecord;
import dev.spotkit.core.location.PlacementKind;
import dev.spotkit.core.location.StoreCalls;
import dev.spotkit.store.Mutation;
import dev.spotkit.store.WriteBatch;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * This node's MeshNode descriptor (spec 002 section 4): built whole at startup from the registrations, the
 * mesh endpoint and the Entry Spot, published with an increasing revision under the owner lease (LOC-04: no
 * publish past the local admission deadline), republished as Draining when close starts, removed at the end
 * of close. The usage counts in it are a copy for operators; the Location Store's rows are the truth.
 */
final class Descriptors {
  /** The state of the last published descriptor; null before the first. */
  private volatile NodeState state;
  private static final Duration TIMEOUT = Duration.ofSeconds(5);
  /** One descriptor's stored size limit (spec 002 section 4): 1 MiB. */
  static final int MAX_DESCRIPTOR_BYTES = 1 << 20;

  private final NodeRuntime rt;
  private final String key;
  private final String capacityKey;
  private final NodeDirectory directory;
  /**
   * Serializes start, publish and remove (revisions go out in order). A ReentrantLock, not a monitor: it is held
   * across blocking store calls, and a virtual thread waiting for it parks off its carrier (on JDK 21-23 one
   * blocked inside {@code synchronized} pins the carrier, and the dispatcher's workers share those carriers).
   */
  private final ReentrantLock lock = new ReentrantLock();
  /** Guarded by {@link #lock}. */
  private long revision;

  Descriptors(final NodeRuntime rt) {
    this.rt = rt;
    this.key = LocationKeys.meshNode(rt.meshName().value(), RouteMesh.ridBytes(rt.nodeRid())).preimage();
    this.capacityKey = LocationKeys.nodeCapacity(rt.meshName().value(), rt.nodeRid().hex()).preimage();
    this.directory = new NodeDirectory(rt.store().store(), TIMEOUT);
  }

  /**
   * Startup: builds the whole descriptor (LOC-05: over the limits, startup fails and nothing is published),
   * stores the node's capacity limits, then publishes the descriptor as Serving.
   *
   * @throws SpotkitException.NotConfigured when the descriptor breaks a count or size limit.
   * @throws SpotkitException.Unavailable when the store fails or the lease is not valid.
   */
  void start() {
    lock.lock();
    try {
      startLocked();
    } finally {
      lock.unlock();
    }
  }

  private void startLocked() {
    final MeshNodeDescriptorRecord first;
    try {
      first = build(NodeState.SERVING, 1);
      final int size = first.encode().size();
      if (size > MAX_DESCRIPTOR_BYTES) {
        throw new IllegalArgumentException("the descriptor is " + size + " bytes, over the limit of "
            + MAX_DESCRIPTOR_BYTES);
      }
    } catch (IllegalArgumentException e) {
      throw new SpotkitException.NotConfigured("this node's MeshNode descriptor cannot be published whole ("
          + e.getMessage() + "); nothing was published (spec 002 section 4, LOC-05). Register fewer types", e);
    }
    rt.store().admit("publishing the node capacity limits");
    rt.store().batches().publishLimits(rt.meshName().value(), rt.nodeRid().hex(),
        NodeCapacityRecord.limitsOf(first.descriptor()));
    publish(first);
  }

  /**
   * Publishes the descriptor in {@code state} with the next revision.
   *
   * @throws SpotkitException.Unavailable past the admission deadline, when the lease is not valid, or when the
   *     store fails.
   * @throws SpotkitException.GenerationExhausted when the revision would pass 2^63-1.
   */
  void publish(final NodeState state) {
    lock.lock();
    try {
      publish(build(state, NodeDirectory.nextRevision(revision)));
    } finally {
      lock.unlock();
    }
  }

  private void publish(final MeshNodeDescriptorRecord record) {
    rt.store().admit("publishing the MeshNode descriptor");
    final NodeDirectory.Published published = directory.publish(record);
    if (published instanceof NodeDirectory.Published.LeaseInvalid invalid) {
      throw new SpotkitException.Unavailable("the MeshNode descriptor was not published: " + invalid.why());
    }
    revision = record.descriptorRevision();
    state = record.descriptor().state();
  }

  /** The state last published (Serving after start), or null before the first publication. Any thread. */
  NodeState state() {
    return state;
  }

  /** Publishes, logging instead of throwing (close); nothing when startup never published one. */
  void publishQuietly(final NodeState state) {
    lock.lock();
    try {
      if (revision == 0) {
        return;
      }
    } finally {
      lock.unlock();
    }
    try {
      publish(state);
    } catch (RuntimeException e) {
      NodeRuntime.LOG.warn("could not publish the MeshNode descriptor as {}: {}", state, e.getMessage());
    }
  }

  /**
   * Deletes the descriptor at the end of close, and the capacity record too when no cell of this node is left
   * (a row still being deleted needs it to return its slots; a record left behind holds no slots and is only
   * read for a run whose descriptor is gone). Never throws.
   */
  void remove() {
    lock.lock();
    try {
      rt.store().admit("removing the MeshNode descriptor");
      final List<Mutation> deletes = rt.actors.isEmpty() && rt.spots.isEmpty()
          ? List.of(new Mutation.Delete(key), new Mutation.Delete(capacityKey)) : List.of(new Mutation.Delete(key));
      StoreCalls.await(rt.store().store().write(WriteBatch.of(List.of(), deletes)), TIMEOUT,
          "removal of the MeshNode descriptor");
    } catch (RuntimeException e) {
      NodeRuntime.LOG.warn("could not remove the MeshNode descriptor: {}", e.getMessage());
    } finally {
      lock.unlock();
    }
  }

  private MeshNodeDescriptorRecord build(final NodeState state, final long rev) {
    final NodeConfig config = rt.config();
    final OwnerLeaseRecord lease = rt.store().ownerLease().record();
    final List<MeshNodeDescriptorRecord.Capability> capabilities = new ArrayList<>();
    for (NodeConfig.ActorType type : config.actorTypes().values()) {
      capabilities.add(new MeshNodeDescriptorRecord.Capability(PlacementKind.ACTOR, type.stableType(),
          policy(type.policy()), type.adapter() != null, 0));
    }
    for (NodeConfig.SpotType type : config.spotTypes().values()) {
      capabilities.add(new MeshNodeDescriptorRecord.Capability(type.kind() == NodeConfig.SpotKind.USER
          ? PlacementKind.USER_SPOT : PlacementKind.INSTANCE_SPOT, type.stableType(), policy(type.policy()),
          type.adapter() != null, 0));
    }
    final int limit = config.mesh() == null ? 0 : config.mesh().objectLimit();
    final MeshNodeDescriptorRecord.Usage actors = new MeshNodeDescriptorRecord.Usage(rt.actors.size(), 0, limit);
    final MeshNodeDescriptorRecord.Usage spots = new MeshNodeDescriptorRecord.Usage(rt.spots.size(), 0, limit);
    final MeshNodeDescriptorRecord.Descriptor descriptor = new MeshNodeDescriptorRecord.Descriptor(
        rt.meshName().value(), rt.nodeRid().hex(), rt.store().lifecycleGeneration(),
        rt.mesh() == null ? "" : rt.mesh().endpoint(), rt.entryId(), Map.of(), 0, capabilities,
        config.role() == dev.spotkit.core.ObjectRole.SERVER ? MeshNodeDescriptorRecord.Role.SERVER
        : MeshNodeDescriptorRecord.Role.CLIENT, config.mesh() == null ? 0 : config.mesh().placementWeight(), actors,
        spots, List.of(), 0, 0, null, state, "cluster-secret", System.currentTimeMillis());
    return new MeshNodeDescriptorRecord(lease.ownerId(), lease.leaseGeneration(), rev, descriptor);
  }

  private static MeshNodeDescriptorRecord.Policy policy(final NodeConfig.Policy policy) {
    return switch (policy) {
      case DISABLE -> MeshNodeDescriptorRecord.Policy.DISABLED;
      case RECREATE -> MeshNodeDescriptorRecord.Policy.RECREATE;
      case PRESERVE -> MeshNodeDescriptorRecord.Policy.SNAPSHOT;
    };
  }
}
