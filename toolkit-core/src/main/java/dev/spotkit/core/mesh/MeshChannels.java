package dev.spotkit.core.mesh;

import io.netty.channel.Channel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.LengthFieldPrepender;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.util.AttributeKey;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The per-connection pipeline and the one way a mesh connection is closed on purpose: with a typed reason
 * that is recorded on the channel (the first reason wins) and logged.
 *
 * <p>Pipeline, one job per handler, all created per channel:
 * <ol>
 *   <li>{@code flush-consolidation} (outbound): one flush per batch of queued writes.</li>
 *   <li>{@code pre-auth-limit} ({@link PreAuthLimit}): the peer's handshake frames may declare at most 4 KiB, so
 *       an unauthenticated connection cannot make this node buffer a full-size frame.</li>
 *   <li>{@code length-prepender} (outbound): writes the 4-byte big-endian length before each frame.</li>
 *   <li>{@code length-framer}: cuts frames at their 4-byte length, strips it; a length over
 *       {@link MeshConfig#maxFrameLength()} throws {@code TooLongFrameException} at once (fail fast) and the
 *       bytes of that frame are discarded without being buffered.</li>
 *   <li>{@code frame-decoder} ({@link MeshFrameDecoder}): handshake message or framework frame, or
 *       {@link BadFrame}.</li>
 *   <li>{@code handshake} ({@link HandshakeHandler}), replaced by {@code peer} ({@link PeerChannelHandler})
 *       once the connection is authenticated and accepted.</li>
 *   <li>{@code errors} ({@link ErrorHandler}): maps exceptions to a {@link CloseReason} and closes.</li>
 * </ol>
 */
final class MeshChannels {

  private static final Logger LOG = LoggerFactory.getLogger(MeshTransport.class);

  /** Why we closed a channel; set once by {@link #closeWith}, read in channelInactive. */
  static final AttributeKey<CloseInfo> CLOSE_INFO = AttributeKey.valueOf("spotkit.mesh.closeInfo");

  /** Length of the frame length prefix. */
  static final int LENGTH_PREFIX = 4;

  /**
   * A typed close reason and its detail.
   *
   * @param reason the reason.
   * @param detail what happened.
   */
  record CloseInfo(CloseReason reason, String detail) {
  }

  private MeshChannels() {
  }

  /** Installs the framing handlers (everything up to and including {@code frame-decoder}). */
  static void installFraming(final io.netty.channel.ChannelPipeline pipeline, final int maxFrameLength) {
    pipeline.addLast("flush-consolidation", new FlushConsolidationHandler(256, true));
    pipeline.addLast("length-prepender", new LengthFieldPrepender(LENGTH_PREFIX));
    // Netty counts the length field itself in maxFrameLength; our limit is on the frame without its prefix.
    final int withPrefix = (int) Math.min(Integer.MAX_VALUE, (long) maxFrameLength + LENGTH_PREFIX);
    pipeline.addLast("length-framer", new LengthFieldBasedFrameDecoder(withPrefix, 0, LENGTH_PREFIX, 0,
        LENGTH_PREFIX, true));
    pipeline.addLast("frame-decoder", new MeshFrameDecoder());
  }

  /**
   * Records the reason (unless one is recorded already), logs it and closes the channel. Any thread.
   *
   * @param channel the connection.
   * @param reason why.
   * @param detail the values involved.
   */
  static void closeWith(final Channel channel, final CloseReason reason, final String detail) {
    final CloseInfo info = new CloseInfo(reason, detail);
    if (channel.attr(CLOSE_INFO).setIfAbsent(info) == null) {
      if (reason.peerFault()) {
        final long suppressed = WARNINGS.admit(reason);
        if (suppressed >= 0) {
          LOG.warn("mesh connection {} closed: {}: {}{}", channel.remoteAddress(), reason, detail, suppressed == 0
              ? "" : " (" + suppressed + " more closes for " + reason + " not logged in the last "
              + WarningRate.WINDOW_MS + " ms)");
        } else {
          LOG.debug("mesh connection {} closed: {}: {}", channel.remoteAddress(), reason, detail);
        }
      } else {
        LOG.debug("mesh connection {} closed: {}: {}", channel.remoteAddress(), reason, detail);
      }
    }
    channel.close();
  }

  /** At most one WARN per reason per {@link WarningRate#WINDOW_MS}; the rest at DEBUG, counted. */
  static final WarningRate WARNINGS = new WarningRate();

  /** Rate limit of the close warnings of one JVM, per reason (a flood of closes must not flood the log). */
  static final class WarningRate {
    static final long WINDOW_MS = 10_000;
    private final java.util.Map<CloseReason, long[]> state = new java.util.EnumMap<>(CloseReason.class);

    /** -1: do not log; else log, and this many were held back since the last logged one. */
    synchronized long admit(final CloseReason reason) {
      final long now = System.nanoTime();
      final long[] s = state.computeIfAbsent(reason, r -> new long[] {now - 1, 0}); // {next allowed, held back}
      if (now - s[0] < 0) {
        s[1]++;
        return -1;
      }
      final long held = s[1];
      s[0] = now + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(WINDOW_MS);
      s[1] = 0;
      return held;
    }
  }

  /** The recorded reason, or {@link CloseReason#PEER_CLOSED} when nobody recorded one (the peer went away). */
  static CloseInfo closeInfo(final Channel channel) {
    final CloseInfo info = channel.attr(CLOSE_INFO).get();
    return info != null ? info : new CloseInfo(CloseReason.PEER_CLOSED, "connection closed by the peer");
  }
}
