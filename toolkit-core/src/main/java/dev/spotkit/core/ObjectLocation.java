package dev.spotkit.core;

import java.util.Objects;

/**
 * Where one object is, as its authority row in the Location Store recorded it when read (spec 002 section
 * 7.4): for checking operational status only. It is never a message target list or a placement condition, it is
 * not cached, and it may be out of date as soon as it is returned (a relocation, Destroy or Close can follow).
 * Immutable.
 *
 * @param kind Actor or Spot.
 * @param id the global ActorId or SpotId, 1..255 UTF-8 bytes.
 * @param generation the incarnation (ObjectGeneration, 1..2^63-1).
 * @param stableType the factory's stable type, 1..255 UTF-8 bytes ("entry" for an Entry Spot).
 * @param state {@link State#CREATING} while the creation is in progress, {@link State#READY} once created,
 *     {@link State#UNAVAILABLE} once created but its owner node's lease lapsed.
 * @param meshName the MeshName of the owner node.
 * @param owner the NodeRid (RoutingId) of the owner node.
 */
public record ObjectLocation(ObjectKind kind, String id, ObjectGeneration generation, String stableType,
    State state, MeshName meshName, NodeRid owner) {

  /** The lifecycle state an operator query reports; a missing object has no entry at all. */
  public enum State {
    /** Reserved for its owner node, whose factory and callbacks have not finished; not routable yet. */
    CREATING,
    /** Created and initialized on its owner node; receives messages. */
    READY,
    /**
     * Created, but the owner node's owner lease has lapsed (the node stopped or lost the Location Store): messages
     * to it get {@code Unavailable}; the row stays on that owner, never owned twice (spec 002 section 7.4).
     */
    UNAVAILABLE
  }

  /**
   * Checks for null.
   *
   * @throws NullPointerException when a part is null.
   */
  public ObjectLocation {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(generation, "generation");
    Objects.requireNonNull(stableType, "stableType");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(meshName, "meshName");
    Objects.requireNonNull(owner, "owner");
  }
}
