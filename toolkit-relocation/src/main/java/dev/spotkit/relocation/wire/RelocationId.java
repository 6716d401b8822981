package dev.spotkit.relocation.wire;

/**
 * The RelocationId of spec 001 section 3: a 128-bit value, on the wire two u64 big-endian (high, then low),
 * 16 bytes, not both zero (FACTS.md "Wire").
 *
 * @param high the high 64 bits, unsigned.
 * @param low the low 64 bits, unsigned.
 */
public record RelocationId(long high, long low) {

  /**
   * Validates.
   *
   * @throws IllegalArgumentException when both halves are zero.
   */
  public RelocationId {
    if (high == 0 && low == 0) {
      throw new IllegalArgumentException("relocationId must not be zero (both halves are 0)");
    }
  }

  void writeTo(final WireOut out) {
    out.u64(high);
    out.u64(low);
  }

  static RelocationId read(final WireIn in, final String field) {
    final int at = in.position();
    final long high = in.u64(field + ".high");
    final long low = in.u64(field + ".low");
    if (high == 0 && low == 0) {
      throw in.error(WireError.INVALID_FIELD, field, at, "value 0", "non-zero 128-bit id");
    }
    return new RelocationId(high, low);
  }
}
