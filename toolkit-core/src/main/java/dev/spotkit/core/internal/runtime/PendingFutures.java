package dev.spotkit.core.internal.runtime;

import dev.spotkit.core.SpotkitException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The futures a node's close must end: every one still pending when the close sweeps ({@link #failAll}) fails
 * with the node's ShuttingDown, and one tracked after the sweep began fails at once. A future tracked
 * {@code onlyIfKilled} is failed so only by the sweep of a halt or a fail-stop: a graceful close waits for the
 * work behind it (a move), which then completes it with its own outcome. A future leaves when it completes. Not
 * API. Thread-safety: any thread.
 */
final class PendingFutures {
  private static final int OPEN = 0;
  private static final int CLOSED = 1;
  private static final int KILLED = 2;
  /** Pending futures; the value: whether only a halt's or fail-stop's sweep fails it. */
  private final ConcurrentHashMap<CompletableFuture<?>, Boolean> futures = new ConcurrentHashMap<>();
  /**
   * {@link #OPEN}, then {@link #CLOSED} or {@link #KILLED} once {@link #failAll} began. Written by: the closing
   * thread. Read by: {@link #track}. Ordering: volatile; set before the sweep reads {@link #futures}, read after
   * {@link #track}'s put into it, so a future is failed by the sweep or by its own track (a second failure is a
   * no-op).
   */
  private volatile int swept = OPEN;
  private final Supplier<SpotkitException.ShuttingDown> closed;

  /**
   * @param closed the error a pending future fails with once the node closed.
   */
  PendingFutures(final Supplier<SpotkitException.ShuttingDown> closed) {
    this.closed = closed;
  }

  /**
   * Tracks {@code future} until it completes.
   *
   * @param future the future.
   * @param onlyIfKilled true: only the sweep of a halt or a fail-stop fails it.
   * @return true when tracked now; false when it was done or tracked already.
   */
  boolean track(final CompletableFuture<?> future, final boolean onlyIfKilled) {
    if (future.isDone() || futures.putIfAbsent(future, onlyIfKilled) != null) {
      return false;
    }
    future.whenComplete((v, e) -> futures.remove(future));
    final int now = swept;
    if (now == KILLED || now == CLOSED && !onlyIfKilled) { // the sweep may have run before the put
      future.completeExceptionally(closed.get());
    }
    return true;
  }

  /**
   * Fails the tracked futures, and those tracked from now on, with the close's ShuttingDown.
   *
   * @param killed true for a halt or a fail-stop: also the futures tracked {@code onlyIfKilled}.
   */
  void failAll(final boolean killed) {
    swept = killed ? KILLED : CLOSED;
    futures.forEach((future, onlyIfKilled) -> { // bounded: what was tracked before the sweep began
      if (killed || !onlyIfKilled) {
        future.completeExceptionally(closed.get());
      }
    });
  }
}
