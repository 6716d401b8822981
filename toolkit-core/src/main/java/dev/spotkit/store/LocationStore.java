package dev.spotkit.store;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The Location Store SPI (spec 002 sections 2, 6 and 10; FACTS.md "Location Store provider contract"): keys and
 * byte values the provider stores without interpreting them, compared only by version.
 *
 * <p>This package imports nothing else of Spotkit, so a provider implements it without touching actors or
 * spots (spec 002 section 2.1; an ArchUnit rule keeps it so). The framework builds every key and record
 * (package {@code dev.spotkit.core.location}); the provider only reads, checks versions and writes.
 *
 * <p>Contract:
 * <ul>
 *   <li>{@link #read(String)}: Missing with StoreNow, or Found with the bytes, the version, the expiry (or
 *       none) and StoreNow. Reading never creates a value, a version or a generation. A value whose expiry
 *       passed is Missing.</li>
 *   <li>{@link #readAll(List)}: the same answers for several keys in one request, in the order asked, all of
 *       one point in time with one StoreNow (the providers here); the default reads each key on its own.</li>
 *   <li>{@link #write(WriteBatch)}: all conditions are checked first, then every mutation applies, or none.
 *       Applied carries the new version of each put key and StoreNow; Conflict carries no detail. Each put
 *       gets a version different from every version the key had before.</li>
 *   <li>{@link #scan(ScanRequest)}: pages of keys in UTF-8 byte order, 1..1000 entries and at most 4 MiB a
 *       page, every page of one scan from the point in time of its first page (no entry repeated, none that
 *       existed then skipped, none created later shown); a stale or foreign cursor is
 *       {@link ScanResult.Expired}.</li>
 *   <li>Limits are checked by the value types before a call (see {@link StoreLimits}).</li>
 * </ul>
 *
 * <p>Asynchronous on purpose: every method returns at once with a {@link CompletionStage}, so a provider on
 * Netty (Lettuce) completes it from its event loop without blocking a thread. A failed call completes the stage
 * exceptionally with a {@link StoreException} ({@code Unavailable}: not applied; {@code Indeterminate}: may have
 * applied, re-read). Callers on virtual threads may wait with {@code toCompletableFuture().get(timeout)}, never
 * a bare {@code get()}; continuations that may block must move to the caller's executor
 * ({@code ...Async(fn, executor)}), because a provider may complete stages on an I/O thread.
 *
 * <p>Lifecycle: a provider that holds resources (a Redis connection) releases them in {@link #close()}; the
 * default does nothing (the in-memory stores hold none). Whoever created the store closes it once: the
 * application, or the MeshNode it was handed to with {@code MeshNode.Builder#closeStoresOnClose()}. Providers
 * make close idempotent.
 *
 * <p>Bytes: the provider copies what it keeps ({@link StoreBytes} is immutable, so that is free) and never
 * changes bytes it returned. Thread-safety: implementations are safe for use from any thread.
 */
public interface LocationStore extends AutoCloseable {

  /**
   * Reads one key.
   *
   * @param key UTF-8 1..1024 bytes.
   * @return Missing or Found, each with StoreNow.
   * @throws StoreLimitException at once (not through the stage) when the key is out of range.
   */
  CompletionStage<ReadResult> read(String key);

  /**
   * Reads several keys in one request (spec 002 section 6.1 "Read and CAS", FACTS.md "Location Store provider
   * contract"): what {@link #read(String)} answers for each key, in the order of {@code keys}. A provider that can
   * (Redis: one script; in memory: one lock) reads every key at one point in time, so all answers carry the same
   * StoreNow; the default sends one {@link #read(String)} per key, all at once, and answers when the last one does,
   * without that guarantee. A caller builds nothing on the point in time beyond what versions give it: every
   * change is still conditioned on the versions read (CAS).
   *
   * <p>Nothing here is specific to authority, capacity or leases (spec 002 section 2.1): keys and bytes stay
   * opaque. Reading never creates a value, a version or a generation. A key may appear more than once.
   *
   * @param keys 1..{@link StoreLimits#MAX_BATCH_KEYS} (2,048) keys, each UTF-8 1..1024 bytes.
   * @return one Missing or Found per key, in order; the stage fails with {@link StoreException.Unavailable} when
   *     the read failed (reads never change anything, so never Indeterminate).
   * @throws StoreLimitException at once (not through the stage) when a key is out of range or the list is empty
   *     or longer than 2,048.
   * @throws NullPointerException when {@code keys} or one of them is null.
   */
  default CompletionStage<List<ReadResult>> readAll(final List<String> keys) {
    StoreLimits.checkReadAll(keys);
    final List<CompletableFuture<ReadResult>> reads = new ArrayList<>(keys.size());
    for (String key : keys) {
      reads.add(read(key).toCompletableFuture());
    }
    return CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new))
        .thenApply(done -> reads.stream().map(CompletableFuture::join).toList());
  }

  /**
   * One all-or-nothing conditional write.
   *
   * @param batch conditions and mutations, already checked against the limits.
   * @return Applied (new versions and StoreNow) or Conflict (nothing changed).
   */
  CompletionStage<WriteResult> write(WriteBatch batch);

  /**
   * One page of a same-point-in-time scan.
   *
   * @param request prefix, cursor and limit.
   * @return a page, or Expired when the cursor is stale or belongs to another scan.
   */
  CompletionStage<ScanResult> scan(ScanRequest request);

  /**
   * Releases the provider's resources (connections, threads); idempotent. Calls after close fail with
   * {@link StoreException.Unavailable}. The default does nothing.
   */
  @Override
  default void close() {
  }
}
