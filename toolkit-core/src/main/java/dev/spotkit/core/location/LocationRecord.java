package dev.spotkit.core.location;

import java.util.Objects;

/**
 * The one-node runtime's view of an object's authority row: what {@code StoreOps} writes as an
 * {@link AuthorityRecord} and reads back through {@link LocationRecords}. Immutable.
 *
 * @param key kind and id.
 * @param objectGeneration the incarnation, 1..2^63-2, from the ObjectGeneration counter.
 * @param stableType the factory's stable type; the Entry Spot uses {@code "entry"}.
 * @param owner the owning node, as {@code <meshName>/<nodeRid hex>}; written as the row's ownerId.
 * @param membership for an Actor, the SpotId it belongs to (null while creating); null for a Spot. Written as
 *     the row's framework-internal payload until membership pages exist.
 * @param state CREATING (allocation reserved) or READY (allocation active).
 * @param authorityOwnerGeneration the row's AuthorityOwnerGeneration, or 0 before the row is first written.
 */
public record LocationRecord(ObjectKey key, long objectGeneration, String stableType, String owner,
    String membership, RecordState state, long authorityOwnerGeneration) {

  /**
   * Checks for null and a positive generation.
   *
   * @throws IllegalArgumentException when the generation is not positive.
   */
  public LocationRecord {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(stableType, "stableType");
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(state, "state");
    if (objectGeneration <= 0) {
      throw new IllegalArgumentException("objectGeneration " + objectGeneration + " must be in 1..2^63-1");
    }
  }

  /**
   * A record whose row was not written yet.
   *
   * @param key kind and id.
   * @param objectGeneration the incarnation.
   * @param stableType the stable type.
   * @param owner the owning node.
   * @param membership the membership or null.
   * @param state the state.
   */
  public LocationRecord(final ObjectKey key, final long objectGeneration, final String stableType,
      final String owner, final String membership, final RecordState state) {
    this(key, objectGeneration, stableType, owner, membership, state, 0);
  }

  /**
   * A copy with another membership.
   *
   * @param spotId the new SpotId.
   * @return the copy.
   */
  public LocationRecord withMembership(final String spotId) {
    return new LocationRecord(key, objectGeneration, stableType, owner, spotId, state, authorityOwnerGeneration);
  }

  /**
   * A copy with another state.
   *
   * @param newState the new state.
   * @return the copy.
   */
  public LocationRecord withState(final RecordState newState) {
    return new LocationRecord(key, objectGeneration, stableType, owner, membership, newState,
        authorityOwnerGeneration);
  }

  /**
   * A copy with the AuthorityOwnerGeneration its row was written with.
   *
   * @param generation the generation.
   * @return the copy.
   */
  public LocationRecord withAuthorityOwnerGeneration(final long generation) {
    return new LocationRecord(key, objectGeneration, stableType, owner, membership, state, generation);
  }
}
