package dev.spotkit.core.wire;

/**
 * A frame broke the wire format: the peer's fault, never the caller's (STYLE.md section 7 rule 8). Decoders
 * throw only this type for bad input; any other exception escaping a decoder is a bug. A receiver that gets
 * one closes the connection and logs the message, which names the frame, the field, the byte offset, the
 * offending value and the limit, for example
 * {@code userSpotClose: invalid-field target.targetNodeGeneration at offset 63: value 0, expected
 * 1..9223372036854775807}.
 *
 * <p>Caller misuse (building a record with a zero generation, a 300-byte id) is a different error:
 * {@link dev.spotkit.core.SpotkitException.InvalidOperation}, thrown by the record constructors.
 */
public final class WireFormatException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** Set once in the constructor. */
  private final WireError error;
  private final String field;
  private final int offset;
  private final String value;
  private final String limit;

  /**
   * Creates the error.
   *
   * @param frame name of the frame or section being decoded, e.g. {@code userSpotClose}.
   * @param error what is wrong.
   * @param field dotted field path, e.g. {@code target.bodyLength}.
   * @param offset zero-based byte offset in the frame where the field starts.
   * @param value the offending value as read, or a description such as {@code "needs 8 bytes, 3 left"}.
   * @param limit what was allowed, e.g. {@code "1..255"}; may be empty.
   */
  public WireFormatException(final String frame, final WireError error, final String field, final int offset,
      final String value, final String limit) {
    super(frame + ": " + error.code() + " " + field + " at offset " + offset + ": " + value
        + (limit.isEmpty() ? "" : ", expected " + limit));
    this.error = error;
    this.field = field;
    this.offset = offset;
    this.value = value;
    this.limit = limit;
  }

  /**
   * What is wrong.
   *
   * @return the error kind; {@link WireError#code()} matches the golden fixtures.
   */
  public WireError error() {
    return error;
  }

  /**
   * The field.
   *
   * @return dotted path such as {@code target.spot.spotId}.
   */
  public String field() {
    return field;
  }

  /**
   * Where the field starts.
   *
   * @return zero-based byte offset in the frame.
   */
  public int offset() {
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
