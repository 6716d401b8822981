package dev.spotkit.core.session;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;

/**
 * Framing only: cuts the byte stream into lines at LF, dropping the LF and a CR right before it. Decoding
 * the bytes of a line is the next handler's job ({@link Utf8LineDecoder}).
 *
 * <p>Output per line, in order:
 * <pre>
 *   in:  "hi\r\n" "\n" "a\rb\n" [8193 x 'x'] "\n" "ok\n"        (maxLineBytes 8192)
 *   out: "hi"     ""   "a\rb"   BadFrame(LineTooLongException: line of 8193 bytes exceeds maxLineBytes 8192)   "ok"
 * </pre>
 * A lone CR inside a line is data. {@code maxLineBytes} counts the bytes of a line without its LF or CRLF.
 *
 * <p>Over-long line: once more than {@code maxLineBytes + 1} bytes (the +1 leaves room for the CR of a
 * CRLF) arrive without an LF, the decoder switches to discarding: it skips every byte up to and including
 * the next LF without keeping them, so a 1 MiB line costs at most {@code maxLineBytes + 1} buffered bytes.
 * At that LF it emits one {@link BadFrame} carrying the full length and decoding resumes. Nothing is
 * thrown, so the lines after a bad one in the same read are decoded at once.
 *
 * <p>An unterminated last line ends with the input: when the client shuts down its write side or the connection
 * ends, the bytes after the last LF are one more line (a trailing CR dropped), or a {@link BadFrame} when too long,
 * so {@code printf 'last words' | nc host port} is answered like a terminated line.
 *
 * <p>Ownership: the {@code in} cumulation belongs to {@link ByteToMessageDecoder}. Each frame added to
 * {@code out} is a retained slice: the next handler owns one reference and must release it.
 *
 * <p>Per-connection state in fields: never {@code @Sharable}; {@link LineCodec#install} creates one per
 * channel.
 */
final class LineFrameDecoder extends ByteToMessageDecoder {

  private static final byte LF = '\n';
  private static final byte CR = '\r';

  private final int maxLineBytes;

  /** Bytes after the reader index already searched for an LF (so a slow long line is scanned once). */
  private int scanned;

  /** True from the moment a line is known to be too long until its LF. */
  private boolean discarding;

  /** While discarding: bytes of the over-long line skipped so far. */
  private long discardedBytes;

  /** While discarding: whether the last byte skipped was a CR (it may belong to the line's CRLF). */
  private boolean discardedEndsWithCr;

  LineFrameDecoder(final int maxLineBytes) {
    this.maxLineBytes = LineCodec.checkMaxLineBytes(maxLineBytes);
  }

  /**
   * Emits at most one line or one {@link BadFrame}, or skips discarded bytes; the base class calls it
   * again while it makes progress.
   *
   * @param ctx of this handler.
   * @param in the cumulation; owned by the base class, only read here.
   * @param out receives retained slices (owned by the next handler) and {@link BadFrame}s.
   */
  @Override
  protected void decode(final ChannelHandlerContext ctx, final ByteBuf in, final List<Object> out) {
    if (discarding) {
      discard(in, out);
      return;
    }
    final int start = in.readerIndex();
    final int lf = in.indexOf(start + scanned, in.writerIndex(), LF);
    if (lf < 0) {
      scanned = in.readableBytes();
      if (scanned > maxLineBytes + 1) {
        discarding = true;
        scanned = 0;
        discard(in, out);
      }
      return;
    }
    scanned = 0;
    final int length = lf - start;
    final int lineBytes = length > 0 && in.getByte(lf - 1) == CR ? length - 1 : length;
    if (lineBytes > maxLineBytes) {
      in.skipBytes(length + 1);
      out.add(new BadFrame(new LineTooLongException(lineBytes, maxLineBytes)));
      return;
    }
    // Hand-off: the retained slice is owned by the next handler (Utf8LineDecoder releases it).
    out.add(in.readRetainedSlice(lineBytes));
    in.skipBytes(length - lineBytes + 1);
  }

  /**
   * The input ended (the client's write side shut down, or the connection closed): after every terminated line was
   * decoded, what is left without an LF is the last line, or the end of an over-long one.
   *
   * @param ctx of this handler.
   * @param in the cumulation; owned by the base class.
   * @param out receives at most one retained slice or one {@link BadFrame}.
   */
  @Override
  protected void decodeLast(final ChannelHandlerContext ctx, final ByteBuf in, final List<Object> out) {
    scanned = 0;
    final int length = in.readableBytes();
    if (discarding) {
      final boolean endsWithCr = length > 0 ? in.getByte(in.writerIndex() - 1) == CR : discardedEndsWithCr;
      final long lineBytes = discardedBytes + length - (endsWithCr ? 1 : 0);
      in.skipBytes(length);
      discarding = false;
      discardedBytes = 0;
      discardedEndsWithCr = false;
      out.add(new BadFrame(new LineTooLongException(lineBytes, maxLineBytes)));
      return;
    }
    if (length == 0) {
      return;
    }
    final int lineBytes = in.getByte(in.writerIndex() - 1) == CR ? length - 1 : length;
    if (lineBytes > maxLineBytes) {
      in.skipBytes(length);
      out.add(new BadFrame(new LineTooLongException(lineBytes, maxLineBytes)));
      return;
    }
    out.add(in.readRetainedSlice(lineBytes));
    in.skipBytes(length - lineBytes);
  }

  /** Bytes held in the cumulation, for tests of the memory bound. Event loop only. */
  int bufferedBytes() {
    return actualReadableBytes();
  }

  /** Skips bytes of an over-long line; at its LF emits the BadFrame and leaves discarding mode. */
  private void discard(final ByteBuf in, final List<Object> out) {
    final int start = in.readerIndex();
    final int lf = in.indexOf(start, in.writerIndex(), LF);
    if (lf < 0) {
      final int skipped = in.readableBytes();
      if (skipped > 0) {
        discardedEndsWithCr = in.getByte(in.writerIndex() - 1) == CR;
        discardedBytes += skipped;
        in.skipBytes(skipped);
      }
      return;
    }
    final int skipped = lf - start;
    final boolean endsWithCr = skipped > 0 ? in.getByte(lf - 1) == CR : discardedEndsWithCr;
    final long lineBytes = discardedBytes + skipped - (endsWithCr ? 1 : 0);
    in.skipBytes(skipped + 1);
    discarding = false;
    discardedBytes = 0;
    discardedEndsWithCr = false;
    out.add(new BadFrame(new LineTooLongException(lineBytes, maxLineBytes)));
  }
}
