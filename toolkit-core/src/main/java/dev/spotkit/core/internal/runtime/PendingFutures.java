package dev.spotkit.core.internal.runtime;

import dev.spotkit.core.SpotkitException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The futures a node's close must end: every one still pending when the close sweeps ({@link #failAll}) fails
 * with the node's ShuttingDown, and one tracked after the sweep began fails at once. A future leaves when it
 * completes. Not API. Thread-safety: any thread.
 */
final class PendingFutures {
  private final ConcurrentHashMap<CompletableFuture<?>, Boolean> futures = new ConcurrentHashMap<>();
  /**
   * Set once {@link #failAll} began. Written by: the closing thread. Read by: {@link #track}. Ordering: volatile;
   * set before the sweep reads {@link #futures}, read after {@link #track}'s put into it, so a future is failed
   * by the sweep or by its own track (a second failure is a no-op).
   */
  private volatile boolean swept;
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
   * @return true when tracked now; false when it was done or tracked already.
   */
  boolean track(final CompletableFuture<?> future) {
    if (future.isDone() || futures.putIfAbsent(future, Boolean.TRUE) != null) {
      return false;
    }
    future.whenComplete((v, e) -> futures.remove(future));
    if (swept) { // the sweep may have run before the put
      future.completeExceptionally(closed.get());
    }
    return true;
  }

  /** Fails every tracked future, and every one tracked from now on, with the close's ShuttingDown. */
  void failAll() {
    swept = true;
    for (CompletableFuture<?> future : futures.keySet()) { // bounded: what was tracked before the sweep began
      future.completeExceptionally(closed.get());
    }
  }
}
