package dev.spotkit.core.internal.relocation;

import dev.spotkit.core.NodeRid;
import dev.spotkit.core.location.NodePeer;
import dev.spotkit.core.location.PlacementKind;
import java.util.ArrayList;
import java.util.List;

/**
 * A host drain's target choice: smooth weighted round-robin over the candidate nodes' placement weights, restricted
 * per unit to the candidates that registered every type the unit needs (FACTS.md "Host relocation": compatible
 * factory). Deterministic for a given candidate order and call sequence. Not thread-safe: the drain's own thread.
 */
final class TargetPicker {
  /** One type a unit needs its target to have registered. */
  record Need(PlacementKind kind, String stableType) {
  }

  private final List<NodePeer> peers;
  private final long[] weights;
  private final long[] current;

  /**
   * @param candidates the admitted live Serving peers, in visiting order; a weight of 0 (a node named by drainTo)
   *     counts as 1.
   */
  TargetPicker(final List<NodePeer> candidates) {
    this.peers = List.copyOf(candidates);
    this.weights = new long[peers.size()];
    this.current = new long[peers.size()];
    for (int i = 0; i < peers.size(); i++) {
      weights[i] = Math.max(1, peers.get(i).placementWeight());
    }
  }

  /** Whether some candidate fits {@code needs}. */
  boolean anyFor(final List<Need> needs) {
    return !fitting(needs).isEmpty();
  }

  /**
   * The next target for a unit with {@code needs}.
   *
   * @return the chosen node, or null when no candidate registered every needed type.
   */
  NodeRid pick(final List<Need> needs) {
    final List<Integer> fit = fitting(needs);
    if (fit.isEmpty()) {
      return null;
    }
    long total = 0;
    int best = -1;
    for (int i : fit) {
      current[i] += weights[i];
      total += weights[i];
      if (best < 0 || current[i] > current[best]) {
        best = i;
      }
    }
    current[best] -= total;
    return new NodeRid(Long.parseUnsignedLong(peers.get(best).routingIdHex(), 16));
  }

  private List<Integer> fitting(final List<Need> needs) {
    final List<Integer> fit = new ArrayList<>();
    for (int i = 0; i < peers.size(); i++) {
      final NodePeer peer = peers.get(i);
      if (needs.stream().allMatch(n -> peer.registers(n.kind(), n.stableType()))) {
        fit.add(i);
      }
    }
    return fit;
  }
}
