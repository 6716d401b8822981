package dev.spotkit.core.mesh;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import java.util.function.LongConsumer;

/**
 * Counts the bytes a peer connection reads and writes (the {@code spotkit.mesh.bytes} meter), first in the pipeline:
 * reads are counted as they come from the socket (before framing), writes as they are handed to it. It passes every
 * message on unchanged and owns none: the next handler releases what it reads, the transport what it writes.
 * Sharable: it has no per-connection state.
 */
@ChannelHandler.Sharable
final class TrafficCounter extends ChannelDuplexHandler {
  private final LongConsumer received;
  private final LongConsumer sent;

  TrafficCounter(final LongConsumer received, final LongConsumer sent) {
    this.received = received;
    this.sent = sent;
  }

  @Override
  public void channelRead(final ChannelHandlerContext ctx, final Object msg) {
    if (msg instanceof ByteBuf buf) {
      received.accept(buf.readableBytes());
    }
    ctx.fireChannelRead(msg); // ownership passes on with the message
  }

  @Override
  public void write(final ChannelHandlerContext ctx, final Object msg, final ChannelPromise promise) {
    if (msg instanceof ByteBuf buf) {
      sent.accept(buf.readableBytes());
    }
    ctx.write(msg, promise); // ownership passes on with the message
  }
}
