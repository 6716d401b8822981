package dev.spotkit.redis;

import dev.spotkit.store.Condition;
import dev.spotkit.store.LocationStore;
import dev.spotkit.store.Mutation;
import dev.spotkit.store.ReadResult;
import dev.spotkit.store.ScanCursor;
import dev.spotkit.store.ScanEntry;
import dev.spotkit.store.ScanRequest;
import dev.spotkit.store.ScanResult;
import dev.spotkit.store.StoreBytes;
import dev.spotkit.store.StoreLimits;
import dev.spotkit.store.StoreNow;
import dev.spotkit.store.StoreVersion;
import dev.spotkit.store.WriteBatch;
import dev.spotkit.store.WriteResult;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The Location Store on Redis (spec 002 sections 3.4, 6 and 10; FACTS.md "Location Store provider contract"
 * and "Redis layout"), on Lettuce's async API with one shared connection.
 *
 * <p>Layout: each logical key lives at {@code {prefix}:{zlink-location-v3}:opaque:{sha256hex(key)}} as a
 * sorted-set log; the score is the INCR sequence of the write and the highest score is the current value. A
 * member is 0x01 followed by the MessagePack array of {@link OpaqueRecord}. A put adds a member; a delete adds
 * a tombstone member (read as Missing). The version of a put is the decimal INCR value of its batch, so a key
 * never gets a version twice; a sequence that does not exist yet (a new Redis, or one restarted without
 * persistence) starts at the server's time in microseconds, and so does the sequence of a replica promoted
 * without the primary's last writes (its replication id differs from the one recorded with the sequence), so
 * no version from before a data loss comes back and a CAS that waited across it can only Conflict. Reads
 * check expiry against the server's {@code TIME}. {@link #readAll(List)} reads up to 2,048 keys in one script call
 * (one round trip, one point in time, one StoreNow); the creation path uses it for its independent reads.
 *
 * <p>Writes: one Lua script per batch (EVALSHA, EVAL on NOSCRIPT). It checks every condition and decodes every
 * touched record first, then applies every mutation, bumps the sequence once and returns the version and the
 * server time as StoreNow; Conflict applies nothing. Old log entries are trimmed in the same script: a key
 * keeps only its current entry and the entries an open scan may still need. A deleted key without open scans
 * is removed entirely; a key whose current entry expires or is a tombstone gets a Redis expiry 15 min (the
 * longest scan) after that, so dead keys do not stay forever.
 *
 * <p>Scans: the first page registers a scan at the current sequence; every page reads, for each logical key of
 * a private index (a sorted set ordered by UTF-8 bytes), the newest entry at or below that sequence, so writes
 * during a scan never repeat, skip or add an entry. The cursor ({@code rs1:...}, at most ~1.5 KiB) names the
 * scan, its sequence, its prefix and the last key; a scan idle longer than
 * {@link RedisStoreOptions#scanIdleTimeout()}, older than 15 min, or beyond the 1,024 most recently used is
 * {@link ScanResult.Expired}. Index entries of keys Redis expired or evicted are removed by the scans that
 * pass them and, for prefixes nobody scans, by a background sweep of 64 index keys every 16 applied writes.
 *
 * <p>Failures: a stage completes exceptionally with {@code StoreException.Unavailable} when the request surely
 * changed nothing (not connected, refused by a check, a read failed) and {@code StoreException.Indeterminate}
 * when a write may have applied (a timeout or a lost connection after sending; commands are never replayed
 * after a reconnect). Limits are checked by the SPI's value types before anything is sent.
 *
 * <p>Thread-safety: any thread. Stages complete on Lettuce's event loop; continuations that block must move to
 * another executor. {@link #close()} is idempotent.
 */
public final class RedisLocationStore implements LocationStore {
  /** The longest a scan lives, and how long dead keys stay for scans that may still need them: 15 min. */
  static final long SCAN_MAX_AGE_MILLIS = Duration.ofMinutes(15).toMillis();
  /** At most this many scans are open at once; the least recently used is dropped beyond. */
  static final int MAX_OPEN_SCANS = 1024;
  private static final String CURSOR_TAG = "rs1:";
  /**
   * The longest retention this provider stores: 100 years. Expiry times are Lua numbers (doubles) on the
   * server, exact only below 2^53 ms; a longer retention is refused before anything is sent.
   */
  public static final Duration MAX_RETENTION = Duration.ofDays(36_525);

  private static final RedisSession.Script READ = RedisSession.Script.of("read", LuaScripts.READ);
  private static final RedisSession.Script READ_ALL = RedisSession.Script.of("read all", LuaScripts.READ_ALL);
  private static final RedisSession.Script WRITE = RedisSession.Script.of("write", LuaScripts.WRITE);
  private static final RedisSession.Script OPEN_SCAN = RedisSession.Script.of("scan open", LuaScripts.OPEN_SCAN);
  private static final RedisSession.Script INDEX_RANGE = RedisSession.Script.of("scan index",
      LuaScripts.INDEX_RANGE);
  private static final RedisSession.Script PAGE = RedisSession.Script.of("scan page", LuaScripts.PAGE);
  private static final RedisSession.Script SWEEP = RedisSession.Script.of("index sweep", LuaScripts.SWEEP);
  /** Every this many applied writes, one index sweep of {@link #SWEEP_KEYS} keys runs in the background. */
  static final int SWEEP_EVERY = 16;
  /** How many index keys one sweep checks. */
  static final int SWEEP_KEYS = 64;
  private static final RedisSession.Script CLOSE_SCAN = RedisSession.Script.of("scan close", LuaScripts.CLOSE_SCAN);
  static final RedisSession.Script ENCODE_MEMBER = RedisSession.Script.of("encode", LuaScripts.ENCODE_MEMBER);

  private final RedisSession session;
  private final RedisKeys keys;
  private final RedisStoreOptions options;
  private final byte[] seqKey;
  private final byte[] indexKey;
  private final byte[] scansKey;
  private final byte[] usedKey;
  private final byte[] startKey;
  private final byte[] scanIdKey;
  private final byte[] epochKey;
  private final AtomicLong clockOffset = new AtomicLong();
  private final AtomicLong applied = new AtomicLong();
  private volatile byte[] sweptUpTo;

  private RedisLocationStore(final RedisSession session, final RedisStoreOptions options) {
    this.session = session;
    this.options = options;
    this.keys = new RedisKeys(options.keyPrefix());
    this.seqKey = RedisKeys.utf8(keys.internal("seq"));
    this.indexKey = RedisKeys.utf8(keys.internal("index"));
    this.scansKey = RedisKeys.utf8(keys.internal("scans"));
    this.usedKey = RedisKeys.utf8(keys.internal("scan-used"));
    this.startKey = RedisKeys.utf8(keys.internal("scan-start"));
    this.scanIdKey = RedisKeys.utf8(keys.internal("scan-id"));
    this.epochKey = RedisKeys.utf8(keys.internal("seq-epoch"));
  }

  /**
   * Connects with the default timeouts. Blocks the caller until connected (at most the 5 s command timeout);
   * call it at startup, never on an event-loop thread.
   *
   * @param redisUri e.g. {@code redis://127.0.0.1:6379}.
   * @param keyPrefix e.g. {@code app1}; see {@link RedisStoreOptions#keyPrefix()}.
   * @return the connected store; close it once when done (or let the MeshNode that owns it close it).
   * @throws dev.spotkit.store.StoreException.Unavailable when Redis cannot be reached or is older than 7.0.
   * @throws IllegalArgumentException when the URI or the prefix is not valid.
   */
  public static RedisLocationStore connect(final String redisUri, final String keyPrefix) {
    return connect(RedisStoreOptions.of(redisUri, keyPrefix));
  }

  /**
   * Connects. Blocks the caller until connected (at most the command timeout).
   *
   * @param options URI, prefix and timeouts.
   * @return the connected store.
   * @throws dev.spotkit.store.StoreException.Unavailable when Redis cannot be reached or is older than 7.0.
   * @throws IllegalArgumentException when the URI is not valid.
   */
  public static RedisLocationStore connect(final RedisStoreOptions options) {
    return new RedisLocationStore(RedisSession.connect(options), options);
  }

  /**
   * The key names this store uses.
   *
   * @return the keys under this store's prefix.
   */
  public RedisKeys keys() {
    return keys;
  }

  /**
   * The options this store was connected with.
   *
   * @return the options.
   */
  public RedisStoreOptions options() {
    return options;
  }

  /** Test hook: moves this store's clock (StoreNow, expiry, scan timeouts) forward. */
  void advanceClock(final Duration by) {
    clockOffset.addAndGet(by.toMillis());
  }

  RedisSession session() {
    return session;
  }

  private byte[] offset() {
    return ascii(clockOffset.get());
  }

  @Override
  public CompletionStage<ReadResult> read(final String key) {
    StoreLimits.checkKey(key);
    return session.run(READ, false, new byte[][] {RedisKeys.utf8(keys.record(key))}, offset())
        .<ReadResult>thenApply(reply -> {
          final StoreNow now = new StoreNow((Long) reply.get(0));
          if (reply.size() < 2) {
            return new ReadResult.Missing(now);
          }
          return answer((byte[]) reply.get(1), key, now);
        })
        .exceptionallyCompose(e -> CompletableFuture.failedFuture(session.map(e, false, "read")));
  }

  /**
   * Reads every key in one script call (one round trip), so all answers are of one point in time and carry the
   * server's one StoreNow (spec 002 section 6.1; {@link LocationStore#readAll}).
   *
   * @param logicalKeys 1..2,048 keys, each UTF-8 1..1024 bytes; repeats allowed.
   * @return one Missing or Found per key, in order; fails with {@code StoreException.Unavailable} when the read
   *     failed or a member is not a record of its key.
   * @throws dev.spotkit.store.StoreLimitException at once when the list or a key is out of range.
   */
  @Override
  public CompletionStage<List<ReadResult>> readAll(final List<String> logicalKeys) {
    StoreLimits.checkReadAll(logicalKeys);
    final List<String> copy = List.copyOf(logicalKeys);
    final byte[][] redisKeys = new byte[copy.size()][];
    for (int i = 0; i < redisKeys.length; i++) {
      redisKeys[i] = RedisKeys.utf8(keys.record(copy.get(i)));
    }
    return session.run(READ_ALL, false, redisKeys, offset())
        .<List<ReadResult>>thenApply(reply -> {
          final StoreNow now = new StoreNow((Long) reply.get(0));
          final List<ReadResult> out = new ArrayList<>(copy.size());
          for (int i = 0; i < copy.size(); i++) {
            final byte[] member = (byte[]) reply.get(i + 1);
            out.add(member.length == 0 ? new ReadResult.Missing(now) : answer(member, copy.get(i), now));
          }
          return out;
        })
        .exceptionallyCompose(e -> CompletableFuture.failedFuture(session.map(e, false, "read all")));
  }

  private static ReadResult answer(final byte[] member, final String key, final StoreNow now) {
    final OpaqueRecord record = decode(member, key);
    if (record.tombstone() || record.expiresAtMillis() != 0 && record.expiresAtMillis() <= now.epochMillis()) {
      return new ReadResult.Missing(now);
    }
    return new ReadResult.Found(StoreBytes.of(record.value()), new StoreVersion(record.version()),
        expiry(record), now);
  }

  @Override
  public CompletionStage<WriteResult> write(final WriteBatch batch) {
    Objects.requireNonNull(batch, "batch");
    final int nc = batch.conditions().size();
    final int nm = batch.mutations().size();
    final byte[][] redisKeys = new byte[6 + nc + nm][];
    redisKeys[0] = seqKey;
    redisKeys[1] = indexKey;
    redisKeys[2] = scansKey;
    redisKeys[3] = usedKey;
    redisKeys[4] = startKey;
    redisKeys[5] = epochKey;
    final List<byte[]> args = new ArrayList<>(5 + 2 * nc + 4 * nm);
    args.add(offset());
    args.add(ascii(options.scanIdleTimeout().toMillis()));
    args.add(ascii(SCAN_MAX_AGE_MILLIS));
    args.add(ascii(nc));
    args.add(ascii(nm));
    int k = 6;
    for (Condition condition : batch.conditions()) {
      redisKeys[k++] = RedisKeys.utf8(keys.record(condition.key()));
      args.add(RedisKeys.utf8(condition.key()));
      args.add(condition instanceof Condition.ExpectVersion v ? RedisKeys.utf8(v.version().value()) : new byte[0]);
    }
    final List<String> puts = new ArrayList<>();
    for (Mutation mutation : batch.mutations()) {
      redisKeys[k++] = RedisKeys.utf8(keys.record(mutation.key()));
      args.add(RedisKeys.utf8(mutation.key()));
      switch (mutation) {
        case Mutation.Put put -> {
          put.retention().ifPresent(RedisLocationStore::checkRetention);
          puts.add(put.key());
          args.add(new byte[] {'P'});
          args.add(put.value().toByteArray());
          args.add(ascii(put.retention().map(Duration::toMillis).orElse(0L)));
        }
        case Mutation.Delete delete -> {
          args.add(new byte[] {'D'});
          args.add(new byte[0]);
          args.add(ascii(0));
        }
      }
    }
    return session.run(WRITE, true, redisKeys, args.toArray(byte[][]::new)).thenApply(reply -> {
      final StoreNow now = new StoreNow((Long) reply.get(1));
      if ((Long) reply.get(0) == 0) {
        return (WriteResult) new WriteResult.Conflict();
      }
      final Map<String, StoreVersion> versions = new HashMap<>();
      if (!puts.isEmpty()) {
        final StoreVersion version = new StoreVersion(new String((byte[]) reply.get(2), StandardCharsets.UTF_8));
        puts.forEach(p -> versions.put(p, version));
      }
      if (nm > 0 && applied.incrementAndGet() % SWEEP_EVERY == 0) {
        sweep();
      }
      return new WriteResult.Applied(versions, now);
    });
  }

  /**
   * Removes from the scan index, in the background, the logical keys whose records Redis expired or evicted.
   * A scan removes those it passes, but a prefix nobody scans (creation results, old owner leases) would keep
   * one index entry per key forever. Each sweep checks the next {@link #SWEEP_KEYS} index keys in byte order,
   * wrapping at the end; its failures are ignored (the next sweep tries again) and it never delays the write
   * that started it.
   */
  private void sweep() {
    final byte[] from = sweptUpTo;
    session.run(INDEX_RANGE, false, new byte[][] {indexKey}, offset(),
        from == null ? new byte[] {'-'} : concat(new byte[] {'('}, from), new byte[] {'+'}, ascii(SWEEP_KEYS))
        .thenCompose(index -> {
          sweptUpTo = index.size() < SWEEP_KEYS ? null : (byte[]) index.get(index.size() - 1);
          if (index.isEmpty()) {
            return CompletableFuture.completedFuture(List.of());
          }
          final byte[][] redisKeys = new byte[1 + index.size()][];
          final byte[][] args = new byte[1 + index.size()][];
          redisKeys[0] = indexKey;
          args[0] = offset();
          for (int i = 0; i < index.size(); i++) {
            final byte[] logical = (byte[]) index.get(i);
            redisKeys[1 + i] = RedisKeys.utf8(keys.record(new String(logical, StandardCharsets.UTF_8)));
            args[1 + i] = logical;
          }
          return session.run(SWEEP, false, redisKeys, args);
        });
  }

  @Override
  public CompletionStage<ScanResult> scan(final ScanRequest request) {
    Objects.requireNonNull(request, "request");
    final CompletableFuture<ScanResult> result;
    if (request.cursor().isEmpty()) {
      result = session.run(OPEN_SCAN, false, new byte[][] {seqKey, scansKey, usedKey, startKey, scanIdKey},
          offset(), ascii(options.scanIdleTimeout().toMillis()), ascii(MAX_OPEN_SCANS)).thenCompose(reply -> {
            final Cursor cursor = new Cursor((Long) reply.get(0), (Long) reply.get(1), (Long) reply.get(2),
                Cursor.digest(request.prefix()), null);
            return page(request, cursor, new ArrayList<>(), 0, 0);
          });
    } else {
      final Cursor cursor = Cursor.parse(request.cursor().get(), request.prefix());
      if (cursor == null) {
        return CompletableFuture.completedFuture(new ScanResult.Expired());
      }
      result = page(request, cursor, new ArrayList<>(), 0, 0);
    }
    return result.exceptionallyCompose(e -> CompletableFuture.failedFuture(session.map(e, false, "scan")));
  }

  private CompletableFuture<ScanResult> page(final ScanRequest request, final Cursor cursor,
      final List<ScanEntry> entries, final long bytes, final int rounds) {
    final int want = request.limit() - entries.size();
    final int count = slice(want, rounds);
    final byte[] prefix = RedisKeys.utf8(request.prefix());
    final byte[] min = cursor.after() != null ? concat(new byte[] {'('}, cursor.after())
        : prefix.length == 0 ? new byte[] {'-'} : concat(new byte[] {'['}, prefix);
    final byte[] max = prefix.length == 0 ? new byte[] {'+'} : concat(new byte[] {'['}, prefix, new byte[] {-1});
    return session.run(INDEX_RANGE, false, new byte[][] {indexKey}, offset(), min, max, ascii(count))
        .thenCompose(index -> {
          if (index.isEmpty()) {
            return finish(cursor, entries);
          }
          final byte[][] redisKeys = new byte[4 + index.size()][];
          redisKeys[0] = scansKey;
          redisKeys[1] = usedKey;
          redisKeys[2] = startKey;
          redisKeys[3] = indexKey;
          final List<byte[]> args = new ArrayList<>(List.of(offset(), ascii(options.scanIdleTimeout().toMillis()),
              ascii(SCAN_MAX_AGE_MILLIS), ascii(cursor.id()), ascii(cursor.seq()), ascii(cursor.start()),
              ascii(StoreLimits.MAX_PAGE_BYTES - bytes), ascii(want), ascii(entries.isEmpty() ? 0 : 1)));
          for (int i = 0; i < index.size(); i++) {
            final byte[] logical = (byte[]) index.get(i);
            redisKeys[4 + i] = RedisKeys.utf8(keys.record(new String(logical, StandardCharsets.UTF_8)));
            args.add(logical);
          }
          return session.run(PAGE, false, redisKeys, args.toArray(byte[][]::new))
              .thenCompose(reply -> slice(request, cursor, entries, bytes, rounds, count, index, reply));
        });
  }

  private CompletableFuture<ScanResult> slice(final ScanRequest request, final Cursor cursor,
      final List<ScanEntry> entries, final long bytesBefore, final int rounds, final int count,
      final List<Object> index, final List<Object> reply) {
    if ((Long) reply.get(0) == 0) {
      return CompletableFuture.completedFuture(new ScanResult.Expired());
    }
    final StoreNow now = new StoreNow((Long) reply.get(1));
    final int consumed = (int) (long) (Long) reply.get(2);
    long bytes = bytesBefore;
    for (int i = 3; i < reply.size(); i++) {
      final OpaqueRecord record = OpaqueRecord.decode((byte[]) reply.get(i));
      final ScanEntry entry = new ScanEntry(record.key(), StoreBytes.of(record.value()),
          new StoreVersion(record.version()), expiry(record));
      bytes += entry.pageBytes();
      entries.add(entry);
    }
    final Cursor next = consumed == 0 ? cursor : cursor.after((byte[]) index.get(consumed - 1));
    if (consumed < index.size() || entries.size() >= request.limit()) {
      return CompletableFuture.completedFuture(new ScanResult.Page(entries, Optional.of(next.encode()), now));
    }
    if (index.size() < count) {
      return finish(cursor, entries);
    }
    if (rounds >= 100_000) {
      throw new IllegalStateException("scan made no progress in 100,000 index slices");
    }
    return page(request, next, entries, bytes, rounds + 1);
  }

  /**
   * How many index keys one slice of a page reads: the entries still wanted on the first slice, then twice as
   * many each further slice, up to 1,000. Keys a scan does not show (created after it began, deleted, expired)
   * still take a slice, so without the growth a page of limit 1 over n such keys would take n round trips.
   *
   * @param want entries still wanted on the page, 1..1000.
   * @param rounds slices already read for this page, from 0.
   * @return the slice size, want..1000.
   */
  static int slice(final int want, final int rounds) {
    return (int) Math.min(StoreLimits.MAX_SCAN_ENTRIES, Math.max(want, (long) want << Math.min(rounds, 10)));
  }

  private CompletableFuture<ScanResult> finish(final Cursor cursor, final List<ScanEntry> entries) {
    return session.run(CLOSE_SCAN, false, new byte[][] {scansKey, usedKey, startKey}, offset(),
        ascii(options.scanIdleTimeout().toMillis()), ascii(SCAN_MAX_AGE_MILLIS), ascii(cursor.id()),
        ascii(cursor.seq()), ascii(cursor.start())).thenApply(reply -> (Long) reply.get(0) == 0
            ? new ScanResult.Expired()
            : new ScanResult.Page(entries, Optional.empty(), new StoreNow((Long) reply.get(1))));
  }

  /**
   * Refuses a retention this provider cannot store exactly.
   *
   * @param retention the retention of a put or a renew.
   * @throws IllegalArgumentException when longer than {@link #MAX_RETENTION} (100 years).
   */
  static void checkRetention(final Duration retention) {
    if (retention.compareTo(MAX_RETENTION) > 0) {
      throw new IllegalArgumentException("retention " + retention + " exceeds the Redis stores' maximum of "
          + MAX_RETENTION.toDays() + " days (100 years); omit it for a value that never expires");
    }
  }

  private static OpaqueRecord decode(final byte[] member, final String key) {
    final OpaqueRecord record = OpaqueRecord.decode(member);
    if (!record.key().equals(key)) {
      throw new OpaqueRecordException("the record at the Redis key of '" + StoreLimits.printable(key)
          + "' holds key '" + StoreLimits.printable(record.key()) + "'");
    }
    return record;
  }

  private static OptionalLong expiry(final OpaqueRecord record) {
    return record.expiresAtMillis() == 0 ? OptionalLong.empty() : OptionalLong.of(record.expiresAtMillis());
  }

  static byte[] ascii(final long value) {
    return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
  }

  private static byte[] concat(final byte[]... parts) {
    int n = 0;
    for (byte[] p : parts) {
      n += p.length;
    }
    final byte[] out = new byte[n];
    int at = 0;
    for (byte[] p : parts) {
      System.arraycopy(p, 0, out, at, p.length);
      at += p.length;
    }
    return out;
  }

  /**
   * Closes the connection; idempotent. Calls made afterwards fail with {@code StoreException.Unavailable};
   * calls in flight complete or fail as the connection closes. Blocks up to about 2 s; not from an event loop.
   */
  @Override
  public void close() {
    session.close();
  }

  @Override
  public String toString() {
    return "RedisLocationStore[" + session + "]";
  }

  /** The decoded scan cursor: scan id, its sequence, its start time, the prefix digest and the last key. */
  private record Cursor(long id, long seq, long start, String prefixDigest, byte[] after) {
    static String digest(final String prefix) {
      return new dev.spotkit.core.location.LogicalKey(prefix).sha256Hex().substring(0, 16);
    }

    Cursor after(final byte[] key) {
      return new Cursor(id, seq, start, prefixDigest, key);
    }

    ScanCursor encode() {
      final String text = CURSOR_TAG + id + ":" + seq + ":" + start + ":" + prefixDigest + ":"
          + (after == null ? "" : Base64.getUrlEncoder().withoutPadding().encodeToString(after));
      return new ScanCursor(StoreBytes.utf8(text));
    }

    static Cursor parse(final ScanCursor cursor, final String prefix) {
      final String text = cursor.token().asUtf8();
      if (!text.startsWith(CURSOR_TAG)) {
        return null;
      }
      final String[] parts = text.substring(CURSOR_TAG.length()).split(":", -1);
      try {
        if (parts.length != 5 || !parts[3].equals(digest(prefix))) {
          return null;
        }
        final byte[] after = parts[4].isEmpty() ? null : Base64.getUrlDecoder().decode(parts[4]);
        if (after != null && !startsWith(after, RedisKeys.utf8(prefix))) {
          return null; // forged: a last key outside the prefix would widen the index range beyond it
        }
        return new Cursor(Long.parseLong(parts[0]), Long.parseLong(parts[1]), Long.parseLong(parts[2]), parts[3],
            after);
      } catch (IllegalArgumentException e) {
        return null;
      }
    }

    private static boolean startsWith(final byte[] key, final byte[] prefix) {
      return key.length >= prefix.length && Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length);
    }

    @Override
    public boolean equals(final Object other) {
      return other instanceof Cursor c && c.id == id && c.seq == seq && Arrays.equals(c.after, after);
    }

    @Override
    public int hashCode() {
      return Long.hashCode(id) * 31 + Arrays.hashCode(after);
    }
  }
}
