package dev.spotkit.core.internal;

import java.util.ArrayList;
import java.util.List;

/**
 * The turn running on this thread: which cell, and what the handler registered (join barriers, a close).
 * One per handler or callback invocation; confined to the thread that runs it.
 */
public final class Turn {

  private static final ThreadLocal<Turn> CURRENT = new ThreadLocal<>();

  final Cell owner;
  final Thread thread;
  /** True for message, request and timer handlers: the only turns that may register joins. */
  final boolean handler;
  private final Turn outer;
  private boolean open = true;
  final List<PendingJoin> joins = new ArrayList<>();
  long joinBytes;
  boolean closeRequested;

  private Turn(final Cell owner, final boolean handler, final Turn outer) {
    this.owner = owner;
    this.handler = handler;
    this.outer = outer;
    this.thread = Thread.currentThread();
  }

  /**
   * The turn of the calling thread.
   *
   * @return the turn, or null outside any.
   */
  public static Turn current() {
    return CURRENT.get();
  }

  static Turn enter(final Cell owner, final boolean handler) {
    final Turn turn = new Turn(owner, handler, CURRENT.get());
    CURRENT.set(turn);
    return turn;
  }

  void exit() {
    open = false;
    if (outer == null) {
      CURRENT.remove();
    } else {
      CURRENT.set(outer);
    }
  }

  /**
   * Whether this is an open turn of {@code cell} on the calling thread.
   *
   * @param cell the cell.
   * @param needHandler true when only a handler turn counts.
   * @return true when it is.
   */
  boolean isOpenFor(final Cell cell, final boolean needHandler) {
    return open && owner == cell && thread == Thread.currentThread() && (handler || !needHandler);
  }
}
