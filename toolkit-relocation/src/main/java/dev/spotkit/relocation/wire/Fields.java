package dev.spotkit.relocation.wire;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.function.BiFunction;

/**
 * Encoding-side validation of wire values, the one rule set of every framework frame (relocation's here, the
 * framework commands of toolkit-core): a bad value is the caller's mistake and throws a misuse exception naming
 * the field, the value and the limit. {@link WireIn} checks the same rules on decode and reports them as
 * {@link WireFormatException}.
 *
 * <p>The static methods throw {@link IllegalArgumentException} (this module's rule for caller misuse, STYLE.md
 * section 7 rule 8); a module with its own misuse type binds the same rules to it once with
 * {@link #rules(BiFunction)} (toolkit-core: {@code SpotkitException.InvalidOperation}).
 */
public final class Fields {

  /** Range of a nonzero-u64 (the schema's maximum is 2^63-1, so it fits a positive long). */
  public static final String NONZERO_U64_RANGE = "1..9223372036854775807";
  /** Range of a u32 held in a long. */
  public static final String U32_RANGE = "0..4294967295";
  /** Largest u32. */
  public static final long U32_MAX = 0xFFFF_FFFFL;
  /** Longest store version in UTF-8 bytes (FACTS.md "Location Store provider contract"). */
  public static final int STORE_VERSION_MAX_BYTES = 4096;

  /** The rules with {@link IllegalArgumentException} for misuse. */
  private static final Rules ARGUMENTS = new Rules(IllegalArgumentException::new);

  private Fields() {
  }

  /**
   * The same rules, throwing the caller's misuse type.
   *
   * @param misuse makes the exception from a message and a cause (the cause may be null).
   * @return rules to keep in a constant; immutable and thread-safe.
   */
  public static Rules rules(final BiFunction<String, Throwable, ? extends RuntimeException> misuse) {
    return new Rules(misuse);
  }

  static long positive(final String field, final long value) {
    return ARGUMENTS.positive(field, value);
  }

  static long u32(final String field, final long value) {
    return ARGUMENTS.u32(field, value, 0, U32_MAX);
  }

  static int u8(final String field, final int value) {
    return (int) ARGUMENTS.u32(field, value, 0, 255);
  }

  /**
   * A value that must be there.
   *
   * @param <T> the value's type.
   * @param field the field name for the message.
   * @param value the value.
   * @return {@code value}.
   * @throws IllegalArgumentException when it is null.
   */
  public static <T> T present(final String field, final T value) {
    return ARGUMENTS.present(field, value);
  }

  static String text8(final String field, final String value) {
    return ARGUMENTS.text8(field, value);
  }

  static String storeVersion(final String field, final String value) {
    return ARGUMENTS.storeVersion(field, value);
  }

  static String text(final String field, final String value, final int maxBytes) {
    return ARGUMENTS.text(field, value, maxBytes);
  }

  static byte[] utf8(final String field, final String value) {
    return ARGUMENTS.utf8(field, value);
  }

  /** Compares two strings by their UTF-8 bytes, unsigned, as the envelope's sort keys require. */
  static int compareUtf8(final String a, final String b) {
    return Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
  }

  /** The field rules bound to one misuse exception type. Immutable. */
  public static final class Rules {

    /** Makes the misuse exception; set once. */
    private final BiFunction<String, Throwable, ? extends RuntimeException> misuse;

    private Rules(final BiFunction<String, Throwable, ? extends RuntimeException> misuse) {
      this.misuse = misuse;
    }

    private RuntimeException misuse(final String message) {
      return misuse.apply(message, null);
    }

    /**
     * A nonzero-u64.
     *
     * @param field the field name for the message.
     * @param value the value.
     * @return {@code value}, in 1..2^63-1.
     */
    public long positive(final String field, final long value) {
      if (value <= 0) {
        throw misuse(field + " " + Long.toUnsignedString(value) + " must be in " + NONZERO_U64_RANGE);
      }
      return value;
    }

    /**
     * A u32 (held in a long) within bounds.
     *
     * @param field the field name for the message.
     * @param value the value.
     * @param min smallest allowed.
     * @param max largest allowed.
     * @return {@code value}.
     */
    public long u32(final String field, final long value, final long min, final long max) {
      if (value < min || value > max) {
        throw misuse(field + " " + value + " must be in " + min + ".." + max);
      }
      return value;
    }

    /**
     * A value that must be there.
     *
     * @param <T> the value's type.
     * @param field the field name for the message.
     * @param value the value.
     * @return {@code value}, never null.
     */
    public <T> T present(final String field, final T value) {
      if (value == null) {
        throw misuse(field + " must not be null");
      }
      return value;
    }

    /**
     * text8: UTF-8, 1..255 bytes, no NUL.
     *
     * @param field the field name for the message.
     * @param value the text.
     * @return {@code value}.
     */
    public String text8(final String field, final String value) {
      return text(field, value, 255);
    }

    /**
     * Store version: UTF-8, 1..4096 bytes, no NUL.
     *
     * @param field the field name for the message.
     * @param value the version.
     * @return {@code value}.
     */
    public String storeVersion(final String field, final String value) {
      return text(field, value, STORE_VERSION_MAX_BYTES);
    }

    /**
     * UTF-8 text of 1..{@code maxBytes} bytes without NUL.
     *
     * @param field the field name for the message.
     * @param value the text.
     * @param maxBytes the most UTF-8 bytes allowed.
     * @return {@code value}.
     */
    public String text(final String field, final String value, final int maxBytes) {
      present(field, value);
      final byte[] bytes = utf8(field, value);
      if (bytes.length < 1 || bytes.length > maxBytes) {
        throw misuse(field + " is " + bytes.length + " UTF-8 bytes; must be 1.." + maxBytes);
      }
      if (value.indexOf('\0') >= 0) {
        throw misuse(field + " must not contain a NUL character: \"" + value + "\"");
      }
      return value;
    }

    /**
     * Strict UTF-8: an unpaired surrogate is refused instead of silently becoming '?'.
     *
     * @param field the field name for the message.
     * @param value the text.
     * @return its UTF-8 bytes, a new array.
     */
    public byte[] utf8(final String field, final String value) {
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
        throw misuse.apply(field + " is not encodable as UTF-8 (unpaired surrogate?)", e);
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
  }
}
