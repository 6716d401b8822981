package dev.spotkit.core.internal.runtime;

import dev.spotkit.core.Deadline;
import dev.spotkit.core.internal.join.PendingJoin;
import java.util.ArrayList;
import java.util.List;

/**
 * The turn running on this thread: which cell, and what the handler registered (join barriers, a close).
 * One per handler or callback invocation; confined to the thread that runs it.
 *
 * <p>Cost per message: one small object. The joins list is allocated by the first {@code defer()} only, and
 * the thread-local is read once per turn: each thread keeps one {@link Slot} whose field holds the current
 * turn, so entering and leaving a turn are plain field writes, never {@code ThreadLocal.set/remove}.
 */
public final class Turn {

  /** The calling thread's current turn. Thread-confined: only its own thread reads or writes it. */
  private static final class Slot {
    private Turn turn;
  }

  private static final ThreadLocal<Slot> CURRENT = ThreadLocal.withInitial(Slot::new);

  final Cell owner;
  final Thread thread;
  /** True for message, request and timer handlers: the only turns that may register joins. */
  final boolean handler;
  private final Turn outer;
  private final Slot slot;
  private boolean open = true;
  /** Joins registered by defer(), in order; null until the first one (most turns register none). */
  public List<PendingJoin> joins;
  public long joinBytes;
  boolean closeRequested;
  /** Set by {@code relocationReady().defer()}: the Spot's application-signaled boundary follows this turn. */
  boolean relocationReadyDeferred;
  /**
   * The absolute deadline of the request this turn handles, or null for a one-way message, a timer tick or a
   * callback. Calls started on this thread during the turn inherit it (spec 001 section 11: a request keeps its
   * deadline; nested requests never get a fresh default past it).
   */
  Deadline deadline;

  private Turn(final Cell owner, final boolean handler, final Slot slot) {
    this.owner = owner;
    this.handler = handler;
    this.slot = slot;
    this.outer = slot.turn;
    this.thread = Thread.currentThread();
    this.deadline = outer != null && outer.open ? outer.deadline : null; // a callback inside a request keeps it
  }

  /**
   * The turn of the calling thread.
   *
   * @return the turn, or null outside any.
   */
  public static Turn current() {
    return CURRENT.get().turn;
  }

  public static Turn enter(final Cell owner, final boolean handler) {
    final Slot slot = CURRENT.get();
    final Turn turn = new Turn(owner, handler, slot);
    slot.turn = turn;
    return turn;
  }

  /**
   * The deadline that calls started on the calling thread inherit: the one of the request whose handler turn
   * runs on this thread, if any.
   *
   * @return the absolute deadline, or null outside a request handler turn.
   */
  public static Deadline inheritedDeadline() {
    final Turn turn = CURRENT.get().turn;
    return turn == null || !turn.open ? null : turn.deadline;
  }

  /**
   * The deadline of the request that {@code cell}'s handler turn on the calling thread handles.
   *
   * @param cell the cell.
   * @return the absolute deadline, or null outside a request handler turn of {@code cell}.
   */
  public static Deadline deadlineFor(final Cell cell) {
    final Turn turn = CURRENT.get().turn;
    return turn != null && turn.isOpenFor(cell, true) ? turn.deadline : null;
  }

  public void exit() {
    open = false;
    slot.turn = outer;
  }

  /** Appends a registered join. */
  public void addJoin(final PendingJoin join) {
    if (joins == null) {
      joins = new ArrayList<>(2);
    }
    joins.add(join);
  }

  /**
   * Joins registered in this turn.
   *
   * @return 0 or more.
   */
  public int joinCount() {
    return joins == null ? 0 : joins.size();
  }

  /**
   * Whether this is an open turn of {@code cell} on the calling thread.
   *
   * @param cell the cell.
   * @param needHandler true when only a handler turn counts.
   * @return true when it is.
   */
  public boolean isOpenFor(final Cell cell, final boolean needHandler) {
    return open && owner == cell && thread == Thread.currentThread() && (handler || !needHandler);
  }
}
