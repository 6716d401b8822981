package dev.spotkit.core.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link LineCodec} driven through an {@link EmbeddedChannel}: framing, strict UTF-8, bad frame then good
 * frame, and buffer ownership (every inbound buffer written is released by the decoders; the test
 * releases every buffer it reads; leak detection is paranoid in surefire).
 */
class LineCodecTest {

  private static final int MAX = 16;

  private final EmbeddedChannel channel = newChannel(MAX);

  private static EmbeddedChannel newChannel(final int maxLineBytes) {
    final EmbeddedChannel ch = new EmbeddedChannel();
    LineCodec.utf8(maxLineBytes).install(ch.pipeline());
    return ch;
  }

  @AfterEach
  void finish() {
    assertThat(channel.finishAndReleaseAll()).as("no unread inbound or outbound messages").isFalse();
  }

  private static ByteBuf bytes(final String s) {
    return Unpooled.copiedBuffer(s, StandardCharsets.UTF_8);
  }

  private static ByteBuf bytes(final int... b) {
    final byte[] a = new byte[b.length];
    for (int i = 0; i < b.length; i++) {
      a[i] = (byte) b[i];
    }
    return Unpooled.wrappedBuffer(a);
  }

  /** Reads every inbound message; all are Strings or BadFrames (nothing reference counted escapes). */
  private List<Object> readAll() {
    final List<Object> out = new ArrayList<>();
    for (int i = 0; i < 100_000; i++) {
      final Object msg = channel.readInbound();
      if (msg == null) {
        return out;
      }
      assertThat(msg).isInstanceOfAny(String.class, BadFrame.class);
      out.add(msg);
    }
    throw new AssertionError("more than 100000 inbound messages");
  }

  private static String error(final Object badFrame) {
    assertThat(badFrame).isInstanceOf(BadFrame.class);
    return ((BadFrame) badFrame).error().getMessage();
  }

  @Test
  void lfAndCrlfEndLinesAndALoneCrIsData() {
    channel.writeInbound(bytes("hi\r\n\nplain\na\rb\n\r\n"));
    assertThat(readAll()).containsExactly("hi", "", "plain", "a\rb", "");
  }

  @Test
  void unterminatedTextWaitsForItsLf() {
    channel.writeInbound(bytes("no end yet"));
    assertThat(readAll()).isEmpty();
    channel.writeInbound(bytes("\n"));
    assertThat(readAll()).containsExactly("no end yet");
  }

  @Test
  void anUnterminatedLastLineIsALineWhenTheInputEnds() {
    channel.writeInbound(bytes("one\nlast words\r"));
    assertThat(readAll()).containsExactly("one");
    channel.pipeline().fireUserEventTriggered(io.netty.channel.socket.ChannelInputShutdownEvent.INSTANCE);
    assertThat(readAll()).containsExactly("last words");
  }

  @Test
  void anOverLongUnterminatedLastLineIsABadFrameWhenTheInputEnds() {
    channel.writeInbound(bytes("z".repeat(MAX + 5)));
    channel.pipeline().fireUserEventTriggered(io.netty.channel.socket.ChannelInputShutdownEvent.INSTANCE);
    final List<Object> out = readAll();
    assertThat(out).hasSize(1);
    assertThat(error(out.get(0))).isEqualTo("line of 21 bytes exceeds maxLineBytes 16");
  }

  @Test
  void splitAcrossReadsOneByteAtATime() {
    final byte[] all = "héllo\r\nwörld 😀\n".getBytes(StandardCharsets.UTF_8);
    for (byte b : all) { // splits the CRLF and every multi-byte character
      channel.writeInbound(Unpooled.wrappedBuffer(new byte[] {b}));
    }
    assertThat(readAll()).containsExactly("héllo", "wörld 😀");
  }

  @Test
  void lineOfExactlyMaxBytesPassesWithLfOrCrlf() {
    final String max = "x".repeat(MAX);
    channel.writeInbound(bytes(max + "\n" + max + "\r\n"));
    assertThat(readAll()).containsExactly(max, max);
  }

  @Test
  void tooLongLineThenGoodLineInOneReadTwice() {
    for (int round = 0; round < 2; round++) { // twice: the decoder recovers fully
      channel.writeInbound(bytes("x".repeat(MAX + 1) + "\ngood " + round + "\n"));
      final List<Object> out = readAll();
      assertThat(out).hasSize(2);
      assertThat(error(out.get(0))).isEqualTo("line of 17 bytes exceeds maxLineBytes 16");
      assertThat(out.get(1)).isEqualTo("good " + round);
    }
  }

  @Test
  void tooLongLineWithCrlfSplitAcrossReadsReportsLengthWithoutTheCr() {
    channel.writeInbound(bytes("y".repeat(40) + "\r")); // past MAX + 1 without LF: discarding starts
    channel.writeInbound(bytes("\nok\n"));
    final List<Object> out = readAll();
    assertThat(out).hasSize(2);
    final LineTooLongException e = (LineTooLongException) ((BadFrame) out.get(0)).error();
    assertThat(e.lineBytes()).isEqualTo(40);
    assertThat(e.maxLineBytes()).isEqualTo(MAX);
    assertThat(out.get(1)).isEqualTo("ok");
  }

  @Test
  void oneMebibyteLineIsDiscardedWithoutBufferingItThenTheNextLineDecodes() {
    final EmbeddedChannel ch = newChannel(LineCodec.DEFAULT_MAX_LINE_BYTES);
    final int chunk = 64 * 1024;
    final int total = 1024 * 1024;
    for (int sent = 0; sent < total; sent += chunk) {
      final byte[] part = new byte[chunk];
      Arrays.fill(part, (byte) 'z');
      ch.writeInbound(Unpooled.wrappedBuffer(part));
      final Object none = ch.readInbound();
      assertThat(none).as("nothing decoded mid-line").isNull();
      assertThat(((LineFrameDecoder) ch.pipeline().get("line-framer")).bufferedBytes())
          .as("the over-long line is not buffered").isLessThanOrEqualTo(LineCodec.DEFAULT_MAX_LINE_BYTES + 1);
    }
    ch.writeInbound(bytes("\nafter\n"));
    final Object bad = ch.readInbound();
    assertThat(error(bad)).isEqualTo("line of 1048576 bytes exceeds maxLineBytes 8192");
    final Object after = ch.readInbound();
    assertThat(after).isEqualTo("after");
    assertThat(ch.finishAndReleaseAll()).isFalse();
  }

  @Test
  void invalidUtf8LineIsRejectedWithItsOffsetThenTheNextLineDecodes() {
    for (int round = 0; round < 2; round++) {
      final ByteBuf in = Unpooled.buffer();
      in.writeBytes("ab".getBytes(StandardCharsets.UTF_8)).writeByte(0xFF).writeBytes("cd\nok\n".getBytes(
          StandardCharsets.UTF_8));
      channel.writeInbound(in);
      final List<Object> out = readAll();
      assertThat(out).hasSize(2);
      assertThat(error(out.get(0))).isEqualTo("invalid UTF-8 at byte 2 of a 5-byte line");
      final InvalidUtf8Exception e = (InvalidUtf8Exception) ((BadFrame) out.get(0)).error();
      assertThat(e.offset()).isEqualTo(2);
      assertThat(e.lineBytes()).isEqualTo(5);
      assertThat(out.get(1)).isEqualTo("ok");
    }
  }

  @Test
  void strictUtf8RejectsOverlongSurrogateAndTruncatedSequences() {
    channel.writeInbound(bytes(0xC0, 0x80, '\n'));             // overlong NUL
    channel.writeInbound(bytes('x', 0xED, 0xA0, 0x80, '\n'));  // UTF-16 surrogate U+D800
    channel.writeInbound(bytes(0xF4, 0x90, 0x80, 0x80, '\n')); // above U+10FFFF
    channel.writeInbound(bytes('a', 'b', 0xE2, 0x82, '\n'));   // truncated euro sign
    channel.writeInbound(bytes(0xE2, 0x82, 0xAC, '\n'));       // a good euro sign
    final List<Object> out = readAll();
    assertThat(out).hasSize(5);
    assertThat(error(out.get(0))).isEqualTo("invalid UTF-8 at byte 0 of a 2-byte line");
    assertThat(error(out.get(1))).isEqualTo("invalid UTF-8 at byte 1 of a 4-byte line");
    assertThat(error(out.get(2))).isEqualTo("invalid UTF-8 at byte 0 of a 4-byte line");
    assertThat(error(out.get(3))).isEqualTo("invalid UTF-8 at byte 2 of a 4-byte line");
    assertThat(out.get(4)).isEqualTo("€");
  }

  @Test
  void manyLinesInOneReadKeepTheirOrder() {
    final StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 1000; i++) {
      sb.append(i).append(i % 2 == 0 ? "\n" : "\r\n");
    }
    channel.writeInbound(bytes(sb.toString()));
    final List<Object> out = readAll();
    assertThat(out).hasSize(1000);
    for (int i = 0; i < 1000; i++) {
      assertThat(out.get(i)).isEqualTo(Integer.toString(i));
    }
  }

  @Test
  void unterminatedLastLineIsALineAtClose() {
    channel.writeInbound(bytes("done\npartial"));
    assertThat(readAll()).containsExactly("done");
    channel.close();
    assertThat(readAll()).containsExactly("partial");
  }

  @Test
  void decodersReleaseEveryInboundBufferOnceItsLinesAreOut() {
    final List<ByteBuf> written = new ArrayList<>();
    written.add(bytes("first li"));
    written.add(bytes("ne\n" + "w".repeat(MAX + 5) + "\n"));
    written.add(bytes(0xFF, '\n'));
    written.add(bytes("last\r\n"));
    for (ByteBuf buf : written) {
      channel.writeInbound(buf);
    }
    final List<Object> out = readAll();
    assertThat(out).hasSize(4);
    assertThat(out.get(0)).isEqualTo("first line");
    assertThat(out.get(3)).isEqualTo("last");
    assertThat(written).allSatisfy(buf -> assertThat(buf.refCnt()).isZero());
  }

  @Test
  void encodeWritesStringValueAndLf() {
    final LineCodec codec = LineCodec.utf8();
    final ByteBuf a = codec.encode(ByteBufAllocator.DEFAULT, "héllo");
    final ByteBuf b = codec.encode(ByteBufAllocator.DEFAULT, 42);
    try {
      assertThat(a.toString(StandardCharsets.UTF_8)).isEqualTo("héllo\n");
      assertThat(a.readableBytes()).isEqualTo(7);
      assertThat(b.toString(StandardCharsets.UTF_8)).isEqualTo("42\n");
    } finally {
      a.release();
      b.release();
    }
  }

  @Test
  void errorReplyIsAnErrorLineWithValueAndLimit() {
    assertThat(LineCodec.utf8().errorReply(new LineTooLongException(1_048_576, 8192)))
        .isEqualTo("error: line of 1048576 bytes exceeds maxLineBytes 8192");
  }

  @Test
  void maxLineBytesIsValidatedWithTheValueInTheMessage() {
    assertThatThrownBy(() -> LineCodec.utf8(0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxLineBytes 0 must be between 1 and 16777216; LineCodec.utf8() uses 8192");
    assertThat(LineCodec.utf8().maxLineBytes()).isEqualTo(8192);
  }
}
