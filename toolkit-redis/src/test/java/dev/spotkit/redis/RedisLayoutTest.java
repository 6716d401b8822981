package dev.spotkit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spotkit.store.Mutation;
import dev.spotkit.store.RelocationReference;
import dev.spotkit.store.ScanRequest;
import dev.spotkit.store.ScanResult;
import dev.spotkit.store.StoreBytes;
import dev.spotkit.store.StoreLimitException;
import dev.spotkit.store.WriteBatch;
import io.lettuce.core.cluster.SlotHash;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What the Redis provider keeps and sends (FACTS.md "Redis layout"): limits refused before any Redis call,
 * old log entries trimmed, deleted keys removed, every key of a domain in one Redis Cluster slot, and cursors
 * under 4,096 bytes even for the longest keys.
 */
class RedisLayoutTest {
  @RegisterExtension
  static final RedisServerExtension REDIS = new RedisServerExtension();
  private static RedisLocationStore store;

  @BeforeAll
  static void connect() {
    store = RedisLocationStore.connect(REDIS.uri(), "layout");
  }

  @AfterAll
  static void close() {
    store.close();
  }

  private static <T> T get(final CompletionStage<T> stage) throws Exception {
    return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private static byte[] utf8(final String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static long scriptCalls() {
    long calls = 0;
    for (String line : REDIS.server().command("INFO", "commandstats").split("\r\n")) {
      if (line.startsWith("cmdstat_eval")) {
        calls += Long.parseLong(line.substring(line.indexOf("calls=") + 6, line.indexOf(',')));
      }
    }
    return calls;
  }

  @Test
  void redisUrisWithoutAHostOrWithABadPortAreRefusedBeforeAnyConnection() {
    for (String bad : List.of("redis://127.0.0.1:abc", "redis://127.0.0.1:0", "redis://127.0.0.1:70000",
        "redis://127.0.0.1:", "redis://", "http://127.0.0.1:6379", "127.0.0.1:6379", "redis://bad host:1")) {
      assertThatThrownBy(() -> RedisStoreOptions.of(bad, "app")).as(bad)
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("is not valid")
          .hasMessageContaining("redis://127.0.0.1:6379");
    }
    for (String good : List.of("redis://127.0.0.1:6379", "redis://localhost", "rediss://h:6380/2",
        "redis://:secret@127.0.0.1:6379/0", "redis-socket:///tmp/redis.sock")) {
      assertThat(RedisStoreOptions.of(good, "app").redisUri()).isEqualTo(good);
    }
  }

  @Test
  void limitsAreRefusedWithTypedErrorsBeforeAnyRedisCall() throws Exception {
    get(store.read("warm-up"));
    final long before = scriptCalls();
    assertThat(before).isPositive();
    assertThatThrownBy(() -> store.read("k".repeat(1025))).isInstanceOf(StoreLimitException.class);
    assertThatThrownBy(() -> store.read("")).isInstanceOf(StoreLimitException.class);
    assertThatThrownBy(() -> Mutation.Put.of("k", StoreBytes.of(new byte[(1 << 20) + 1])))
        .isInstanceOf(StoreLimitException.class);
    final List<Mutation> tooMany = new ArrayList<>();
    for (int i = 0; i < 2049; i++) {
      tooMany.add(new Mutation.Delete("k" + i));
    }
    assertThatThrownBy(() -> WriteBatch.of(List.of(), tooMany)).isInstanceOf(StoreLimitException.class);
    assertThatThrownBy(() -> WriteBatch.unconditional(Mutation.Put.of("k", StoreBytes.utf8("a")),
        new Mutation.Delete("k"))).isInstanceOf(StoreLimitException.class);
    try (RedisRelocationStore payloads = RedisRelocationStore.connect(REDIS.uri(), "layout")) {
      assertThatThrownBy(() -> payloads.put(new RelocationReference("r"), StoreBytes.of(new byte[(16 << 20) + 1]),
          Duration.ofHours(1))).isInstanceOf(StoreLimitException.class);
    }
    assertThatThrownBy(() -> store.write(WriteBatch.unconditional(Mutation.Put.expiring("k", StoreBytes.utf8("v"),
        Duration.ofDays(36_526))))).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("exceeds the Redis stores' maximum");
    assertThat(scriptCalls()).as("nothing was sent to Redis").isEqualTo(before);
  }

  @Test
  void oldLogEntriesAreTrimmedUnlessAnOpenScanStillNeedsThem() throws Exception {
    try (RedisLocationStore own = RedisLocationStore.connect(REDIS.uri(), "layout-trim")) {
      trim(own); // its own prefix: no scan of another test holds old entries
    }
  }

  private static void trim(final RedisLocationStore store) throws Exception {
    final byte[] redisKey = utf8(store.keys().record("trim"));
    for (int i = 0; i < 10; i++) {
      get(store.write(WriteBatch.unconditional(Mutation.Put.of("trim", StoreBytes.utf8("v" + i)))));
    }
    assertThat(get(store.session().commands().zcard(redisKey))).as("no scan open: only the current entry")
        .isEqualTo(1L);
    get(store.write(WriteBatch.unconditional(Mutation.Put.of("trim-other", StoreBytes.utf8("o")))));
    final ScanResult.Page first = (ScanResult.Page) get(store.scan(ScanRequest.first("trim", 1)));
    assertThat(first.entries()).hasSize(1);
    get(store.write(WriteBatch.unconditional(Mutation.Put.of("trim", StoreBytes.utf8("during")))));
    assertThat(get(store.session().commands().zcard(redisKey))).as("the open scan's entry is kept")
        .isEqualTo(2L);
    final ScanResult.Page last = (ScanResult.Page) get(store.scan(ScanRequest.next("trim", first.next().get(), 10)));
    assertThat(last.next()).isEmpty();
    get(store.write(WriteBatch.unconditional(Mutation.Put.of("trim", StoreBytes.utf8("after")))));
    assertThat(get(store.session().commands().zcard(redisKey))).as("the scan ended").isEqualTo(1L);
    get(store.write(WriteBatch.unconditional(new Mutation.Delete("trim"))));
    assertThat(get(store.session().commands().exists(redisKey))).as("a delete without open scans removes the key")
        .isZero();
    assertThat(get(store.session().commands().zscore(utf8(store.keys().internal("index")), utf8("trim"))))
        .as("and its index entry").isNull();
  }

  @Test
  void aFlushedScriptCacheFallsBackFromEvalshaToEvalOnce() throws Exception {
    get(store.write(WriteBatch.unconditional(Mutation.Put.of("noscript", StoreBytes.utf8("a")))));
    assertThat(REDIS.server().command("SCRIPT", "FLUSH")).isEqualTo("+OK");
    get(store.write(WriteBatch.unconditional(Mutation.Put.of("noscript", StoreBytes.utf8("b")))));
    assertThat(((dev.spotkit.store.ReadResult.Found) get(store.read("noscript"))).value().asUtf8()).isEqualTo("b");
    final long calls = scriptCalls();
    get(store.write(WriteBatch.unconditional(Mutation.Put.of("noscript", StoreBytes.utf8("c")))));
    assertThat(scriptCalls()).as("cached again: one EVALSHA, no EVAL").isEqualTo(calls + 1);
  }

  @Test
  void everyKeyOfADomainIsInOneClusterSlot() {
    final RedisKeys keys = store.keys();
    final int slot = SlotHash.getSlot(keys.record("authority\0actor\0user:42"));
    for (String key : List.of(keys.record("owner-lease\0owner-a"), keys.record("zlink:v11:object-counter"),
        keys.internal("seq"), keys.internal("index"), keys.internal("scans"), keys.internal("scan-used"),
        keys.internal("scan-start"), keys.internal("scan-id"), keys.internal("seq-epoch"))) {
      assertThat(SlotHash.getSlot(key)).as(key).isEqualTo(slot);
    }
    assertThat(SlotHash.getSlot(keys.relocationBlob("a"))).isEqualTo(SlotHash.getSlot(keys.relocationBlob("b")));
  }

  @Test
  void cursorsStayUnder4096BytesForTheLongestKeys() throws Exception {
    final String prefix = "long/";
    for (int i = 0; i < 3; i++) {
      final String key = prefix + i + "\u00e9".repeat((1024 - prefix.length() - 1) / 2);
      get(store.write(WriteBatch.unconditional(Mutation.Put.of(key, StoreBytes.utf8("v")))));
    }
    final ScanResult.Page page = (ScanResult.Page) get(store.scan(ScanRequest.first(prefix, 1)));
    assertThat(page.next()).isPresent();
    assertThat(page.next().get().token().size()).isLessThanOrEqualTo(4096);
  }
}
