package dev.spotkit.core.session;

/**
 * A WebSocket peer sent a frame {@link WebSocketCodec} does not accept (spec 000 section 8 sessions).
 *
 * <p>{@link Kind#BINARY} and {@link Kind#TOO_LONG} are reported as a {@link BadFrame} between the messages they
 * separate: the peer gets one text frame {@code error: ...} back and the session goes on (unless
 * {@link SessionServerConfig#closeOnBadFrame()}). {@link Kind#PROTOCOL} (a frame that breaks RFC 6455: unmasked,
 * invalid UTF-8 in a text frame, a single frame over the limit, a bad opcode) ends the connection: Netty's decoder
 * has already sent a close frame with the RFC 6455 section 7.4.1 status (1002, 1007 or 1009) when the session
 * sees this error.
 *
 * <p>Messages: {@code "binary frame of 12 bytes; this session takes text frames only"}, {@code "message of 70000
 * bytes exceeds maxMessageBytes 65536"}, {@code "WebSocket protocol violation: Max frame length of 65536 has been
 * exceeded."}.
 */
public final class WebSocketFrameException extends FrameDecodeException {

  private static final long serialVersionUID = 1L;

  /** What was wrong with the peer's frame. */
  public enum Kind {
    /** A binary message: the codec takes text frames only; the session goes on. */
    BINARY,
    /** A fragmented text message longer than the limit: discarded whole; the session goes on. */
    TOO_LONG,
    /** A violation of RFC 6455: the connection is being closed with a close frame. */
    PROTOCOL
  }

  private final Kind kind;
  private final long bytes;

  /**
   * Creates the error.
   *
   * @param kind what was wrong.
   * @param bytes size of the offending frame or message in bytes, or -1 when unknown.
   * @param message what was wrong, with the size and the limit where known.
   */
  public WebSocketFrameException(final Kind kind, final long bytes, final String message) {
    super(message);
    this.kind = java.util.Objects.requireNonNull(kind, "kind");
    this.bytes = bytes;
  }

  /**
   * What was wrong.
   *
   * @return the kind; {@link Kind#PROTOCOL} means the connection ends.
   */
  public Kind kind() {
    return kind;
  }

  /**
   * Size of the offending frame or message.
   *
   * @return bytes of payload, or -1 when unknown (protocol violations).
   */
  public long bytes() {
    return bytes;
  }
}
