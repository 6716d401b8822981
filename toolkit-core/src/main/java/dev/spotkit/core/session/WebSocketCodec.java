package dev.spotkit.core.session;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.websocketx.WebSocketCloseStatus;
import io.netty.handler.codec.http.websocketx.WebSocketFrameAggregator;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolConfig;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * WebSocket text messages (RFC 6455) over HTTP/1.1: browsers and game engines connect to a session listener
 * directly (spec 000 section 8 sessions), beside {@link LineCodec}.
 *
 * <p>A client opens {@code ws://host:port/PATH} (the {@code path} of {@link #text(String)}); the session, and so
 * its bound actor, starts once the WebSocket handshake completed: a plain TCP or HTTP connection never creates
 * one. Inbound, one text message (one frame, or a fragmented message with its continuation frames) becomes one
 * {@link String} frame; outbound, {@link Session#push(Object)} sends {@code String.valueOf(message)} as one text
 * frame (UTF-8; an unpaired surrogate is sent as {@code '?'}), in push order. Pings are answered with pongs, a
 * client's close frame is answered and ends the session, and a session closed by the server sends a close frame
 * with status 1000 before the TCP close.
 *
 * <p>Bad input, typed as {@link WebSocketFrameException}: a binary message, or a fragmented text message over
 * {@code maxMessageBytes} (discarded without buffering more than the limit), is answered with one text frame
 * {@code error: ...} and the session goes on, like a bad line of {@link LineCodec}
 * ({@link SessionServerConfig#closeOnBadFrame()} chooses whether it is then closed). A violation of RFC 6455 (a
 * single frame over {@code maxMessageBytes}, invalid UTF-8 in a text frame, an unmasked client frame) ends the
 * connection with a close frame of status 1009, 1007 or 1002. The handshake request itself is bounded by
 * {@link #MAX_HANDSHAKE_BYTES} (larger: HTTP 413).
 *
 * <p>Plain HTTP: with {@link #withPage(String)}, a {@code GET /} (or {@code GET /index.html}) on the same port is
 * answered with that HTML page ({@code text/html; charset=utf-8}) and the connection closed; any other plain
 * HTTP request gets 404 (or 400 when it is not HTTP). That is enough to serve the one static page of a browser
 * client from the session port itself.
 *
 * <p>Pipeline, one job per handler: {@code http-codec} ({@link HttpServerCodec}), {@code http-aggregator}
 * ({@link HttpObjectAggregator}, the handshake request), {@code ws-protocol} ({@link WebSocketServerProtocolHandler}:
 * handshake, ping, close; after the handshake Netty puts its frame decoder and encoder in place of the HTTP codec),
 * {@code ws-aggregator} ({@link WebSocketFrameAggregator}: continuation frames into one message), then
 * {@code ws-text} (text frames to Strings, rejected frames to {@link BadFrame}s, pushed bytes to text frames, the
 * page). Immutable and thread-safe; one instance serves every session of a listener.
 */
public final class WebSocketCodec implements FrameCodec {

  /** Default limit of one inbound message: 64 KiB of payload. */
  public static final int DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024;

  /** Largest accepted {@code maxMessageBytes}: 16 MiB. */
  public static final int MAX_MESSAGE_BYTES_LIMIT = 16 * 1024 * 1024;

  /** Limit of the HTTP handshake request (request line, headers, body): 64 KiB. */
  public static final int MAX_HANDSHAKE_BYTES = 64 * 1024;

  /** How long a client may take for its handshake after connecting: 10 000 ms, then the connection is closed. */
  public static final long HANDSHAKE_TIMEOUT_MILLIS = 10_000;

  private static final String ERROR_PREFIX = "error: ";

  private final String path;
  private final int maxMessageBytes;
  private final byte[] page;

  private WebSocketCodec(final String path, final int maxMessageBytes, final byte[] page) {
    this.path = checkPath(path);
    if (maxMessageBytes < 1 || maxMessageBytes > MAX_MESSAGE_BYTES_LIMIT) {
      throw new IllegalArgumentException("maxMessageBytes " + maxMessageBytes + " must be between 1 and "
          + MAX_MESSAGE_BYTES_LIMIT + "; WebSocketCodec.text(path) uses " + DEFAULT_MAX_MESSAGE_BYTES);
    }
    this.maxMessageBytes = maxMessageBytes;
    this.page = page;
  }

  /**
   * Text messages of at most {@link #DEFAULT_MAX_MESSAGE_BYTES} on {@code ws://host:port + path}.
   *
   * @param path the WebSocket endpoint, e.g. {@code "/ws"}: starts with {@code '/'}, no query.
   * @return the codec, without a page.
   * @throws IllegalArgumentException if {@code path} does not start with {@code '/'} or has a {@code '?'}.
   */
  public static WebSocketCodec text(final String path) {
    return new WebSocketCodec(path, DEFAULT_MAX_MESSAGE_BYTES, null);
  }

  /**
   * Text messages of at most {@code maxMessageBytes} on {@code ws://host:port + path}.
   *
   * @param path the WebSocket endpoint, e.g. {@code "/ws"}: starts with {@code '/'}, no query.
   * @param maxMessageBytes longest accepted inbound message in bytes of UTF-8 payload, 1 to
   *     {@link #MAX_MESSAGE_BYTES_LIMIT}.
   * @return the codec, without a page.
   * @throws IllegalArgumentException if {@code path} or {@code maxMessageBytes} is out of range.
   */
  public static WebSocketCodec text(final String path, final int maxMessageBytes) {
    return new WebSocketCodec(path, maxMessageBytes, null);
  }

  /**
   * This codec, also answering a plain HTTP {@code GET /} with {@code html}.
   *
   * @param html the page, served as UTF-8 {@code text/html}; never null.
   * @return a new codec; this one is unchanged.
   */
  public WebSocketCodec withPage(final String html) {
    Objects.requireNonNull(html, "html");
    return new WebSocketCodec(path, maxMessageBytes, html.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * The WebSocket endpoint's path.
   *
   * @return e.g. {@code "/ws"}.
   */
  public String path() {
    return path;
  }

  /**
   * Longest accepted inbound message.
   *
   * @return bytes of UTF-8 payload.
   */
  public int maxMessageBytes() {
    return maxMessageBytes;
  }

  /**
   * Whether a plain {@code GET /} is answered with a page.
   *
   * @return true after {@link #withPage(String)}.
   */
  public boolean servesPage() {
    return page != null;
  }

  /** {@inheritDoc} */
  @Override
  public void install(final ChannelPipeline pipeline) {
    final WebSocketServerProtocolConfig config = WebSocketServerProtocolConfig.newBuilder()
        .websocketPath(path)
        .checkStartsWith(false)
        .handshakeTimeoutMillis(HANDSHAKE_TIMEOUT_MILLIS)
        .maxFramePayloadLength(maxMessageBytes)
        .allowExtensions(false)
        .handleCloseFrames(true)
        .sendCloseFrame(WebSocketCloseStatus.NORMAL_CLOSURE)
        .dropPongFrames(true)
        .withUTF8Validator(true)
        .build();
    pipeline.addLast("http-codec", new HttpServerCodec());
    pipeline.addLast("http-aggregator", new HttpObjectAggregator(MAX_HANDSHAKE_BYTES));
    pipeline.addLast("ws-protocol", new WebSocketServerProtocolHandler(config));
    pipeline.addLast("ws-aggregator", new WebSocketFrameAggregator(maxMessageBytes));
    pipeline.addLast("ws-text", new WebSocketTextHandler(page));
  }

  /**
   * Encodes {@code String.valueOf(message)} in UTF-8: the payload of one text frame, which the codec's
   * {@code ws-text} handler wraps when the session writes it. Any thread.
   *
   * @param alloc allocator of the session's channel.
   * @param message any object; its {@code toString()} is the text.
   * @return a new buffer owned by the caller.
   */
  @Override
  public ByteBuf encode(final ByteBufAllocator alloc, final Object message) {
    final String text = String.valueOf(message);
    final ByteBuf buf = alloc.buffer(ByteBufUtil.utf8Bytes(text));
    ByteBufUtil.writeUtf8(buf, text);
    return buf;
  }

  /**
   * {@code "error: " + error.getMessage()}, for example {@code error: binary frame of 3 bytes; this session takes
   * text frames only}.
   *
   * @param error what was wrong.
   * @return the error text.
   */
  @Override
  public Object errorReply(final FrameDecodeException error) {
    return ERROR_PREFIX + error.getMessage();
  }

  /**
   * {@code "error: " + reason}.
   *
   * @param reason what was refused.
   * @return the error text.
   */
  @Override
  public Object pushRefusedReply(final String reason) {
    return ERROR_PREFIX + reason;
  }

  /**
   * {@code "error: " + reason}, sent as the last text frame before the close frame.
   *
   * @param reason why the session ends.
   * @return the error text.
   */
  @Override
  public Object closingReply(final String reason) {
    return ERROR_PREFIX + reason;
  }

  @Override
  public String toString() {
    return "WebSocketCodec.text(" + path + ", " + maxMessageBytes + (page == null ? "" : ", page") + ")";
  }

  private static String checkPath(final String path) {
    Objects.requireNonNull(path, "path");
    if (!path.startsWith("/") || path.indexOf('?') >= 0) {
      throw new IllegalArgumentException("WebSocket path \"" + path + "\" must start with '/' and have no query,"
          + " e.g. \"/ws\"");
    }
    return path;
  }
}
