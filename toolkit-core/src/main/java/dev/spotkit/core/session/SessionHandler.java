package dev.spotkit.core.session;

/**
 * Receives the connections a {@link SessionServer} accepts. Implemented by the core runtime, which binds
 * each session to a new actor of the listener's stable type.
 */
@FunctionalInterface
public interface SessionHandler {

  /**
   * Called exactly once per accepted connection, on that connection's Netty event loop, before any frame.
   *
   * <p><b>Note:</b> runs on an event loop thread: it must not block and must not run actor code; hand
   * work to a mailbox instead. If it throws, the connection is closed and no callback follows.
   *
   * @param session the new connection; open, thread-safe, and valid until closed.
   * @return the receiver of this session's frames and its close; never null.
   */
  SessionInbound onOpen(Session session);
}
