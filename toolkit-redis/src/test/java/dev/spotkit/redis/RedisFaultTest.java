package dev.spotkit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spotkit.core.Actor;
import dev.spotkit.core.ActorContext;
import dev.spotkit.core.ActorHandlers;
import dev.spotkit.core.EntrySpot;
import dev.spotkit.core.EntrySpotContext;
import dev.spotkit.core.MeshNode;
import dev.spotkit.core.Spec;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.core.location.LocationRecords;
import dev.spotkit.core.location.ObjectKey;
import dev.spotkit.store.Condition;
import dev.spotkit.store.InMemoryRelocationStore;
import dev.spotkit.store.LocationStore;
import dev.spotkit.store.Mutation;
import dev.spotkit.store.ReadResult;
import dev.spotkit.store.ScanRequest;
import dev.spotkit.store.ScanResult;
import dev.spotkit.store.StoreBytes;
import dev.spotkit.store.StoreException;
import dev.spotkit.store.StoreVersion;
import dev.spotkit.store.WriteBatch;
import dev.spotkit.store.WriteResult;
import dev.spotkit.testkit.TestMesh;
import io.lettuce.core.ScriptOutputType;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Faults on a real Redis (spec 002 sections 5 and 10): a write that times out for its caller but runs later,
 * a script that would fail half way, a {@code CLIENT PAUSE} longer than the renew timeout under a MeshNode,
 * and which stores a node closes.
 */
class RedisFaultTest {
  @RegisterExtension
  static final RedisServerExtension REDIS = new RedisServerExtension();
  private static RedisLocationStore store;

  @BeforeAll
  static void connect() {
    store = RedisLocationStore.connect(REDIS.uri(), "faults");
  }

  @AfterAll
  static void close() {
    store.close();
  }

  private static <T> T get(final CompletionStage<T> stage) throws Exception {
    return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private static Throwable failure(final CompletionStage<?> stage) throws Exception {
    try {
      stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      return e.getCause();
    }
    throw new AssertionError("the call did not fail");
  }

  private static long sequence(final RedisLocationStore s) throws Exception {
    final byte[] value = get(s.session().commands().get(s.keys().internal("seq").getBytes(StandardCharsets.UTF_8)));
    return value == null ? 0 : Long.parseLong(new String(value, StandardCharsets.US_ASCII));
  }

  @Test
  void aWriteThatTimesOutForItsCallerButRunsLaterIsCaughtByTheVersionCheck() throws Exception {
    final String key = "late-write";
    final StoreVersion v0 = ((WriteResult.Applied) get(store.write(WriteBatch.unconditional(
        Mutation.Put.of(key, StoreBytes.utf8("v0")))))).version(key);
    final long before = sequence(store);
    try (RedisLocationStore impatient = RedisLocationStore.connect(RedisStoreOptions.of(REDIS.uri(), "faults")
        .withCommandTimeout(Duration.ofMillis(300)))) {
      assertThat(REDIS.server().command("CLIENT", "PAUSE", "60000", "WRITE")).isEqualTo("+OK");
      final WriteBatch cas = WriteBatch.of(List.of(new Condition.ExpectVersion(key, v0)),
          List.of(Mutation.Put.of(key, StoreBytes.utf8("late"))));
      final Throwable timedOut;
      try {
        timedOut = failure(impatient.write(cas));
      } finally {
        assertThat(REDIS.server().command("CLIENT", "UNPAUSE")).isEqualTo("+OK");
      }
      assertThat(timedOut).as("a lost answer is never guessed").isInstanceOf(StoreException.Indeterminate.class);
      // the server runs the write after the caller gave up
      Awaitility.await().atMost(5, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(10)).until(() ->
          ((ReadResult.Found) get(store.read(key))).value().asUtf8().equals("late"));
      // the caller re-sends the same CAS: the version check refuses the duplicate, a re-read shows its value
      assertThat(get(impatient.write(cas))).isEqualTo(new WriteResult.Conflict());
      final ReadResult.Found now = (ReadResult.Found) get(impatient.read(key));
      assertThat(now.value().asUtf8()).isEqualTo("late");
      assertThat(now.version()).isNotEqualTo(v0);
      assertThat(sequence(store)).as("exactly one write applied").isEqualTo(before + 1);
    }
  }

  @Test
  void aBatchThatWouldFailHalfWayChangesNothing() throws Exception {
    final StoreVersion a = ((WriteResult.Applied) get(store.write(WriteBatch.unconditional(
        Mutation.Put.of("half-a", StoreBytes.utf8("a0")), Mutation.Put.of("half-b", StoreBytes.utf8("b0"))))))
        .version("half-a");
    final byte[] broken = store.keys().record("half-broken").getBytes(StandardCharsets.UTF_8);
    get(store.session().commands().set(broken, "not a sorted set".getBytes(StandardCharsets.UTF_8)));
    final long before = sequence(store);
    final Throwable failed = failure(store.write(WriteBatch.of(List.of(new Condition.ExpectVersion("half-a", a)),
        List.of(Mutation.Put.of("half-a", StoreBytes.utf8("a1")), new Mutation.Delete("half-b"),
            Mutation.Put.of("half-c", StoreBytes.utf8("c1")), Mutation.Put.of("half-broken",
                StoreBytes.utf8("x"))))));
    assertThat(failed).isInstanceOf(StoreException.Unavailable.class).hasMessageContaining("WRONGTYPE");
    final ReadResult.Found stillA = (ReadResult.Found) get(store.read("half-a"));
    assertThat(stillA.value().asUtf8()).isEqualTo("a0");
    assertThat(stillA.version()).isEqualTo(a);
    assertThat(((ReadResult.Found) get(store.read("half-b"))).value().asUtf8()).isEqualTo("b0");
    assertThat(get(store.read("half-c"))).isInstanceOf(ReadResult.Missing.class);
    assertThat(sequence(store)).as("no version issued").isEqualTo(before);

    // control: Redis itself keeps a script's writes made before its error, so the checks-first order matters
    final byte[] control = "control".getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(() -> get(store.session().commands().eval("redis.call('SET', KEYS[1], 'written');"
        + " return redis.call('ZADD', KEYS[2], 1, 'm')", ScriptOutputType.INTEGER, control, broken)))
        .hasMessageContaining("WRONGTYPE");
    assertThat(new String(get(store.session().commands().get(control)), StandardCharsets.UTF_8)).isEqualTo("written");
  }

  /** The smallest Entry Spot. */
  static final class Entry implements EntrySpot {
    private final EntrySpotContext ctx;

    Entry(final EntrySpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public EntrySpotContext context() {
      return ctx;
    }
  }

  /** Takes pokes. */
  record Poke() {
  }

  /** An actor that accepts pokes. */
  static final class Poked implements Actor {
    Poked(final ActorContext ctx) {
    }

    @Override
    public void configure(final ActorHandlers on) {
      on.message(Poke.class, p -> { });
    }
  }

  /**
   * Nodes on the test kit with a short owner lease (renew every 50 ms, TTL 1 s, renew timeout 100 ms, margin 700 ms),
   * node i on {@code stores[i]}.
   */
  private static TestMesh.Builder mesh(final LocationStore... stores) {
    return TestMesh.builder().locationStores(i -> stores[i])
        .node(b -> b.ownerLease(Duration.ofMillis(50), Duration.ofSeconds(1), Duration.ofMillis(100),
            Duration.ofMillis(700)))
        .objectServer(s -> s.entrySpot(Entry::new).actor("poked", Poked::new, a -> a.disableRelocation()));
  }

  @Test
  @Spec("LOC-04")
  void aClientPauseLongerThanTheLeaseTtlStopsAdmissionWritesNothingWithItAndTheNodeStopsItself() throws Exception {
    try (RedisLocationStore nodeStore = RedisLocationStore.connect(REDIS.uri(), "pause");
        RedisLocationStore observer = RedisLocationStore.connect(REDIS.uri(), "pause");
        TestMesh mesh = mesh(nodeStore).meshName("pause").start(1)) {
      final MeshNode node = mesh.node(0);
      node.actors().getOrCreate("c", "poked").await();
      node.toActor("c").send(new Poke());
      assertThat(leases(observer)).hasSize(1);
      // longer than the renew timeout (100 ms) and the lease TTL (1 s)
      assertThat(REDIS.server().command("CLIENT", "PAUSE", "2500", "WRITE")).isEqualTo("+OK");
      Awaitility.await().atMost(5, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(20)).untilAsserted(() ->
          assertThatThrownBy(() -> node.toActor("c").send(new Poke()))
              .isInstanceOf(SpotkitException.Unavailable.class).hasMessageContaining("admission deadline"));
      assertThatThrownBy(() -> node.actors().getOrCreate("d", "poked").await())
          .isInstanceOf(SpotkitException.Unavailable.class);
      // after the pause the renewals queued in Redis run against an expired lease: Conflict, never revived
      Awaitility.await().atMost(10, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(50))
          .ignoreException(StoreException.class).until(() -> leases(observer).isEmpty());
      Awaitility.await().during(Duration.ofMillis(600)).atMost(3, TimeUnit.SECONDS)
          .pollInterval(Duration.ofMillis(50)).until(() -> leases(observer).isEmpty());
      assertThat(LocationRecords.read(observer, ObjectKey.actor("d"))).as("nothing created with the lapsed lease")
          .isEmpty();
      // the lease is lost for good: the node stops itself (fail-stop) and says so through terminated()
      assertThatThrownBy(() -> node.terminated().get(10, TimeUnit.SECONDS))
          .hasCauseInstanceOf(SpotkitException.Unavailable.class).hasMessageContaining("lost for good");
      assertThat(node.isClosed()).isTrue();
      assertThatThrownBy(() -> node.actors().getOrCreate("d", "poked").await())
          .isInstanceOf(SpotkitException.ShuttingDown.class);
      assertThatThrownBy(() -> node.toActor("c").send(new Poke())).isInstanceOf(SpotkitException.class);
      assertThat(LocationRecords.read(observer, ObjectKey.actor("d"))).isEmpty();
    }
  }

  private static List<String> leases(final LocationStore observer) throws Exception {
    final ScanResult.Page page = (ScanResult.Page) get(observer.scan(ScanRequest.first("owner-lease\0", 100)));
    return page.entries().stream().map(e -> e.key()).toList();
  }

  @Test
  void aNodeClosesTheStoresItOwnsOnceAndLeavesSharedStoresOpen() throws Exception {
    final RedisLocationStore owned = RedisLocationStore.connect(REDIS.uri(), "owned");
    final RedisRelocationStore ownedPayloads = RedisRelocationStore.connect(REDIS.uri(), "owned");
    final RedisLocationStore shared = RedisLocationStore.connect(REDIS.uri(), "shared");
    try {
      // node 0 owns its stores, node 1 borrows one: two meshes (one Redis prefix each), one node each
      try (TestMesh mesh = mesh(owned, shared).relocationStores(i -> i == 0 ? ownedPayloads
          : new InMemoryRelocationStore()).customize((b, i) -> {
            b.meshName(i == 0 ? "owned" : "shared");
            if (i == 0) {
              b.closeStoresOnClose();
            }
          }).start(2)) {
        final MeshNode owner = mesh.node(0);
        final MeshNode borrower = mesh.node(1);
        owner.close();
        borrower.close();
      }
      assertThat(failure(owned.read("k"))).isInstanceOf(StoreException.Unavailable.class)
          .hasMessageContaining("closed");
      assertThat(failure(ownedPayloads.get(new dev.spotkit.store.RelocationReference("r"))))
          .isInstanceOf(StoreException.Unavailable.class);
      assertThat(get(shared.read("k"))).as("a store the node did not own stays open")
          .isInstanceOf(ReadResult.Missing.class);
      owned.close(); // idempotent
    } finally {
      shared.close();
    }
  }
}
