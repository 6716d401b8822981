package dev.spotkit.core.location;

import dev.spotkit.core.SpotkitException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.random.RandomGenerator;

/**
 * Picks the node run for a new object (spec 002 sections 4 and 7): among the live peers of a mesh, a candidate
 * must be Serving, have registered the kind and stable type, not be excluded (a run that refused a reservation
 * of this call), have a placement weight above 0, and have room for the bundle in its node capacity record.
 * One candidate is drawn with probability {@code weight / sum of weights}; weight 0 is never drawn. The pick is
 * only advice: {@link PlacementBatches#reserve} re-checks state, lease and capacity in its batch.
 *
 * <p>Deterministic for a given generator: candidates are ordered by RoutingId before the draw. Not thread-safe
 * when the generator is not (e.g. {@link java.util.SplittableRandom}); give each thread its own Placement or a
 * thread-safe generator.
 */
public final class Placement {
  private final RandomGenerator random;

  /**
   * A placement drawing from {@code random}.
   *
   * @param random the generator; tests pass a seeded one.
   */
  public Placement(final RandomGenerator random) {
    this.random = Objects.requireNonNull(random, "random");
  }

  /**
   * Picks one candidate.
   *
   * @param peers live peers, e.g. from {@link NodeDirectory#readMesh(String)} (their leases were checked there).
   * @param capacities node capacity records by RoutingId hex ({@link PlacementBatches#readCapacities}); a peer
   *     without one is not ready for placement.
   * @param kind actor, userSpot or instanceSpot.
   * @param stableType the stable type.
   * @param excluded runs that refused a reservation of this call.
   * @return the chosen peer.
   * @throws SpotkitException.NotFound when no Serving peer registered the kind and type.
   * @throws SpotkitException.Unavailable when no peer is Serving, every registering peer is excluded, has weight
   *     0, or has no capacity record.
   * @throws SpotkitException.CapacityExceeded when every otherwise eligible peer is full.
   * @throws IllegalArgumentException when {@code kind} is ENTRY_SPOT (never placed).
   */
  public NodePeer pick(final List<NodePeer> peers, final Map<String, NodeCapacityRecord> capacities,
      final PlacementKind kind, final String stableType, final Set<NodePeer.HostRun> excluded) {
    final List<NodePeer> candidates = candidates(peers, capacities, kind, stableType, excluded);
    long total = 0;
    for (NodePeer candidate : candidates) {
      total += candidate.placementWeight();
    }
    long draw = random.nextLong(total);
    for (NodePeer candidate : candidates) {
      draw -= candidate.placementWeight();
      if (draw < 0) {
        return candidate;
      }
    }
    throw new IllegalStateException("weighted draw fell past the last candidate; total weight " + total);
  }

  /**
   * Picks one candidate for one object id deterministically: weighted rendezvous hashing over the same
   * candidates as {@link #pick}, so every node with the same view of the mesh sends an Instance Spot's first
   * messages to the same target (one reservation race less, spec 002 section 7.1), while the share of ids each
   * node gets still follows the weights.
   *
   * @param objectId the object's id.
   * @param peers live peers.
   * @param capacities node capacity records by RoutingId hex.
   * @param kind actor, userSpot or instanceSpot.
   * @param stableType the stable type.
   * @param excluded runs to skip.
   * @return the chosen peer.
   * @throws SpotkitException.NotFound when no Serving peer registered the kind and type.
   * @throws SpotkitException.Unavailable when no peer is Serving, every registering peer is excluded, has weight
   *     0, or has no capacity record.
   * @throws SpotkitException.CapacityExceeded when every otherwise eligible peer is full.
   */
  public static NodePeer pickFor(final String objectId, final List<NodePeer> peers,
      final Map<String, NodeCapacityRecord> capacities, final PlacementKind kind, final String stableType,
      final Set<NodePeer.HostRun> excluded) {
    NodePeer best = null;
    double bestScore = Double.NEGATIVE_INFINITY;
    for (NodePeer candidate : candidates(peers, capacities, kind, stableType, excluded)) {
      final double unit = (hash(objectId, candidate.routingIdHex()) >>> 11) * 0x1.0p-53; // [0, 1)
      final double score = candidate.placementWeight() / -Math.log(Math.max(unit, Double.MIN_NORMAL));
      if (score > bestScore) {
        bestScore = score;
        best = candidate;
      }
    }
    return best;
  }

  private static long hash(final String objectId, final String routingIdHex) {
    return java.nio.ByteBuffer.wrap(Sha256.digest((objectId + '\0' + routingIdHex)
        .getBytes(java.nio.charset.StandardCharsets.UTF_8))).getLong();
  }

  private static List<NodePeer> candidates(final List<NodePeer> peers,
      final Map<String, NodeCapacityRecord> capacities, final PlacementKind kind, final String stableType,
      final Set<NodePeer.HostRun> excluded) {
    if (kind == PlacementKind.ENTRY_SPOT) {
      throw new IllegalArgumentException("the Entry Spot is never placed (spec 002 section 4)");
    }
    final AuthorityRecord.Capacity bundle = kind == PlacementKind.ACTOR ? AuthorityRecord.Capacity.actor()
        : AuthorityRecord.Capacity.spot(kind, stableType);
    final String what = kind.wire() + " type '" + stableType + "'";
    final List<NodePeer> sorted = new ArrayList<>(peers);
    sorted.sort(Comparator.comparing(NodePeer::routingIdHex).thenComparingLong(NodePeer::lifecycleGeneration));
    int serving = 0;
    int registered = 0;
    int notExcluded = 0;
    int weighted = 0;
    int withRecord = 0;
    final List<NodePeer> candidates = new ArrayList<>();
    for (NodePeer peer : sorted) {
      if (peer.state() != NodeState.SERVING) {
        continue;
      }
      serving++;
      if (!peer.registers(kind, stableType)) {
        continue;
      }
      registered++;
      if (excluded.contains(peer.hostRun())) {
        continue;
      }
      notExcluded++;
      if (peer.placementWeight() <= 0) {
        continue;
      }
      weighted++;
      final NodeCapacityRecord usage = capacities.get(peer.routingIdHex());
      if (usage == null) {
        continue;
      }
      withRecord++;
      if (usage.whyFull(bundle).isEmpty()) {
        candidates.add(peer);
      }
    }
    if (candidates.isEmpty()) {
      throw noCandidate(what, peers.size(), serving, registered, notExcluded, weighted, withRecord);
    }
    return candidates;
  }

  private static SpotkitException noCandidate(final String what, final int live, final int serving,
      final int registered, final int notExcluded, final int weighted, final int withRecord) {
    final String counts = " (" + live + " live, " + serving + " Serving, " + registered + " registering it, "
        + notExcluded + " not excluded, " + weighted + " with weight > 0, " + withRecord
        + " with a capacity record, 0 with room)";
    if (serving == 0) {
      return new SpotkitException.Unavailable("no candidate for " + what + ": no live node is Serving" + counts);
    }
    if (registered == 0) {
      return new SpotkitException.NotFound("no candidate for " + what + ": no Serving node registered the type"
          + counts);
    }
    if (notExcluded == 0) {
      return new SpotkitException.Unavailable("no candidate for " + what + ": every registering node run refused"
          + " a reservation of this call" + counts);
    }
    if (weighted == 0) {
      return new SpotkitException.Unavailable("no candidate for " + what + ": every registering node has"
          + " placement weight 0" + counts);
    }
    if (withRecord == 0) {
      return new SpotkitException.Unavailable("no candidate for " + what + ": no registering node published its"
          + " node capacity record yet" + counts);
    }
    return new SpotkitException.CapacityExceeded("no candidate for " + what + ": every registering node is full"
        + counts);
  }
}
