package dev.spotkit.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spotkit.testkit.TestMesh;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Creation across three MeshNodes on loopback sharing one in-memory Location Store. */
class MeshCreationTest {
  static final Map<String, AtomicInteger> FACTORY_RUNS = new ConcurrentHashMap<>();

  record Hello(String text) {}

  record Welcome(String text) {}

  /** Counts factory runs per id. */
  static final class Counted implements Actor {
    Counted(final ActorContext ctx) {
      FACTORY_RUNS.computeIfAbsent(ctx.self().id().value(), k -> new AtomicInteger()).incrementAndGet();
    }

    @Override
    public void configure(final ActorHandlers on) {
    }
  }

  /** A room that counts its factory runs, answers its creation request and refuses "no". */
  static final class Room implements UserSpot<Actor> {
    private final UserSpotContext ctx;

    Room(final UserSpotContext ctx) {
      this.ctx = ctx;
      FACTORY_RUNS.computeIfAbsent("spot:" + ctx.self().id().value(), k -> new AtomicInteger()).incrementAndGet();
    }

    @Override
    public UserSpotContext context() {
      return ctx;
    }

    @Override
    public CreateDecision onCreate(final Object request) {
      if (request instanceof Hello hello) {
        return "no".equals(hello.text()) ? CreateDecision.decline(new Welcome("refused"))
            : CreateDecision.approve(new Welcome("hi " + hello.text()));
      }
      return CreateDecision.approve();
    }
  }

  /** Three nodes; a fourth ({@link TestMesh#addNode()}) has placement weight 0. */
  private final TestMesh testMesh = TestMesh.builder().meshName("mesh")
      .node(b -> b.requestTimeout(Duration.ofSeconds(10)))
      .mesh((m, i) -> {
        if (i == 3) {
          m.placementWeight(0);
        }
      })
      .objectServer(s -> s.entrySpot(TestNodes.PlainEntry::new)
          .actor("counted", Counted::new, a -> a.disableRelocation())
          .userSpot("room", Room::new, o -> o.recreateOnRelocation())
          .userSpot("hall", Room::new, o -> o.recreateOnRelocation()))
      .start(3);

  private List<MeshNode> three() {
    return testMesh.nodes();
  }

  @AfterEach
  void close() {
    testMesh.close();
    FACTORY_RUNS.clear();
  }

  @Test
  @Spec("MEM-03")
  @Spec("LOC-09")
  void getOrCreateStormsFromEveryNodeRunTheFactoryOnceAndTheLosersGetExisting() throws Exception {
    final List<MeshNode> mesh = three();
    final int ids = 12;
    final int callersPerNode = 4;
    final ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();
    final CountDownLatch go = new CountDownLatch(1);
    final List<Future<CreateOutcome<ActorRef>>> calls = new ArrayList<>();
    for (MeshNode node : mesh) {
      for (int c = 0; c < callersPerNode; c++) {
        for (int i = 0; i < ids; i++) {
          final String id = "storm-" + i;
          calls.add(pool.submit(() -> {
            go.await();
            return node.actors().getOrCreate(id, "counted").toOutcomeFuture().get(20, TimeUnit.SECONDS);
          }));
        }
      }
    }
    go.countDown();
    final Map<String, List<CreateOutcome<ActorRef>>> byId = new HashMap<>();
    for (Future<CreateOutcome<ActorRef>> call : calls) {
      final CreateOutcome<ActorRef> outcome = call.get(30, TimeUnit.SECONDS);
      final ActorRef ref = switch (outcome) {
        case CreateOutcome.Created<ActorRef> c -> c.ref();
        case CreateOutcome.Existing<ActorRef> e -> e.ref();
        case CreateOutcome.Rejected<ActorRef> r -> throw new AssertionError("rejected " + r);
      };
      byId.computeIfAbsent(ref.id().value(), k -> new ArrayList<>()).add(outcome);
    }
    pool.shutdown();
    assertThat(byId).hasSize(ids);
    for (Map.Entry<String, List<CreateOutcome<ActorRef>>> entry : byId.entrySet()) {
      assertThat(entry.getValue()).hasSize(mesh.size() * callersPerNode);
      assertThat(entry.getValue()).filteredOn(o -> o instanceof CreateOutcome.Created).hasSize(1);
      assertThat(entry.getValue().stream().map(MeshCreationTest::refOf).distinct()).hasSize(1);
      assertThat(FACTORY_RUNS.get(entry.getKey())).hasValue(1);
    }
  }

  private static ActorRef refOf(final CreateOutcome<ActorRef> outcome) {
    return outcome instanceof CreateOutcome.Created<ActorRef> c ? c.ref() : ((CreateOutcome.Existing<ActorRef>) outcome).ref();
  }

  @Test
  void placementSpreadsNewObjectsAndNeverPicksWeightZero() {
    final List<MeshNode> mesh = three();
    final MeshNode idle = testMesh.addNode(); // placement weight 0
    final Map<NodeRid, Integer> placed = new HashMap<>();
    for (int i = 0; i < 60; i++) {
      final SpotRef ref = mesh.get(i % 3).spots().create("room").await();
      placed.merge(ref.nodeRid(), 1, Integer::sum);
    }
    assertThat(placed.keySet()).containsExactlyInAnyOrder(mesh.get(0).nodeRid(), mesh.get(1).nodeRid(),
        mesh.get(2).nodeRid());
    assertThat(placed).doesNotContainKey(idle.nodeRid());
    for (int i = 0; i < 10; i++) {
      assertThat(idle.actors().create("counted").await().nodeRid()).isNotEqualTo(idle.nodeRid());
    }
  }

  @Test
  void aRemoteCreationCarriesItsRequestAndReplyAndARejectionLeavesNothing() {
    final List<MeshNode> mesh = three();
    for (int i = 0; i < 12; i++) {
      final CreateOutcome<SpotRef> created = mesh.get(0).spots().getOrCreate("r-" + i, "room", new Hello("ann"))
          .toOutcomeFuture().join();
      assertThat(created).isInstanceOfSatisfying(CreateOutcome.Created.class, c ->
          assertThat(c.reply()).contains(new Welcome("hi ann")));
      final CreateOutcome<SpotRef> refused = mesh.get(1).spots().getOrCreate("x-" + i, "room", new Hello("no"))
          .toOutcomeFuture().join();
      assertThat(refused).isInstanceOfSatisfying(CreateOutcome.Rejected.class, r ->
          assertThat(r.reply()).contains(new Welcome("refused")));
      assertThat(mesh.get(2).spots().find("x-" + i)).isEmpty();
    }
    assertThat(mesh.get(2).spots().find("r-3")).isPresent();
  }

  @Test
  void anotherTypeUnderTheSameIdIsATypeMismatchFromEveryNode() {
    final List<MeshNode> mesh = three();
    mesh.get(0).spots().getOrCreate("shared", "room").await();
    for (MeshNode node : mesh) {
      assertThatThrownBy(() -> node.spots().getOrCreate("shared", "hall").await())
          .isInstanceOf(SpotkitException.TypeMismatch.class);
    }
    mesh.get(0).actors().getOrCreate("a-1", "counted").await();
    assertThat(mesh.get(2).actors().getOrCreate("a-1", "counted").toOutcomeFuture().join())
        .isInstanceOf(CreateOutcome.Existing.class);
  }
}
