package dev.spotkit.core.session;

/**
 * A line was longer than the codec's {@code maxLineBytes}. The decoder discarded it without buffering it
 * (memory stays bounded by the limit) and resumed at the next line.
 *
 * <p>Message: {@code "line of 1048576 bytes exceeds maxLineBytes 8192"}.
 */
public final class LineTooLongException extends FrameDecodeException {

  private static final long serialVersionUID = 1L;

  private final long lineBytes;
  private final int maxLineBytes;

  /**
   * Creates the error.
   *
   * @param lineBytes length of the rejected line in bytes, without its LF or CRLF.
   * @param maxLineBytes limit the line exceeded.
   */
  public LineTooLongException(final long lineBytes, final int maxLineBytes) {
    super("line of " + lineBytes + " bytes exceeds maxLineBytes " + maxLineBytes);
    this.lineBytes = lineBytes;
    this.maxLineBytes = maxLineBytes;
  }

  /**
   * Length of the rejected line.
   *
   * @return bytes, without the line ending.
   */
  public long lineBytes() {
    return lineBytes;
  }

  /**
   * Limit the line exceeded.
   *
   * @return the codec's maxLineBytes.
   */
  public int maxLineBytes() {
    return maxLineBytes;
  }
}
