package dev.spotkit.relocation.wire;

/**
 * The OperationId a frozen record keeps (spec 001 section 4.2): two u64 big-endian (high, then low), 16 bytes,
 * not both zero (FACTS.md "Wire").
 *
 * @param high the high 64 bits, unsigned.
 * @param low the low 64 bits, unsigned.
 */
public record OperationId(long high, long low) {

  /**
   * Validates.
   *
   * @throws IllegalArgumentException when both halves are zero.
   */
  public OperationId {
    if (high == 0 && low == 0) {
      throw new IllegalArgumentException("operationId must not be zero (both halves are 0)");
    }
  }

  /**
   * Writes high, then low.
   *
   * @param out the writer.
   */
  public void writeTo(final WireOut out) {
    out.u64(high);
    out.u64(low);
  }

  /**
   * Reads two u64 (high, low), not both zero.
   *
   * @param in the reader.
   * @param field the field name.
   * @return the id.
   * @throws WireFormatException invalid-field when both halves are zero, truncated-field when short.
   */
  public static OperationId read(final WireIn in, final String field) {
    final int at = in.position();
    final long high = in.u64(field + ".high");
    final long low = in.u64(field + ".low");
    if (high == 0 && low == 0) {
      throw in.error(WireError.INVALID_FIELD, field, at, "value 0", "non-zero 128-bit id");
    }
    return new OperationId(high, low);
  }
}
