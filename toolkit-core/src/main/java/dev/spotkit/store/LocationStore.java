package dev.spotkit.store;

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
