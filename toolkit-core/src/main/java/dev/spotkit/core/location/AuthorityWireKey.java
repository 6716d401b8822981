package dev.spotkit.core.location;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The wire form of an authority key (golden {@code authority-key-v1}): {@code zla1:} then {@code a} (actor) or
 * {@code s} (any Spot kind), {@code :}, the id's UTF-8 byte length in decimal, {@code :}, and the id's bytes
 * percent-encoded: RFC 3986 unreserved bytes ({@code A-Z a-z 0-9 - . _ ~}) as-is, every other byte as
 * {@code %XX} with uppercase hex. No normalisation or case folding: {@code user:42} and {@code User:42} differ.
 *
 * @param kind actor or spot.
 * @param id the id, compared byte for byte.
 */
public record AuthorityWireKey(AuthorityKind kind, String id) {
  private static final String PREFIX = "zla1:";
  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  /**
   * Encodes the key.
   *
   * @return e.g. {@code zla1:a:7:user%3A42}.
   */
  public String encode() {
    final byte[] bytes = id.getBytes(StandardCharsets.UTF_8);
    final StringBuilder out = new StringBuilder(PREFIX).append(kind.wireTag()).append(':').append(bytes.length)
        .append(':');
    for (byte b : bytes) {
      final int c = b & 0xff;
      if (c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.'
          || c == '_' || c == '~') {
        out.append((char) c);
      } else {
        out.append('%').append(HEX[c >>> 4]).append(HEX[c & 0xf]);
      }
    }
    return out.toString();
  }

  /**
   * Decodes a wire key strictly: the canonical form only (uppercase hex, unreserved bytes never escaped, the
   * length matching, valid UTF-8).
   *
   * @param wire the encoded key.
   * @return the key.
   * @throws IllegalArgumentException naming what is wrong.
   */
  public static AuthorityWireKey decode(final String wire) {
    if (!wire.startsWith(PREFIX) || wire.length() < PREFIX.length() + 4 || wire.charAt(PREFIX.length() + 1) != ':') {
      throw bad(wire, "does not start with zla1:a: or zla1:s:");
    }
    final AuthorityKind kind = switch (wire.charAt(PREFIX.length())) {
      case 'a' -> AuthorityKind.ACTOR;
      case 's' -> AuthorityKind.SPOT;
      default -> throw bad(wire, "has an unknown kind tag");
    };
    final int lengthStart = PREFIX.length() + 2;
    final int colon = wire.indexOf(':', lengthStart);
    if (colon < 0 || !wire.substring(lengthStart, colon).matches("0|[1-9][0-9]{0,5}")) {
      throw bad(wire, "has no canonical decimal length");
    }
    final int length = Integer.parseInt(wire.substring(lengthStart, colon));
    final byte[] bytes = new byte[wire.length()];
    int n = 0;
    for (int i = colon + 1; i < wire.length(); i++) {
      final char c = wire.charAt(i);
      if (c == '%') {
        if (i + 2 >= wire.length()) {
          throw bad(wire, "ends inside a %XX escape");
        }
        final int hi = Arrays.binarySearch(HEX, wire.charAt(i + 1));
        final int lo = Arrays.binarySearch(HEX, wire.charAt(i + 2));
        if (hi < 0 || lo < 0) {
          throw bad(wire, "has a %XX escape that is not uppercase hex");
        }
        bytes[n++] = (byte) (hi << 4 | lo);
        i += 2;
      } else {
        bytes[n++] = (byte) c;
      }
    }
    final AuthorityWireKey key;
    try {
      key = new AuthorityWireKey(kind, StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes, 0, n)).toString());
    } catch (CharacterCodingException e) {
      throw bad(wire, "is not UTF-8 once decoded");
    }
    if (n != length || !key.encode().equals(wire)) {
      throw bad(wire, n != length ? "declares " + length + " bytes but carries " + n : "is not in canonical form");
    }
    return key;
  }

  private static IllegalArgumentException bad(final String wire, final String why) {
    return new IllegalArgumentException("authority wire key '" + wire + "' " + why);
  }
}
