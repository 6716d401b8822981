package dev.spotkit.core.location;

import java.util.List;
import java.util.Objects;

/**
 * A live MeshNode as {@link NodeDirectory#readMesh(String)} returns it (spec 002 section 4): its descriptor was
 * found by the mesh's scan and its owner lease was read right after and matched the descriptor's (OwnerId,
 * LeaseGeneration) and had not expired by StoreNow. Immutable; a snapshot, not kept up to date.
 *
 * @param meshName the RouteMesh name.
 * @param routingIdHex the RoutingId, lowercase hex.
 * @param lifecycleGeneration the node run, 1..2^63-1.
 * @param endpoint the advertised ROUTER endpoint.
 * @param state the published node state.
 * @param placementWeight 0..10000; 0 is never chosen for a new placement.
 * @param capabilities the registered object types (at most 1,024).
 * @param ownerId the host run's OwnerId.
 * @param leaseGeneration the host run's LeaseGeneration.
 * @param descriptorRevision the descriptor's revision, 1..2^63-1.
 */
public record NodePeer(String meshName, String routingIdHex, long lifecycleGeneration, String endpoint,
    NodeState state, int placementWeight, List<MeshNodeDescriptorRecord.Capability> capabilities, String ownerId,
    LeaseGeneration leaseGeneration, long descriptorRevision) {

  /**
   * Copies the capabilities.
   *
   * @throws NullPointerException when a part is null.
   */
  public NodePeer {
    Objects.requireNonNull(meshName, "meshName");
    Objects.requireNonNull(routingIdHex, "routingIdHex");
    Objects.requireNonNull(endpoint, "endpoint");
    Objects.requireNonNull(state, "state");
    capabilities = List.copyOf(capabilities);
    Objects.requireNonNull(ownerId, "ownerId");
    Objects.requireNonNull(leaseGeneration, "leaseGeneration");
  }

  /**
   * The view of a decoded descriptor record (the lease is not checked here).
   *
   * @param record the descriptor record.
   * @return the view.
   */
  public static NodePeer of(final MeshNodeDescriptorRecord record) {
    final MeshNodeDescriptorRecord.Descriptor d = record.descriptor();
    return new NodePeer(d.meshName(), d.routingIdHex(), d.lifecycleGeneration(), d.endpoint(), d.state(),
        d.placementWeight(), d.objectCapabilities(), record.ownerId(), record.leaseGeneration(),
        record.descriptorRevision());
  }

  /**
   * One run of one node: what a failed reservation excludes from the next pick (spec 002 section 7).
   *
   * @param routingIdHex the RoutingId, lowercase hex.
   * @param lifecycleGeneration the node run.
   */
  public record HostRun(String routingIdHex, long lifecycleGeneration) {
    /**
     * Checks for null.
     *
     * @throws NullPointerException when the RoutingId is null.
     */
    public HostRun {
      Objects.requireNonNull(routingIdHex, "routingIdHex");
    }
  }

  /**
   * This peer's run.
   *
   * @return (routingIdHex, lifecycleGeneration).
   */
  public HostRun hostRun() {
    return new HostRun(routingIdHex, lifecycleGeneration);
  }

  /**
   * Whether the node registered a factory of this kind and stable type.
   *
   * @param kind actor, userSpot or instanceSpot.
   * @param stableType the stable type, compared byte for byte.
   * @return whether a capability matches.
   */
  public boolean registers(final PlacementKind kind, final String stableType) {
    return capabilities.stream().anyMatch(c -> c.objectKind() == kind && c.stableType().equals(stableType));
  }
}
