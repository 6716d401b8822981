package dev.spotkit.core.session;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelPipeline;

/**
 * Turns a session's bytes into frames and messages into bytes. {@link LineCodec} is the built-in one.
 *
 * <p>Inbound, the codec installs its own handlers (one job each: framing, then decoding) in every
 * session's pipeline; the session's dispatch handler goes right after them and expects one decoded frame,
 * or one {@link BadFrame}, per {@code channelRead}.
 *
 * <p>Outbound, {@link Session#push(Object)} calls {@link #encode(ByteBufAllocator, Object)} on the pushing
 * thread and writes the resulting buffer. Encoding before the write is queued is what lets the session
 * count its outbound bytes exactly and refuse a push that would exceed its budget, without waiting for
 * the event loop; it also keeps encoding work off the event loop.
 *
 * <p>Implementations are immutable and shared by every session of a listener; per-session state lives
 * only in the handlers {@link #install(ChannelPipeline)} creates.
 */
public interface FrameCodec {

  /**
   * Adds this codec's inbound handlers to a new session's pipeline, with {@code addLast}, in order.
   *
   * <p>Called once per connection on its event loop, before the session's dispatch handler is added.
   * Must create new handler instances: a decoder with fields is never {@code @Sharable}. The last
   * handler fires, per frame, either the decoded frame or a {@link BadFrame}. It may instead throw a
   * {@link FrameDecodeException} (the dispatch handler treats it like a {@link BadFrame}), but then the
   * bytes after the bad frame wait for the next read.
   *
   * @param pipeline of the new session's channel.
   */
  void install(ChannelPipeline pipeline);

  /**
   * Encodes one outbound message. Any thread; must not block.
   *
   * <p>Ownership: the returned buffer is new (reference count 1) and belongs to the caller, which writes
   * it (the channel then releases it) or releases it.
   *
   * @param alloc allocator of the session's channel.
   * @param message to encode; never null.
   * @return the encoded bytes, ready to write.
   */
  ByteBuf encode(ByteBufAllocator alloc, Object message);

  /**
   * The message to push back to a peer whose frame was rejected, or null to send nothing.
   *
   * @param error what was wrong with the peer's frame.
   * @return a message for {@link #encode(ByteBufAllocator, Object)}, or null.
   */
  Object errorReply(FrameDecodeException error);

  /**
   * The message to push to a client instead of a push the session refused because it can never fit its outbound
   * budget (one message larger than {@link SessionServerConfig#maxOutboundBytes()}), or null to send nothing. The
   * pusher gets {@link dev.spotkit.core.SpotkitException.CapacityExceeded} either way.
   *
   * @param reason what was refused, with its size and the limit.
   * @return a message for {@link #encode(ByteBufAllocator, Object)}, or null; it must itself be small.
   */
  default Object pushRefusedReply(final String reason) {
    return null;
  }

  /**
   * The message to push to a client right before the server closes its session for a reason of its own (see
   * {@link Session#close(String)}), or null to close without one.
   *
   * @param reason why the session ends.
   * @return a message for {@link #encode(ByteBufAllocator, Object)}, or null.
   */
  default Object closingReply(final String reason) {
    return null;
  }
}
