package dev.spotkit.relocation.wire;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Encoding-side validation shared by the record constructors: a bad value is the caller's mistake and throws
 * {@link IllegalArgumentException} naming the field, the value and the limit. {@link WireIn} checks the same
 * rules on decode and reports them as {@link RelocationWireException}.
 */
final class Fields {

  /** Range of a nonzero-u64 (the schema's maximum is 2^63-1, so it fits a positive long). */
  static final String NONZERO_U64_RANGE = "1..9223372036854775807";
  /** Range of a u32 held in a long. */
  static final String U32_RANGE = "0..4294967295";
  /** Largest u32. */
  static final long U32_MAX = 0xFFFF_FFFFL;
  /** Longest store version in UTF-8 bytes. */
  static final int STORE_VERSION_MAX_BYTES = 4096;

  private Fields() {
  }

  static long positive(final String field, final long value) {
    if (value <= 0) {
      throw new IllegalArgumentException(field + " " + Long.toUnsignedString(value) + " must be in "
          + NONZERO_U64_RANGE);
    }
    return value;
  }

  static long u32(final String field, final long value) {
    if (value < 0 || value > U32_MAX) {
      throw new IllegalArgumentException(field + " " + value + " must be in " + U32_RANGE);
    }
    return value;
  }

  static int u8(final String field, final int value) {
    if (value < 0 || value > 255) {
      throw new IllegalArgumentException(field + " " + value + " must be in 0..255");
    }
    return value;
  }

  static <T> T present(final String field, final T value) {
    if (value == null) {
      throw new IllegalArgumentException(field + " must not be null");
    }
    return value;
  }

  static String text8(final String field, final String value) {
    return text(field, value, 255);
  }

  static String storeVersion(final String field, final String value) {
    return text(field, value, STORE_VERSION_MAX_BYTES);
  }

  static String text(final String field, final String value, final int maxBytes) {
    present(field, value);
    final byte[] bytes = utf8(field, value);
    if (bytes.length < 1 || bytes.length > maxBytes) {
      throw new IllegalArgumentException(field + " is " + bytes.length + " UTF-8 bytes; must be 1.." + maxBytes);
    }
    if (value.indexOf('\0') >= 0) {
      throw new IllegalArgumentException(field + " must not contain a NUL character");
    }
    return value;
  }

  /** Strict UTF-8: an unpaired surrogate is refused instead of silently becoming '?'. */
  static byte[] utf8(final String field, final String value) {
    if (ascii(value)) {
      return value.getBytes(StandardCharsets.US_ASCII); // the same bytes as UTF-8, without a CharsetEncoder
    }
    try {
      final ByteBuffer encoded = StandardCharsets.UTF_8.newEncoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .encode(CharBuffer.wrap(value));
      final byte[] bytes = new byte[encoded.remaining()];
      encoded.get(bytes);
      return bytes;
    } catch (CharacterCodingException e) {
      throw new IllegalArgumentException(field + " is not encodable as UTF-8 (unpaired surrogate?)", e);
    }
  }

  private static boolean ascii(final String value) {
    for (int i = 0; i < value.length(); i++) {
      if (value.charAt(i) >= 0x80) {
        return false;
      }
    }
    return true;
  }

  /** Compares two strings by their UTF-8 bytes, unsigned, as the envelope's sort keys require. */
  static int compareUtf8(final String a, final String b) {
    return Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
  }
}
