package dev.spotkit.core.session;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageDecoder;
import io.netty.util.ByteProcessor;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Decoding only: turns one framed line ({@link LineFrameDecoder}'s output) into a {@link String} with
 * strict UTF-8 (RFC 3629: overlong forms, surrogates, code points above U+10FFFF and truncated sequences
 * are rejected, never replaced). A malformed line becomes a {@link BadFrame} carrying an
 * {@link InvalidUtf8Exception} with the byte offset; the next line decodes normally. {@link BadFrame}s
 * from the framer pass through unchanged.
 *
 * <p>Ownership: {@link MessageToMessageDecoder} releases each input line after {@link #decode} returns;
 * the output is a String (or a BadFrame), not reference counted.
 *
 * <p>Holds a {@link CharsetDecoder} (stateful): never {@code @Sharable}.
 */
final class Utf8LineDecoder extends MessageToMessageDecoder<ByteBuf> {

  /** Stops at the first byte that is not 7-bit ASCII. */
  private static final ByteProcessor ASCII = value -> value >= 0;

  private final CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
      .onMalformedInput(CodingErrorAction.REPORT)
      .onUnmappableCharacter(CodingErrorAction.REPORT);

  Utf8LineDecoder() {
    super(ByteBuf.class);
  }

  /**
   * Decodes one line.
   *
   * @param ctx of this handler.
   * @param line one line without its ending; released by the base class after this returns.
   * @param out receives the String or a BadFrame.
   */
  @Override
  protected void decode(final ChannelHandlerContext ctx, final ByteBuf line, final List<Object> out) {
    final int length = line.readableBytes();
    if (line.forEachByte(ASCII) < 0) {
      out.add(line.toString(StandardCharsets.US_ASCII));
      return;
    }
    final ByteBuffer bytes = line.nioBuffer();
    final int start = bytes.position();
    final CharBuffer chars = CharBuffer.allocate(length);
    utf8.reset();
    CoderResult result = utf8.decode(bytes, chars, true);
    if (!result.isError()) {
      result = utf8.flush(chars);
    }
    if (result.isError()) {
      out.add(new BadFrame(new InvalidUtf8Exception(bytes.position() - start, length)));
      return;
    }
    out.add(chars.flip().toString());
  }
}
