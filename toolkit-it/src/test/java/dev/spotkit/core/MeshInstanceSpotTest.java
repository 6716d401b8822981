package dev.spotkit.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spotkit.store.InMemoryLocationStore;
import dev.spotkit.store.InMemoryRelocationStore;
import dev.spotkit.store.ScanRequest;
import dev.spotkit.store.ScanResult;
import dev.spotkit.testkit.TestMesh;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Instance Spot cold activation across three MeshNodes (spec 002 section 7.1). */
class MeshInstanceSpotTest {
  static final Map<String, AtomicInteger> FACTORY_RUNS = new ConcurrentHashMap<>();
  static volatile CountDownLatch initGate = new CountDownLatch(0);

  record Tick(String from, int n) {}

  record Seen() {}

  /** Records every message in order; its OnInitialize waits on {@link #initGate}. */
  static final class Tally implements InstanceSpot {
    private final InstanceSpotContext ctx;
    private final List<String> seen = new ArrayList<>();

    Tally(final InstanceSpotContext ctx) {
      this.ctx = ctx;
      FACTORY_RUNS.computeIfAbsent(ctx.self().id().value(), k -> new AtomicInteger()).incrementAndGet();
    }

    @Override
    public InstanceSpotContext context() {
      return ctx;
    }

    @Override
    public void configure(final SpotHandlers on) {
      on.message(Tick.class, t -> seen.add(t.from() + t.n()))
          .request(Seen.class, s -> List.copyOf(seen));
    }

    @Override
    public void onInitialize() {
      try {
        initGate.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private final TestMesh testMesh = TestMesh.builder().meshName("mesh")
      .node(b -> b.requestTimeout(Duration.ofSeconds(10)))
      .objectServer(s -> s.entrySpot(TestNodes.PlainEntry::new)
          .instanceSpot("tally", Tally::new, o -> o.recreateOnRelocation()))
      .start(3);
  private final InMemoryLocationStore store = testMesh.locationStore();
  private final InMemoryRelocationStore relocations = testMesh.relocationStore();

  private List<MeshNode> three() {
    return testMesh.nodes();
  }

  @AfterEach
  void close() {
    initGate.countDown();
    testMesh.close();
    FACTORY_RUNS.clear();
  }

  @Test
  @Spec("LOC-14")
  @Spec("LOC-23")
  void theFirstMessageIsStoredBeforeReadyRunsFirstAndIsDeletedAfterItsHandler() {
    final List<MeshNode> mesh = three();
    initGate = new CountDownLatch(1);
    final dev.spotkit.store.StoreFaults.Stall deletes = relocations.faults().stallNext(1,
        call -> call.kind() == dev.spotkit.store.StoreFaults.Kind.DELETE);
    mesh.get(1).toInstanceSpot("t-1", "tally").send(new Tick("b", 0));
    // while OnInitialize waits: the Creating row references the stored first message
    // the stored message and the Creating row are two writes: under load the row may come a moment later
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> relocations.size() == 1
        && authorityRow("t-1") != null);
    final String row = authorityRow("t-1");
    assertThat(row).contains("\"state\":\"reserved\"").contains("relocation-store:instance-activation/");
    for (int i = 1; i < 50; i++) {
      mesh.get(i % 3).toInstanceSpot("t-1", "tally").send(new Tick("m", i));
    }
    initGate.countDown();
    // the delete waits: by then the row already ended its use of the reference (Ready, no pending creation)
    Awaitility.await().atMost(5, TimeUnit.SECONDS).until(() -> deletes.stalled() == 1);
    assertThat(authorityRow("t-1")).contains("\"state\":\"active\"").doesNotContain("relocation-store:");
    assertThat(relocations.size()).isEqualTo(1);
    deletes.release();
    Awaitility.await().atMost(5, TimeUnit.SECONDS).until(() -> relocations.size() == 0);
    final List<?> seen = mesh.get(2).toInstanceSpot("t-1", "tally").request(new Seen(), List.class).await();
    assertThat(seen).hasSize(50).first().isEqualTo("b0");
    assertThat(FACTORY_RUNS.get("t-1")).hasValue(1);
    assertThat(authorityRow("t-1")).contains("\"state\":\"active\"").doesNotContain("relocation-store:");
  }

  @Test
  @Spec("LOC-09")
  void firstMessagesFromEveryNodeAtOnceActivateOneSpotAndNoneIsLost() throws Exception {
    final List<MeshNode> mesh = three();
    final int perSender = 40;
    final ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();
    final CountDownLatch go = new CountDownLatch(1);
    final List<Future<?>> sends = new ArrayList<>();
    for (int s = 0; s < 6; s++) {
      final MeshNode from = mesh.get(s % 3);
      final String sender = "s" + s + "-";
      sends.add(pool.submit(() -> {
        go.await();
        for (int i = 0; i < perSender; i++) {
          from.toInstanceSpot("storm", "tally").send(new Tick(sender, i));
        }
        return null;
      }));
    }
    go.countDown();
    for (Future<?> send : sends) {
      send.get(20, TimeUnit.SECONDS);
    }
    pool.shutdown();
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() ->
        mesh.get(0).toInstanceSpot("storm", "tally").request(new Seen(), List.class).await().size() == 6 * perSender);
    @SuppressWarnings("unchecked")
    final List<String> seen = mesh.get(1).toInstanceSpot("storm", "tally").request(new Seen(), List.class).await();
    assertThat(FACTORY_RUNS.get("storm")).hasValue(1);
    assertThat(seen).doesNotHaveDuplicates();
    for (int s = 0; s < 6; s++) { // each sender's messages in its own order
      final String sender = "s" + s + "-";
      final List<String> own = seen.stream().filter(x -> x.startsWith(sender)).toList();
      final List<String> expected = new ArrayList<>();
      for (int i = 0; i < perSender; i++) {
        expected.add(sender + i);
      }
      assertThat(own).containsExactlyElementsOf(expected);
    }
    assertThat(relocations.size()).isZero();
  }

  /** The Spot's authority row as UTF-8, or null while there is none. */
  private String authorityRow(final String id) {
    final ScanResult.Page page = (ScanResult.Page) store.scan(ScanRequest.first("authority\0spot\0" + id, 10))
        .toCompletableFuture().join();
    return page.entries().isEmpty() ? null : page.entries().get(0).value().asUtf8();
  }
}
