package dev.spotkit.relocation.wire;

/**
 * The action union of command 44 sessionRelocationRoute (spec 001 sections 7 and 9; FACTS.md "Sessions"). On the
 * wire, after the binding fields:
 *
 * <pre>
 *   action  u8   1 commit, 2 abort
 *   length  u16  bytes of the case body that follows (39 for the golden commit, 8 for an abort)
 *   body    commit: previousAuthorityOwnerGeneration nonzero-u64, targetAuthorityOwnerGeneration nonzero-u64,
 *                   targetNodeRid rid, targetNodeGeneration nonzero-u64, targetOwnerLeaseGeneration nonzero-u64
 *           abort:  currentAuthorityOwnerGeneration nonzero-u64
 * </pre>
 *
 * An unknown discriminator, or a length that differs from the case's fields, is
 * {@link WireError#INVALID_FIELD}; a cut body is {@link WireError#TRUNCATED_FIELD}.
 * Neither case has a reply (spec 001 section 12). Records are immutable; any thread.
 */
public sealed interface SessionRouteAction {

  /**
   * The discriminator.
   *
   * @return 1 (commit) or 2 (abort).
   */
  int wireValue();

  /**
   * Commit, sent by the target runtime after its CAS and queue opening: switch the binding to {@code target},
   * submit the held messages there, release the seal (spec 001 sections 4.6 and 7).
   *
   * @param previousAuthorityOwnerGeneration the AuthorityOwnerGeneration of the route being replaced (the
   *     sealed source route), 1..2^63-1.
   * @param target the new route; its {@link ActorRoute#authorityOwnerGeneration()} is written first, then its
   *     node rid, node generation and owner lease generation.
   */
  record Commit(long previousAuthorityOwnerGeneration, ActorRoute target) implements SessionRouteAction {

    /** The discriminator of a commit. */
    public static final int WIRE_VALUE = 1;

    /**
     * Validates.
     *
     * @throws IllegalArgumentException naming the bad field.
     */
    public Commit {
      Fields.positive("previousAuthorityOwnerGeneration", previousAuthorityOwnerGeneration);
      Fields.present("target", target);
    }

    @Override
    public int wireValue() {
      return WIRE_VALUE;
    }
  }

  /**
   * Abort, sent by the source one-way only after its queue restoration is fixed: release only the matching
   * seal and resubmit the held messages to the source route (spec 001 section 9; REL-31, LOC-25).
   *
   * @param currentAuthorityOwnerGeneration the AuthorityOwnerGeneration the Actor keeps at the source,
   *     1..2^63-1.
   */
  record Abort(long currentAuthorityOwnerGeneration) implements SessionRouteAction {

    /** The discriminator of an abort. */
    public static final int WIRE_VALUE = 2;

    /**
     * Validates.
     *
     * @throws IllegalArgumentException when the generation is not positive.
     */
    public Abort {
      Fields.positive("currentAuthorityOwnerGeneration", currentAuthorityOwnerGeneration);
    }

    @Override
    public int wireValue() {
      return WIRE_VALUE;
    }
  }
}
