package dev.spotkit.core.session;

import dev.spotkit.core.internal.runtime.Listen;
import java.time.Duration;
import java.util.Objects;

/**
 * Settings of one client-session listener. Immutable; build with {@link #builder()}.
 *
 * <pre>{@code
 * SessionServerConfig config = SessionServerConfig.builder()
 *     .port(7000)                      // 0 (default): a free port chosen at bind time
 *     .codec(LineCodec.utf8())         // default
 *     .maxOutboundBytes(1 << 20)       // default 4 MiB per session
 *     .inboundWaterMarks(64, 256)      // default: stop reading at 256 unhandled frames, resume at 64
 *     .halfCloseDrain(Duration.ofSeconds(2), Duration.ofMillis(500)) // default: after a client's half-close
 *                                      // close once replies went quiet for 500 ms, at the latest after 2 s
 *     .build();
 * }</pre>
 */
public final class SessionServerConfig {

  /** Default bind host: loopback only. Listening on all interfaces is an explicit choice ("0.0.0.0"). */
  public static final String DEFAULT_HOST = "127.0.0.1";

  /** Default per-session outbound budget: 4 MiB encoded but not yet written to the socket. */
  public static final int DEFAULT_MAX_OUTBOUND_BYTES = 4 * 1024 * 1024;

  /** Default number of Netty event loop threads of a listener. */
  public static final int DEFAULT_IO_THREADS = Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors()));

  /** Default inbound high-water mark: frames handed on and not yet handled before reading stops. */
  public static final int DEFAULT_INBOUND_HIGH_WATER_FRAMES = 256;

  /** Default inbound low-water mark: reading resumes when unhandled frames fall to this count. */
  public static final int DEFAULT_INBOUND_LOW_WATER_FRAMES = 64;

  /** Largest inbound high-water mark accepted. */
  public static final int MAX_INBOUND_HIGH_WATER_FRAMES = 1 << 20;

  /** Default bound on {@link SessionServer#close()}. */
  public static final Duration DEFAULT_CLOSE_TIMEOUT = Duration.ofSeconds(5);

  /** Default bound on a half-closed session's drain: it closes at the latest this long after the client's EOF. */
  public static final Duration DEFAULT_HALF_CLOSE_DRAIN = Duration.ofSeconds(2);

  /** Default quiet time of a half-closed session's drain: no push for this long (and no frame unhandled) closes. */
  public static final Duration DEFAULT_HALF_CLOSE_QUIET = Duration.ofMillis(500);

  private final String host;
  private final int port;
  private final FrameCodec codec;
  private final int maxOutboundBytes;
  private final boolean closeOnBadFrame;
  private final int inboundHighWaterFrames;
  private final int inboundLowWaterFrames;
  private final int ioThreads;
  private final Duration closeTimeout;
  private final Duration pushTimeout;
  private final Duration halfCloseDrain;
  private final Duration halfCloseQuiet;

  /** Default bound on how long a push may wait for room in the outbound budget. */
  public static final Duration DEFAULT_PUSH_TIMEOUT = Duration.ofSeconds(5);

  private SessionServerConfig(final Builder b) {
    this.host = b.host;
    this.port = b.port;
    this.codec = b.codec;
    this.maxOutboundBytes = b.maxOutboundBytes;
    this.closeOnBadFrame = b.closeOnBadFrame;
    this.inboundHighWaterFrames = b.inboundHighWaterFrames;
    this.inboundLowWaterFrames = b.inboundLowWaterFrames;
    this.ioThreads = b.ioThreads;
    this.closeTimeout = b.closeTimeout;
    this.pushTimeout = b.pushTimeout;
    this.halfCloseDrain = b.halfCloseDrain;
    this.halfCloseQuiet = b.halfCloseQuiet;
  }

  /**
   * Bound on the drain of a half-closed session. When a client shuts its output down (TCP FIN, e.g.
   * {@code nc -N}, {@code socket.shutdownOutput()}) while still reading, the session stops reading, lets the frames
   * already accepted be handled and their replies be pushed, and then closes (after the pushes written so far
   * are flushed): as soon as no accepted frame is unhandled and no push came for {@link #halfCloseQuiet()}, and at
   * the latest this long after the client's EOF, whichever comes first. {@code onClosed} still runs exactly once.
   *
   * @return a positive duration; default 2 s ({@link #DEFAULT_HALF_CLOSE_DRAIN}).
   */
  public Duration halfCloseDrain() {
    return halfCloseDrain;
  }

  /**
   * Quiet time of the drain of a half-closed session (see {@link #halfCloseDrain()}): the session closes once
   * every accepted frame was handled and nothing was pushed for this long. Replies that come later than this
   * after the one before (a slow request behind a line) are lost; raise it for such handlers.
   *
   * @return a positive duration, at most {@link #halfCloseDrain()}; default 500 ms
   *     ({@link #DEFAULT_HALF_CLOSE_QUIET}).
   */
  public Duration halfCloseQuiet() {
    return halfCloseQuiet;
  }

  /**
   * How long {@link Session#push} may wait for room in the outbound budget when the client reads slower than the
   * server pushes; then the push fails with {@link dev.spotkit.core.SpotkitException.CapacityExceeded} and the
   * session stays open. A push on a Netty event loop never waits (see {@link Session#push}).
   *
   * @return a positive duration; default 5 s.
   */
  public Duration pushTimeout() {
    return pushTimeout;
  }

  /**
   * A builder with the defaults: 127.0.0.1, port 0, {@link LineCodec#utf8()}, 4 MiB outbound budget,
   * bad frames answered and skipped.
   *
   * @return a new builder.
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Host name or address to bind.
   *
   * @return the host; default {@value #DEFAULT_HOST}.
   */
  public String host() {
    return host;
  }

  /**
   * TCP port to bind.
   *
   * @return 0..65535; 0 means a free port chosen at bind time (see {@link SessionServer#localAddress()}).
   */
  public int port() {
    return port;
  }

  /**
   * Codec of every session of this listener.
   *
   * @return the codec; default {@link LineCodec#utf8()}.
   */
  public FrameCodec codec() {
    return codec;
  }

  /**
   * Per-session outbound budget: bytes pushed but not yet handed to the socket (queued on the event loop or in the
   * channel's buffer). A push that finds no room waits up to {@link #pushTimeout()} and then fails with
   * {@link dev.spotkit.core.SpotkitException.CapacityExceeded}; one larger than the whole budget fails at once and
   * the client gets the codec's error line instead (see {@link Session#push}).
   *
   * @return bytes; default {@value #DEFAULT_MAX_OUTBOUND_BYTES}.
   */
  public int maxOutboundBytes() {
    return maxOutboundBytes;
  }

  /**
   * What happens after a peer sends a frame the codec rejects. Either way the peer first gets the codec's
   * {@link FrameCodec#errorReply error reply}.
   *
   * @return false (default): the frame is skipped and the session stays open; true: the session is closed
   *     after the reply is written.
   */
  public boolean closeOnBadFrame() {
    return closeOnBadFrame;
  }

  /**
   * Inbound high-water mark: when this many frames were handed to the consumer and not yet handled
   * ({@link Session#frameQueued()} minus {@link Session#frameHandled()}), the session stops reading from its
   * socket. Only a consumer that counts frames gets this flow control; the MeshNode runtime does.
   *
   * @return frames, 1..{@value #MAX_INBOUND_HIGH_WATER_FRAMES}; default
   *     {@value #DEFAULT_INBOUND_HIGH_WATER_FRAMES}.
   */
  public int inboundHighWaterFrames() {
    return inboundHighWaterFrames;
  }

  /**
   * Inbound low-water mark: a session that stopped reading resumes when its unhandled frames fall to this
   * count.
   *
   * @return frames, 0..{@link #inboundHighWaterFrames()} - 1; default {@value #DEFAULT_INBOUND_LOW_WATER_FRAMES}.
   */
  public int inboundLowWaterFrames() {
    return inboundLowWaterFrames;
  }

  /**
   * Netty event loop threads (NIO) of the listener; they accept, read, decode and write, and never run
   * actor code.
   *
   * @return threads, at least 1.
   */
  public int ioThreads() {
    return ioThreads;
  }

  /**
   * Bound on {@link SessionServer#close()} waiting for every session's {@code onClosed} and the event
   * loops to stop.
   *
   * @return a positive duration; default 5 s.
   */
  public Duration closeTimeout() {
    return closeTimeout;
  }

  @Override
  public String toString() {
    return "SessionServerConfig[host=" + host + ", port=" + port + ", codec=" + codec + ", maxOutboundBytes="
        + maxOutboundBytes + ", closeOnBadFrame=" + closeOnBadFrame + ", inboundWaterMarks=" + inboundLowWaterFrames
        + ".." + inboundHighWaterFrames + ", ioThreads=" + ioThreads
        + ", closeTimeout=" + closeTimeout + ", pushTimeout=" + pushTimeout + ", halfCloseDrain=" + halfCloseDrain
        + ", halfCloseQuiet=" + halfCloseQuiet + "]";
  }

  /** Builder of {@link SessionServerConfig}; not thread-safe. Setters validate and name the bad value. */
  public static final class Builder {
    private String host = DEFAULT_HOST;
    private int port;
    private FrameCodec codec = LineCodec.utf8();
    private int maxOutboundBytes = DEFAULT_MAX_OUTBOUND_BYTES;
    private boolean closeOnBadFrame;
    private int inboundHighWaterFrames = DEFAULT_INBOUND_HIGH_WATER_FRAMES;
    private int inboundLowWaterFrames = DEFAULT_INBOUND_LOW_WATER_FRAMES;
    private int ioThreads = DEFAULT_IO_THREADS;
    private Duration closeTimeout = DEFAULT_CLOSE_TIMEOUT;
    private Duration pushTimeout = DEFAULT_PUSH_TIMEOUT;
    private Duration halfCloseDrain = DEFAULT_HALF_CLOSE_DRAIN;
    private Duration halfCloseQuiet = DEFAULT_HALF_CLOSE_QUIET;

    private Builder() {
    }

    /**
     * Drain of a half-closed session (see {@link SessionServerConfig#halfCloseDrain()}).
     *
     * @param drain bound from the client's EOF to the close; positive.
     * @param quiet the session closes earlier once every accepted frame was handled and no push came for this
     *     long; positive and at most {@code drain}.
     * @return this builder.
     * @throws IllegalArgumentException if a duration is not positive or {@code quiet} exceeds {@code drain}.
     * @throws NullPointerException if a duration is null.
     */
    public Builder halfCloseDrain(final Duration drain, final Duration quiet) {
      Objects.requireNonNull(drain, "drain");
      Objects.requireNonNull(quiet, "quiet");
      if (drain.isNegative() || drain.isZero()) {
        throw new IllegalArgumentException("halfCloseDrain " + drain + " must be positive");
      }
      if (quiet.isNegative() || quiet.isZero() || quiet.compareTo(drain) > 0) {
        throw new IllegalArgumentException("halfCloseQuiet " + quiet + " must be positive and at most the drain "
            + drain);
      }
      this.halfCloseDrain = drain;
      this.halfCloseQuiet = quiet;
      return this;
    }

    /**
     * Bound on a push waiting for room (see {@link SessionServerConfig#pushTimeout()}).
     *
     * @param pushTimeout positive.
     * @return this builder.
     */
    public Builder pushTimeout(final Duration pushTimeout) {
      Objects.requireNonNull(pushTimeout, "pushTimeout");
      if (pushTimeout.isNegative() || pushTimeout.isZero()) {
        throw new IllegalArgumentException("pushTimeout " + pushTimeout + " must be positive");
      }
      this.pushTimeout = pushTimeout;
      return this;
    }

    /**
     * Host to bind.
     *
     * @param host name or address; "0.0.0.0" listens on every interface.
     * @return this builder.
     */
    public Builder host(final String host) {
      this.host = Listen.requireHost(host);
      return this;
    }

    /**
     * Port to bind.
     *
     * @param port 0..65535; 0 picks a free port at bind time.
     * @return this builder.
     */
    public Builder port(final int port) {
      this.port = Listen.requirePort(port);
      return this;
    }

    /**
     * Codec of every session.
     *
     * @param codec for example {@link LineCodec#utf8()}.
     * @return this builder.
     */
    public Builder codec(final FrameCodec codec) {
      this.codec = Objects.requireNonNull(codec, "codec");
      return this;
    }

    /**
     * Per-session outbound budget.
     *
     * @param maxOutboundBytes at least 1; a slow reader is cut past this many unwritten bytes.
     * @return this builder.
     */
    public Builder maxOutboundBytes(final int maxOutboundBytes) {
      if (maxOutboundBytes < 1) {
        throw new IllegalArgumentException("maxOutboundBytes " + maxOutboundBytes + " must be at least 1");
      }
      this.maxOutboundBytes = maxOutboundBytes;
      return this;
    }

    /**
     * Whether a rejected frame closes its session (after the error reply).
     *
     * @param closeOnBadFrame true to close, false (default) to skip the frame and keep the session.
     * @return this builder.
     */
    public Builder closeOnBadFrame(final boolean closeOnBadFrame) {
      this.closeOnBadFrame = closeOnBadFrame;
      return this;
    }

    /**
     * Inbound flow-control marks, in frames handed on and not yet handled (see
     * {@link SessionServerConfig#inboundHighWaterFrames()}).
     *
     * @param lowFrames reading resumes at this count; 0..{@code highFrames} - 1.
     * @param highFrames reading stops at this count; 1..{@value #MAX_INBOUND_HIGH_WATER_FRAMES}.
     * @return this builder.
     */
    public Builder inboundWaterMarks(final int lowFrames, final int highFrames) {
      if (highFrames < 1 || highFrames > MAX_INBOUND_HIGH_WATER_FRAMES) {
        throw new IllegalArgumentException("inbound high-water mark " + highFrames + " must be between 1 and "
            + MAX_INBOUND_HIGH_WATER_FRAMES + " frames");
      }
      if (lowFrames < 0 || lowFrames >= highFrames) {
        throw new IllegalArgumentException("inbound low-water mark " + lowFrames + " must be between 0 and the"
            + " high-water mark minus one (" + (highFrames - 1) + ")");
      }
      this.inboundLowWaterFrames = lowFrames;
      this.inboundHighWaterFrames = highFrames;
      return this;
    }

    /**
     * Event loop threads.
     *
     * @param ioThreads 1..256.
     * @return this builder.
     */
    public Builder ioThreads(final int ioThreads) {
      if (ioThreads < 1 || ioThreads > 256) {
        throw new IllegalArgumentException("ioThreads " + ioThreads + " must be between 1 and 256");
      }
      this.ioThreads = ioThreads;
      return this;
    }

    /**
     * Bound on {@link SessionServer#close()}.
     *
     * @param closeTimeout positive.
     * @return this builder.
     */
    public Builder closeTimeout(final Duration closeTimeout) {
      Objects.requireNonNull(closeTimeout, "closeTimeout");
      if (closeTimeout.isNegative() || closeTimeout.isZero()) {
        throw new IllegalArgumentException("closeTimeout " + closeTimeout + " must be positive");
      }
      this.closeTimeout = closeTimeout;
      return this;
    }

    /**
     * Builds the immutable config.
     *
     * @return the config.
     */
    public SessionServerConfig build() {
      return new SessionServerConfig(this);
    }
  }
}
