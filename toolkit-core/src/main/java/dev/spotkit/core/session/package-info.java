/**
 * Client sessions: a Netty (NIO) TCP listener whose connections are bound to actors by the core runtime.
 *
 * <p>Boundary with the runtime ({@code notes/session-boundary.md}): the runtime implements
 * {@link dev.spotkit.core.session.SessionHandler} and calls
 * {@link dev.spotkit.core.session.SessionServer#start}; per connection it gets {@code onOpen} once, then
 * {@code onFrame} per frame in arrival order, then {@code onClosed} exactly once, all on the connection's
 * event loop. Nothing here blocks an event loop or runs actor code.
 *
 * <p>Decisions written down here:
 * <ul>
 *   <li>Pipeline per connection, one job per handler: the codec's framing and decoding handlers
 *       ({@link dev.spotkit.core.session.LineCodec}: {@code line-framer}, {@code utf8-decoder}), then the
 *       dispatch handler. Handlers with fields are created per connection, never {@code @Sharable}.</li>
 *   <li>Bad input is the peer's fault and is typed
 *       ({@link dev.spotkit.core.session.FrameDecodeException}: {@code LineTooLongException},
 *       {@code InvalidUtf8Exception}). Decoders emit a {@link dev.spotkit.core.session.BadFrame} in the
 *       frame's place instead of throwing, so later frames of the same read are not held back. The peer
 *       gets the codec's error reply ({@code error: line of 1048576 bytes exceeds maxLineBytes 8192});
 *       by default the frame is skipped and the session stays open
 *       ({@link dev.spotkit.core.session.SessionServerConfig#closeOnBadFrame()} closes it instead). The
 *       server never stops because of a peer.</li>
 *   <li>Outbound: {@link dev.spotkit.core.session.Session#push} encodes on the caller's thread and counts
 *       the bytes not yet written; past {@code maxOutboundBytes} the push is refused and the session is
 *       closed, so a slow reader is cut rather than buffered without bound.</li>
 *   <li>Inbound: the consumer counts frames it took and has not handled yet
 *       ({@link dev.spotkit.core.session.Session#frameQueued}, {@link dev.spotkit.core.session.Session#frameHandled});
 *       at the high-water mark the session turns Netty auto-read off, at the low-water mark back on, always
 *       on its event loop. A fast sender waits in TCP; nothing is dropped. Frames of the socket read in
 *       progress still arrive, so the count can pass the mark by one read (at most 64 KiB of input).</li>
 *   <li>ByteBuf ownership: the framer emits retained slices owned by the decoder after it; the decoder's
 *       base class releases them; frames that reach the runtime are Strings. An encoded push buffer is
 *       owned by the pusher until {@code writeAndFlush}, then by the channel.</li>
 * </ul>
 */
package dev.spotkit.core.session;
