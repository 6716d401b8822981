package dev.spotkit.core.mesh;

import dev.spotkit.core.internal.runtime.Listen;
import dev.spotkit.core.NodeRid;
import java.time.Duration;
import java.util.Objects;

/**
 * Settings of one node's {@link MeshTransport}. Immutable; build with {@link #builder(NodeRid, long, byte[])}.
 *
 * <pre>{@code
 * MeshConfig config = MeshConfig.builder(nodeRid, lifecycleGeneration, clusterSecret)
 *     .port(0)                          // default: a free port on 127.0.0.1
 *     .maxFrameLength(16 << 20)         // default 16 MiB
 *     .build();
 * }</pre>
 */
public final class MeshConfig {

  /** Default bind host: loopback only. Listening on every interface is an explicit choice ("0.0.0.0"). */
  public static final String DEFAULT_HOST = "127.0.0.1";
  /** Default frame limit, 16 MiB, not counting the 4-byte length prefix. */
  public static final int DEFAULT_MAX_FRAME_LENGTH = 16 * 1024 * 1024;
  /** Shortest accepted cluster secret in bytes. */
  public static final int MIN_SECRET_BYTES = 16;
  /** Default bound on a handshake, from TCP connect to usable connection. */
  public static final Duration DEFAULT_HANDSHAKE_TIMEOUT = Duration.ofSeconds(5);
  /**
   * Default per-peer outbound bound, 32 MiB: frame bytes handed to a {@link PeerConnection} and not yet written to
   * its socket, counting frames still waiting as event-loop tasks as well as those in the channel's buffer.
   */
  public static final long DEFAULT_MAX_PENDING_OUTBOUND_BYTES = 32L * 1024 * 1024;
  /** Default bound on {@link MeshTransport#close()}. */
  public static final Duration DEFAULT_CLOSE_TIMEOUT = Duration.ofSeconds(5);
  /** Default number of event loop threads. */
  public static final int DEFAULT_IO_THREADS = Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors()));

  private final NodeRid nodeRid;
  private final long lifecycleGeneration;
  private final byte[] clusterSecret;
  private final String host;
  private final int port;
  private final int maxFrameLength;
  private final long maxPendingOutboundBytes;
  private final Duration handshakeTimeout;
  private final Duration closeTimeout;
  private final int ioThreads;
  private final java.util.function.LongConsumer bytesReceived;
  private final java.util.function.LongConsumer bytesSent;

  private MeshConfig(final Builder b) {
    this.bytesReceived = b.bytesReceived;
    this.bytesSent = b.bytesSent;
    this.nodeRid = b.nodeRid;
    this.lifecycleGeneration = b.lifecycleGeneration;
    this.clusterSecret = b.clusterSecret;
    this.host = b.host;
    this.port = b.port;
    this.maxFrameLength = b.maxFrameLength;
    this.maxPendingOutboundBytes = b.maxPendingOutboundBytes;
    this.handshakeTimeout = b.handshakeTimeout;
    this.closeTimeout = b.closeTimeout;
    this.ioThreads = b.ioThreads;
  }

  /**
   * The traffic counting handler of {@link Builder#trafficCounters}, or null when bytes are not counted.
   *
   * @return a sharable handler (it has no per-connection state), or null.
   */
  public io.netty.channel.ChannelHandler trafficHandler() {
    return bytesReceived == null ? null : new TrafficCounter(bytesReceived, bytesSent);
  }

  /**
   * A builder with the defaults: 127.0.0.1, port 0, 16 MiB frames, 5 s handshake.
   *
   * @param nodeRid this node's id; sent to peers in the handshake.
   * @param lifecycleGeneration this node run's generation, 1..2^63-1; sent to peers in the handshake.
   * @param clusterSecret shared by every node of the mesh, at least 16 bytes; copied. It never leaves the
   *     process: the handshake proves knowledge of it with HMAC-SHA256.
   * @return a new builder.
   * @throws IllegalArgumentException when the generation is not positive or the secret is too short.
   */
  public static Builder builder(final NodeRid nodeRid, final long lifecycleGeneration, final byte[] clusterSecret) {
    return new Builder(nodeRid, lifecycleGeneration, clusterSecret);
  }

  /**
   * This node's id.
   *
   * @return the NodeRid.
   */
  public NodeRid nodeRid() {
    return nodeRid;
  }

  /**
   * This node run's lifecycle generation.
   *
   * @return 1..2^63-1.
   */
  public long lifecycleGeneration() {
    return lifecycleGeneration;
  }

  /** The secret; package-private so that it is never handed out. */
  byte[] clusterSecret() {
    return clusterSecret;
  }

  /**
   * Host to bind.
   *
   * @return default {@value #DEFAULT_HOST}.
   */
  public String host() {
    return host;
  }

  /**
   * Port to bind.
   *
   * @return 0..65535; 0 picks a free port (see {@link MeshTransport#localAddress()}).
   */
  public int port() {
    return port;
  }

  /**
   * Longest frame accepted, excluding the 4-byte length prefix. A peer sending a longer one is disconnected
   * ({@link CloseReason#OVERSIZED_FRAME}); sending a longer one is refused.
   *
   * @return bytes; default 16 MiB.
   */
  public int maxFrameLength() {
    return maxFrameLength;
  }

  /**
   * Per-peer outbound bound: bytes (frame plus its 4-byte length prefix) handed to one {@link PeerConnection} and
   * not yet written to the socket, whether they still wait as an event-loop task or in the channel's outbound
   * buffer. A bounded send ({@link PeerConnection#send(byte[], dev.spotkit.core.Deadline)}) waits for room within
   * its deadline, then fails with {@link dev.spotkit.core.SpotkitException.CapacityExceeded}; one frame is always
   * admitted when nothing is pending, so the memory held for a peer that stopped reading stays within this bound
   * plus one frame and the framework frames of {@link PeerConnection#send(byte[])} (counted, never refused).
   *
   * @return bytes; default 32 MiB.
   */
  public long maxPendingOutboundBytes() {
    return maxPendingOutboundBytes;
  }

  /**
   * Bound on a handshake.
   *
   * @return default 5 s.
   */
  public Duration handshakeTimeout() {
    return handshakeTimeout;
  }

  /**
   * Bound on {@link MeshTransport#close()}.
   *
   * @return default 5 s.
   */
  public Duration closeTimeout() {
    return closeTimeout;
  }

  /**
   * Netty (NIO) event loop threads; they read, decode, write and call the listener, never actor code.
   *
   * @return at least 1.
   */
  public int ioThreads() {
    return ioThreads;
  }

  @Override
  public String toString() {
    return "MeshConfig[nodeRid=" + nodeRid + ", generation=" + lifecycleGeneration + ", host=" + host + ", port="
        + port + ", maxFrameLength=" + maxFrameLength + ", maxPendingOutboundBytes=" + maxPendingOutboundBytes
        + ", handshakeTimeout=" + handshakeTimeout + ", ioThreads="
        + ioThreads + "]";
  }

  /** Builder of {@link MeshConfig}; not thread-safe. Setters validate and name the bad value. */
  public static final class Builder {
    private final NodeRid nodeRid;
    private final long lifecycleGeneration;
    private final byte[] clusterSecret;
    private String host = DEFAULT_HOST;
    private int port;
    private int maxFrameLength = DEFAULT_MAX_FRAME_LENGTH;
    private long maxPendingOutboundBytes = DEFAULT_MAX_PENDING_OUTBOUND_BYTES;
    private Duration handshakeTimeout = DEFAULT_HANDSHAKE_TIMEOUT;
    private Duration closeTimeout = DEFAULT_CLOSE_TIMEOUT;
    private int ioThreads = DEFAULT_IO_THREADS;
    private java.util.function.LongConsumer bytesReceived;
    private java.util.function.LongConsumer bytesSent;

    /**
     * Counts the bytes of every peer connection (metrics): a handler at the head of each pipeline tells
     * {@code received} the size of each buffer read from the socket and {@code sent} the size of each buffer
     * written, on the connection's event loop. Without this call no such handler exists.
     *
     * @param received told the bytes read; must not block.
     * @param sent told the bytes written; must not block.
     * @return this builder.
     * @throws NullPointerException when either is null.
     */
    public Builder trafficCounters(final java.util.function.LongConsumer received,
        final java.util.function.LongConsumer sent) {
      this.bytesReceived = Objects.requireNonNull(received, "received");
      this.bytesSent = Objects.requireNonNull(sent, "sent");
      return this;
    }

    private Builder(final NodeRid nodeRid, final long lifecycleGeneration, final byte[] clusterSecret) {
      this.nodeRid = Objects.requireNonNull(nodeRid, "nodeRid");
      if (lifecycleGeneration <= 0) {
        throw new IllegalArgumentException("lifecycleGeneration " + lifecycleGeneration
            + " must be in 1..9223372036854775807");
      }
      this.lifecycleGeneration = lifecycleGeneration;
      Objects.requireNonNull(clusterSecret, "clusterSecret");
      if (clusterSecret.length < MIN_SECRET_BYTES) {
        throw new IllegalArgumentException("clusterSecret is " + clusterSecret.length + " bytes; use at least "
            + MIN_SECRET_BYTES + " random bytes shared by every node of the mesh");
      }
      this.clusterSecret = clusterSecret.clone();
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
     * @param port 0..65535; 0 picks a free port.
     * @return this builder.
     */
    public Builder port(final int port) {
      this.port = Listen.requirePort(port);
      return this;
    }

    /**
     * Longest frame.
     *
     * @param maxFrameLength 128 .. 2^31-1 bytes.
     * @return this builder.
     */
    public Builder maxFrameLength(final int maxFrameLength) {
      if (maxFrameLength < 128) {
        throw new IllegalArgumentException("maxFrameLength " + maxFrameLength
            + " must be at least 128 (a handshake message is at most 90 bytes)");
      }
      this.maxFrameLength = maxFrameLength;
      return this;
    }

    /**
     * Per-peer outbound bound (see {@link MeshConfig#maxPendingOutboundBytes()}).
     *
     * @param bytes at least 1 KiB.
     * @return this builder.
     */
    public Builder maxPendingOutboundBytes(final long bytes) {
      if (bytes < 1024) {
        throw new IllegalArgumentException("maxPendingOutboundBytes " + bytes + " must be at least 1024");
      }
      this.maxPendingOutboundBytes = bytes;
      return this;
    }

    /**
     * Bound on a handshake.
     *
     * @param timeout positive.
     * @return this builder.
     */
    public Builder handshakeTimeout(final Duration timeout) {
      this.handshakeTimeout = positive("handshakeTimeout", timeout);
      return this;
    }

    /**
     * Bound on close.
     *
     * @param timeout positive.
     * @return this builder.
     */
    public Builder closeTimeout(final Duration timeout) {
      this.closeTimeout = positive("closeTimeout", timeout);
      return this;
    }

    /**
     * Event loop threads.
     *
     * @param ioThreads at least 1.
     * @return this builder.
     */
    public Builder ioThreads(final int ioThreads) {
      if (ioThreads < 1) {
        throw new IllegalArgumentException("ioThreads " + ioThreads + " must be at least 1");
      }
      this.ioThreads = ioThreads;
      return this;
    }

    /**
     * Builds the config.
     *
     * @return the config.
     */
    public MeshConfig build() {
      return new MeshConfig(this);
    }

    private static Duration positive(final String name, final Duration d) {
      Objects.requireNonNull(d, name);
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(name + " " + d + " must be positive, e.g. Duration.ofSeconds(5)");
      }
      return d;
    }
  }
}
