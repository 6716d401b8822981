package dev.spotkit.core.internal.observe;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The meters of one store operation: a timer per outcome (ok, the operation's negative answer, error) and an error
 * counter per exception class: the SPI's {@code Unavailable} and {@code Indeterminate} from the start, any other on
 * first use. Any thread.
 */
final class StoreMeters {
  private final NodeMetrics metrics;
  private final String store;
  private final String operation;
  private final Timer ok;
  private final Timer negative;
  private final Timer error;
  private final ConcurrentHashMap<Class<?>, Counter> errors = new ConcurrentHashMap<>();

  StoreMeters(final NodeMetrics metrics, final String store, final String operation, final String negativeOutcome) {
    this.metrics = metrics;
    this.store = store;
    this.operation = operation;
    this.ok = metrics.storeTimer(store, operation, "ok");
    this.negative = metrics.storeTimer(store, operation, negativeOutcome);
    this.error = metrics.storeTimer(store, operation, "error");
    // the store errors of the SPI exist from the start at 0, so a scrape shows them before the first failure
    for (Class<? extends dev.spotkit.store.StoreException> kind : List.of(
        dev.spotkit.store.StoreException.Unavailable.class, dev.spotkit.store.StoreException.Indeterminate.class)) {
      errors.put(kind, metrics.storeErrors(store, operation, kind.getSimpleName()));
    }
  }

  /**
   * Runs {@code call} and records its latency from {@code t0} when its stage completes; a call that throws at once
   * counts as an error and rethrows.
   *
   * @param t0 {@link System#nanoTime()} before the call.
   * @param call the provider call.
   * @param isNegative whether an answer is the operation's negative outcome (missing, conflict, expired).
   * @param <T> the answer type.
   * @return the provider's stage, unchanged.
   */
  <T> CompletionStage<T> time(final long t0, final Supplier<CompletionStage<T>> call, final Predicate<T> isNegative) {
    final CompletionStage<T> stage;
    try {
      stage = call.get();
    } catch (RuntimeException e) {
      failed(t0, e);
      throw e;
    }
    stage.whenComplete((answer, failure) -> {
      if (failure != null) {
        failed(t0, failure);
      } else {
        (isNegative.test(answer) ? negative : ok).record(System.nanoTime() - t0, TimeUnit.NANOSECONDS);
      }
    });
    return stage;
  }

  private void failed(final long t0, final Throwable failure) {
    error.record(System.nanoTime() - t0, TimeUnit.NANOSECONDS);
    final Throwable cause = failure instanceof CompletionException && failure.getCause() != null
        ? failure.getCause() : failure;
    errors.computeIfAbsent(cause.getClass(), c -> metrics.storeErrors(store, operation, c.getSimpleName()))
        .increment();
  }
}
