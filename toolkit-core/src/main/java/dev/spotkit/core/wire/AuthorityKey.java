package dev.spotkit.core.wire;

import dev.spotkit.relocation.wire.Rid;

import dev.spotkit.core.SpotkitException;
import dev.spotkit.relocation.wire.WireError;
import dev.spotkit.relocation.wire.WireFormatException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * The wire form of an authority key ({@code authority-key-v1}): {@code zla1:<kind>:<byte length>:<id>}, where
 * kind is {@code a} (Actor) or {@code s} (any Spot kind), the length is the id's UTF-8 byte count in decimal,
 * and the id is percent-encoded: the RFC 3986 unreserved bytes {@code A-Z a-z 0-9 - . _ ~} stay as they are,
 * every other byte becomes {@code %XX} with uppercase hex. Examples (golden vector):
 * {@code zla1:a:7:user%3A42}, {@code zla1:a:2:%C3%A9}, {@code zla1:s:7:room%3A%C3%A9}. The id is compared byte
 * for byte: no case folding, no Unicode normalisation ({@code e%CC%81} and {@code %C3%A9} are different keys).
 *
 * <p>The encoding is canonical: {@link #parse} accepts only what {@link #encoded()} produces (lowercase hex
 * digits, an encoded unreserved byte, or a length that does not match are refused), so sorting encoded keys
 * as UTF-8 strings is well defined (relocation participant ids are assigned in that order).
 *
 * @param kind Actor or Spot.
 * @param id the Actor or Spot id, UTF-8 1..255 bytes, no NUL.
 */
public record AuthorityKey(Kind kind, String id) {

  private static final String PREFIX = "zla1:";
  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  /** The object kind letter. */
  public enum Kind {
    /** An Actor: {@code a}. */
    ACTOR('a'),
    /** A Spot of any kind (Entry, User, Instance): {@code s}. */
    SPOT('s');

    private final char letter;

    Kind(final char letter) {
      this.letter = letter;
    }

    /**
     * The letter in the key.
     *
     * @return {@code a} or {@code s}.
     */
    public char letter() {
      return letter;
    }
  }

  /**
   * Validates the values.
   *
   * @throws SpotkitException.InvalidOperation when the id is not 1..255 UTF-8 bytes without NUL.
   */
  public AuthorityKey {
    Checks.RULES.present("kind", kind);
    Checks.RULES.text8("id", id);
  }

  /**
   * The encoded key.
   *
   * @return for example {@code zla1:a:7:user%3A42}.
   */
  public String encoded() {
    final byte[] bytes = Checks.RULES.utf8("id", id);
    final StringBuilder sb = new StringBuilder(PREFIX.length() + 6 + bytes.length * 3);
    sb.append(PREFIX).append(kind.letter()).append(':').append(bytes.length).append(':');
    for (byte b : bytes) {
      final int v = b & 0xFF;
      if (unreserved(v)) {
        sb.append((char) v);
      } else {
        sb.append('%').append(HEX[v >>> 4]).append(HEX[v & 0xF]);
      }
    }
    return sb.toString();
  }

  /**
   * Parses an encoded key received from a peer.
   *
   * @param encoded the key, e.g. {@code zla1:s:7:room%3A%C3%A9}.
   * @return the key.
   * @throws WireFormatException when it is not in canonical form; the offset is a character index.
   */
  public static AuthorityKey parse(final String encoded) {
    final String frame = "authorityKey";
    if (!encoded.startsWith(PREFIX) || encoded.length() < PREFIX.length() + 2
        || encoded.charAt(PREFIX.length() + 1) != ':') {
      throw new WireFormatException(frame, WireError.INVALID_FIELD, "prefix", 0, quote(encoded), "zla1:a: or zla1:s:");
    }
    final char letter = encoded.charAt(PREFIX.length());
    final Kind kind = letter == 'a' ? Kind.ACTOR : letter == 's' ? Kind.SPOT : null;
    if (kind == null) {
      throw new WireFormatException(frame, WireError.INVALID_FIELD, "kind", PREFIX.length(), quote(String.valueOf(
          letter)), "a or s");
    }
    final int lengthAt = PREFIX.length() + 2;
    final int colon = encoded.indexOf(':', lengthAt);
    final String digits = colon < 0 ? "" : encoded.substring(lengthAt, colon);
    if (digits.isEmpty() || digits.length() > 3 || digits.charAt(0) == '0' || !digits.chars().allMatch(
        c -> c >= '0' && c <= '9')) {
      throw new WireFormatException(frame, WireError.INVALID_FIELD, "length", lengthAt, quote(digits),
          "decimal 1..255 without leading zeros, then ':'");
    }
    final int declared = Integer.parseInt(digits);
    final byte[] bytes = decodePercent(encoded, colon + 1, declared);
    return new AuthorityKey(kind, utf8(bytes, colon + 1));
  }

  private static byte[] decodePercent(final String s, final int start, final int declared) {
    final String frame = "authorityKey";
    if (declared > Rid.MAX_BYTES) {
      throw new WireFormatException(frame, WireError.INVALID_FIELD, "length", start, "value " + declared, "1..255");
    }
    final byte[] out = new byte[declared];
    int n = 0;
    int i = start;
    while (i < s.length()) {
      if (n == declared) {
        throw new WireFormatException(frame, WireError.TRAILING_BYTE, "id", i, "more than " + declared + " bytes",
            "exactly the declared length");
      }
      final char c = s.charAt(i);
      if (c == '%') {
        final int hi = i + 2 < s.length() ? hex(s.charAt(i + 1)) : -1;
        final int lo = i + 2 < s.length() ? hex(s.charAt(i + 2)) : -1;
        if (hi < 0 || lo < 0 || unreserved(hi << 4 | lo)) {
          throw new WireFormatException(frame, WireError.INVALID_FIELD, "id", i, quote(s.substring(i,
              Math.min(s.length(), i + 3))), "%XX with uppercase hex of a reserved byte");
        }
        out[n++] = (byte) (hi << 4 | lo);
        i += 3;
      } else if (c < 0x80 && unreserved(c)) {
        out[n++] = (byte) c;
        i++;
      } else {
        throw new WireFormatException(frame, WireError.INVALID_FIELD, "id", i, quote(String.valueOf(c)),
            "A-Z a-z 0-9 - . _ ~ or %XX");
      }
    }
    if (n != declared) {
      throw new WireFormatException(frame, WireError.TRUNCATED_FIELD, "id", s.length(), n + " bytes",
          declared + " bytes");
    }
    return out;
  }

  private static String utf8(final byte[] bytes, final int at) {
    for (byte b : bytes) {
      if (b == 0) {
        throw new WireFormatException("authorityKey", WireError.INVALID_FIELD, "id", at, "NUL byte",
            "UTF-8 without NUL");
      }
    }
    try {
      return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
    } catch (CharacterCodingException e) {
      throw new WireFormatException("authorityKey", WireError.INVALID_FIELD, "id", at, "malformed UTF-8",
          "well-formed UTF-8");
    }
  }

  private static int hex(final char c) {
    if (c >= '0' && c <= '9') {
      return c - '0';
    }
    return c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
  }

  private static boolean unreserved(final int v) {
    return v >= 'A' && v <= 'Z' || v >= 'a' && v <= 'z' || v >= '0' && v <= '9' || v == '-' || v == '.'
        || v == '_' || v == '~';
  }

  private static String quote(final String s) {
    return "\"" + (s.length() > 40 ? s.substring(0, 40) + "..." : s) + "\"";
  }
}
