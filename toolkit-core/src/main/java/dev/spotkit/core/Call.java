package dev.spotkit.core;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A pending operation: a request, or a manager call. Nothing starts until {@link #await()} or
 * {@link #toFuture()}; the absolute deadline is fixed at that moment. Use one call once. Any thread.
 *
 * @param <T> the result type.
 */
public sealed interface Call<T> permits CallImpl, CreateCall {

  /**
   * Sets the timeout; the default is the node's request timeout (5 s unless configured).
   *
   * @param timeout positive.
   * @return this call.
   * @throws SpotkitException.InvalidOperation when not positive, or when the call already started.
   */
  Call<T> timeout(Duration timeout);

  /**
   * Starts the call and blocks until it ends. On a virtual thread (every handler) this parks the virtual
   * thread, not a carrier; inside a handler it keeps the turn.
   *
   * @return the result.
   * @throws SpotkitException the typed failure; {@link SpotkitException.DeadlineExceeded} when the deadline
   *     passes; {@link SpotkitException.InvalidOperation} when awaiting would wait on the caller's own turn
   *     (a request to its own actor, or to a spot sharing its execution gate; with a registered join barrier:
   *     MEM-15), or when the call already started.
   */
  T await();

  /**
   * Starts the call without blocking.
   *
   * @return completes with the result, or exceptionally with a {@link SpotkitException}.
   * @throws SpotkitException.InvalidOperation when the call already started.
   */
  CompletableFuture<T> toFuture();
}
