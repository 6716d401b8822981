package dev.spotkit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spotkit.core.Spec;
import dev.spotkit.store.Condition;
import dev.spotkit.store.Mutation;
import dev.spotkit.store.ReadResult;
import dev.spotkit.store.RelocationReference;
import dev.spotkit.store.RelocationStore;
import dev.spotkit.store.ScanEntry;
import dev.spotkit.store.ScanRequest;
import dev.spotkit.store.ScanResult;
import dev.spotkit.store.StoreBytes;
import dev.spotkit.store.StoreException;
import dev.spotkit.store.StoreVersion;
import dev.spotkit.store.WriteBatch;
import dev.spotkit.store.WriteResult;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Hostile tests on a real Redis (spec 002 sections 6 and 10): foreign cursors, small pages over many keys a
 * scan does not show, maxmemory, close with calls in flight, CAS races over two connections, a scan under
 * churn from two connections, and Relocation Store edge cases (empty payload, references with Redis glob and
 * hash-tag characters).
 */
class RedisHardeningTest {
  @RegisterExtension
  static final RedisServerExtension REDIS = new RedisServerExtension();
  private static RedisLocationStore a;
  private static RedisLocationStore b;

  @BeforeAll
  static void connect() {
    a = RedisLocationStore.connect(REDIS.uri(), "attack");
    b = RedisLocationStore.connect(REDIS.uri(), "attack");
  }

  @AfterAll
  static void close() {
    a.close();
    b.close();
  }

  private static <T> T get(final CompletionStage<T> stage) throws Exception {
    return stage.toCompletableFuture().get(20, TimeUnit.SECONDS);
  }

  private static Throwable failure(final CompletionStage<?> stage) throws Exception {
    try {
      stage.toCompletableFuture().get(20, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      return e.getCause();
    }
    throw new AssertionError("the call did not fail");
  }

  private static long evalshaCalls() {
    final String stats = REDIS.server().command("INFO", "commandstats");
    final int at = stats.indexOf("cmdstat_evalsha:calls=");
    if (at < 0) {
      return 0;
    }
    final String rest = stats.substring(at + "cmdstat_evalsha:calls=".length());
    return Long.parseLong(rest.substring(0, rest.indexOf(',')));
  }

  @Test
  @Spec("LOC-08")
  void aForgedCursorWhoseLastKeyLiesOutsideThePrefixIsExpiredAndShowsNoOtherKeys() throws Exception {
    try (RedisLocationStore x = RedisLocationStore.connect(REDIS.uri(), "forged")) {
      get(x.write(WriteBatch.unconditional(Mutation.Put.of("a-outside", StoreBytes.utf8("0")),
          Mutation.Put.of("m1", StoreBytes.utf8("1")), Mutation.Put.of("m2", StoreBytes.utf8("2")))));
      final ScanResult.Page first = (ScanResult.Page) get(x.scan(ScanRequest.first("m", 1)));
      final String real = first.next().orElseThrow().token().asUtf8();
      // same scan, same prefix digest, but the last key replaced by one that sorts before the prefix
      final String forged = real.substring(0, real.lastIndexOf(':') + 1) + java.util.Base64.getUrlEncoder()
          .withoutPadding().encodeToString("a".getBytes(StandardCharsets.UTF_8));
      assertThat(get(x.scan(ScanRequest.next("m", new dev.spotkit.store.ScanCursor(StoreBytes.utf8(forged)), 10))))
          .isEqualTo(new ScanResult.Expired());
    }
  }

  @Test
  @Spec("LOC-08")
  void aCursorOfAnotherStoresScanIsExpiredAndLeavesTheScanWithThatIdOpen() throws Exception {
    // two prefixes on one Redis number their scans independently: both first scans have id 1
    try (RedisLocationStore x = RedisLocationStore.connect(REDIS.uri(), "foreign-x");
        RedisLocationStore y = RedisLocationStore.connect(REDIS.uri(), "foreign-y")) {
      for (RedisLocationStore s : List.of(x, y)) {
        get(s.write(WriteBatch.unconditional(Mutation.Put.of("k1", StoreBytes.utf8("1")),
            Mutation.Put.of("k2", StoreBytes.utf8("2")), Mutation.Put.of("k3", StoreBytes.utf8("3")))));
      }
      final ScanResult.Page mid = (ScanResult.Page) get(x.scan(ScanRequest.first("k", 1)));
      final ScanResult.Page end = (ScanResult.Page) get(x.scan(ScanRequest.first("k", 3)));
      final ScanResult.Page own = (ScanResult.Page) get(y.scan(ScanRequest.first("k", 1)));
      assertThat(own.entries()).extracting(ScanEntry::key).containsExactly("k1");
      // a foreign cursor on a page read, and one past the last key (the path that closes a scan)
      assertThat(get(y.scan(ScanRequest.next("k", mid.next().get(), 1)))).isEqualTo(new ScanResult.Expired());
      assertThat(get(y.scan(ScanRequest.next("k", end.next().get(), 1)))).isEqualTo(new ScanResult.Expired());
      final List<String> keys = new ArrayList<>(List.of("k1"));
      Optional<dev.spotkit.store.ScanCursor> cursor = own.next();
      for (int pages = 0; pages < 10 && cursor.isPresent(); pages++) {
        final ScanResult next = get(y.scan(ScanRequest.next("k", cursor.get(), 1)));
        assertThat(next).as("y's own scan survives foreign cursors").isInstanceOf(ScanResult.Page.class);
        ((ScanResult.Page) next).entries().forEach(e -> keys.add(e.key()));
        cursor = ((ScanResult.Page) next).next();
      }
      assertThat(keys).containsExactly("k1", "k2", "k3");
      assertThat(cursor).isEmpty();
    }
  }

  @Test
  @Spec("LOC-08")
  void aSmallPageOverManyKeysCreatedAfterTheScanBeganTakesFewRoundTrips() throws Exception {
    get(a.write(WriteBatch.unconditional(Mutation.Put.of("later/0", StoreBytes.utf8("0")),
        Mutation.Put.of("later/z", StoreBytes.utf8("z")))));
    final ScanResult.Page first = (ScanResult.Page) get(a.scan(ScanRequest.first("later/", 1)));
    assertThat(first.entries()).extracting(ScanEntry::key).containsExactly("later/0");
    for (int batch = 0; batch < 5; batch++) {
      final List<Mutation> puts = new ArrayList<>();
      for (int i = 0; i < 2000; i++) {
        puts.add(Mutation.Put.of(String.format("later/1-%d-%04d", batch, i), StoreBytes.utf8("x")));
      }
      get(a.write(new WriteBatch(List.of(), puts)));
    }
    final long before = evalshaCalls();
    final ScanResult.Page second = (ScanResult.Page) get(a.scan(ScanRequest.next("later/", first.next().get(), 1)));
    final long calls = evalshaCalls() - before;
    assertThat(second.entries()).as("the 10,000 later keys are not shown").extracting(ScanEntry::key)
        .containsExactly("later/z");
    // slices grow 1, 2, 4, ... up to 1,000 keys: about 20 slices of two scripts, not 10,000
    assertThat(calls).as("EVALSHA calls for one page").isLessThan(100);
  }

  @Test
  void theScanIndexForgetsKeysRedisExpiredEvenWhenNobodyScansTheirPrefix() throws Exception {
    try (RedisLocationStore s = RedisLocationStore.connect(REDIS.uri(), "sweep")) {
      final byte[] index = s.keys().internal("index").getBytes(StandardCharsets.UTF_8);
      final byte[] member = "creation-terminal\0op-1".getBytes(StandardCharsets.UTF_8);
      get(s.write(WriteBatch.unconditional(Mutation.Put.expiring("creation-terminal\0op-1", StoreBytes.utf8("t"),
          Duration.ofMinutes(5)))));
      assertThat(get(s.session().commands().zscore(index, member))).isNotNull();
      // what Redis does 15 min after the expiry (or an eviction): the record key disappears
      assertThat(get(s.session().commands().del(s.keys().record("creation-terminal\0op-1")
          .getBytes(StandardCharsets.UTF_8)))).isEqualTo(1L);
      // ordinary writes elsewhere go on; nothing ever scans "creation-terminal"
      for (int i = 0; i < 2 * RedisLocationStore.SWEEP_EVERY; i++) {
        get(s.write(WriteBatch.unconditional(Mutation.Put.of("lease/" + i, StoreBytes.utf8("v")))));
      }
      Awaitility.await().atMost(5, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(10))
          .until(() -> get(s.session().commands().zscore(index, member)) == null);
      assertThat(get(s.session().commands().zcard(index))).as("live keys stay indexed")
          .isEqualTo(2L * RedisLocationStore.SWEEP_EVERY);
    }
  }

  @Test
  @Spec("LOC-08")
  void scanPrefixesThatAreRedisRangeMarkersGlobOrLuaPatternCharactersMatchOnlyTheirKeys() throws Exception {
    final List<String> prefixes = List.of("[", "(", "-", "+", "*", "%", "\0", "[a", "(a", "\uffff",
        "\udbff\udfff", "a*", "a?", "a%d");
    try (RedisLocationStore s = RedisLocationStore.connect(REDIS.uri(), "odd prefix: \u00fc*?[(")) {
      final List<Mutation> puts = new ArrayList<>();
      prefixes.forEach(p -> puts.add(Mutation.Put.of(p + "key", StoreBytes.utf8(p))));
      get(s.write(new WriteBatch(List.of(), puts)));
      for (String prefix : prefixes) {
        final List<String> keys = new ArrayList<>();
        Optional<dev.spotkit.store.ScanCursor> cursor = Optional.empty();
        for (int pages = 0; pages < 20; pages++) {
          final ScanResult.Page page = (ScanResult.Page) get(s.scan(new ScanRequest(prefix, cursor, 1)));
          page.entries().forEach(e -> keys.add(e.key()));
          cursor = page.next();
          if (cursor.isEmpty()) {
            break;
          }
        }
        assertThat(cursor).isEmpty();
        assertThat(keys).as("prefix %s", dev.spotkit.store.StoreLimits.printable(prefix)).containsExactlyElementsOf(
            prefixes.stream().filter(p -> (p + "key").startsWith(prefix)).map(p -> p + "key").sorted(
                (x, y) -> java.util.Arrays.compareUnsigned(x.getBytes(StandardCharsets.UTF_8),
                    y.getBytes(StandardCharsets.UTF_8))).toList());
      }
    }
  }

  @Test
  void aPrivateKeyHoldingAnotherTypeFailsAMultiRowWriteBeforeItsFirstWrite() throws Exception {
    // each private key of the prefix in turn holds a foreign value; a 5-row batch must apply all or nothing
    final Map<String, String> foreign = new java.util.LinkedHashMap<>();
    foreign.put("index", "SET");
    foreign.put("scans", "SET");
    foreign.put("scan-used", "LPUSH");
    foreign.put("scan-start", "SET");
    foreign.put("seq", "LPUSH");
    foreign.put("seq-epoch", "SADD");
    try (RedisLocationStore s = RedisLocationStore.connect(REDIS.uri(), "foreign-type")) {
      get(s.write(WriteBatch.unconditional(Mutation.Put.of("seed", StoreBytes.utf8("0")))));
      final String seqKey = s.keys().internal("seq");
      int round = 0;
      for (Map.Entry<String, String> e : foreign.entrySet()) {
        round++;
        final String key = s.keys().internal(e.getKey());
        final String seqBefore = REDIS.server().command("GET", seqKey);
        assertThat(seqBefore).matches("[0-9]+");
        REDIS.server().command("DEL", key);
        REDIS.server().command(e.getValue(), key, "x");
        final List<Mutation> rows = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
          rows.add(Mutation.Put.of("row" + round + "/" + i, StoreBytes.utf8("v")));
        }
        final Throwable failed = failure(s.write(WriteBatch.unconditional(rows.toArray(Mutation[]::new))));
        assertThat(failed).as(e.getKey()).isInstanceOf(StoreException.Unavailable.class)
            .hasMessageContaining("nothing was changed").hasMessageContaining(e.getKey());
        REDIS.server().command("DEL", key);
        if (e.getKey().equals("seq")) {
          REDIS.server().command("SET", seqKey, seqBefore);
        }
        assertThat(REDIS.server().command("GET", seqKey)).as("no sequence bump with a foreign " + e.getKey())
            .isEqualTo(seqBefore);
        for (int i = 0; i < 5; i++) {
          assertThat(get(s.read("row" + round + "/" + i))).as(e.getKey() + " row " + i)
              .isInstanceOf(ReadResult.Missing.class);
        }
      }
      REDIS.server().command("SET", seqKey, "12x");
      assertThat(failure(s.write(WriteBatch.unconditional(Mutation.Put.of("bad-seq", StoreBytes.utf8("v"))))))
          .isInstanceOf(StoreException.Unavailable.class).hasMessageContaining("not a decimal counter");
      REDIS.server().command("DEL", seqKey);
      // with the keyspace clean again the same kind of batch applies whole
      get(s.write(WriteBatch.unconditional(Mutation.Put.of("after/0", StoreBytes.utf8("v")),
          Mutation.Put.of("after/1", StoreBytes.utf8("v")))));
      assertThat(get(s.read("after/1"))).isInstanceOf(ReadResult.Found.class);
      assertThat(get(s.read("bad-seq"))).isInstanceOf(ReadResult.Missing.class);
    }
  }

  @Test
  void aWriteRefusedByRedisMaxmemoryIsUnavailableAndChangesNothing() throws Exception {
    get(a.write(WriteBatch.unconditional(Mutation.Put.of("oom", StoreBytes.utf8("0")))));
    final RelocationReference ref = new RelocationReference("oom");
    try (RedisRelocationStore payloads = RedisRelocationStore.connect(REDIS.uri(), "attack")) {
      assertThat(REDIS.server().command("CONFIG", "SET", "maxmemory", "1")).isEqualTo("+OK");
      final Throwable write;
      final Throwable put;
      try {
        write = failure(a.write(WriteBatch.unconditional(Mutation.Put.of("oom", StoreBytes.utf8("1")),
            Mutation.Put.of("oom2", StoreBytes.utf8("1")))));
        put = failure(payloads.put(ref, StoreBytes.utf8("p"), Duration.ofMinutes(1)));
        assertThat(get(a.read("oom"))).as("reads go on at maxmemory").isInstanceOf(ReadResult.Found.class);
      } finally {
        assertThat(REDIS.server().command("CONFIG", "SET", "maxmemory", "0")).isEqualTo("+OK");
      }
      // Redis refuses a script's first memory-growing write at maxmemory: nothing was applied, so not Indeterminate
      assertThat(write).isInstanceOf(StoreException.Unavailable.class).hasMessageContaining("maxmemory");
      assertThat(put).isInstanceOf(StoreException.Unavailable.class).hasMessageContaining("maxmemory");
      assertThat(((ReadResult.Found) get(a.read("oom"))).value().asUtf8()).isEqualTo("0");
      assertThat(get(a.read("oom2"))).isInstanceOf(ReadResult.Missing.class);
      assertThat(get(payloads.get(ref))).isInstanceOf(RelocationStore.GetResult.Missing.class);
    }
  }

  @Test
  void closeWithCallsInFlightCompletesEveryStageTypedAndLaterCallsAreUnavailable() throws Exception {
    final RedisLocationStore s = RedisLocationStore.connect(REDIS.uri(), "attack");
    final List<CompletableFuture<?>> stages = new ArrayList<>();
    for (int i = 0; i < 2000; i++) {
      stages.add(s.write(WriteBatch.unconditional(Mutation.Put.of("inflight/" + i, StoreBytes.utf8("v"))))
          .toCompletableFuture());
      stages.add(s.read("inflight/" + i).toCompletableFuture());
      if (i % 100 == 0) {
        stages.add(s.scan(ScanRequest.first("inflight/", 7)).toCompletableFuture());
      }
    }
    s.close();
    s.close();
    final Map<String, AtomicInteger> kinds = new ConcurrentHashMap<>();
    for (CompletableFuture<?> f : stages) {
      try {
        f.get(10, TimeUnit.SECONDS);
        kinds.computeIfAbsent("ok", k -> new AtomicInteger()).incrementAndGet();
      } catch (ExecutionException e) {
        kinds.computeIfAbsent(e.getCause().getClass().getName(), k -> new AtomicInteger()).incrementAndGet();
      }
    }
    assertThat(kinds.keySet()).allMatch(k -> k.equals("ok") || k.contains("StoreException"));
    assertThat(failure(s.read("x"))).isInstanceOf(StoreException.Unavailable.class);
    assertThat(failure(s.write(WriteBatch.unconditional(Mutation.Put.of("x", StoreBytes.utf8("v"))))))
        .isInstanceOf(StoreException.Unavailable.class);
    assertThat(failure(s.scan(ScanRequest.first("", 7)))).isInstanceOf(StoreException.Unavailable.class);
  }

  @Test
  void casRacesOverTwoConnectionsHaveOneWinnerPerVersionAndNeverReuseAVersion() throws Exception {
    final String key = "race";
    get(a.write(WriteBatch.unconditional(Mutation.Put.of(key, StoreBytes.utf8("0")))));
    final ExecutorService pool = Executors.newFixedThreadPool(16);
    final Map<String, AtomicInteger> winsPerVersion = new ConcurrentHashMap<>();
    final Map<String, Boolean> issued = new ConcurrentHashMap<>();
    final AtomicInteger applied = new AtomicInteger();
    final CountDownLatch go = new CountDownLatch(1);
    try {
      final List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < 16; t++) {
        final RedisLocationStore s = t % 2 == 0 ? a : b;
        futures.add(pool.submit(() -> {
          go.await();
          for (int i = 0; i < 100; i++) {
            final ReadResult.Found found = (ReadResult.Found) get(s.read(key));
            final int n = Integer.parseInt(found.value().asUtf8());
            final WriteResult result = get(s.write(WriteBatch.of(List.of(new Condition.ExpectVersion(key,
                found.version())), List.of(Mutation.Put.of(key, StoreBytes.utf8(Integer.toString(n + 1)))))));
            if (result instanceof WriteResult.Applied ap) {
              applied.incrementAndGet();
              winsPerVersion.computeIfAbsent(found.version().value(), v -> new AtomicInteger()).incrementAndGet();
              assertThat(issued.put(ap.version(key).value(), true)).isNull();
            }
          }
          return null;
        }));
      }
      go.countDown();
      for (Future<?> f : futures) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(winsPerVersion.values()).allMatch(c -> c.get() == 1);
    assertThat(Integer.parseInt(((ReadResult.Found) get(a.read(key))).value().asUtf8())).isEqualTo(applied.get());
  }

  @Test
  @Spec("LOC-08")
  void aScanUnderChurnFromTwoConnectionsShowsExactlyTheEntriesOfItsFirstPage() throws Exception {
    final Random random = new Random(7);
    final Map<String, String> truth = new HashMap<>();
    final List<Mutation> seed = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      final String k = "churn/" + String.format("%03d", i);
      if (i % 3 == 0) {
        seed.add(Mutation.Put.expiring(k, StoreBytes.utf8("e" + i), Duration.ofHours(1)));
      } else {
        seed.add(Mutation.Put.of(k, StoreBytes.utf8("v" + i)));
      }
    }
    get(a.write(new WriteBatch(List.of(), seed)));
    final Map<String, StoreVersion> versions = new HashMap<>();
    for (Mutation m : seed) {
      final ReadResult.Found f = (ReadResult.Found) get(a.read(m.key()));
      truth.put(m.key(), f.value().asUtf8());
      versions.put(m.key(), f.version());
    }
    final Map<String, String> seen = new HashMap<>();
    Optional<dev.spotkit.store.ScanCursor> cursor = Optional.empty();
    for (int pages = 0; pages < 1000; pages++) {
      final ScanResult r = get(a.scan(new ScanRequest("churn/", cursor, 1 + random.nextInt(13))));
      final ScanResult.Page page = (ScanResult.Page) r;
      for (ScanEntry e : page.entries()) {
        assertThat(seen.put(e.key(), e.value().asUtf8())).as("repeat " + e.key()).isNull();
        assertThat(e.version()).isEqualTo(versions.get(e.key()));
      }
      // churn: deletes, overwrites, creations, through both connections
      final List<Mutation> churn = new ArrayList<>();
      for (int j = 0; j < 10; j++) {
        final int i = random.nextInt(400);
        final String k = "churn/" + String.format("%03d", i);
        if (churn.stream().anyMatch(m -> m.key().equals(k))) {
          continue;
        }
        churn.add(random.nextBoolean() ? new Mutation.Delete(k) : Mutation.Put.of(k, StoreBytes.utf8("n" + pages)));
      }
      get((pages % 2 == 0 ? a : b).write(new WriteBatch(List.of(), churn)));
      if (page.next().isEmpty()) {
        break;
      }
      cursor = page.next();
    }
    assertThat(seen).isEqualTo(truth);
  }

  @Test
  void relocationPutsAreIdempotentForTheSameBytesAndConflictForOthers() throws Exception {
    try (RedisRelocationStore payloads = RedisRelocationStore.connect(REDIS.uri(), "attack")) {
      final RelocationReference ref = new RelocationReference("ref {x}:*?[%]");
      assertThat(get(payloads.get(ref))).isInstanceOf(RelocationStore.GetResult.Missing.class);
      assertThat(get(payloads.renew(ref, Duration.ofSeconds(1))))
          .isInstanceOf(RelocationStore.RenewResult.Missing.class);
      assertThat(get(payloads.put(ref, StoreBytes.utf8("p"), Duration.ofMinutes(1))))
          .isInstanceOf(RelocationStore.PutResult.Stored.class);
      assertThat(get(payloads.put(ref, StoreBytes.utf8("p"), Duration.ofMinutes(1))))
          .isInstanceOf(RelocationStore.PutResult.AlreadyStored.class);
      assertThat(get(payloads.put(ref, StoreBytes.utf8("q"), Duration.ofMinutes(1))))
          .isInstanceOf(RelocationStore.PutResult.Conflict.class);
      assertThat(get(payloads.put(ref, StoreBytes.of(new byte[0]), Duration.ofMinutes(1))))
          .isInstanceOf(RelocationStore.PutResult.Conflict.class);
      final RelocationReference empty = new RelocationReference("empty");
      assertThat(get(payloads.put(empty, StoreBytes.of(new byte[0]), Duration.ofMinutes(1))))
          .isInstanceOf(RelocationStore.PutResult.Stored.class);
      assertThat(get(payloads.put(empty, StoreBytes.of(new byte[0]), Duration.ofMinutes(1))))
          .isInstanceOf(RelocationStore.PutResult.AlreadyStored.class);
      assertThat(((RelocationStore.GetResult.Found) get(payloads.get(empty))).payload().size()).isZero();
      payloads.close();
      payloads.close();
      assertThat(failure(payloads.get(ref))).isInstanceOf(StoreException.Unavailable.class);
    }
  }
}
