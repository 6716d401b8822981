package dev.spotkit.core.internal;

import dev.spotkit.core.SpotkitException;
import java.nio.charset.StandardCharsets;
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
   * @throws SpotkitException.InvalidOperation when null, empty, over 255 UTF-8 bytes, or containing NUL.
   */
  public static String requireValid(final String what, final String value) {
    if (value == null) {
      throw new SpotkitException.InvalidOperation(what + " must not be null");
    }
    final int bytes = value.getBytes(StandardCharsets.UTF_8).length;
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

  private static String abbreviate(final String value) {
    return value.length() <= 40 ? value : value.substring(0, 40) + "...";
  }
}
