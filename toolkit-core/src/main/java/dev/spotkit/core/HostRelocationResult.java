package dev.spotkit.core;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The result of {@link MeshNode#relocate(NodeRid)}: which Entry Spot actors moved and which stayed, and why.
 *
 * @param relocated the refs of the actors that moved, on the target node (same ActorId and ObjectGeneration), in
 *     no particular order; an actor counts as moved once its cutover was submitted (FACTS.md "Host relocation").
 * @param kept the actors that stayed on this node, each with the typed error that kept it: {@link
 *     SpotkitException.Rejected} for DisableRelocation, {@link SpotkitException.Unavailable} for an actor that left
 *     meanwhile (e.g. its join moved it), is bound to a session, or whose move failed before the target's
 *     relay-ready reply, others as the move reported them.
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
