package dev.spotkit.core.location;

import dev.spotkit.store.StoreBytes;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * The framework-internal payload of a member Actor's authority row that points at its SpotWide User Spot's aggregate
 * authority instead of publishing an owner of its own (spec 000 section 7: "a per-Actor membership record points at
 * that aggregate and doesn't publish owner one at a time during relocation").
 *
 * <p>Encoding: the UTF-8 bytes of {@code "\0aggregate\0" + SpotId}. A plain membership payload is the SpotId alone;
 * since no id contains a 0x00 byte, the leading 0x00 tells the two apart. A row with this payload keeps its own
 * ObjectGeneration, stable type, state and capacity bundle; its owner, LeaseGeneration, AuthorityOwnerGeneration and
 * allocation node are those of {@link LocationKeys#aggregate} ({@link AggregateAuthority#effective}). Thread-safety:
 * stateless.
 */
public final class AggregatePointer {
  private static final String PREFIX = "\0aggregate\0";

  private AggregatePointer() {
  }

  /**
   * The payload of a member row that follows the aggregate of {@code spotId}.
   *
   * @param spotId the SpotWide User Spot, without a 0x00 byte.
   * @return the payload bytes.
   * @throws IllegalArgumentException when the id contains 0x00.
   */
  public static StoreBytes payload(final String spotId) {
    if (spotId.indexOf('\0') >= 0) {
      throw new IllegalArgumentException("SpotId '" + spotId.replace("\0", "\\0") + "' contains a NUL byte");
    }
    return StoreBytes.utf8(PREFIX + spotId);
  }

  /**
   * The SpotId whose aggregate a row follows.
   *
   * @param payload a row's framework-internal payload.
   * @return the SpotId, or empty for a row that names its own owner.
   */
  public static Optional<String> spotOf(final StoreBytes payload) {
    if (payload.size() <= PREFIX.length()) {
      return Optional.empty();
    }
    final String text = new String(payload.toByteArray(), StandardCharsets.UTF_8);
    return text.startsWith(PREFIX) ? Optional.of(text.substring(PREFIX.length())) : Optional.empty();
  }

  /**
   * The membership a payload names, whether plain or a pointer.
   *
   * @param payload a row's framework-internal payload.
   * @return the SpotId, or null when the payload is empty.
   */
  public static String membershipOf(final StoreBytes payload) {
    if (payload.size() == 0) {
      return null;
    }
    return spotOf(payload).orElseGet(payload::asUtf8);
  }
}
