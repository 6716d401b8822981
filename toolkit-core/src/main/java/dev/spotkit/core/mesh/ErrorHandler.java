package dev.spotkit.core.mesh;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.TooLongFrameException;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Last inbound handler: turns any exception that reaches the end of the pipeline into a typed close. An
 * oversized length (any u32 over the limit) is {@link CloseReason#OVERSIZED_FRAME}, a corrupted one is
 * {@link CloseReason#MALFORMED_FRAME}, a socket error is {@link CloseReason#IO_ERROR}; anything else is a bug
 * and is logged with its stack trace as {@link CloseReason#INTERNAL_ERROR}. Holds no state.
 */
final class ErrorHandler extends ChannelInboundHandlerAdapter {

  private static final Logger LOG = LoggerFactory.getLogger(MeshTransport.class);

  @Override
  public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause) {
    final Throwable t = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
    if (t instanceof TooLongFrameException) {
      MeshChannels.closeWith(ctx.channel(), CloseReason.OVERSIZED_FRAME, t.getMessage());
    } else if (t instanceof CorruptedFrameException) {
      MeshChannels.closeWith(ctx.channel(), CloseReason.MALFORMED_FRAME, t.getMessage());
    } else if (t instanceof IOException) {
      MeshChannels.closeWith(ctx.channel(), CloseReason.IO_ERROR, String.valueOf(t.getMessage()));
    } else if (t instanceof MeshConnectionException m) {
      MeshChannels.closeWith(ctx.channel(), m.reason(), m.detail());
    } else {
      LOG.error("mesh connection {}: unexpected exception", ctx.channel().remoteAddress(), t);
      MeshChannels.closeWith(ctx.channel(), CloseReason.INTERNAL_ERROR, String.valueOf(t));
    }
  }
}
