package dev.spotkit.core.wire;

import dev.spotkit.relocation.wire.WireIn;
import dev.spotkit.relocation.wire.WireOut;

/**
 * {@code spot-ref} on the wire: the Spot id (text8) and its ObjectGeneration (nonzero-u64).
 *
 * @param spotId UTF-8, 1..255 bytes, no NUL.
 * @param objectGeneration 1..2^63-1.
 */
public record WireSpotRef(String spotId, long objectGeneration) {

  /**
   * Validates the values.
   *
   * @throws dev.spotkit.core.SpotkitException.InvalidOperation naming the bad field.
   */
  public WireSpotRef {
    Checks.RULES.text8("spotId", spotId);
    Checks.RULES.positive("objectGeneration", objectGeneration);
  }

  static WireSpotRef read(final WireIn in, final String field) {
    final String id = in.text8(field + ".spotId");
    final long generation = in.nonZeroU64(field + ".objectGeneration");
    return new WireSpotRef(id, generation);
  }

  void writeTo(final WireOut out) {
    out.text8(spotId);
    out.u64(objectGeneration);
  }
}
