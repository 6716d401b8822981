package dev.spotkit.relocation.wire;

/**
 * Relocation bytes were refused: the peer's fault, never the caller's (STYLE.md section 7 rule 8). Every decoder
 * of this package throws only this type for bad input, and the {@link ChunkAssembler} reports assembly failures
 * with it; any other exception escaping a decoder is a bug. The message names the frame or stream, the error
 * code, the field, the byte offset, the offending value and the limit, for example
 * {@code relocationState: invalid-field targetAttemptGeneration at offset 21: value 0, expected
 * 1..9223372036854775807}.
 *
 * <p>A receiver that gets one from a frame decoder closes the connection (spec 001 section 2, "Transport
 * validates frame shape"); one from the assembler ends the relocation with command 53 (spec 001 section 4.3).
 * Caller misuse (building a record with a zero generation) is {@link IllegalArgumentException} instead.
 */
public final class RelocationWireException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** What is wrong; set once. */
  private final RelocationWireError error;
  /** Dotted field path; set once. */
  private final String field;
  /** Byte offset; set once. */
  private final long offset;

  /**
   * Creates the error.
   *
   * @param source what was being read, e.g. {@code relocationState}, {@code relocationEnvelope} or
   *     {@code assembly}.
   * @param error what is wrong.
   * @param field dotted field path, e.g. {@code object.length} or {@code chunkOrdinal}.
   * @param offset zero-based byte offset in the frame or stream where the field starts; -1 when no byte position
   *     applies (assembly errors about a chunk as a whole).
   * @param value the offending value or a description such as {@code "needs 8 bytes, 3 left"}.
   * @param limit what was allowed, e.g. {@code "1..255"}; may be empty.
   */
  public RelocationWireException(final String source, final RelocationWireError error, final String field,
      final long offset, final String value, final String limit) {
    super(source + ": " + error.code() + " " + field + " at offset " + offset + ": " + value
        + (limit.isEmpty() ? "" : ", expected " + limit), null, false, false);
    this.error = error;
    this.field = field;
    this.offset = offset;
  }

  /**
   * What is wrong.
   *
   * @return the error; {@link RelocationWireError#code()} matches the golden fixtures.
   */
  public RelocationWireError error() {
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
}
