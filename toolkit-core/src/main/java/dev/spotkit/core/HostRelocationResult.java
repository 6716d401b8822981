package dev.spotkit.core;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The result of {@link MeshNode#relocate(NodeRid)}: which Entry Spot actors moved and which stayed, and why.
 *
 * @param relocated the refs of the actors that moved, on the target node (same ActorId and ObjectGeneration), in
 *     no particular order; an actor counts as moved once the Location Store names the target (the target's CAS
 *     committed), not merely once its cutover was submitted.
 * @param kept the actors that did not move, each with the typed error why: {@link SpotkitException.Rejected} for
 *     DisableRelocation (it stays here), {@link SpotkitException.Unavailable} for an actor that left meanwhile (e.g.
 *     its join moved it) or whose move failed before the target's relay-ready reply (both stay here), and also
 *     Unavailable for one whose move passed that reply but whose CAS did not commit (spec 001 section 9: it runs
 *     nowhere and is unavailable), {@link SpotkitException.ShuttingDown} when this node started closing first,
 *     others as the move reported them.
 */
public record HostRelocationResult(List<ActorRef> relocated, Map<ActorId, SpotkitException> kept) {
  /**
   * Copies the parts.
   *
   * @throws NullPointerException when a part is null.
   */
  public HostRelocationResult {
    relocated = List.copyOf(Objects.requireNonNull(relocated, "relocated"));
    kept = Map.copyOf(Objects.requireNonNull(kept, "kept"));
  }

  /**
   * Whether every actor moved (the FACTS.md outcome Relocated; otherwise Blocked).
   *
   * @return true when nothing was kept.
   */
  public boolean fullyRelocated() {
    return kept.isEmpty();
  }
}
