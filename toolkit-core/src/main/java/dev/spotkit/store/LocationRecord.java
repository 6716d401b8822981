package dev.spotkit.store;

import java.util.Objects;

/**
 * What the Location Store knows about one object (spec 000 section 1, "Authority recorded in the Location
 * Store"). Immutable.
 *
 * <p>Today this is the single-node subset: owner, ObjectGeneration, stable type, membership and state. The
 * lease, AuthorityOwnerGeneration and capacity fields of spec 002 arrive with the CAS store.
 *
 * @param key kind and id.
 * @param objectGeneration the incarnation, 1..2^63-1, from {@link LocationStore#issueObjectGeneration()}.
 * @param stableType the factory's stable type; the Entry Spot uses {@code "entry"}.
 * @param owner the owning node, as {@code <meshName>/<nodeRid hex>}.
 * @param membership for an Actor, the SpotId it belongs to (null while creating); null for a Spot.
 * @param state CREATING or READY.
 */
public record LocationRecord(ObjectKey key, long objectGeneration, String stableType, String owner,
    String membership, RecordState state) {

  /** Checks for null and a positive generation. */
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
   * A copy with another membership.
   *
   * @param spotId the new SpotId.
   * @return the copy.
   */
  public LocationRecord withMembership(final String spotId) {
    return new LocationRecord(key, objectGeneration, stableType, owner, spotId, state);
  }

  /**
   * A copy with another state.
   *
   * @param newState the new state.
   * @return the copy.
   */
  public LocationRecord withState(final RecordState newState) {
    return new LocationRecord(key, objectGeneration, stableType, owner, membership, newState);
  }
}
