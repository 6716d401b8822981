package dev.spotkit.core.mesh;

import dev.spotkit.relocation.wire.FrameHead;
import dev.spotkit.relocation.wire.WireFormatException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageDecoder;
import java.util.List;

/**
 * Classifies each frame the length framer cut: a handshake message ({@code 53 4B}) or a framework frame with
 * a well-formed head ({@code 5A 4D 01 <command> <flags>}, no undefined flag) becomes an {@link InboundFrame};
 * anything else (empty, unknown magic, bad major, undefined flag) becomes a {@link BadFrame}. It does not
 * decode bodies: that is the job of {@code dev.spotkit.core.wire}, called by whoever handles the command.
 *
 * <pre>
 *   in (frames):  [5A 4D 01 14 00 ...]  []                      [5A 4D 02 ...]                 [53 4B 01 01 ...]
 *   out:          InboundFrame(false)   BadFrame(empty frame)   BadFrame(unsupported-version)  InboundFrame(true)
 * </pre>
 *
 * <p>Ownership: each input frame is a retained slice owned by this decoder; {@link MessageToMessageDecoder}
 * releases it after {@link #decode} returns. The bytes are copied into a {@code byte[]}, so nothing
 * reference counted travels further up the pipeline.
 *
 * <p>Stateless, but created per channel like every mesh handler.
 */
final class MeshFrameDecoder extends MessageToMessageDecoder<ByteBuf> {

  MeshFrameDecoder() {
    super(ByteBuf.class);
  }

  /**
   * Classifies one frame.
   *
   * @param ctx of this handler.
   * @param frame one frame without its length prefix; released by the base class after this returns.
   * @param out receives one {@link InboundFrame} or one {@link BadFrame}.
   */
  @Override
  protected void decode(final ChannelHandlerContext ctx, final ByteBuf frame, final List<Object> out) {
    final byte[] bytes = ByteBufUtil.getBytes(frame); // a copy; the slice itself is released by the base class
    out.add(classify(bytes));
  }

  static Object classify(final byte[] bytes) {
    if (bytes.length == 0) {
      return new BadFrame(CloseReason.MALFORMED_FRAME, "empty frame");
    }
    if (Handshake.isHandshake(bytes)) {
      return new InboundFrame(true, bytes);
    }
    if ((bytes[0] & 0xFF) != FrameHead.MAGIC_0 || bytes.length < 2 || (bytes[1] & 0xFF) != FrameHead.MAGIC_1) {
      return new BadFrame(CloseReason.MALFORMED_FRAME, "frame of " + bytes.length + " bytes starts with "
          + ByteBufUtil.hexDump(bytes, 0, Math.min(2, bytes.length)) + "; expected 5a4d (framework frame) or 534b"
          + " (handshake)");
    }
    try {
      FrameHead.decode(bytes);
      return new InboundFrame(false, bytes);
    } catch (WireFormatException e) {
      return new BadFrame(CloseReason.MALFORMED_FRAME, e.getMessage());
    }
  }
}
