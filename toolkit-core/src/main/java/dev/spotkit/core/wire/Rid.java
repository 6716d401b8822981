package dev.spotkit.core.wire;

import dev.spotkit.core.NodeRid;
import dev.spotkit.core.SpotkitException;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * A routing id as the wire carries it ({@code rid}: u8 length, then 1..255 opaque bytes). Spotkit's own
 * {@link NodeRid} is a 64-bit value and travels as 8 bytes big-endian ({@link #of(NodeRid)}); peers of other
 * runtimes may use other lengths, which is why this type keeps bytes. Immutable: the bytes are copied in
 * and out. Equality is byte for byte.
 */
public final class Rid {

  /** Longest rid in bytes. */
  public static final int MAX_BYTES = 255;

  private final byte[] bytes;

  private Rid(final byte[] bytes) {
    this.bytes = bytes;
  }

  /**
   * A rid from bytes.
   *
   * @param bytes 1..255 bytes; copied.
   * @return the rid.
   * @throws SpotkitException.InvalidOperation when empty or longer than 255 bytes.
   */
  public static Rid of(final byte[] bytes) {
    Checks.present("rid", bytes);
    if (bytes.length < 1 || bytes.length > MAX_BYTES) {
      throw new SpotkitException.InvalidOperation("rid is " + bytes.length + " bytes; must be 1.." + MAX_BYTES);
    }
    return new Rid(bytes.clone());
  }

  /**
   * The wire form of a Spotkit node id: its 8 bytes, big-endian.
   *
   * @param nodeRid the node id.
   * @return an 8-byte rid.
   */
  public static Rid of(final NodeRid nodeRid) {
    final long v = nodeRid.value();
    final byte[] b = new byte[8];
    for (int i = 0; i < 8; i++) {
      b[i] = (byte) (v >>> (56 - 8 * i));
    }
    return new Rid(b);
  }

  /**
   * A rid from lowercase or uppercase hex.
   *
   * @param hex 2..510 hex digits, e.g. {@code "737263"}.
   * @return the rid.
   * @throws IllegalArgumentException when not hex.
   */
  public static Rid ofHex(final String hex) {
    return of(HexFormat.of().parseHex(hex));
  }

  /** Trusted constructor for the decoder, which already checked the length; takes ownership. */
  static Rid wrap(final byte[] owned) {
    return new Rid(owned);
  }

  /**
   * The bytes.
   *
   * @return a copy.
   */
  public byte[] bytes() {
    return bytes.clone();
  }

  /**
   * Length in bytes.
   *
   * @return 1..255.
   */
  public int length() {
    return bytes.length;
  }

  /**
   * The Spotkit node id this rid encodes.
   *
   * @return the NodeRid.
   * @throws SpotkitException.InvalidOperation when the rid is not 8 bytes or is all zero (another runtime's
   *     rid, not a Spotkit node).
   */
  public NodeRid toNodeRid() {
    if (bytes.length != 8) {
      throw new SpotkitException.InvalidOperation("rid " + this + " is " + bytes.length
          + " bytes; a Spotkit NodeRid is 8");
    }
    long v = 0;
    for (byte b : bytes) {
      v = (v << 8) | (b & 0xFF);
    }
    return new NodeRid(v);
  }

  void writeTo(final WireWriter out) {
    out.u8(bytes.length);
    out.bytes(bytes);
  }

  @Override
  public boolean equals(final Object o) {
    return o instanceof Rid other && Arrays.equals(bytes, other.bytes);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(bytes);
  }

  /**
   * Lowercase hex.
   *
   * @return for example {@code 737263}.
   */
  @Override
  public String toString() {
    return HexFormat.of().formatHex(bytes);
  }
}
