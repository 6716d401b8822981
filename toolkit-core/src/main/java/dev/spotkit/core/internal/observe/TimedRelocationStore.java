package dev.spotkit.core.internal.observe;

import dev.spotkit.store.RelocationReference;
import dev.spotkit.store.RelocationStore;
import dev.spotkit.store.StoreBytes;
import dev.spotkit.store.StoreNow;
import java.time.Duration;
import java.util.concurrent.CompletionStage;

/**
 * A Relocation Store that times every call of the one it wraps ({@code spotkit.store.duration}, store=relocation,
 * by operation and outcome) and counts failures ({@code spotkit.store.errors}); answers pass unchanged. Used only
 * with metrics on. Any thread.
 */
public final class TimedRelocationStore implements RelocationStore {
  private final RelocationStore delegate;
  private final StoreMeters put;
  private final StoreMeters get;
  private final StoreMeters renew;
  private final StoreMeters delete;

  /**
   * Wraps {@code delegate}.
   *
   * @param delegate the provider.
   * @param metrics metrics on.
   */
  public TimedRelocationStore(final RelocationStore delegate, final NodeMetrics metrics) {
    this.delegate = delegate;
    this.put = new StoreMeters(metrics, "relocation", "put", "conflict");
    this.get = new StoreMeters(metrics, "relocation", "get", "missing");
    this.renew = new StoreMeters(metrics, "relocation", "renew", "missing");
    this.delete = new StoreMeters(metrics, "relocation", "delete", "none");
  }

  @Override
  public CompletionStage<PutResult> put(final RelocationReference reference, final StoreBytes payload,
      final Duration retention) {
    final long t0 = System.nanoTime();
    return put.time(t0, () -> delegate.put(reference, payload, retention), r -> r instanceof PutResult.Conflict);
  }

  @Override
  public CompletionStage<GetResult> get(final RelocationReference reference) {
    final long t0 = System.nanoTime();
    return get.time(t0, () -> delegate.get(reference), r -> r instanceof GetResult.Missing);
  }

  @Override
  public CompletionStage<RenewResult> renew(final RelocationReference reference, final Duration retention) {
    final long t0 = System.nanoTime();
    return renew.time(t0, () -> delegate.renew(reference, retention), r -> r instanceof RenewResult.Missing);
  }

  @Override
  public CompletionStage<StoreNow> delete(final RelocationReference reference) {
    final long t0 = System.nanoTime();
    return delete.time(t0, () -> delegate.delete(reference), r -> false);
  }

  @Override
  public void close() {
    delegate.close();
  }

  @Override
  public String toString() {
    return delegate.toString();
  }
}
