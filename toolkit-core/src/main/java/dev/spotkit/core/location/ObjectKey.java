package dev.spotkit.core.location;

import java.util.Objects;

/**
 * The authority key of one object: its kind and its global id. MeshName is not part of the key (spec 000
 * section 1; spec 002 section 3.3).
 *
 * @param kind actor or spot.
 * @param id the ActorId or SpotId as given (the framework validates ids before they get here).
 */
public record ObjectKey(AuthorityKind kind, String id) {
  /**
   * Checks for null.
   *
   * @throws NullPointerException when a part is null.
   */
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
    return new ObjectKey(AuthorityKind.ACTOR, id);
  }

  /**
   * Key of a Spot (any kind).
   *
   * @param id the SpotId.
   * @return the key.
   */
  public static ObjectKey spot(final String id) {
    return new ObjectKey(AuthorityKind.SPOT, id);
  }

  /**
   * The logical key of the object's authority row.
   *
   * @return {@code authority\0{actor|spot}\0{id}}.
   */
  public LogicalKey logicalKey() {
    return LocationKeys.authority(kind, id);
  }
}
