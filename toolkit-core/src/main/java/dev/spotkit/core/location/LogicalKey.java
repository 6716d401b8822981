package dev.spotkit.core.location;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;

/**
 * A logical key of spec 002 section 3.4: UTF-8 parts joined by a 0x00 byte (or a counter's fixed name). It is
 * the key the framework hands to the Location Store; a Redis provider stores it under
 * {@code {prefix}:{zlink-location-v3}:opaque:} followed by {@link #sha256Hex()}.
 *
 * @param preimage the joined parts, e.g. {@code "owner-lease\0owner-a"}.
 */
public record LogicalKey(String preimage) {

  /**
   * Checks for null.
   *
   * @throws NullPointerException when null.
   */
  public LogicalKey {
    Objects.requireNonNull(preimage, "preimage");
  }

  /**
   * Joins parts with 0x00; no part may contain 0x00 (only the separators fix the boundaries).
   *
   * @param parts the parts, in order.
   * @return the key.
   * @throws IllegalArgumentException when a part contains a 0x00 character.
   */
  public static LogicalKey of(final String... parts) {
    for (String part : parts) {
      if (part.indexOf('\0') >= 0) {
        throw new IllegalArgumentException("logical key part '" + part.replace("\0", "\\0")
            + "' contains a NUL byte, which separates the parts; ids, names and channels never contain one");
      }
    }
    return new LogicalKey(String.join("\0", List.of(parts)));
  }

  /**
   * The preimage's UTF-8 bytes.
   *
   * @return a fresh array.
   */
  public byte[] preimageBytes() {
    return preimage.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Lowercase hex of SHA-256 of the preimage bytes: the last segment of the Redis key.
   *
   * @return 64 hex characters.
   */
  public String sha256Hex() {
    return Sha256.hex(preimageBytes());
  }

  @Override
  public String toString() {
    return dev.spotkit.store.StoreLimits.escape(preimage);
  }
}
