package dev.spotkit.core.session;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelPipeline;

/**
 * Text lines in UTF-8: the protocol you can drive with {@code nc}.
 *
 * <p>Inbound, a line ends with LF or CRLF and becomes a {@link String} frame without its ending.
 * Outbound, {@link Session#push(Object)} writes {@code String.valueOf(message) + "\n"} in UTF-8 (a message
 * containing LF therefore arrives as several lines; an unpaired surrogate is written as {@code '?'}).
 *
 * <p>Bad input is the peer's fault and never stops the server. A line over {@code maxLineBytes} is
 * discarded without being buffered ({@link LineTooLongException}); a line that is not strict UTF-8 is
 * skipped whole ({@link InvalidUtf8Exception}). Either way the peer gets one line back, such as
 * {@code error: line of 1048576 bytes exceeds maxLineBytes 8192}, and decoding resumes at the next
 * line; {@link SessionServerConfig#closeOnBadFrame()} chooses whether the session is then closed.
 *
 * <p>Pipeline, one job per handler: {@code line-framer} ({@link LineFrameDecoder}: bytes to line
 * buffers) then {@code utf8-decoder} ({@link Utf8LineDecoder}: line buffers to Strings). Immutable and
 * thread-safe; one instance serves every session of a listener.
 */
public final class LineCodec implements FrameCodec {

  /** Default limit of one line: 8 KiB, without the line ending. */
  public static final int DEFAULT_MAX_LINE_BYTES = 8 * 1024;

  /** Largest accepted {@code maxLineBytes}: 16 MiB. */
  public static final int MAX_LINE_BYTES_LIMIT = 16 * 1024 * 1024;

  private static final String ERROR_PREFIX = "error: ";

  private final int maxLineBytes;

  private LineCodec(final int maxLineBytes) {
    this.maxLineBytes = checkMaxLineBytes(maxLineBytes);
  }

  /**
   * UTF-8 lines of at most {@link #DEFAULT_MAX_LINE_BYTES}.
   *
   * @return the codec.
   */
  public static LineCodec utf8() {
    return new LineCodec(DEFAULT_MAX_LINE_BYTES);
  }

  /**
   * UTF-8 lines of at most {@code maxLineBytes}.
   *
   * @param maxLineBytes longest accepted line in bytes, without LF or CRLF; 1 to
   *     {@link #MAX_LINE_BYTES_LIMIT}.
   * @return the codec.
   * @throws IllegalArgumentException if {@code maxLineBytes} is out of range.
   */
  public static LineCodec utf8(final int maxLineBytes) {
    return new LineCodec(maxLineBytes);
  }

  /**
   * Longest accepted line.
   *
   * @return bytes, without the line ending.
   */
  public int maxLineBytes() {
    return maxLineBytes;
  }

  /** {@inheritDoc} */
  @Override
  public void install(final ChannelPipeline pipeline) {
    pipeline.addLast("line-framer", new LineFrameDecoder(maxLineBytes));
    pipeline.addLast("utf8-decoder", new Utf8LineDecoder());
  }

  /**
   * Encodes {@code String.valueOf(message) + "\n"} in UTF-8. Any thread.
   *
   * @param alloc allocator of the session's channel.
   * @param message any object; its {@code toString()} is the line.
   * @return a new buffer owned by the caller.
   */
  @Override
  public ByteBuf encode(final ByteBufAllocator alloc, final Object message) {
    final String line = String.valueOf(message);
    final ByteBuf buf = alloc.buffer(ByteBufUtil.utf8Bytes(line) + 1);
    ByteBufUtil.writeUtf8(buf, line);
    buf.writeByte('\n');
    return buf;
  }

  /**
   * {@code "error: " + error.getMessage()}, for example {@code error: invalid UTF-8 at byte 3 of a 10-byte
   * line}.
   *
   * @param error what was wrong.
   * @return the error line.
   */
  @Override
  public Object errorReply(final FrameDecodeException error) {
    return ERROR_PREFIX + error.getMessage();
  }

  /**
   * {@code "error: " + reason}, for example {@code error: push of 5000000 bytes exceeds maxOutboundBytes 4194304}.
   *
   * @param reason what was refused.
   * @return the error line.
   */
  @Override
  public Object pushRefusedReply(final String reason) {
    return ERROR_PREFIX + reason;
  }

  /**
   * {@code "error: " + reason}, for example {@code error: your session's actor was lost with its node; reconnect}.
   *
   * @param reason why the session ends.
   * @return the error line.
   */
  @Override
  public Object closingReply(final String reason) {
    return ERROR_PREFIX + reason;
  }

  @Override
  public String toString() {
    return "LineCodec.utf8(" + maxLineBytes + ")";
  }

  static int checkMaxLineBytes(final int maxLineBytes) {
    if (maxLineBytes < 1 || maxLineBytes > MAX_LINE_BYTES_LIMIT) {
      throw new IllegalArgumentException("maxLineBytes " + maxLineBytes + " must be between 1 and "
          + MAX_LINE_BYTES_LIMIT + "; LineCodec.utf8() uses " + DEFAULT_MAX_LINE_BYTES);
    }
    return maxLineBytes;
  }
}
