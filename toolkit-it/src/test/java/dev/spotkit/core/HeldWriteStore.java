package dev.spotkit.core;

import dev.spotkit.store.LocationStore;
import dev.spotkit.store.Mutation;
import dev.spotkit.store.ReadResult;
import dev.spotkit.store.ScanRequest;
import dev.spotkit.store.ScanResult;
import dev.spotkit.store.StoreException;
import dev.spotkit.store.WriteBatch;
import dev.spotkit.store.WriteResult;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;

/**
 * One node's view of a shared Location Store for move tests: once {@link #holdWritesOf armed} for a key, a write that
 * puts that key (a move target's CAS) waits unapplied, as a CAS whose request is slow or whose process was killed
 * before it left; {@link #releaseApplied} applies it later, {@link #dropHeld} fails it unapplied (call it when the
 * test ends). Reads and scans go straight to the store.
 */
final class HeldWriteStore implements LocationStore {
  private final LocationStore store;
  private volatile String heldKey;
  /** Counted down when the first write of the armed key is held. */
  final CountDownLatch held = new CountDownLatch(1);
  private final List<Runnable> holding = new CopyOnWriteArrayList<>();
  private final List<CompletableFuture<WriteResult>> pending = new CopyOnWriteArrayList<>();

  HeldWriteStore(final LocationStore store) {
    this.store = store;
  }

  void holdWritesOf(final String key) {
    heldKey = key;
  }

  /** Applies every held write now and answers it with the store's result. */
  void releaseApplied() {
    heldKey = null;
    holding.forEach(Runnable::run);
  }

  /** Ends the test: a write still held fails unapplied. */
  void dropHeld() {
    heldKey = null;
    pending.forEach(f -> f.completeExceptionally(new StoreException.Unavailable("held write dropped", null)));
  }

  @Override
  public CompletionStage<ReadResult> read(final String key) {
    return store.read(key);
  }

  @Override
  public CompletionStage<WriteResult> write(final WriteBatch batch) {
    final String key = heldKey;
    if (key != null && batch.mutations().stream().anyMatch(m -> m instanceof Mutation.Put p
        && p.key().equals(key))) {
      final CompletableFuture<WriteResult> later = new CompletableFuture<>();
      pending.add(later);
      holding.add(() -> store.write(batch).whenComplete((r, e) -> {
        if (e != null) {
          later.completeExceptionally(e);
        } else {
          later.complete(r);
        }
      }));
      held.countDown();
      return later;
    }
    return store.write(batch);
  }

  @Override
  public CompletionStage<ScanResult> scan(final ScanRequest request) {
    return store.scan(request);
  }
}
