package dev.spotkit.core;

import dev.spotkit.core.internal.runtime.NodeConfig;
import dev.spotkit.core.session.FrameCodec;
import dev.spotkit.core.session.LineCodec;
import dev.spotkit.core.session.SessionServerConfig;
import java.time.Duration;

/**
 * The client-session listener: {@code sessions(s -> s.listen(7000).codec(LineCodec.utf8()).bindTo("player"))}.
 * Each accepted connection gets a new actor of the bound stable type (created through the Entry Spot's
 * OnCreateActor); its frames arrive as ordinary messages (a String per line for {@link LineCodec}); the
 * actor pushes with {@code ctx.session().ifPresent(s -> s.push(msg))}. A disconnect runs OnDisconnectActor once,
 * after every frame of the session was handled and any join those frames started completed, on the spot the
 * actor then belongs to (spec 000 section 3). A client that sends faster than its actor handles is slowed down
 * by TCP ({@link #inboundWaterMarks}). Not thread-safe; only inside the callback.
 */
public final class SessionOptions {
  String host = SessionServerConfig.DEFAULT_HOST;
  int port;
  FrameCodec codec = LineCodec.utf8();
  String actorType;
  int maxOutboundBytes = SessionServerConfig.DEFAULT_MAX_OUTBOUND_BYTES;
  int inboundLowWaterFrames = SessionServerConfig.DEFAULT_INBOUND_LOW_WATER_FRAMES;
  int inboundHighWaterFrames = SessionServerConfig.DEFAULT_INBOUND_HIGH_WATER_FRAMES;
  Duration halfCloseDrain = SessionServerConfig.DEFAULT_HALF_CLOSE_DRAIN;
  Duration halfCloseQuiet = SessionServerConfig.DEFAULT_HALF_CLOSE_QUIET;
  Duration relocationSealTimeout = DEFAULT_RELOCATION_SEAL_TIMEOUT;

  /** SessionRelocationSealTimeout by default: 3 s (spec 000 section 4.2 step 8). */
  public static final Duration DEFAULT_RELOCATION_SEAL_TIMEOUT = Duration.ofSeconds(3);
  String alsoHost;
  int alsoPort;
  FrameCodec alsoCodec;

  SessionOptions() {
  }

  /**
   * Port on 127.0.0.1.
   *
   * @param listenPort 0..65535; 0 picks a free port (see {@link MeshNode#sessionAddress()}).
   * @return these options.
   */
  public SessionOptions listen(final int listenPort) {
    return listen(SessionServerConfig.DEFAULT_HOST, listenPort);
  }

  /**
   * Host and port.
   *
   * @param listenHost e.g. "0.0.0.0" for every interface.
   * @param listenPort 0..65535.
   * @return these options.
   */
  public SessionOptions listen(final String listenHost, final int listenPort) {
    if (listenPort < 0 || listenPort > 65535) {
      throw new SpotkitException.InvalidOperation("session port " + listenPort + " must be 0..65535 (0 = free)");
    }
    this.host = listenHost;
    this.port = listenPort;
    return this;
  }

  /**
   * Frame codec; default {@link LineCodec#utf8()}.
   *
   * @param frameCodec the codec.
   * @return these options.
   */
  public SessionOptions codec(final FrameCodec frameCodec) {
    this.codec = frameCodec;
    return this;
  }

  /**
   * A second listener of this node for the same binding, with its own codec: for example browsers on
   * {@code WebSocketCodec.text("/ws")} beside {@link LineCodec} clients on the first (spec 000 section 8 sessions).
   * Its connections get actors of the same {@link #bindTo bound type} with the same limits, and it starts and
   * stops with the first; {@link MeshNode#sessionAddresses()} lists both.
   *
   * @param listenHost bind address, e.g. "127.0.0.1".
   * @param listenPort 0..65535; 0 picks a free port.
   * @param frameCodec the second listener's codec; never null.
   * @return these options.
   * @throws SpotkitException.InvalidOperation if the port is out of range or the codec is null.
   */
  public SessionOptions alsoListen(final String listenHost, final int listenPort, final FrameCodec frameCodec) {
    if (listenPort < 0 || listenPort > 65535) {
      throw new SpotkitException.InvalidOperation("session port " + listenPort + " must be 0..65535 (0 = free)");
    }
    if (listenHost == null || frameCodec == null) {
      throw new SpotkitException.InvalidOperation("alsoListen needs a host and a codec, e.g. alsoListen(\"127.0.0.1\","
          + " 0, WebSocketCodec.text(\"/ws\"))");
    }
    this.alsoHost = listenHost;
    this.alsoPort = listenPort;
    this.alsoCodec = frameCodec;
    return this;
  }

  /**
   * Stable type of the actor created for each connection; required.
   *
   * @param stableType a registered actor type.
   * @return these options.
   */
  public SessionOptions bindTo(final String stableType) {
    this.actorType = stableType;
    return this;
  }

  /**
   * Per-session outbound budget; a slower reader is disconnected.
   *
   * @param bytes at least 1; default 4 MiB.
   * @return these options.
   */
  public SessionOptions maxOutboundBytes(final int bytes) {
    if (bytes < 1) {
      throw new SpotkitException.InvalidOperation("maxOutboundBytes " + bytes + " must be at least 1");
    }
    this.maxOutboundBytes = bytes;
    return this;
  }

  /**
   * Inbound backpressure per session, counted in frames delivered to the bound actor whose handler has not run
   * yet: at {@code highFrames} the session stops reading from its socket (the client waits in TCP), at
   * {@code lowFrames} it reads again. With the default unbounded actor mailbox no frame is dropped. <b>Note:</b>
   * frames already read when reading stops are still delivered, so up to one socket read more (at most 64 KiB of
   * input, e.g. 6,500 ten-byte lines) can arrive past {@code highFrames}; a bounded actor type whose mailbox
   * fills closes the session and the frames it refused are lost, so bound session actors only with a capacity
   * above {@code highFrames} plus 64 KiB divided by the shortest line, or leave them unbounded.
   *
   * @param lowFrames 0..{@code highFrames} - 1; default
   *     {@value SessionServerConfig#DEFAULT_INBOUND_LOW_WATER_FRAMES}.
   * @param highFrames 1..{@value SessionServerConfig#MAX_INBOUND_HIGH_WATER_FRAMES}; default
   *     {@value SessionServerConfig#DEFAULT_INBOUND_HIGH_WATER_FRAMES}.
   * @return these options.
   * @throws SpotkitException.InvalidOperation when a mark is out of range.
   */
  public SessionOptions inboundWaterMarks(final int lowFrames, final int highFrames) {
    try {
      SessionServerConfig.builder().inboundWaterMarks(lowFrames, highFrames);
    } catch (IllegalArgumentException e) {
      throw new SpotkitException.InvalidOperation(e.getMessage());
    }
    this.inboundLowWaterFrames = lowFrames;
    this.inboundHighWaterFrames = highFrames;
    return this;
  }

  /**
   * Drain of a half-closed session: a client that shut its output down (e.g. {@code nc -N}) still gets the replies
   * to the lines it sent; the session closes once they were handled and nothing was pushed for {@code quiet}, at
   * the latest {@code drain} after the client's EOF (see {@link SessionServerConfig#halfCloseDrain()}).
   *
   * @param drain positive; default 2 s.
   * @param quiet positive, at most {@code drain}; default 500 ms.
   * @return these options.
   * @throws SpotkitException.InvalidOperation when a duration is null, not positive, or quiet exceeds drain.
   */
  public SessionOptions halfCloseDrain(final Duration drain, final Duration quiet) {
    try {
      SessionServerConfig.builder().halfCloseDrain(drain, quiet);
    } catch (IllegalArgumentException | NullPointerException e) {
      throw new SpotkitException.InvalidOperation(e.getMessage());
    }
    this.halfCloseDrain = drain;
    this.halfCloseQuiet = quiet;
    return this;
  }

  /**
   * SessionRelocationSealTimeout (spec 000 section 4.2 step 8; spec 001 section 9): while a bound actor moves to
   * another node, this node (the Session owner) holds the session's frames behind a seal until the target's route
   * update (command 44) arrives; when none arrives within this time, counted from the seal's install, the client's
   * connection is closed ("the server could not move your session in time; reconnect"). A longer time keeps clients
   * connected through slower moves (a busy machine, a large state) at the cost of holding their frames longer.
   *
   * @param timeout 100 ms..5 min; default 3 s.
   * @return these options.
   * @throws SpotkitException.InvalidOperation when null or outside that range.
   */
  public SessionOptions relocationSealTimeout(final Duration timeout) {
    if (timeout == null || timeout.compareTo(Duration.ofMillis(100)) < 0 || timeout.compareTo(Duration.ofMinutes(5))
        > 0) {
      throw new SpotkitException.InvalidOperation("relocationSealTimeout " + timeout + " must be 100 ms..5 min");
    }
    this.relocationSealTimeout = timeout;
    return this;
  }

  NodeConfig.SessionSpec toSpec() {
    if (actorType == null) {
      throw new SpotkitException.NotConfigured("sessions need bindTo(\"<actor type>\"): the actor created for"
          + " each connection");
    }
    if (codec == null) {
      throw new SpotkitException.NotConfigured("sessions need a codec, e.g. codec(LineCodec.utf8())");
    }
    return new NodeConfig.SessionSpec(host, port, codec, actorType, maxOutboundBytes, inboundLowWaterFrames,
        inboundHighWaterFrames, halfCloseDrain, halfCloseQuiet, alsoHost, alsoPort, alsoCodec, relocationSealTimeout);
  }
}
