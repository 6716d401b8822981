package dev.spotkit.relocation.wire;

/**
 * The Session owner a session-relocation frame (commands 42, 43, 44) is addressed to: the node that holds the
 * physical STREAM connection and the owner lease it holds it under (FACTS.md "Sessions"; golden
 * {@code session-relocation-barrier-v1.json} identity {@code sessionOwner*}). On the wire, in this order:
 *
 * <pre>
 *   nodeRid               rid (u8 length 1..255, bytes)
 *   nodeGeneration        nonzero-u64
 *   ownerId               text8 (u8 length 1..255, UTF-8 without NUL)
 *   ownerLeaseGeneration  nonzero-u64
 * </pre>
 *
 * <p>Note: the layout is the same as {@link TargetFence}'s, but the meaning differs (the session side, not the
 * relocation target), so it is its own type and a frame cannot mix the two up.
 *
 * @param nodeRid the Session owner node's rid.
 * @param nodeGeneration that node's run generation, 1..2^63-1.
 * @param ownerId the Session owner's owner id, 1..255 UTF-8 bytes.
 * @param ownerLeaseGeneration its owner lease generation, 1..2^63-1.
 */
public record SessionOwner(Rid nodeRid, long nodeGeneration, String ownerId, long ownerLeaseGeneration) {

  /**
   * Validates.
   *
   * @throws IllegalArgumentException naming the bad field.
   */
  public SessionOwner {
    Fields.present("nodeRid", nodeRid);
    Fields.positive("nodeGeneration", nodeGeneration);
    Fields.text8("ownerId", ownerId);
    Fields.positive("ownerLeaseGeneration", ownerLeaseGeneration);
  }

  void writeTo(final WireOut out) {
    out.rid(nodeRid);
    out.u64(nodeGeneration);
    out.text8(ownerId);
    out.u64(ownerLeaseGeneration);
  }

  static SessionOwner read(final WireIn in, final String f) {
    final Rid rid = in.rid(f + ".nodeRid");
    final long generation = in.nonZeroU64(f + ".nodeGeneration");
    final String owner = in.text8(f + ".ownerId");
    final long lease = in.nonZeroU64(f + ".ownerLeaseGeneration");
    return new SessionOwner(rid, generation, owner, lease);
  }
}
