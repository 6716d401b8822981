package dev.spotkit.core.location;

import dev.spotkit.core.SpotkitException;
import dev.spotkit.store.StoreLimits;
import dev.spotkit.store.StoreException;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Waiting for a store call from a virtual thread, with a timeout, and mapping failures to the framework's
 * typed errors: a store that may have applied the call (timeout, lost answer) and one that did not both become
 * {@link SpotkitException.Unavailable}, with the store's exception as the cause so a caller that must re-read
 * (spec 002 section 10) can tell them apart.
 */
public final class StoreCalls {
  private StoreCalls() {
  }

  /**
   * Waits for {@code call} at most {@code timeout}. Only for virtual threads and other threads that may block;
   * never on a Netty event loop.
   *
   * @param call the store call's stage.
   * @param timeout the longest wait.
   * @param what the call, for messages, e.g. {@code "read of authority\0actor\0alice"}.
   * @param <T> the result type.
   * @return the result.
   * @throws SpotkitException.Unavailable when the call failed or did not answer in time; the cause is a
   *     {@link StoreException} ({@code Indeterminate} when it may have applied).
   */
  public static <T> T await(final CompletionStage<T> call, final Duration timeout, final String what) {
    try {
      return call.toCompletableFuture().get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      throw new SpotkitException.Unavailable("location store " + StoreLimits.escape(what) + " did not answer within "
          + timeout
          + "; whether it applied is unknown, so the record is re-read before anything else",
          new StoreException.Indeterminate("no answer within " + timeout, e));
    } catch (ExecutionException | CompletionException e) {
      final Throwable cause = e.getCause() == null ? e : e.getCause();
      if (cause instanceof SpotkitException typed) {
        throw typed;
      }
      throw new SpotkitException.Unavailable("location store " + StoreLimits.escape(what) + " failed: "
          + StoreLimits.escape(String.valueOf(cause)), cause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SpotkitException.Unavailable("interrupted while waiting for the location store "
          + StoreLimits.escape(what),
          new StoreException.Indeterminate("interrupted", e));
    }
  }
}
