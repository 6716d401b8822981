package dev.spotkit.store;

import java.util.Objects;

/**
 * The logical key of one object in the Location Store: its kind and its global id. MeshName is not part of
 * the key (spec 000 section 1).
 *
 * @param kind actor or spot.
 * @param id the ActorId or SpotId as given (the framework validates ids before they get here).
 */
public record ObjectKey(ObjectKind kind, String id) {
  /** Checks for null. */
  public ObjectKey {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(id, "id");
  }

  /**
   * Key of an Actor.
   *
   * @param id the ActorId.
   * @return the key.
   */
  public static ObjectKey actor(final String id) {
    return new ObjectKey(ObjectKind.ACTOR, id);
  }

  /**
   * Key of a Spot (any kind).
   *
   * @param id the SpotId.
   * @return the key.
   */
  public static ObjectKey spot(final String id) {
    return new ObjectKey(ObjectKind.SPOT, id);
  }
}
