package dev.spotkit.core.session;

import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Dispatch only: the last handler of a session's pipeline, after the codec's decoders. It creates the
 * {@link Session}, calls {@link SessionHandler#onOpen} once, hands each decoded frame to
 * {@link SessionInbound#onFrame} in arrival order, answers {@link BadFrame}s with the codec's error reply,
 * and calls {@link SessionInbound#onClosed} exactly once when the channel goes inactive.
 *
 * <p>Runs on the channel's event loop. It never blocks and never runs actor code: the inbound (the core
 * runtime) puts frames in a mailbox and returns.
 *
 * <p>Ownership: a decoded frame that is reference counted passes to {@code onFrame}; a frame dropped here
 * (session closing, no inbound) is released here.
 *
 * <p>Per-connection state in fields: never {@code @Sharable}.
 */
final class SessionChannelHandler extends ChannelInboundHandlerAdapter {

  private static final Logger LOG = LoggerFactory.getLogger(SessionChannelHandler.class);

  private final SessionServer server;
  private NettySession session;
  private SessionInbound inbound;
  private boolean closedDelivered;

  SessionChannelHandler(final SessionServer server) {
    this.server = server;
  }

  @Override
  public void channelActive(final ChannelHandlerContext ctx) {
    final SessionServerConfig config = server.config();
    session = new NettySession(ctx.channel(), config);
    if (!server.register(session)) {
      ctx.close(); // server closing: no onOpen, so no onClosed either
    } else {
      try {
        inbound = Objects.requireNonNull(server.handler().onOpen(session),
            "SessionHandler.onOpen returned null; return a SessionInbound");
      } catch (RuntimeException e) {
        LOG.warn("session {}: SessionHandler.onOpen failed; closing", session.id(), e);
        session.close();
      }
    }
    ctx.fireChannelActive();
  }

  @Override
  public void channelRead(final ChannelHandlerContext ctx, final Object msg) {
    if (msg instanceof BadFrame bad) {
      badFrame(bad.error());
      return;
    }
    if (inbound == null || closedDelivered || !session.isOpen()) {
      ReferenceCountUtil.release(msg); // dropped: nobody else will release it
      return;
    }
    try {
      inbound.onFrame(msg); // Hand-off: a reference-counted frame now belongs to the inbound.
    } catch (RuntimeException e) {
      LOG.warn("session {}: SessionInbound.onFrame failed; closing", session.id(), e);
      session.close();
    }
  }

  @Override
  public void userEventTriggered(final ChannelHandlerContext ctx, final Object evt) {
    if (evt instanceof ChannelInputShutdownEvent && session != null) {
      session.inputEnded(); // the decoders already passed every complete line on
    }
    ctx.fireUserEventTriggered(evt);
  }

  @Override
  public void channelInactive(final ChannelHandlerContext ctx) {
    if (session != null) {
      session.markClosed();
      deliverClosed();
      server.unregister(session);
      session.closedDelivered().complete(null);
    }
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause) {
    final FrameDecodeException peerError = peerError(cause);
    if (peerError != null) {
      badFrame(peerError);
    } else if (cause instanceof IOException) {
      LOG.debug("session {}: I/O error, closing: {}", sessionId(), cause.toString());
      ctx.close();
    } else {
      LOG.warn("session {}: unexpected error, closing", sessionId(), cause);
      ctx.close();
    }
  }

  private void badFrame(final FrameDecodeException error) {
    if (session == null || !session.isOpen()) {
      return;
    }
    LOG.debug("session {} ({}): bad frame: {}", session.id(), session.remoteAddress(), error.getMessage());
    final Object reply = server.config().codec().errorReply(error);
    if (server.config().closeOnBadFrame()) {
      session.pushThenClose(reply);
    } else if (reply != null && inbound != null && !closedDelivered) {
      try {
        inbound.onBadFrame(reply, session); // in order behind the frames before it
      } catch (RuntimeException e) {
        LOG.warn("session {}: SessionInbound.onBadFrame failed; closing", session.id(), e);
        session.close();
      }
    } else if (reply != null) {
      session.push(reply);
    }
  }

  private void deliverClosed() {
    if (inbound == null || closedDelivered) {
      return;
    }
    closedDelivered = true;
    try {
      inbound.onClosed();
    } catch (RuntimeException e) {
      LOG.warn("session {}: SessionInbound.onClosed failed", session.id(), e);
    }
  }

  private long sessionId() {
    return session == null ? 0 : session.id();
  }

  private static FrameDecodeException peerError(final Throwable cause) {
    if (cause instanceof FrameDecodeException e) {
      return e;
    }
    if (cause instanceof DecoderException && cause.getCause() instanceof FrameDecodeException e) {
      return e;
    }
    return null;
  }
}
