package dev.spotkit.core.wire;

import dev.spotkit.core.SpotkitException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Validation of record fields on the encoding side: a bad value here is the caller's mistake and throws
 * {@link SpotkitException.InvalidOperation} naming the field, the value and the limit. Decoders never reach
 * these throws, because {@link WireReader} checks the same rules first and reports them as
 * {@link WireFormatException}.
 */
final class Checks {

  /** Largest nonzero-u64: the wire's non-zero 64-bit values are at most 2^63-1, a positive Java long. */
  static final String NONZERO_U64_RANGE = "1..9223372036854775807";

  /** Longest store version in UTF-8 bytes (FACTS.md "Location Store provider contract"). */
  static final int STORE_VERSION_MAX_BYTES = 4096;

  private Checks() {
  }

  static long positive(final String field, final long value) {
    if (value <= 0) {
      throw new SpotkitException.InvalidOperation(field + " " + Long.toUnsignedString(value) + " must be in "
          + NONZERO_U64_RANGE);
    }
    return value;
  }

  static long u32(final String field, final long value, final long min, final long max) {
    if (value < min || value > max) {
      throw new SpotkitException.InvalidOperation(field + " " + value + " must be in " + min + ".." + max);
    }
    return value;
  }

  static <T> T present(final String field, final T value) {
    if (value == null) {
      throw new SpotkitException.InvalidOperation(field + " must not be null");
    }
    return value;
  }

  /** text8: UTF-8, 1..255 bytes, no NUL. */
  static String text8(final String field, final String value) {
    return text(field, value, 255);
  }

  /** Store version: UTF-8, 1..4096 bytes, no NUL. */
  static String storeVersion(final String field, final String value) {
    return text(field, value, STORE_VERSION_MAX_BYTES);
  }

  static String text(final String field, final String value, final int maxBytes) {
    present(field, value);
    final byte[] bytes = utf8(field, value);
    if (bytes.length < 1 || bytes.length > maxBytes) {
      throw new SpotkitException.InvalidOperation(field + " is " + bytes.length + " UTF-8 bytes; must be 1.."
          + maxBytes);
    }
    if (value.indexOf('\0') >= 0) {
      throw new SpotkitException.InvalidOperation(field + " must not contain a NUL character: \"" + value + "\"");
    }
    return value;
  }

  /** Strict UTF-8 encoding: an unpaired surrogate is refused instead of silently becoming '?'. */
  static byte[] utf8(final String field, final String value) {
    try {
      final ByteBuffer encoded = StandardCharsets.UTF_8.newEncoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .encode(CharBuffer.wrap(value));
      final byte[] bytes = new byte[encoded.remaining()];
      encoded.get(bytes);
      return bytes;
    } catch (CharacterCodingException e) {
      throw new SpotkitException.InvalidOperation(field + " is not encodable as UTF-8 (unpaired surrogate?)", e);
    }
  }
}
