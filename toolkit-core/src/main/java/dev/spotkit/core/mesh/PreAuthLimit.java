package dev.spotkit.core.mesh;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * Bounds what an unauthenticated connection can make this node hold: before the handshake, the peer sends
 * exactly {@value #HANDSHAKE_FRAMES} frames (HELLO and PROOF to a listener; CHALLENGE and ACCEPT or REJECT to a
 * dialer), each a few dozen bytes. This handler sits before the length framer, reads the 4-byte length prefixes
 * of those first frames as the bytes go by (it buffers nothing and changes nothing), and closes the connection
 * with {@link CloseReason#OVERSIZED_FRAME} as soon as one declares more than {@value #MAX_HANDSHAKE_FRAME_BYTES}
 * bytes, so a connection that never authenticates costs at most that much, not the full frame limit. After
 * those frames it only passes bytes through. It also counts connections still in their handshake for the
 * transport's cap. One instance per channel, event loop only.
 */
final class PreAuthLimit extends ChannelInboundHandlerAdapter {
  /** Frames the peer sends before the connection is authenticated. */
  static final int HANDSHAKE_FRAMES = 2;
  /** Largest handshake frame accepted, in bytes (without the length prefix). */
  static final int MAX_HANDSHAKE_FRAME_BYTES = 4096;

  private final Runnable done;
  private int framesSeen;
  private int prefixBytes;
  private long prefix;
  private long bodyLeft;
  private boolean released;

  /**
   * @param done releases this connection's place among the connections in their handshake; run once, after
   *     the handshake frames or when the channel closes first.
   */
  PreAuthLimit(final Runnable done) {
    this.done = done;
  }

  @Override
  public void channelRead(final ChannelHandlerContext ctx, final Object msg) {
    if (framesSeen < HANDSHAKE_FRAMES && msg instanceof ByteBuf bytes && !inspect(ctx, bytes)) {
      bytes.release();
      return;
    }
    ctx.fireChannelRead(msg);
  }

  /** Walks the prefixes in {@code bytes} without consuming it; false when it closed the channel. */
  private boolean inspect(final ChannelHandlerContext ctx, final ByteBuf bytes) {
    int at = bytes.readerIndex();
    final int end = bytes.writerIndex();
    while (at < end && framesSeen < HANDSHAKE_FRAMES) {
      if (bodyLeft > 0) {
        final long skip = Math.min(bodyLeft, end - at);
        at += (int) skip;
        bodyLeft -= skip;
        if (bodyLeft == 0) {
          frameDone();
        }
        continue;
      }
      prefix = (prefix << 8) | (bytes.getByte(at++) & 0xFF);
      if (++prefixBytes == MeshChannels.LENGTH_PREFIX) {
        final long length = prefix;
        prefix = 0;
        prefixBytes = 0;
        if (length > MAX_HANDSHAKE_FRAME_BYTES) {
          MeshChannels.closeWith(ctx.channel(), CloseReason.OVERSIZED_FRAME, "a handshake frame of " + length
              + " bytes before authentication; at most " + MAX_HANDSHAKE_FRAME_BYTES + " bytes are accepted");
          release();
          return false;
        }
        bodyLeft = length;
        if (length == 0) {
          frameDone();
        }
      }
    }
    return true;
  }

  private void frameDone() {
    if (++framesSeen == HANDSHAKE_FRAMES) {
      release();
    }
  }

  @Override
  public void channelInactive(final ChannelHandlerContext ctx) {
    release();
    ctx.fireChannelInactive();
  }

  /**
   * Also when the channel never became active (a dial whose connect failed: refused, timed out): the pipeline
   * is torn down without channelInactive, and the place must be given back all the same.
   */
  @Override
  public void handlerRemoved(final ChannelHandlerContext ctx) {
    release();
  }

  private void release() {
    if (!released) {
      released = true;
      done.run();
    }
  }
}
