package dev.spotkit.relocation;

/**
 * A non-zero 128-bit relocation id (spec 002 section 8.1), as two unsigned 64-bit halves (the wire's u64 high,
 * u64 low).
 *
 * @param high the high 64 bits.
 * @param low the low 64 bits.
 */
public record RelocationId(long high, long low) {
  /**
   * Validates the id.
   *
   * @throws IllegalArgumentException when both halves are zero.
   */
  public RelocationId {
    if (high == 0 && low == 0) {
      throw new IllegalArgumentException("RelocationId must be non-zero (spec 002 section 8.1)");
    }
  }
}
