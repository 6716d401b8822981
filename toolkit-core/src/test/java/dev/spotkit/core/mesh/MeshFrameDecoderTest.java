package dev.spotkit.core.mesh;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufHolder;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The mesh framing handlers ({@code length-framer}, {@code frame-decoder}, {@code length-prepender}) driven
 * through an {@link EmbeddedChannel}: a bad frame, then a good frame; oversized; truncated; a length with the top bit set.
 * Every buffer the test writes must be released by the pipeline (checked with refCnt; leak detection is
 * paranoid in surefire), and the test releases every buffer it reads.
 */
class MeshFrameDecoderTest {

  private static final int MAX = 128;
  private static final byte[] GOOD = {0x5A, 0x4D, 0x01, 0x30, 0x00, 1, 2, 3};

  private final EmbeddedChannel channel = newChannel();
  private final List<ByteBuf> written = new ArrayList<>();

  private static EmbeddedChannel newChannel() {
    final EmbeddedChannel ch = new EmbeddedChannel();
    MeshChannels.installFraming(ch.pipeline(), MAX);
    return ch;
  }

  @AfterEach
  void finish() {
    assertThat(channel.finishAndReleaseAll()).as("no unread messages left").isFalse();
    for (ByteBuf b : written) {
      assertThat(b.refCnt()).as("every inbound buffer released by the pipeline").isZero();
    }
  }

  private ByteBuf framed(final byte[] body) {
    final ByteBuf b = Unpooled.buffer(4 + body.length).writeInt(body.length).writeBytes(body);
    written.add(b);
    return b;
  }

  private ByteBuf raw(final byte[] bytes) {
    final ByteBuf b = Unpooled.wrappedBuffer(bytes);
    written.add(b);
    return b;
  }

  private List<Object> readAll() {
    final List<Object> out = new ArrayList<>();
    for (int i = 0; i < 10_000; i++) {
      final Object msg = channel.readInbound();
      if (msg == null) {
        return out;
      }
      assertThat(msg).isInstanceOfAny(InboundFrame.class, BadFrame.class);
      out.add(msg);
    }
    throw new AssertionError("more than 10000 messages");
  }

  @Test
  void goodFrameComesOutAsBytes() {
    channel.writeInbound(framed(GOOD));
    final List<Object> out = readAll();
    assertThat(out).hasSize(1);
    assertThat(((InboundFrame) out.get(0)).handshake()).isFalse();
    assertThat(((InboundFrame) out.get(0)).bytes()).containsExactly(GOOD);
  }

  /**
   * A command 52 (relocation state) goes up as the frame itself, not a copy (issue 16): a reference-counted holder
   * of the very bytes written, which keeps the written buffer alive until the receiver releases it, and then frees
   * it. A command 52 with a bad head is still a {@link BadFrame}. Before the change it came out as a byte[] copy
   * and the written buffer was already freed here.
   */
  @Test
  void stateFrameGoesUpUncopiedUntilItsReceiverReleasesIt() {
    final byte[] state = {0x5A, 0x4D, 0x01, 0x34, 0x00, 9, 8, 7};
    final ByteBuf in = framed(state);
    channel.writeInbound(in);
    final Object msg = channel.readInbound();
    try {
      assertThat(msg).isInstanceOf(ByteBufHolder.class);
      final ByteBuf frame = ((ByteBufHolder) msg).content();
      assertThat(ByteBufUtil.getBytes(frame)).containsExactly(state);
      assertThat(in.refCnt()).as("the written buffer is kept by the frame, not copied and freed").isEqualTo(1);
      in.setByte(4 + 7, 42);
      assertThat(frame.getByte(frame.readerIndex() + 7)).as("the frame reads the written memory").isEqualTo(
          (byte) 42);
      assertThat((Object) channel.readInbound()).as("one message per frame").isNull();
    } finally {
      ReferenceCountUtil.release(msg);
    }
    assertThat(in.refCnt()).as("the receiver's one release frees it").isZero();

    channel.writeInbound(framed(new byte[] {0x5A, 0x4D, 0x01, 0x34, 0x40, 1}));
    assertThat(((BadFrame) channel.readInbound()).detail())
        .isEqualTo("frame: undefined-flag flags at offset 4: 0x40, expected bits of 0x0f");
  }

  @Test
  void badFrameThenGoodFrameTwice() {
    for (int round = 0; round < 2; round++) {
      channel.writeInbound(framed(new byte[] {0x12, 0x34, 0x56}), framed(GOOD), framed(new byte[0]),
          framed(new byte[] {0x5A, 0x4D, 0x02, 0x14, 0x00}), framed(new byte[] {0x5A, 0x4D, 0x01, 0x14, 0x40}),
          framed(GOOD));
      final List<Object> out = readAll();
      assertThat(out).hasSize(6);
      assertThat(((BadFrame) out.get(0)).detail())
          .isEqualTo("frame of 3 bytes starts with 1234; expected 5a4d (framework frame) or 534b (handshake)");
      assertThat(((InboundFrame) out.get(1)).bytes()).containsExactly(GOOD);
      assertThat(((BadFrame) out.get(2)).detail()).isEqualTo("empty frame");
      assertThat(((BadFrame) out.get(3)).detail())
          .isEqualTo("frame: unsupported-version wireMajor at offset 2: value 2, expected 1");
      assertThat(((BadFrame) out.get(4)).detail())
          .isEqualTo("frame: undefined-flag flags at offset 4: 0x40, expected bits of 0x0f");
      assertThat(((BadFrame) out.get(4)).reason()).isEqualTo(CloseReason.MALFORMED_FRAME);
      assertThat(((InboundFrame) out.get(5)).bytes()).containsExactly(GOOD);
    }
  }

  @Test
  void oversizedFrameFailsFastThenTheNextFrameDecodes() {
    final byte[] big = new byte[MAX + 1];
    big[0] = 0x5A;
    final ByteBuf lengthOnly = raw(new byte[] {0, 0, 0, (byte) (MAX + 1)});
    assertThatThrownBy(() -> channel.writeInbound(lengthOnly))
        .isInstanceOf(TooLongFrameException.class)
        .hasMessageContaining("exceeds " + (MAX + 4));
    channel.writeInbound(raw(big)); // the body is discarded as it arrives, never buffered whole
    channel.writeInbound(framed(GOOD));
    final List<Object> out = readAll();
    assertThat(out).hasSize(1);
    assertThat(((InboundFrame) out.get(0)).bytes()).containsExactly(GOOD);
  }

  @Test
  void frameOfExactlyTheLimitIsAccepted() {
    final byte[] max = new byte[MAX];
    System.arraycopy(GOOD, 0, max, 0, GOOD.length);
    channel.writeInbound(framed(max));
    assertThat(((InboundFrame) readAll().get(0)).bytes()).hasSize(MAX);
  }

  @Test
  void truncatedFrameWaitsForTheRestAndIsDroppedAtClose() {
    final ByteBuf whole = Unpooled.buffer().writeInt(GOOD.length).writeBytes(GOOD);
    final byte[] bytes = new byte[whole.readableBytes()];
    whole.readBytes(bytes);
    whole.release();
    for (int i = 0; i < bytes.length; i++) {
      channel.writeInbound(raw(new byte[] {bytes[i]}));
      if (i < bytes.length - 1) {
        assertThat(readAll()).as("nothing before the last byte").isEmpty();
      }
    }
    assertThat(((InboundFrame) readAll().get(0)).bytes()).containsExactly(GOOD);
    channel.writeInbound(raw(new byte[] {0, 0, 0, 8, 0x5A, 0x4D})); // truncated: dropped at close, no leak
    assertThat(readAll()).isEmpty();
  }

  @Test
  void lengthWithTheTopBitSetIsOversizedNotNegative() {
    assertThatThrownBy(() -> channel.writeInbound(raw(new byte[] {(byte) 0x80, 0, 0, 0, 1})))
        .isInstanceOf(TooLongFrameException.class)
        .hasMessage("Adjusted frame length exceeds 132: 2147483652 - discarded");
    channel.close();
  }

  @Test
  void handshakeMessagesAreTaggedAndOutboundFramesGetTheirLength() {
    channel.writeInbound(framed(new byte[] {0x53, 0x4B, 0x01, 0x04}));
    assertThat(((InboundFrame) readAll().get(0)).handshake()).isTrue();

    channel.writeOutbound(Unpooled.wrappedBuffer(GOOD));
    final ByteBuf wire = Unpooled.buffer();
    for (int i = 0; i < 10; i++) {
      final ByteBuf part = channel.readOutbound();
      if (part == null) {
        break;
      }
      wire.writeBytes(part);
      part.release();
    }
    assertThat(wire.readInt()).isEqualTo(GOOD.length);
    assertThat(wire.readableBytes()).isEqualTo(GOOD.length);
    wire.release();
  }
}
