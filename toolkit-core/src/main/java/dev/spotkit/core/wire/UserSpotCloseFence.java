package dev.spotkit.core.wire;

import dev.spotkit.relocation.wire.Rid;
import dev.spotkit.relocation.wire.WireError;
import dev.spotkit.relocation.wire.WireIn;
import dev.spotkit.relocation.wire.WireOut;

/**
 * The target of command 48 ({@code user-spot-close-fence-v1}): which Spot generation to close, on which node
 * run, under which owner generation and StoreVersion. On the wire it is versioned and length-delimited: u8
 * version (1), u16 body length, then the fields below; the length must equal the bytes the fields take.
 *
 * @param spot the Spot id and ObjectGeneration being closed.
 * @param targetNodeRid the node the caller believes owns the Spot.
 * @param targetNodeGeneration that node's lifecycle generation, non-zero.
 * @param expectedAuthorityOwnerGeneration the AuthorityOwnerGeneration read by the caller, non-zero.
 * @param expectedStoreVersion the StoreVersion read by the caller, UTF-8 1..4096 bytes.
 */
public record UserSpotCloseFence(WireSpotRef spot, Rid targetNodeRid, long targetNodeGeneration,
    long expectedAuthorityOwnerGeneration, String expectedStoreVersion) {

  /** The only version. */
  public static final int VERSION = 1;

  /**
   * Validates the values.
   *
   * @throws dev.spotkit.core.SpotkitException.InvalidOperation naming the bad field.
   */
  public UserSpotCloseFence {
    Checks.RULES.present("spot", spot);
    Checks.RULES.present("targetNodeRid", targetNodeRid);
    Checks.RULES.positive("targetNodeGeneration", targetNodeGeneration);
    Checks.RULES.positive("expectedAuthorityOwnerGeneration", expectedAuthorityOwnerGeneration);
    Checks.RULES.storeVersion("expectedStoreVersion", expectedStoreVersion);
  }

  static UserSpotCloseFence read(final WireIn in, final String f) {
    final int versionAt = in.position();
    final int version = in.u8(f + ".version");
    if (version != VERSION) {
      throw in.error(WireError.INVALID_FIELD, f + ".version", versionAt, "value " + version, "1");
    }
    final int lengthAt = in.position();
    final int declared = in.u16(f + ".bodyLength");
    final int bodyStart = in.position();
    final WireSpotRef spot = WireSpotRef.read(in, f + ".spot");
    final Rid rid = in.rid(f + ".targetNodeRid");
    final long generation = in.nonZeroU64(f + ".targetNodeGeneration");
    final long ownerGeneration = in.nonZeroU64(f + ".expectedAuthorityOwnerGeneration");
    final String storeVersion = in.storeVersion(f + ".expectedStoreVersion");
    in.endSection(f + ".bodyLength", lengthAt, bodyStart, declared, WireError.INVALID_BODY_LENGTH);
    return new UserSpotCloseFence(spot, rid, generation, ownerGeneration, storeVersion);
  }

  void writeTo(final WireOut out) {
    out.u8(VERSION);
    final int lengthAt = out.position();
    out.u16(0);
    final int bodyStart = out.position();
    spot.writeTo(out);
    out.rid(targetNodeRid);
    out.u64(targetNodeGeneration);
    out.u64(expectedAuthorityOwnerGeneration);
    out.storeVersion(expectedStoreVersion);
    out.patchU16(lengthAt, out.position() - bodyStart); // at most 1+255+8+1+255+8+8+2+4096 < 65536
  }
}
