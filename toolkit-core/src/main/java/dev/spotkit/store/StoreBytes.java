package dev.spotkit.store;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/**
 * An immutable byte string: the values, payloads and scan cursors the stores keep without interpreting them
 * (spec 002 section 10: bytes returned as a success result must not change afterward). It copies on the way
 * in and on the way out, so neither a caller nor a provider can change bytes another party holds.
 *
 * <p>Thread-safety: immutable, any thread.
 */
public final class StoreBytes {
  private static final StoreBytes EMPTY = new StoreBytes(new byte[0]);

  private final byte[] bytes;

  private StoreBytes(final byte[] bytes) {
    this.bytes = bytes;
  }

  /**
   * A copy of {@code bytes}.
   *
   * @param bytes the content; copied.
   * @return the immutable value.
   */
  public static StoreBytes of(final byte[] bytes) {
    Objects.requireNonNull(bytes, "bytes");
    return bytes.length == 0 ? EMPTY : new StoreBytes(bytes.clone());
  }

  /**
   * The UTF-8 encoding of {@code text}.
   *
   * @param text the text.
   * @return the immutable value.
   */
  public static StoreBytes utf8(final String text) {
    return of(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  /**
   * The empty byte string.
   *
   * @return the value of length 0.
   */
  public static StoreBytes empty() {
    return EMPTY;
  }

  /**
   * The length in bytes.
   *
   * @return 0 or more.
   */
  public int size() {
    return bytes.length;
  }

  /**
   * A fresh copy of the content.
   *
   * @return the bytes; the caller owns the array.
   */
  public byte[] toByteArray() {
    return bytes.clone();
  }

  /**
   * The content decoded as UTF-8 (malformed input is replaced, never thrown).
   *
   * @return the text.
   */
  public String asUtf8() {
    return new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
  }

  /**
   * Lowercase hex of the content, for logs and test vectors.
   *
   * @return the hex string.
   */
  public String toHex() {
    return HexFormat.of().formatHex(bytes);
  }

  @Override
  public boolean equals(final Object other) {
    return other instanceof StoreBytes that && Arrays.equals(bytes, that.bytes);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(bytes);
  }

  @Override
  public String toString() {
    return bytes.length <= 32 ? "StoreBytes[" + toHex() + "]" : "StoreBytes[" + bytes.length + " bytes]";
  }
}
