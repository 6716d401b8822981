package dev.spotkit.relocation.wire;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * A routing id as the wire carries it ({@code rid}: u8 length, then 1..255 opaque bytes; FACTS.md "Wire").
 * Immutable: bytes are copied in and out; equality is byte for byte. Any thread.
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
   * @throws IllegalArgumentException when null, empty or longer than 255 bytes.
   */
  public static Rid of(final byte[] bytes) {
    Fields.present("rid", bytes);
    if (bytes.length < 1 || bytes.length > MAX_BYTES) {
      throw new IllegalArgumentException("rid is " + bytes.length + " bytes; must be 1.." + MAX_BYTES);
    }
    return new Rid(bytes.clone());
  }

  /**
   * A rid whose bytes are the UTF-8 of {@code text} (the fixtures' {@code node-a}).
   *
   * @param text 1..255 UTF-8 bytes.
   * @return the rid.
   * @throws IllegalArgumentException when empty or too long.
   */
  public static Rid ofUtf8(final String text) {
    return of(Fields.utf8("rid", Fields.present("rid", text)));
  }

  /** Trusted constructor for the decoder, which checked the length; takes ownership. */
  static Rid wrap(final byte[] owned) {
    return new Rid(owned);
  }

  byte[] bytesUnsafe() {
    return bytes;
  }

  /**
   * The bytes.
   *
   * @return a copy, 1..255 bytes.
   */
  public byte[] bytes() {
    return bytes.clone();
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
   * @return for example {@code 6e6f64652d61}.
   */
  @Override
  public String toString() {
    return HexFormat.of().formatHex(bytes);
  }
}
