package dev.spotkit.core.internal.observe;

import dev.spotkit.store.LocationStore;
import dev.spotkit.store.ReadResult;
import dev.spotkit.store.ScanRequest;
import dev.spotkit.store.ScanResult;
import dev.spotkit.store.WriteBatch;
import dev.spotkit.store.WriteResult;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * A Location Store that times every call of the one it wraps ({@code spotkit.store.duration}, store=location, by
 * operation and outcome) and counts failures ({@code spotkit.store.errors}); the answers are passed on unchanged,
 * on the thread that completed them. Used only with metrics on. Any thread.
 */
public final class TimedLocationStore implements LocationStore {
  private final LocationStore delegate;
  private final StoreMeters read;
  private final StoreMeters write;
  private final StoreMeters scan;

  /**
   * Wraps {@code delegate}.
   *
   * @param delegate the provider.
   * @param metrics metrics on.
   */
  public TimedLocationStore(final LocationStore delegate, final NodeMetrics metrics) {
    this.delegate = delegate;
    this.read = new StoreMeters(metrics, "location", "read", "missing");
    this.write = new StoreMeters(metrics, "location", "write", "conflict");
    this.scan = new StoreMeters(metrics, "location", "scan", "expired");
  }

  /** @return the wrapped provider. */
  public LocationStore delegate() {
    return delegate;
  }

  @Override
  public CompletionStage<ReadResult> read(final String key) {
    final long t0 = System.nanoTime();
    return read.time(t0, () -> delegate.read(key), r -> r instanceof ReadResult.Missing);
  }

  @Override
  public CompletionStage<List<ReadResult>> readAll(final List<String> keys) {
    final long t0 = System.nanoTime();
    return read.time(t0, () -> delegate.readAll(keys), r -> false);
  }

  @Override
  public CompletionStage<WriteResult> write(final WriteBatch batch) {
    final long t0 = System.nanoTime();
    return write.time(t0, () -> delegate.write(batch), r -> !(r instanceof WriteResult.Applied));
  }

  @Override
  public CompletionStage<ScanResult> scan(final ScanRequest request) {
    final long t0 = System.nanoTime();
    return scan.time(t0, () -> delegate.scan(request), r -> !(r instanceof ScanResult.Page));
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
