package dev.spotkit.core.mesh;

import dev.spotkit.core.wire.Commands;
import dev.spotkit.core.wire.ReplyCodec;
import dev.spotkit.relocation.wire.WireFormatException;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * Dispatch of an authenticated connection: a command 20 that answers a request made with
 * {@link PeerConnection#request} completes it; every other framework frame goes to the
 * {@link MeshListener} (a command 52 still in its receive buffer, {@link BufferedFrame}, to
 * {@link MeshListener#onStateFrame}, which owns and releases it). A bad frame or a handshake message at this point
 * closes the connection. When the
 * channel closes it fails the pending requests and reports the loss once. Runs only on the channel's event
 * loop and never blocks; never {@code @Sharable} (it holds the connection).
 */
final class PeerChannelHandler extends ChannelInboundHandlerAdapter {

  private final MeshTransport transport;
  private final PeerConnection conn;

  PeerChannelHandler(final MeshTransport transport, final PeerConnection conn) {
    this.transport = transport;
    this.conn = conn;
  }

  @Override
  public void channelRead(final ChannelHandlerContext ctx, final Object msg) {
    if (msg instanceof BadFrame bad) {
      MeshChannels.closeWith(ctx.channel(), bad.reason(), bad.detail());
      return;
    }
    if (msg instanceof BufferedFrame buffered) {
      transport.deliverState(conn, buffered.content()); // hand-off: the listener releases the holder's reference
      return;
    }
    final InboundFrame frame = (InboundFrame) msg;
    if (frame.handshake()) {
      MeshChannels.closeWith(ctx.channel(), CloseReason.HANDSHAKE_PROTOCOL, "handshake message after the "
          + "handshake finished");
      return;
    }
    final byte[] bytes = frame.bytes();
    if ((bytes[3] & 0xFF) == Commands.REPLY) {
      final long correlation;
      try {
        correlation = ReplyCodec.correlation(bytes);
      } catch (WireFormatException e) {
        MeshChannels.closeWith(ctx.channel(), CloseReason.MALFORMED_FRAME, e.getMessage());
        return;
      }
      if (conn.completeRequest(correlation, bytes)) {
        return;
      }
    }
    transport.deliver(conn, bytes);
  }

  @Override
  public void channelInactive(final ChannelHandlerContext ctx) {
    final CloseReason reason = MeshChannels.closeInfo(ctx.channel()).reason();
    conn.onClosed(reason);
    transport.lost(conn, reason);
    ctx.fireChannelInactive();
  }
}
