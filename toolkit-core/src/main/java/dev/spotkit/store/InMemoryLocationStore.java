package dev.spotkit.store;

import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.CompletionStage;

/**
 * An explicit Location Store for one process: the embedded store of demos and most tests (DESIGN.md "Location
 * and stores"). Nothing creates it for you: an object role without a store refuses to start (MEM-01). Give the
 * same instance to every MeshNode of the JVM and they share one store, as nodes share Redis.
 *
 * <p>Semantics are those of {@link LocationStore}, pinned by the shared conformance suite. Details of this
 * provider: versions are decimal strings from one store-wide counter; StoreNow comes from the injected clock;
 * expired values are treated as absent from the moment the clock passes their expiry; a scan copies the matching
 * keys when its first page is read and serves every later page from that copy until the last page, until it is
 * idle longer than the scan TTL (default 60 s of store time), or until more than 1,024 scans are open (the
 * oldest is dropped); a dropped or unknown cursor is ScanExpired.
 *
 * <p>Calls complete before they return (already-completed stages) unless a {@link #faults()} rule holds them.
 * One lock guards the data, so every write batch is all-or-nothing and linearizable. Thread-safety: any thread.
 *
 * <pre>{@code
 * InMemoryLocationStore store = new InMemoryLocationStore();
 * MeshNode a = MeshNode.builder().locationStore(store)...start();
 * MeshNode b = MeshNode.builder().locationStore(store)...start();   // the same mesh view
 * }</pre>
 */
public final class InMemoryLocationStore implements LocationStore {

  /** UTF-8 byte order equals code point order. */
  static final Comparator<String> KEY_ORDER = InMemoryLocationStore::compareCodePoints;
  private static final int MAX_OPEN_SCANS = 1024;
  private static final String CURSOR_TAG = "inmem-scan-v1:";

  private record Value(StoreBytes bytes, StoreVersion version, long expiresAt) {
    boolean liveAt(final long now) {
      return expiresAt == 0 || expiresAt > now;
    }

    OptionalLong expiry() {
      return expiresAt == 0 ? OptionalLong.empty() : OptionalLong.of(expiresAt);
    }
  }

  private static final class Snapshot {
    final String prefix;
    final List<ScanEntry> entries;
    long lastUsed;

    Snapshot(final String prefix, final List<ScanEntry> entries, final long lastUsed) {
      this.prefix = prefix;
      this.entries = entries;
      this.lastUsed = lastUsed;
    }
  }

  private final Object lock = new Object();
  private final TreeMap<String, Value> values = new TreeMap<>(KEY_ORDER);
  private final Map<Long, Snapshot> scans = new LinkedHashMap<>();
  private final InstantSource clock;
  private final long scanTtlMillis;
  private final StoreFaults faults = new StoreFaults();
  private long lastVersion;
  private long lastScanId;
  private long appliedWrites;

  /** An empty store on the system clock. */
  public InMemoryLocationStore() {
    this(InstantSource.system(), Duration.ofSeconds(60));
  }

  /**
   * An empty store on a given clock: tests move the clock to expire leases and scans.
   *
   * @param clock StoreNow's source.
   * @param scanTtl how long an idle scan stays readable.
   */
  public InMemoryLocationStore(final InstantSource clock, final Duration scanTtl) {
    this.clock = Objects.requireNonNull(clock, "clock");
    this.scanTtlMillis = scanTtl.toMillis();
    if (scanTtlMillis < 1) {
      throw new IllegalArgumentException("scanTtl " + scanTtl + " must be at least 1 ms");
    }
  }

  /**
   * The fault hooks of this store.
   *
   * @return the hooks; any thread.
   */
  public StoreFaults faults() {
    return faults;
  }

  @Override
  public CompletionStage<ReadResult> read(final String key) {
    StoreLimits.checkKey(key);
    return faults.run(new StoreFaults.Call(StoreFaults.Kind.READ, List.of(key)), () -> {
      synchronized (lock) {
        final StoreNow now = now();
        final Value value = live(key, now.epochMillis());
        return value == null ? new ReadResult.Missing(now)
            : new ReadResult.Found(value.bytes(), value.version(), value.expiry(), now);
      }
    });
  }

  /**
   * Reads every key under the one lock, so all answers are of one point in time and carry one StoreNow (spec 002
   * section 6.1; {@link LocationStore#readAll}). The fault hooks see one READ call touching all the keys.
   *
   * @param keys 1..2,048 keys, each UTF-8 1..1024 bytes.
   * @return one Missing or Found per key, in order.
   * @throws StoreLimitException at once when the list or a key is out of range.
   */
  @Override
  public CompletionStage<List<ReadResult>> readAll(final List<String> keys) {
    StoreLimits.checkReadAll(keys);
    final List<String> copy = List.copyOf(keys);
    return faults.run(new StoreFaults.Call(StoreFaults.Kind.READ, copy), () -> {
      synchronized (lock) {
        final StoreNow now = now();
        final List<ReadResult> out = new ArrayList<>(copy.size());
        for (String key : copy) {
          final Value value = live(key, now.epochMillis());
          out.add(value == null ? new ReadResult.Missing(now)
              : new ReadResult.Found(value.bytes(), value.version(), value.expiry(), now));
        }
        return out;
      }
    });
  }

  @Override
  public CompletionStage<WriteResult> write(final WriteBatch batch) {
    Objects.requireNonNull(batch, "batch");
    final List<String> keys = new ArrayList<>();
    batch.conditions().forEach(c -> keys.add(c.key()));
    batch.mutations().forEach(m -> keys.add(m.key()));
    return faults.run(new StoreFaults.Call(StoreFaults.Kind.WRITE, keys), () -> apply(batch));
  }

  private WriteResult apply(final WriteBatch batch) {
    synchronized (lock) {
      final StoreNow now = now();
      for (Condition condition : batch.conditions()) {
        final Value current = live(condition.key(), now.epochMillis());
        final boolean holds = switch (condition) {
          case Condition.ExpectAbsent absent -> current == null;
          case Condition.ExpectVersion expect -> current != null && current.version().equals(expect.version());
        };
        if (!holds) {
          return new WriteResult.Conflict();
        }
      }
      final Map<String, StoreVersion> versions = new HashMap<>();
      for (Mutation mutation : batch.mutations()) {
        switch (mutation) {
          case Mutation.Put put -> {
            final StoreVersion version = new StoreVersion(Long.toString(++lastVersion));
            final long expiresAt = put.retention().map(r -> Math.addExact(now.epochMillis(), r.toMillis()))
                .orElse(0L);
            values.put(put.key(), new Value(put.value(), version, expiresAt));
            versions.put(put.key(), version);
          }
          case Mutation.Delete delete -> values.remove(delete.key());
        }
      }
      appliedWrites++;
      return new WriteResult.Applied(versions, now);
    }
  }

  @Override
  public CompletionStage<ScanResult> scan(final ScanRequest request) {
    Objects.requireNonNull(request, "request");
    return faults.run(new StoreFaults.Call(StoreFaults.Kind.SCAN, List.of(request.prefix())), () -> {
      synchronized (lock) {
        final StoreNow now = now();
        expireScans(now.epochMillis());
        final long id;
        final int from;
        if (request.cursor().isEmpty()) {
          id = open(request.prefix(), now.epochMillis());
          from = 0;
        } else {
          final long[] parsed = parse(request.cursor().get());
          final Snapshot snapshot = parsed == null ? null : scans.get(parsed[0]);
          if (snapshot == null || !snapshot.prefix.equals(request.prefix()) || parsed[1] <= 0
              || parsed[1] >= snapshot.entries.size()) {
            return new ScanResult.Expired();
          }
          id = parsed[0];
          from = (int) parsed[1];
        }
        return page(id, from, request.limit(), now);
      }
    });
  }

  private long open(final String prefix, final long now) {
    final List<ScanEntry> entries = new ArrayList<>();
    for (Map.Entry<String, Value> e : values.tailMap(prefix, true).entrySet()) {
      if (!e.getKey().startsWith(prefix)) {
        break;
      }
      if (e.getValue().liveAt(now)) {
        entries.add(new ScanEntry(e.getKey(), e.getValue().bytes(), e.getValue().version(), e.getValue().expiry()));
      }
    }
    if (scans.size() >= MAX_OPEN_SCANS) {
      scans.remove(scans.keySet().iterator().next());
    }
    final long id = ++lastScanId;
    scans.put(id, new Snapshot(prefix, entries, now));
    return id;
  }

  private ScanResult page(final long id, final int from, final int limit, final StoreNow now) {
    final Snapshot snapshot = scans.get(id);
    snapshot.lastUsed = now.epochMillis();
    final List<ScanEntry> page = new ArrayList<>();
    long bytes = 0;
    int next = from;
    while (next < snapshot.entries.size() && page.size() < limit) {
      final ScanEntry entry = snapshot.entries.get(next);
      if (!page.isEmpty() && bytes + entry.pageBytes() > StoreLimits.MAX_PAGE_BYTES) {
        break;
      }
      bytes += entry.pageBytes();
      page.add(entry);
      next++;
    }
    if (next >= snapshot.entries.size()) {
      scans.remove(id);
      return new ScanResult.Page(page, Optional.empty(), now);
    }
    return new ScanResult.Page(page, Optional.of(new ScanCursor(StoreBytes.utf8(CURSOR_TAG + id + ":" + next))),
        now);
  }

  private void expireScans(final long now) {
    scans.values().removeIf(s -> now - s.lastUsed > scanTtlMillis);
  }

  private static long[] parse(final ScanCursor cursor) {
    final String text = cursor.token().asUtf8();
    if (!text.startsWith(CURSOR_TAG)) {
      return null;
    }
    final String[] parts = text.substring(CURSOR_TAG.length()).split(":", -1);
    try {
      return parts.length == 2 ? new long[] {Long.parseLong(parts[0]), Long.parseLong(parts[1])} : null;
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /**
   * Number of live keys now.
   *
   * @return the count; any thread.
   */
  public int size() {
    synchronized (lock) {
      final long now = clock.millis();
      values.values().removeIf(v -> !v.liveAt(now));
      return values.size();
    }
  }

  /**
   * Number of applied write batches so far (conflicts and refused batches not counted): lets a test prove that
   * an operation changed nothing in the store (MEM-17).
   *
   * @return the count; any thread.
   */
  public long appliedWrites() {
    synchronized (lock) {
      return appliedWrites;
    }
  }

  private Value live(final String key, final long now) {
    final Value value = values.get(key);
    if (value != null && !value.liveAt(now)) {
      values.remove(key);
      return null;
    }
    return value;
  }

  private StoreNow now() {
    return new StoreNow(clock.millis());
  }

  static int compareCodePoints(final String a, final String b) {
    int i = 0;
    int j = 0;
    while (i < a.length() && j < b.length()) {
      final int ca = a.codePointAt(i);
      final int cb = b.codePointAt(j);
      if (ca != cb) {
        return Integer.compare(ca, cb);
      }
      i += Character.charCount(ca);
      j += Character.charCount(cb);
    }
    return Boolean.compare(i < a.length(), j < b.length());
  }

  @Override
  public String toString() {
    return "InMemoryLocationStore[keys=" + size() + "]";
  }
}
