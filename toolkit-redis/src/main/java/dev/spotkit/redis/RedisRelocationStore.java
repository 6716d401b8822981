package dev.spotkit.redis;

import dev.spotkit.store.RelocationReference;
import dev.spotkit.store.RelocationStore;
import dev.spotkit.store.StoreBytes;
import dev.spotkit.store.StoreNow;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The Relocation Store on Redis (spec 002 sections 1.2 and 10; FACTS.md "Relocation Store"): each payload is a
 * plain string at {@code {prefix}:{zlink-relocation-v1}:blob:{reference}} with a Redis expiry (retention 24 h
 * by default, renewable). Put is one Lua script: store when absent (Stored), AlreadyStored for the same bytes
 * (nothing changes, not even the expiry), Conflict for other bytes. Get, renew and delete are one script each,
 * all answering with the server's {@code TIME} as StoreNow.
 *
 * <p>Failures as {@link RedisLocationStore}: Unavailable when nothing changed, Indeterminate when a put, renew
 * or delete may have applied (the framework puts the same bytes again at the same reference, which is then
 * Stored or AlreadyStored). Limits (reference 1..4096 bytes, payload at most 16 MiB, retention 1 ms..100 years)
 * are checked before anything is sent ({@code StoreLimitException}, {@code IllegalArgumentException}).
 *
 * <p>Thread-safety: any thread; stages complete on Lettuce's event loop. {@link #close()} is idempotent.
 */
public final class RedisRelocationStore implements RelocationStore {
  private static final RedisSession.Script PUT = RedisSession.Script.of("relocation put", LuaScripts.BLOB_PUT);
  private static final RedisSession.Script GET = RedisSession.Script.of("relocation get", LuaScripts.BLOB_GET);
  private static final RedisSession.Script RENEW = RedisSession.Script.of("relocation renew", LuaScripts.BLOB_RENEW);
  private static final RedisSession.Script DELETE = RedisSession.Script.of("relocation delete",
      LuaScripts.BLOB_DELETE);

  private final RedisSession session;
  private final RedisKeys keys;
  private final AtomicLong clockOffset = new AtomicLong();

  private RedisRelocationStore(final RedisSession session, final RedisStoreOptions options) {
    this.session = session;
    this.keys = new RedisKeys(options.keyPrefix());
  }

  /**
   * Connects with the default timeouts. Blocks the caller until connected (at most 5 s); call it at startup.
   *
   * @param redisUri e.g. {@code redis://127.0.0.1:6379}.
   * @param keyPrefix e.g. {@code app1}.
   * @return the connected store; close it once when done.
   * @throws dev.spotkit.store.StoreException.Unavailable when Redis cannot be reached or is older than 7.0.
   * @throws IllegalArgumentException when the URI or the prefix is not valid.
   */
  public static RedisRelocationStore connect(final String redisUri, final String keyPrefix) {
    return connect(RedisStoreOptions.of(redisUri, keyPrefix));
  }

  /**
   * Connects. Blocks the caller until connected (at most the command timeout).
   *
   * @param options URI, prefix and timeouts.
   * @return the connected store.
   * @throws dev.spotkit.store.StoreException.Unavailable when Redis cannot be reached or is older than 7.0.
   */
  public static RedisRelocationStore connect(final RedisStoreOptions options) {
    return new RedisRelocationStore(RedisSession.connect(options), options);
  }

  /**
   * The key names this store uses.
   *
   * @return the keys under this store's prefix.
   */
  public RedisKeys keys() {
    return keys;
  }

  /** Test hook: moves this store's clock forward (expiries already stored move with it, see the tests). */
  void advanceClock(final Duration by) {
    clockOffset.addAndGet(by.toMillis());
  }

  RedisSession session() {
    return session;
  }

  private byte[][] key(final RelocationReference reference) {
    return new byte[][] {RedisKeys.utf8(keys.relocationBlob(reference.value()))};
  }

  private byte[] offset() {
    return RedisLocationStore.ascii(clockOffset.get());
  }

  @Override
  public CompletionStage<PutResult> put(final RelocationReference reference, final StoreBytes payload,
      final Duration retention) {
    Objects.requireNonNull(reference, "reference");
    Objects.requireNonNull(payload, "payload");
    RelocationStore.checkPut(payload, retention);
    RedisLocationStore.checkRetention(retention);
    return session.run(PUT, true, key(reference), offset(), payload.toByteArray(),
        RedisLocationStore.ascii(retention.toMillis())).thenApply(reply -> {
          final StoreNow now = new StoreNow((Long) reply.get(1));
          return switch ((int) (long) (Long) reply.get(0)) {
            case 1 -> new PutResult.Stored((Long) reply.get(2), now);
            case 2 -> new PutResult.AlreadyStored(expiry(reply.get(2)), now);
            default -> new PutResult.Conflict();
          };
        });
  }

  @Override
  public CompletionStage<GetResult> get(final RelocationReference reference) {
    Objects.requireNonNull(reference, "reference");
    return session.run(GET, false, key(reference), offset()).thenApply(reply -> {
      final StoreNow now = new StoreNow((Long) reply.get(0));
      return reply.size() < 3 ? new GetResult.Missing(now)
          : new GetResult.Found(StoreBytes.of((byte[]) reply.get(2)), expiry(reply.get(1)), now);
    });
  }

  @Override
  public CompletionStage<RenewResult> renew(final RelocationReference reference, final Duration retention) {
    Objects.requireNonNull(reference, "reference");
    RelocationStore.checkPut(null, retention);
    RedisLocationStore.checkRetention(retention);
    return session.run(RENEW, true, key(reference), offset(), RedisLocationStore.ascii(retention.toMillis()))
        .thenApply(reply -> {
          final StoreNow now = new StoreNow((Long) reply.get(1));
          return (Long) reply.get(0) == 1 ? new RenewResult.Renewed((Long) reply.get(2), now)
              : new RenewResult.Missing(now);
        });
  }

  @Override
  public CompletionStage<StoreNow> delete(final RelocationReference reference) {
    Objects.requireNonNull(reference, "reference");
    return session.run(DELETE, true, key(reference), offset())
        .thenApply((List<Object> reply) -> new StoreNow((Long) reply.get(0)));
  }

  /** A payload written without an expiry by someone else reads as never expiring. */
  private static long expiry(final Object value) {
    final long at = (Long) value;
    return at < 0 ? Long.MAX_VALUE : at;
  }

  /**
   * Closes the connection; idempotent. Calls made afterwards fail with {@code StoreException.Unavailable}.
   * Blocks up to about 2 s; not from an event loop.
   */
  @Override
  public void close() {
    session.close();
  }

  @Override
  public String toString() {
    return "RedisRelocationStore[" + session + "]";
  }

}
