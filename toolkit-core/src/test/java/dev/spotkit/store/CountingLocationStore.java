package dev.spotkit.store;

import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A Location Store that counts the requests it passes to the one it wraps: every {@link #read}, {@link #readAll},
 * {@link #write} and {@link #scan} is one request to the provider (one round trip for the Redis store: one script
 * call), so a test asserts how many round trips an operation takes instead of claiming it. Answers and failures
 * are passed on unchanged. Thread-safety: any thread.
 */
public final class CountingLocationStore implements LocationStore {
  private final LocationStore delegate;
  private final AtomicLong reads = new AtomicLong();
  private final AtomicLong readAlls = new AtomicLong();
  private final AtomicLong writes = new AtomicLong();
  private final AtomicLong scans = new AtomicLong();

  /**
   * Wraps {@code delegate}.
   *
   * @param delegate the provider.
   */
  public CountingLocationStore(final LocationStore delegate) {
    this.delegate = delegate;
  }

  /**
   * Requests passed on so far, all kinds.
   *
   * @return reads + readAlls + writes + scans.
   */
  public long requests() {
    return reads.get() + readAlls.get() + writes.get() + scans.get();
  }

  /**
   * Single-key reads passed on so far.
   *
   * @return the count.
   */
  public long reads() {
    return reads.get();
  }

  /**
   * Multi-key reads passed on so far.
   *
   * @return the count.
   */
  public long readAlls() {
    return readAlls.get();
  }

  /**
   * Writes passed on so far.
   *
   * @return the count.
   */
  public long writes() {
    return writes.get();
  }

  @Override
  public CompletionStage<ReadResult> read(final String key) {
    reads.incrementAndGet();
    return delegate.read(key);
  }

  @Override
  public CompletionStage<List<ReadResult>> readAll(final List<String> keys) {
    readAlls.incrementAndGet();
    return delegate.readAll(keys);
  }

  @Override
  public CompletionStage<WriteResult> write(final WriteBatch batch) {
    writes.incrementAndGet();
    return delegate.write(batch);
  }

  @Override
  public CompletionStage<ScanResult> scan(final ScanRequest request) {
    scans.incrementAndGet();
    return delegate.scan(request);
  }

  @Override
  public void close() {
    delegate.close();
  }
}
