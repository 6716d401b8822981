package dev.spotkit.core;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A manager Create / GetOrCreate. {@link #await()} gives the ref of the created or existing object;
 * {@link #awaitOutcome()} also tells Created, Existing and Rejected apart. Nothing starts before one of the
 * await or future methods. Any thread.
 *
 * @param <R> {@link ActorRef} or {@link SpotRef}.
 */
public sealed interface CreateCall<R> extends Call<R> permits CreateCallImpl {

  @Override
  CreateCall<R> timeout(Duration timeout);

  /**
   * Like {@link #awaitOutcome()} but returns the ref.
   *
   * @return the ref of the created or existing object.
   * @throws SpotkitException.InvalidOperation when the creation callback declined (the message holds its
   *     reply; use {@link #awaitOutcome()} to treat a decline as a result), or as {@link #awaitOutcome()}.
   */
  @Override
  R await();

  /**
   * Starts the call and blocks until it ends.
   *
   * @return Created, Existing or Rejected.
   * @throws SpotkitException.NotConfigured no factory for the stable type, or no object server here.
   * @throws SpotkitException.InvalidOperation a bad id or stable type; a caller-supplied id shaped like an
   *     Entry Spot id; an existing object of another stable type.
   * @throws SpotkitException.CapacityExceeded the creation request encodes to more than 1 MiB.
   * @throws SpotkitException.GenerationExhausted the store's generation sequence is used up.
   * @throws SpotkitException.DeadlineExceeded the deadline passed first (the attempt itself may still end).
   * @throws SpotkitException.InternalFailure the factory or a creation callback threw.
   * @throws SpotkitException.ShuttingDown the node is closing.
   */
  CreateOutcome<R> awaitOutcome();

  /**
   * Starts the call without blocking.
   *
   * @return completes with the outcome, or exceptionally with a {@link SpotkitException}.
   */
  CompletableFuture<CreateOutcome<R>> toOutcomeFuture();
}
