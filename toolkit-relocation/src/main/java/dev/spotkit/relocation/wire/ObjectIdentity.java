package dev.spotkit.relocation.wire;

/**
 * The object a relocation moves (spec 001 section 3, "Object identity"), a union on the wire:
 *
 * <pre>
 *   objectKind  u8   1 actor, 2 user spot, 3 instance spot
 *   length      u16  bytes of the case body that follows
 *   body        actor / user spot: id text8, objectGeneration nonzero-u64, expectedAuthorityOwnerGeneration
 *                                  nonzero-u64
 *               instance spot:     stableType text8, id text8, objectGeneration nonzero-u64,
 *                                  expectedAuthorityOwnerGeneration nonzero-u64
 * </pre>
 *
 * A length that disagrees with the fields of the case is {@link WireError#INVALID_FIELD}; a case whose
 * last field is cut is {@link WireError#TRUNCATED_FIELD}. Ids are UTF-8, 1..255 bytes, without NUL.
 *
 * <p>Note: the instance-spot case is not fixed by any golden vector; FACTS.md says "type, id, gen". Spotkit
 * keeps the expected AuthorityOwnerGeneration in that case too, because the target CAS of every kind needs it
 * (spec 001 section 4.5).
 */
public sealed interface ObjectIdentity {

  /**
   * The id.
   *
   * @return the ActorId or SpotId.
   */
  String id();

  /**
   * The ObjectGeneration.
   *
   * @return 1..2^63-1.
   */
  long objectGeneration();

  /**
   * The AuthorityOwnerGeneration the coordinator expects.
   *
   * @return 1..2^63-1.
   */
  long expectedAuthorityOwnerGeneration();

  /**
   * The wire discriminator.
   *
   * @return 1, 2 or 3.
   */
  int kind();

  /**
   * An Actor (kind 1).
   *
   * @param id the ActorId, 1..255 UTF-8 bytes.
   * @param objectGeneration 1..2^63-1.
   * @param expectedAuthorityOwnerGeneration 1..2^63-1.
   */
  record Actor(String id, long objectGeneration, long expectedAuthorityOwnerGeneration) implements ObjectIdentity {
    /**
     * Validates.
     *
     * @throws IllegalArgumentException naming the bad field.
     */
    public Actor {
      check(id, objectGeneration, expectedAuthorityOwnerGeneration);
    }

    @Override
    public int kind() {
      return 1;
    }
  }

  /**
   * A User Spot (kind 2).
   *
   * @param id the SpotId, 1..255 UTF-8 bytes.
   * @param objectGeneration 1..2^63-1.
   * @param expectedAuthorityOwnerGeneration 1..2^63-1.
   */
  record UserSpot(String id, long objectGeneration, long expectedAuthorityOwnerGeneration)
      implements ObjectIdentity {
    /**
     * Validates.
     *
     * @throws IllegalArgumentException naming the bad field.
     */
    public UserSpot {
      check(id, objectGeneration, expectedAuthorityOwnerGeneration);
    }

    @Override
    public int kind() {
      return 2;
    }
  }

  /**
   * An Instance Spot (kind 3).
   *
   * @param stableType the registered stable type, 1..255 UTF-8 bytes.
   * @param id the SpotId, 1..255 UTF-8 bytes.
   * @param objectGeneration 1..2^63-1.
   * @param expectedAuthorityOwnerGeneration 1..2^63-1.
   */
  record InstanceSpot(String stableType, String id, long objectGeneration, long expectedAuthorityOwnerGeneration)
      implements ObjectIdentity {
    /**
     * Validates.
     *
     * @throws IllegalArgumentException naming the bad field.
     */
    public InstanceSpot {
      Fields.text8("stableType", stableType);
      check(id, objectGeneration, expectedAuthorityOwnerGeneration);
    }

    @Override
    public int kind() {
      return 3;
    }
  }

  private static void check(final String id, final long generation, final long expected) {
    Fields.text8("id", id);
    Fields.positive("objectGeneration", generation);
    Fields.positive("expectedAuthorityOwnerGeneration", expected);
  }
}
