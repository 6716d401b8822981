package dev.spotkit.core.session;

/**
 * A line was not well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing above
 * U+10FFFF, no truncated sequence). The line was skipped whole; decoding resumed at the next line.
 *
 * <p>Message: {@code "invalid UTF-8 at byte 3 of a 10-byte line"}.
 */
public final class InvalidUtf8Exception extends FrameDecodeException {

  private static final long serialVersionUID = 1L;

  private final int offset;
  private final int lineBytes;

  /**
   * Creates the error.
   *
   * @param offset of the first byte of the malformed sequence, from the start of the line.
   * @param lineBytes length of the line in bytes, without its line ending.
   */
  public InvalidUtf8Exception(final int offset, final int lineBytes) {
    super("invalid UTF-8 at byte " + offset + " of a " + lineBytes + "-byte line");
    this.offset = offset;
    this.lineBytes = lineBytes;
  }

  /**
   * Where the malformed sequence starts.
   *
   * @return byte offset from the start of the line, 0-based.
   */
  public int offset() {
    return offset;
  }

  /**
   * Length of the rejected line.
   *
   * @return bytes, without the line ending.
   */
  public int lineBytes() {
    return lineBytes;
  }
}
