package dev.spotkit.relocation.wire;

/**
 * The addressed Spot of a spotRequest record body (spec 001 section 4.2), in this order:
 *
 * <pre>
 *   spotId                            text8
 *   spotGeneration                    nonzero-u64
 *   targetNodeRid                     rid
 *   targetNodeGeneration              nonzero-u64
 *   expectedAuthorityOwnerGeneration  nonzero-u64
 *   expectedOwnerLeaseGeneration      nonzero-u64
 * </pre>
 *
 * @param spotId 1..255 UTF-8 bytes.
 * @param spotGeneration the Spot's ObjectGeneration, 1..2^63-1.
 * @param targetNodeRid the node the sender addressed.
 * @param targetNodeGeneration that node's run generation, 1..2^63-1.
 * @param expectedAuthorityOwnerGeneration 1..2^63-1.
 * @param expectedOwnerLeaseGeneration 1..2^63-1.
 */
public record TargetSpot(String spotId, long spotGeneration, Rid targetNodeRid, long targetNodeGeneration,
    long expectedAuthorityOwnerGeneration, long expectedOwnerLeaseGeneration) {

  /**
   * Validates.
   *
   * @throws IllegalArgumentException naming the bad field.
   */
  public TargetSpot {
    Fields.text8("spotId", spotId);
    Fields.positive("spotGeneration", spotGeneration);
    Fields.present("targetNodeRid", targetNodeRid);
    Fields.positive("targetNodeGeneration", targetNodeGeneration);
    Fields.positive("expectedAuthorityOwnerGeneration", expectedAuthorityOwnerGeneration);
    Fields.positive("expectedOwnerLeaseGeneration", expectedOwnerLeaseGeneration);
  }

  void writeTo(final WireOut out) {
    out.text8(spotId);
    out.u64(spotGeneration);
    out.rid(targetNodeRid);
    out.u64(targetNodeGeneration);
    out.u64(expectedAuthorityOwnerGeneration);
    out.u64(expectedOwnerLeaseGeneration);
  }

  static TargetSpot read(final WireIn in, final String f) {
    final String id = in.text8(f + ".spotId");
    final long generation = in.nonZeroU64(f + ".spotGeneration");
    final Rid rid = in.rid(f + ".targetNodeRid");
    final long nodeGeneration = in.nonZeroU64(f + ".targetNodeGeneration");
    final long authority = in.nonZeroU64(f + ".expectedAuthorityOwnerGeneration");
    final long lease = in.nonZeroU64(f + ".expectedOwnerLeaseGeneration");
    return new TargetSpot(id, generation, rid, nodeGeneration, authority, lease);
  }
}
