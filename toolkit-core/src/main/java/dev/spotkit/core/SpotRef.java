package dev.spotkit.core;

import java.util.Objects;

/**
 * Address of one Spot incarnation: (SpotId, ObjectGeneration, MeshName, NodeRid) (FACTS.md "Identity and
 * execution"). Close and messages by ref check the generation: a stale ref is refused with
 * {@link SpotkitException.StaleGeneration}, never misrouted. Immutable.
 *
 * @param id the SpotId.
 * @param generation the incarnation.
 * @param meshName the mesh of the owning node when the ref was made.
 * @param nodeRid the owning node when the ref was made.
 */
public record SpotRef(SpotId id, ObjectGeneration generation, MeshName meshName, NodeRid nodeRid) {
  /** Checks for null. */
  public SpotRef {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(generation, "generation");
    Objects.requireNonNull(meshName, "meshName");
    Objects.requireNonNull(nodeRid, "nodeRid");
  }
}
