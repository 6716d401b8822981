package dev.spotkit.relocation.wire;

/**
 * The target fence of spec 001 section 3 as commands 30, 40 and 53 carry it, in this order:
 *
 * <pre>
 *   nodeRid               rid (u8 length 1..255, bytes)
 *   nodeGeneration        nonzero-u64
 *   ownerId               text8
 *   ownerLeaseGeneration  nonzero-u64
 * </pre>
 *
 * <p>Note: FACTS.md does not spell the fence's fields out; the order and types are read off the golden vectors
 * (rid {@code node-b}, generation 12, owner {@code target-owner}, 8). The last u64 is taken as the target owner's
 * lease generation (it pairs with the owner id as in {@link CoordinatorFence}), not the new
 * AuthorityOwnerGeneration, which the target derives from the object's expected one.
 *
 * @param nodeRid the target node's rid.
 * @param nodeGeneration the target node's run generation, 1..2^63-1.
 * @param ownerId the target owner id, 1..255 UTF-8 bytes.
 * @param ownerLeaseGeneration the target owner's lease generation, 1..2^63-1.
 */
public record TargetFence(Rid nodeRid, long nodeGeneration, String ownerId, long ownerLeaseGeneration) {

  /**
   * Validates.
   *
   * @throws IllegalArgumentException naming the bad field.
   */
  public TargetFence {
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

  static TargetFence read(final WireIn in, final String f) {
    final Rid rid = in.rid(f + ".nodeRid");
    final long generation = in.nonZeroU64(f + ".nodeGeneration");
    final String owner = in.text8(f + ".ownerId");
    final long lease = in.nonZeroU64(f + ".ownerLeaseGeneration");
    return new TargetFence(rid, generation, owner, lease);
  }
}
