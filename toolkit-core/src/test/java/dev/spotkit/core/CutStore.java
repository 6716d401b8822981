package dev.spotkit.core;

import dev.spotkit.store.LocationStore;
import dev.spotkit.store.ReadResult;
import dev.spotkit.store.ScanRequest;
import dev.spotkit.store.ScanResult;
import dev.spotkit.store.StoreException;
import dev.spotkit.store.WriteBatch;
import dev.spotkit.store.WriteResult;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One node's view of a shared Location Store that a test can cut, as if the process were paused (SIGSTOP) or
 * partitioned from the store: while cut, every call fails with {@link StoreException.Unavailable} and changes
 * nothing; {@link #resume()} is the SIGCONT. After a resume it counts the node's writes and how many applied, so a
 * test can prove that a fenced-out owner's writes are all rejected. Thread-safety: any thread.
 */
public final class CutStore implements LocationStore {
  private final LocationStore store;
  private volatile boolean cut;
  private volatile boolean resumed;
  private final AtomicInteger writesAfterResume = new AtomicInteger();
  private final AtomicInteger appliedAfterResume = new AtomicInteger();

  /**
   * A view of {@code store}, not cut.
   *
   * @param store the shared store; this view never closes it.
   */
  public CutStore(final LocationStore store) {
    this.store = store;
  }

  /** From now on every call fails, unapplied. */
  public void cut() {
    cut = true;
  }

  /** Calls reach the store again; writes from now on are counted. */
  public void resume() {
    resumed = true;
    cut = false;
  }

  /**
   * Writes the node attempted since {@link #resume()}.
   *
   * @return the count.
   */
  public int writesAfterResume() {
    return writesAfterResume.get();
  }

  /**
   * Of those, the ones the store applied.
   *
   * @return the count.
   */
  public int appliedAfterResume() {
    return appliedAfterResume.get();
  }

  @Override
  public CompletionStage<ReadResult> read(final String key) {
    return cut ? failed("read") : store.read(key);
  }

  @Override
  public CompletionStage<WriteResult> write(final WriteBatch batch) {
    if (cut) {
      return failed("write");
    }
    if (!resumed) {
      return store.write(batch);
    }
    writesAfterResume.incrementAndGet();
    return store.write(batch).thenApply(result -> {
      if (result instanceof WriteResult.Applied) {
        appliedAfterResume.incrementAndGet();
      }
      return result;
    });
  }

  @Override
  public CompletionStage<ScanResult> scan(final ScanRequest request) {
    return cut ? failed("scan") : store.scan(request);
  }

  private static <T> CompletionStage<T> failed(final String what) {
    return CompletableFuture.failedFuture(new StoreException.Unavailable("test cut: " + what
        + " did not reach the store (the node is paused)", null));
  }
}
