package dev.spotkit.relocation.wire;

/**
 * The coordinator fence of spec 001 section 3: the current-owner value the coordinator that started the move
 * expects. On the wire, in this order:
 *
 * <pre>
 *   ownerId                        text8 (u8 length 1..255, UTF-8 without NUL)
 *   ownerLeaseGeneration           nonzero-u64
 *   nodeRid                        rid (u8 length 1..255, bytes)
 *   nodeGeneration                 nonzero-u64
 *   expectedAuthorityStoreVersion  u16 length 1..4096, UTF-8 without NUL
 * </pre>
 *
 * @param ownerId owner id, 1..255 UTF-8 bytes.
 * @param ownerLeaseGeneration the owner's lease generation, 1..2^63-1.
 * @param nodeRid the coordinator node's rid.
 * @param nodeGeneration the coordinator node's run generation, 1..2^63-1.
 * @param expectedAuthorityStoreVersion the authority record's Store version the coordinator read, 1..4096 bytes.
 */
public record CoordinatorFence(String ownerId, long ownerLeaseGeneration, Rid nodeRid, long nodeGeneration,
    String expectedAuthorityStoreVersion) {

  /**
   * Validates.
   *
   * @throws IllegalArgumentException naming the bad field.
   */
  public CoordinatorFence {
    Fields.text8("ownerId", ownerId);
    Fields.positive("ownerLeaseGeneration", ownerLeaseGeneration);
    Fields.present("nodeRid", nodeRid);
    Fields.positive("nodeGeneration", nodeGeneration);
    Fields.storeVersion("expectedAuthorityStoreVersion", expectedAuthorityStoreVersion);
  }

  void writeTo(final WireOut out) {
    out.text8(ownerId);
    out.u64(ownerLeaseGeneration);
    out.rid(nodeRid);
    out.u64(nodeGeneration);
    out.storeVersion(expectedAuthorityStoreVersion);
  }

  static CoordinatorFence read(final WireIn in, final String f) {
    final String owner = in.text8(f + ".ownerId");
    final long lease = in.nonZeroU64(f + ".ownerLeaseGeneration");
    final Rid rid = in.rid(f + ".nodeRid");
    final long nodeGeneration = in.nonZeroU64(f + ".nodeGeneration");
    final String version = in.storeVersion(f + ".expectedAuthorityStoreVersion");
    return new CoordinatorFence(owner, lease, rid, nodeGeneration, version);
  }
}
