package dev.spotkit.core.wire;

import dev.spotkit.core.NodeRid;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.relocation.wire.Rid;
import java.util.HexFormat;

/**
 * Core's conversions for the wire {@link Rid} (the one implementation lives in toolkit-relocation): a Spotkit
 * {@link NodeRid} is an 8-byte big-endian rid; other runtimes may use 1..255 bytes.
 */
public final class Rids {

  private Rids() {
  }

  /**
   * The 8-byte big-endian rid of a Spotkit node.
   *
   * @param nodeRid the node id.
   * @return the rid.
   */
  public static Rid of(final NodeRid nodeRid) {
    final long v = nodeRid.value();
    final byte[] b = new byte[8];
    for (int i = 0; i < 8; i++) {
      b[i] = (byte) (v >>> (56 - 8 * i));
    }
    return Rid.of(b);
  }

  /**
   * A rid from lowercase or uppercase hex.
   *
   * @param hex 2..510 hex digits.
   * @return the rid.
   * @throws IllegalArgumentException when not hex or of a bad length.
   */
  public static Rid ofHex(final String hex) {
    return Rid.of(HexFormat.of().parseHex(hex));
  }

  /**
   * The Spotkit node id a rid encodes.
   *
   * @param rid the rid.
   * @return the NodeRid.
   * @throws SpotkitException.InvalidOperation when the rid is not 8 bytes (another runtime's rid).
   */
  public static NodeRid toNodeRid(final Rid rid) {
    final byte[] bytes = rid.bytes();
    if (bytes.length != 8) {
      throw new SpotkitException.InvalidOperation("rid " + rid + " is " + bytes.length
          + " bytes; a Spotkit NodeRid is 8");
    }
    long v = 0;
    for (byte b : bytes) {
      v = (v << 8) | (b & 0xFF);
    }
    return new NodeRid(v);
  }
}
