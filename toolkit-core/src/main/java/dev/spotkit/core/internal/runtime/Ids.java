package dev.spotkit.core.internal.runtime;

import dev.spotkit.core.SpotkitException;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.UUID;
import java.util.regex.Pattern;

/** Id rules of FACTS.md "Identity and execution": UTF-8 1..255 bytes, no NUL; framework-issued id shapes. */
public final class Ids {

  /** Longest id in UTF-8 bytes. */
  public static final int MAX_ID_BYTES = 255;

  private static final Pattern ENTRY_ID =
      Pattern.compile(".*-entry-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");

  private Ids() {
  }

  /**
   * Checks an id, MeshName or stable type.
   *
   * @param what the name used in the message, e.g. "ActorId".
   * @param value the text.
   * @return {@code value}.
   * @throws SpotkitException.InvalidOperation when null, not encodable as UTF-8 (a lone surrogate), empty,
   *     over 255 UTF-8 bytes, or containing NUL.
   */
  public static String requireValid(final String what, final String value) {
    if (value == null) {
      throw new SpotkitException.InvalidOperation(what + " must not be null");
    }
    final int bytes = utf8Length(what, value);
    if (bytes == 0 || bytes > MAX_ID_BYTES) {
      throw new SpotkitException.InvalidOperation(what + " '" + abbreviate(value) + "' is " + bytes
          + " UTF-8 bytes; it must be 1.." + MAX_ID_BYTES + " bytes");
    }
    final int nul = value.indexOf('\0');
    if (nul >= 0) {
      throw new SpotkitException.InvalidOperation(what + " '" + abbreviate(value.replace('\0', '?'))
          + "' contains a NUL byte at index " + nul + "; ids must not contain NUL");
    }
    return value;
  }

  /**
   * Checks a caller-supplied SpotId: valid, and not shaped like a framework-issued Entry Spot id.
   *
   * @param value the id.
   * @return {@code value}.
   * @throws SpotkitException.InvalidOperation otherwise.
   */
  public static String requireCallerSpotId(final String value) {
    requireValid("SpotId", value);
    if (isEntryShaped(value)) {
      throw new SpotkitException.InvalidOperation("SpotId '" + value + "' has the shape of an Entry Spot id"
          + " (<prefix>-entry-<uuid v4>), which only the framework issues; choose another id");
    }
    return value;
  }

  /**
   * Whether {@code id} looks like {@code <prefix>-entry-<uuid v4>}.
   *
   * @param id the id.
   * @return true when it does.
   */
  public static boolean isEntryShaped(final String id) {
    return ENTRY_ID.matcher(id).matches();
  }

  /**
   * A framework-issued id: a lowercase random UUID v4.
   *
   * @return the id.
   */
  public static String newUuid() {
    return UUID.randomUUID().toString();
  }

  /**
   * The Entry Spot id {@code <prefix>-entry-<uuid v4>}.
   *
   * @param prefix the MeshName.
   * @return the id.
   */
  public static String newEntryId(final String prefix) {
    final String suffix = "-entry-" + newUuid();
    final int room = MAX_ID_BYTES - suffix.length();
    final byte[] bytes = prefix.getBytes(StandardCharsets.UTF_8);
    String p = prefix;
    if (bytes.length > room) {
      p = new String(bytes, 0, room, StandardCharsets.UTF_8).replace("\uFFFD", "");
    }
    return p + suffix;
  }

  /**
   * The UTF-8 length of {@code value}, counted without encoding. Text with surrogates is checked with a strict
   * encoder ({@link CodingErrorAction#REPORT}): {@code getBytes} would silently turn a lone surrogate into
   * {@code '?'}, so two different ids could map to the same bytes.
   */
  private static int utf8Length(final String what, final String value) {
    int bytes = 0;
    boolean surrogates = false;
    for (int i = 0; i < value.length(); i++) {
      final char c = value.charAt(i);
      if (c < 0x80) {
        bytes += 1;
      } else if (c < 0x800) {
        bytes += 2;
      } else if (Character.isSurrogate(c)) {
        surrogates = true;
        bytes += 2; // a valid pair is 4 bytes: 2 per char
      } else {
        bytes += 3;
      }
    }
    if (surrogates) {
      final CharsetEncoder strict = StandardCharsets.UTF_8.newEncoder()
          .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
      final CharBuffer in = CharBuffer.wrap(value);
      try {
        strict.encode(in);
      } catch (CharacterCodingException e) {
        final int at = in.position();
        throw new SpotkitException.InvalidOperation(what + " '" + abbreviate(printable(value)) + "' is not valid"
            + " Unicode: lone surrogate U+" + Integer.toHexString(value.charAt(at)).toUpperCase(Locale.ROOT)
            + " at index " + at + " cannot be encoded as UTF-8; ids must be well-formed UTF-16 text");
      }
    }
    return bytes;
  }

  /** {@code value} with surrogates and control characters shown as '?', for messages. */
  private static String printable(final String value) {
    final StringBuilder out = new StringBuilder(value.length());
    for (int i = 0; i < value.length(); i++) {
      final char c = value.charAt(i);
      out.append(Character.isSurrogate(c) || Character.isISOControl(c) ? '?' : c);
    }
    return out.toString();
  }

  private static String abbreviate(final String value) {
    return value.length() <= 40 ? value : value.substring(0, 40) + "...";
  }
}
