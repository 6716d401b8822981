package dev.spotkit.relocation.wire;

/**
 * Framework bytes were refused: the peer's fault, never the caller's (STYLE.md section 7 rule 8). Every decoder
 * of this package and of toolkit-core's framework commands throws only this type for bad input, and the
 * {@link ChunkAssembler} reports assembly failures with it; any other exception escaping a decoder is a bug. The
 * message names the frame or stream, the error code, the field, the byte offset, the offending value and the
 * limit, for example {@code relocationState: invalid-field targetAttemptGeneration at offset 21: value 0, expected
 * 1..9223372036854775807}.
 *
 * <p>A receiver that gets one from a frame decoder closes the connection (spec 001 section 2, "Transport
 * validates frame shape"); one from the assembler ends the relocation with command 53 (spec 001 section 4.3).
 * Caller misuse (building a record with a zero generation, a 300-byte id) is a different error, thrown by the
 * record constructors: {@link IllegalArgumentException} here, {@code SpotkitException.InvalidOperation} for
 * toolkit-core's records. No stack trace is kept: the message says everything, and the assembler makes these as
 * values.
 */
public final class WireFormatException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** What is wrong; set once. */
  private final WireError error;
  /** Dotted field path; set once. */
  private final String field;
  /** Byte offset; set once. */
  private final long offset;
  /** The offending value; set once. */
  private final String value;
  /** The limit it broke; set once. */
  private final String limit;

  /**
   * Creates the error.
   *
   * @param source what was being read, e.g. {@code relocationState}, {@code relocationEnvelope},
   *     {@code userSpotClose} or {@code assembly}.
   * @param error what is wrong.
   * @param field dotted field path, e.g. {@code object.length} or {@code chunkOrdinal}.
   * @param offset zero-based byte offset in the frame or stream where the field starts; -1 when no byte position
   *     applies (assembly errors about a chunk as a whole).
   * @param value the offending value or a description such as {@code "needs 8 bytes, 3 left"}.
   * @param limit what was allowed, e.g. {@code "1..255"}; may be empty.
   */
  public WireFormatException(final String source, final WireError error, final String field,
      final long offset, final String value, final String limit) {
    super(source + ": " + error.code() + " " + field + " at offset " + offset + ": " + value
        + (limit.isEmpty() ? "" : ", expected " + limit), null, false, false);
    this.error = error;
    this.field = field;
    this.offset = offset;
    this.value = value;
    this.limit = limit;
  }

  /**
   * What is wrong.
   *
   * @return the error; {@link WireError#code()} matches the golden fixtures.
   */
  public WireError error() {
    return error;
  }

  /**
   * The field.
   *
   * @return a dotted path such as {@code savedWork[0].record.source.length}.
   */
  public String field() {
    return field;
  }

  /**
   * Where the field starts.
   *
   * @return zero-based byte offset in the frame or stream, or -1 when none applies.
   */
  public long offset() {
    return offset;
  }

  /**
   * The offending value.
   *
   * @return the value as read, or a description of the shortfall.
   */
  public String value() {
    return value;
  }

  /**
   * The limit the value broke.
   *
   * @return for example {@code 1..255}; empty when there is no numeric limit.
   */
  public String limit() {
    return limit;
  }
}
