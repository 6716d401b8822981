package dev.spotkit.core.mesh;

import dev.spotkit.core.wire.Commands;
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
 *
 *   in:           [5A 4D 01 34 00 ...] (command 52)
 *   out:          BufferedFrame (the frame itself, one reference retained; not copied)
 * </pre>
 *
 * <p>Ownership: each input frame is a retained slice owned by this decoder; {@link MessageToMessageDecoder}
 * releases it after {@link #decode} returns. The bytes of every frame are copied into a {@code byte[]}, except a
 * command 52 relocationState with a well-formed head: it goes up as a {@link BufferedFrame} holding one more
 * reference to the slice (no copy: the target's chunk assembler copies the chunk out of it, spec 001 section 4.2),
 * which its receiver releases.
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
   * @param out receives one {@link InboundFrame}, one {@link BufferedFrame} (command 52; it owns one reference to
   *     {@code frame}) or one {@link BadFrame}.
   */
  @Override
  protected void decode(final ChannelHandlerContext ctx, final ByteBuf frame, final List<Object> out) {
    if (isStateFrame(frame)) {
      out.add(new BufferedFrame(frame.retain())); // hand-off: the receiver releases this reference
      return;
    }
    final byte[] bytes = ByteBufUtil.getBytes(frame); // a copy; the slice itself is released by the base class
    out.add(classify(bytes));
  }

  /**
   * Whether {@code frame} is a command 52 relocationState whose framework head is well formed (the checks
   * {@link #classify} makes, on the head's 5 bytes only). Reads without moving the reader index.
   *
   * @param frame one frame without its length prefix.
   * @return true to pass it up uncopied as a {@link BufferedFrame}.
   */
  static boolean isStateFrame(final ByteBuf frame) {
    final int at = frame.readerIndex();
    if (frame.readableBytes() < FrameHead.LENGTH || frame.getUnsignedByte(at + 3) != Commands.RELOCATION_STATE
        || frame.getUnsignedByte(at) != FrameHead.MAGIC_0 || frame.getUnsignedByte(at + 1) != FrameHead.MAGIC_1) {
      return false;
    }
    return classify(ByteBufUtil.getBytes(frame, at, FrameHead.LENGTH)) instanceof InboundFrame f && !f.handshake();
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
