package dev.spotkit.core.mesh;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.DefaultByteBufHolder;

/**
 * A command 52 relocationState frame that {@link MeshFrameDecoder} left in the channel's receive buffer instead of
 * copying it out (spec 001 section 4.2: the target's assembler copies each chunk into its own buffer at once, so that
 * copy is the only one on the receiving side). The framework head ({@code 5A 4D 01 34 <flags>}) was checked like
 * every {@link InboundFrame}'s; the body was not read.
 *
 * <p>Ownership: reference counted ({@link DefaultByteBufHolder}); it holds one reference to the frame. Whoever
 * receives it in {@code channelRead} releases it exactly once or hands it on: {@link HandshakeHandler} releases it
 * (a framework frame before the handshake closes the connection), {@link PeerChannelHandler} passes
 * {@link #content()} to {@link MeshListener#onStateFrame}, which owns it from then on. One that reaches the end of
 * the pipeline is released by Netty's tail handler.
 */
final class BufferedFrame extends DefaultByteBufHolder {

  /**
   * Wraps one frame.
   *
   * @param frame the frame without its length prefix, head included; this holder owns the reference given.
   */
  BufferedFrame(final ByteBuf frame) {
    super(frame);
  }

  /**
   * The command byte.
   *
   * @return 52.
   */
  int command() {
    final ByteBuf frame = content();
    return frame.getUnsignedByte(frame.readerIndex() + 3);
  }
}
