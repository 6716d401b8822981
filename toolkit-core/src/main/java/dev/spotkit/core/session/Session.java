package dev.spotkit.core.session;

import java.net.SocketAddress;

/**
 * One client connection accepted by a {@link SessionServer}.
 *
 * <p>The Session owner is the node that holds the socket; the session stays there when the bound actor
 * moves (DESIGN.md "Nodes, transport and sessions"). Every method is safe to call from any thread; only
 * {@link #push} may block, and only while the client does not read (see there).
 *
 * <p><b>Note:</b> this interface is not sealed so that runtime tests can use a fake; production sessions
 * come only from {@link SessionServer}.
 */
public interface Session {

  /**
   * Node-unique id of this session.
   *
   * @return the id, always greater than zero. Any thread.
   */
  long id();

  /**
   * Address of the peer.
   *
   * @return the remote socket address as accepted. Any thread.
   */
  SocketAddress remoteAddress();

  /**
   * Whether the connection is still open and accepts pushes.
   *
   * @return false once {@link #close()} was called, the peer went away, or a push was refused. Any thread.
   */
  boolean isOpen();

  /**
   * Encodes {@code message} with the listener's {@link FrameCodec} and writes it to the peer.
   *
   * <p>Any thread. Messages pushed by one thread are written in push order; pushes from different threads
   * interleave whole messages, never bytes. Delivery is best effort: a message queued before the connection
   * closes may still be lost.
   *
   * <p>Each session has an outbound budget ({@link SessionServerConfig#maxOutboundBytes()}): bytes encoded but
   * not yet handed to the socket. A push that finds no room waits for the client to read, at most
   * {@link SessionServerConfig#pushTimeout()} (a virtual thread parks), then fails with
   * {@link dev.spotkit.core.SpotkitException.CapacityExceeded}; the session stays open and later pushes go through
   * once the client reads. On a Netty event loop a push cannot wait: it returns false and closes the session (the
   * slow reader is cut). A message larger than the whole budget fails at once with {@code CapacityExceeded}, and
   * the client gets the codec's {@link FrameCodec#pushRefusedReply error line} instead of it.
   *
   * @param message to encode; for {@link LineCodec} any object, written as {@code String.valueOf(message)}
   *     followed by LF. Null is a programmer error.
   * @return true when the encoded message was queued for writing; false when the session was already
   *     closed, or (on an event loop only) the push found no room and closed the session.
   * @throws NullPointerException if {@code message} is null.
   * @throws dev.spotkit.core.SpotkitException.CapacityExceeded when no room came within the push timeout, or the
   *     message is larger than the whole outbound budget.
   */
  boolean push(Object message);

  /**
   * Inbound flow control: one more frame was handed to its consumer and is not handled yet. When the count
   * of such frames reaches {@link SessionServerConfig#inboundHighWaterFrames()} the session stops reading
   * from its socket (Netty auto-read off), so the peer waits in TCP; see {@link #frameHandled()}.
   *
   * <p>Called by whoever consumes the frames, once per frame, before handing it on: the MeshNode runtime
   * does it for every frame it queues for the bound actor. A consumer that never calls it gets no inbound
   * flow control. Frames already read from the socket when reading stops are still delivered, so the count
   * can exceed the high-water mark by the frames of one socket read (at most 64 KiB of input).
   *
   * <p>Any thread; never blocks.
   */
  void frameQueued();

  /**
   * Inbound flow control: a frame counted by {@link #frameQueued()} was handled (or dropped). When the
   * count falls to {@link SessionServerConfig#inboundLowWaterFrames()} a session that stopped reading
   * resumes. Call it exactly once per {@link #frameQueued()} call.
   *
   * <p>Any thread; never blocks.
   */
  void frameHandled();

  /**
   * Frames counted by {@link #frameQueued()} and not yet by {@link #frameHandled()}.
   *
   * @return the count; a snapshot. Any thread.
   */
  int pendingFrames();

  /**
   * Closes the connection. Idempotent; any thread; does not block. The {@link SessionInbound} of this
   * session gets {@link SessionInbound#onClosed()} once, after its last frame.
   */
  void close();

  /**
   * Tells the client why, then closes: pushes the codec's {@link FrameCodec#closingReply(String)} (for
   * {@link LineCodec}: {@code "error: " + reason}) and closes once it is written; a codec without one closes at
   * once. Idempotent with {@link #close()}; any thread; does not block.
   *
   * @param reason what ended the session, for the client (no internals: no addresses or class names).
   */
  default void close(final String reason) {
    close();
  }
}
