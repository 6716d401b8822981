package dev.spotkit.core.session;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CorruptedWebSocketFrameException;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import java.nio.charset.StandardCharsets;

/**
 * The last handler of {@link WebSocketCodec}: text messages to Strings, binary messages and oversized fragmented
 * messages to {@link BadFrame}s, protocol violations to a typed {@link WebSocketFrameException}, pushed payload
 * buffers to text frames, and plain HTTP requests to the page or 404.
 *
 * <p>It holds the connection's {@code channelActive} back from the session's dispatch handler until the
 * WebSocket handshake completed, so the session (and its actor) exists only for a WebSocket connection, and the
 * first push is written after the handshake response.
 *
 * <p>Per-connection state in fields: never {@code @Sharable}. Event loop only.
 */
final class WebSocketTextHandler extends ChannelDuplexHandler {

  private final byte[] page;
  private boolean handshaken;

  WebSocketTextHandler(final byte[] page) {
    this.page = page;
  }

  @Override
  public void channelActive(final ChannelHandlerContext ctx) {
    // held back until the handshake completed (userEventTriggered)
  }

  @Override
  public void userEventTriggered(final ChannelHandlerContext ctx, final Object evt) {
    if (evt instanceof WebSocketServerProtocolHandler.HandshakeComplete && !handshaken) {
      handshaken = true;
      if (ctx.channel().isActive()) {
        ctx.fireChannelActive();
      }
    }
    ctx.fireUserEventTriggered(evt);
  }

  @Override
  public void channelRead(final ChannelHandlerContext ctx, final Object msg) {
    if (msg instanceof TextWebSocketFrame text) {
      final String message;
      try {
        message = text.text();
      } finally {
        text.release();
      }
      ctx.fireChannelRead(message);
    } else if (msg instanceof BinaryWebSocketFrame binary) {
      final int bytes = binary.content().readableBytes();
      binary.release();
      ctx.fireChannelRead(new BadFrame(new WebSocketFrameException(WebSocketFrameException.Kind.BINARY, bytes,
          "binary frame of " + bytes + " bytes; this session takes text frames only")));
    } else if (msg instanceof WebSocketFrame other) {
      other.release(); // a stray continuation frame: the aggregator already reported its message
    } else if (msg instanceof FullHttpRequest request) {
      try {
        answerHttp(ctx, request);
      } finally {
        request.release();
      }
    } else {
      ctx.fireChannelRead(msg);
    }
  }

  @Override
  public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause) {
    if (!handshaken) {
      ctx.close(); // a failed handshake or a bad HTTP connection: there is no session to tell
    } else if (cause instanceof TooLongFrameException) {
      ctx.fireChannelRead(new BadFrame(new WebSocketFrameException(WebSocketFrameException.Kind.TOO_LONG, -1,
          "fragmented message exceeds maxMessageBytes: " + cause.getMessage())));
    } else if (cause instanceof CorruptedWebSocketFrameException) {
      ctx.fireExceptionCaught(new WebSocketFrameException(WebSocketFrameException.Kind.PROTOCOL, -1,
          "WebSocket protocol violation: " + cause.getMessage()));
    } else {
      ctx.fireExceptionCaught(cause);
    }
  }

  @Override
  public void write(final ChannelHandlerContext ctx, final Object msg, final ChannelPromise promise) {
    if (msg instanceof ByteBuf payload) { // a session push, encoded by WebSocketCodec#encode
      ctx.write(new TextWebSocketFrame(payload), promise);
    } else {
      ctx.write(msg, promise);
    }
  }

  private void answerHttp(final ChannelHandlerContext ctx, final FullHttpRequest request) {
    final HttpResponseStatus status;
    final byte[] body;
    final String type;
    final String uri = request.uri();
    if (!request.decoderResult().isSuccess()) {
      status = HttpResponseStatus.BAD_REQUEST;
      body = "bad request\n".getBytes(StandardCharsets.UTF_8);
      type = "text/plain; charset=utf-8";
    } else if (page != null && HttpMethod.GET.equals(request.method())
        && (uri.equals("/") || uri.startsWith("/?") || uri.equals("/index.html"))) {
      status = HttpResponseStatus.OK;
      body = page;
      type = "text/html; charset=utf-8";
    } else {
      status = HttpResponseStatus.NOT_FOUND;
      body = "not found\n".getBytes(StandardCharsets.UTF_8);
      type = "text/plain; charset=utf-8";
    }
    final FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
        Unpooled.wrappedBuffer(body));
    response.headers().set(HttpHeaderNames.CONTENT_TYPE, type)
        .setInt(HttpHeaderNames.CONTENT_LENGTH, body.length)
        .set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_CACHE)
        .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
  }
}
