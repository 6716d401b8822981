package dev.spotkit.core;

import java.util.Objects;

/**
 * Address of one Actor incarnation: (ActorId, ObjectGeneration, MeshName, NodeRid) (FACTS.md "Identity and
 * execution"). A ref whose generation is not the live one is refused with
 * {@link SpotkitException.StaleGeneration}, never delivered to a newer incarnation. Send through
 * {@code ctx.toActor(ref)} or {@code node.toActor(ref)}. Immutable.
 *
 * @param id the ActorId.
 * @param generation the incarnation.
 * @param meshName the mesh of the owning node when the ref was made.
 * @param nodeRid the owning node when the ref was made.
 */
public record ActorRef(ActorId id, ObjectGeneration generation, MeshName meshName, NodeRid nodeRid) {
  /** Checks for null. */
  public ActorRef {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(generation, "generation");
    Objects.requireNonNull(meshName, "meshName");
    Objects.requireNonNull(nodeRid, "nodeRid");
  }
}
