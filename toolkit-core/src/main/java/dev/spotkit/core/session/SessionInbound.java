package dev.spotkit.core.session;

/**
 * Receives one session's decoded frames and its end. Implemented by the core runtime.
 *
 * <p>All calls for one session come from that session's Netty event loop thread, one at a time, so an
 * implementation needs no locking for its own per-session state. They must not block and must not run
 * actor code: put the frame in the bound actor's mailbox and return.
 */
public interface SessionInbound {

  /**
   * One decoded frame, in arrival order. Frames the codec rejected never arrive here: the peer gets an
   * error reply instead (see {@link SessionServerConfig#closeOnBadFrame()}).
   *
   * @param frame the decoded frame: a {@link String} without its line ending for {@link LineCodec}. If a
   *     custom codec produces reference-counted frames, ownership passes to this method, which must
   *     release them.
   */
  void onFrame(Object frame);

  /**
   * The codec rejected a frame and its error reply is due (sessions that stay open after a bad frame, see
   * {@link SessionServerConfig#closeOnBadFrame()}). The default pushes it at once; the core runtime queues it behind
   * the frames that came before, so the client reads it after their replies.
   *
   * @param reply the codec's error reply (a {@link String} line for {@link LineCodec}); not null.
   * @param session the session to push it to.
   */
  default void onBadFrame(final Object reply, final Session session) {
    session.push(reply);
  }

  /**
   * The session ended: the peer disconnected, {@link Session#close()} was called, a push was refused, an
   * I/O error happened, or the server closed. Called exactly once per session, after the last
   * {@link #onFrame(Object)}.
   */
  void onClosed();
}
