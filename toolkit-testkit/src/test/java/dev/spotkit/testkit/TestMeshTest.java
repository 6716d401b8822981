package dev.spotkit.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spotkit.core.Actor;
import dev.spotkit.core.ActorContext;
import dev.spotkit.core.ActorHandlers;
import dev.spotkit.core.EntrySpot;
import dev.spotkit.core.EntrySpotContext;
import dev.spotkit.core.HostRelocationResult;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.store.InMemoryLocationStore;
import dev.spotkit.store.InMemoryRelocationStore;
import dev.spotkit.store.LocationStore;
import dev.spotkit.store.ReadResult;
import dev.spotkit.store.RelocationStore;
import dev.spotkit.store.ScanRequest;
import dev.spotkit.store.ScanResult;
import dev.spotkit.store.WriteBatch;
import dev.spotkit.store.WriteResult;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The test kit as a user's test would use it: nodes, placement, a probe, a move, a store fault. */
class TestMeshTest {
  static final Probe<String> SEEN = new Probe<>();

  record Note(String text) {
  }

  record Count() {
  }

  record Where() {
  }

  /** Starts the counter's hourly timer. */
  record Arm() {
  }

  static final class Lobby implements EntrySpot {
    private final EntrySpotContext ctx;

    Lobby(final EntrySpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public EntrySpotContext context() {
      return ctx;
    }
  }

  static final class Counter implements Actor {
    final ActorContext ctx;
    int count;

    Counter(final ActorContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public void configure(final ActorHandlers on) {
      on.message(Note.class, n -> {
        count++;
        SEEN.record(ctx.self().id().value() + ":" + n.text());
      })
          .request(Count.class, c -> count)
          .request(Arm.class, a -> {
            ctx.timers().every("hourly", Duration.ofHours(1), () -> SEEN.record(ctx.self().id().value() + ":tick"));
            return true;
          })
          .request(Where.class, w -> ctx.self().nodeRid());
    }
  }

  record CounterState(int count) {
  }

  private static TestMesh.Builder mesh() {
    return TestMesh.builder().objectServer(s -> s.entrySpot(Lobby::new).actor("counter", Counter::new,
        a -> a.preserveState(CounterState.class, c -> new CounterState(c.count), (c, st) -> c.count = st.count())));
  }

  @Test
  void threeNodesAnActorPlacedOnOneMessagesAwaitedAndAMoveKeepingItsState() throws Exception {
    SEEN.clear();
    try (TestMesh mesh = mesh().start(3)) {
      assertThat(mesh.size()).isEqualTo(3);
      final String id = mesh.actorOn(1, "c", "counter");
      assertThat(mesh.node(0).toActor(id).request(new Where(), dev.spotkit.core.NodeRid.class)
          .timeout(Duration.ofSeconds(10)).await()).isEqualTo(mesh.node(1).nodeRid());
      for (int i = 0; i < 5; i++) {
        mesh.node(i % 3).toActor(id).send(new Note("n" + i));
      }
      assertThat(SEEN.awaitCount(5, Duration.ofSeconds(10))).hasSize(5);

      final HostRelocationResult moved = mesh.node(1).relocate(mesh.node(2).nodeRid()).join();

      assertThat(moved.kept()).isEmpty();
      assertThat(mesh.indexOf(mesh.node(0).toActor(id).request(new Where(), dev.spotkit.core.NodeRid.class)
          .timeout(Duration.ofSeconds(10)).await())).isEqualTo(2);
      assertThat(mesh.node(0).toActor(id).request(new Count(), Integer.class).timeout(Duration.ofSeconds(10))
          .await()).isEqualTo(5);
      mesh.node(1).toActor(id).send(new Note("after"));
      assertThat(SEEN.awaitMatching(v -> v.endsWith(":after"), Duration.ofSeconds(10))).isEqualTo(id + ":after");
    }
  }

  @Test
  void anActorOnlyTestNeedsNoEntrySpotOfItsOwn() {
    try (TestMesh mesh = TestMesh.builder().objectServer(s -> s.actor("counter", Counter::new,
        a -> a.recreateOnRelocation())).start(2)) {
      final String id = mesh.actorOn(1, "solo", "counter");
      mesh.node(0).toActor(id).send(new Note("x"));
      assertThat(mesh.node(0).toActor(id).request(new Count(), Integer.class).timeout(Duration.ofSeconds(10))
          .await()).isEqualTo(1);
      assertThat(mesh.node(1).entrySpot().id().value()).startsWith("test-entry-");
    }
  }

  @Test
  void aTimerIsFiredNowWithoutWaitingOutItsPeriod() throws Exception {
    SEEN.clear();
    try (TestMesh mesh = mesh().start(2)) {
      final String id = mesh.actorOn(1, "t", "counter");
      assertThat(mesh.node(0).toActor(id).request(new Arm(), Boolean.class).timeout(Duration.ofSeconds(10)).await())
          .isTrue();

      assertThat(mesh.fireTimer(1, id, "hourly")).isTrue();
      assertThat(SEEN.awaitMatching(v -> v.equals(id + ":tick"), Duration.ofSeconds(10))).isEqualTo(id + ":tick");
      assertThat(mesh.fireTimer(1, id, "no-such-timer")).isFalse();
      assertThatThrownBy(() -> mesh.fireTimer(0, id, "hourly")).as("the actor runs on node 1, not 0")
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'" + id + "'");
      assertThatThrownBy(() -> mesh.fireTimer(1, null, "hourly")).isInstanceOf(NullPointerException.class)
          .hasMessage("objectId");
      assertThatThrownBy(() -> mesh.fireTimer(1, id, null)).isInstanceOf(NullPointerException.class)
          .hasMessage("timerName");

      mesh.halt(1); // the actor's cell is still in the halted node's tables: no tick may be reported queued
      assertThatThrownBy(() -> mesh.fireTimer(1, id, "hourly")).as("a halted node runs nothing")
          .isInstanceOf(IllegalStateException.class).hasMessageContaining("closed or halted");
    }
  }

  @Test
  void aStoreFaultFailsOneCreationWithATypedErrorAndTheNextSucceeds() {
    try (TestMesh mesh = mesh().start(1)) {
      mesh.locationStore().faults().failNext(1, call -> true);
      assertThatThrownBy(() -> mesh.node(0).actors().getOrCreate("x", "counter").await())
          .isInstanceOf(SpotkitException.class);
      mesh.locationStore().faults().clear();
      assertThat(mesh.node(0).actors().getOrCreate("x", "counter").await().id().value()).isEqualTo("x");
    }
  }

  @Test
  void aProbeThatWaitsInVainSaysWhatArrived() {
    final Probe<Integer> probe = new Probe<>();
    probe.record(1);
    assertThatThrownBy(() -> probe.awaitCount(2, Duration.ofMillis(50))).isInstanceOf(AssertionError.class)
        .hasMessageContaining("got 1: [1]");
    assertThat(probe.values()).isEqualTo(List.of(1));
  }

  @Test
  void misuseIsReportedAtStart() {
    assertThatThrownBy(() -> TestMesh.builder().start(1)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> mesh().start(0)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aGivenLocationStoreIsTheOneTheNodesShare() {
    final dev.spotkit.store.InMemoryLocationStore store = new dev.spotkit.store.InMemoryLocationStore();
    try (TestMesh mesh = mesh().locationStore(store).start(1)) {
      assertThat(mesh.locationStore()).isSameAs(store);
      store.faults().failNext(1, call -> true);
      assertThatThrownBy(() -> mesh.node(0).actors().getOrCreate("y", "counter").await())
          .isInstanceOf(SpotkitException.class);
    }
  }

  @Test
  void addNodeStartsOneMoreThatTheOthersReach() {
    try (TestMesh mesh = mesh().start(1)) {
      final String id = mesh.actorOn(0, "c", "counter");
      mesh.addNode();
      assertThat(mesh.node(1).toActor(id).request(new Count(), Integer.class).timeout(Duration.ofSeconds(10))
          .await()).isZero();
    }
  }

  @Test
  void perNodeOptionsSeeTheNodeIndexAndAClientNodeHostsNothing() {
    final List<Integer> seen = new CopyOnWriteArrayList<>();
    try (TestMesh mesh = mesh().mesh((m, i) -> seen.add(10 + i)).customize((b, i) -> {
      seen.add(i);
      if (i == 1) {
        b.objectClient();
      }
    }).start(2)) {
      mesh.addNode();

      assertThat(seen).containsExactly(10, 0, 11, 1, 12, 2);
      final String id = mesh.actorOn(2, "c", "counter");
      final String viaNode2 = mesh.actorOn(0, 2, "v", "counter"); // created through node 2, lands on node 0
      assertThat(mesh.node(1).toActor(viaNode2).request(new Where(), dev.spotkit.core.NodeRid.class)
          .timeout(Duration.ofSeconds(10)).await()).isEqualTo(mesh.node(0).nodeRid());
      assertThat(mesh.node(1).toActor(id).request(new Where(), dev.spotkit.core.NodeRid.class)
          .timeout(Duration.ofSeconds(10)).await()).isEqualTo(mesh.node(2).nodeRid());
      assertThatThrownBy(() -> mesh.actorOn(1, "d", "counter")).isInstanceOf(SpotkitException.NotConfigured.class)
          .hasMessageContaining("role is CLIENT");
    }
  }

  /** A view of another store (not an {@link InMemoryLocationStore}) that counts the writes made through it. */
  static final class CountingView implements LocationStore {
    final LocationStore store;
    final AtomicInteger writes = new AtomicInteger();

    CountingView(final LocationStore store) {
      this.store = store;
    }

    @Override
    public CompletionStage<ReadResult> read(final String key) {
      return store.read(key);
    }

    @Override
    public CompletionStage<WriteResult> write(final WriteBatch batch) {
      writes.incrementAndGet();
      return store.write(batch);
    }

    @Override
    public CompletionStage<ScanResult> scan(final ScanRequest request) {
      return store.scan(request);
    }
  }

  @Test
  void aSharedStoreOfAnotherKindIsGivenToEveryNode() {
    final CountingView view = new CountingView(new InMemoryLocationStore());
    final InMemoryRelocationStore payloads = new InMemoryRelocationStore();
    try (TestMesh mesh = mesh().locationStore(view).relocationStore((RelocationStore) payloads).start(2)) {
      assertThat(mesh.locationStore(0)).isSameAs(view);
      assertThat(mesh.locationStore(1)).isSameAs(view);
      assertThat(mesh.relocationStore()).isSameAs(payloads);
      assertThat(view.writes.get()).as("both nodes published through the view").isPositive();
      assertThatThrownBy(mesh::locationStore).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("CountingView");
      final String id = mesh.actorOn(0, "c", "counter");
      assertThat(mesh.node(1).toActor(id).request(new Count(), Integer.class).timeout(Duration.ofSeconds(10))
          .await()).isZero();
    }
  }

  @Test
  void perNodeStoresAreMadeOncePerNodeWithItsIndexAddNodeIncluded() throws Exception {
    final InMemoryLocationStore shared = new InMemoryLocationStore();
    final InMemoryRelocationStore payloads = new InMemoryRelocationStore();
    final List<Integer> asked = new CopyOnWriteArrayList<>();
    final List<CountingView> views = new CopyOnWriteArrayList<>();
    try (TestMesh mesh = mesh().locationStores(i -> {
      asked.add(i);
      final CountingView v = new CountingView(shared);
      views.add(v);
      return v;
    }).relocationStores(i -> payloads).start(2)) {
      mesh.addNode();
      assertThat(asked).containsExactly(0, 1, 2);
      for (int i = 0; i < 3; i++) {
        assertThat(mesh.locationStore(i)).isSameAs(views.get(i));
        assertThat(mesh.relocationStore(i)).isSameAs(payloads);
        assertThat(views.get(i).writes.get()).as("node " + i + " writes through its own view").isPositive();
      }
      assertThatThrownBy(mesh::locationStore).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("one store per node");
      assertThatThrownBy(mesh::relocationStore).isInstanceOf(IllegalStateException.class);
      assertThatThrownBy(() -> mesh.locationStore(3)).isInstanceOf(IndexOutOfBoundsException.class);
      // one mesh over the views: an actor on node 2 answers node 0, and moves to node 1 with its state
      final String id = mesh.actorOn(2, "c", "counter");
      mesh.node(0).toActor(id).send(new Note("one"));
      assertThat(SEEN.awaitMatching(n -> n.equals(id + ":one"), Duration.ofSeconds(10))).isEqualTo(id + ":one");
      final HostRelocationResult moved = mesh.node(2).relocate(mesh.node(1).nodeRid())
          .get(30, java.util.concurrent.TimeUnit.SECONDS);
      assertThat(moved.kept()).isEmpty();
      assertThat(mesh.node(0).toActor(id).request(new Where(), dev.spotkit.core.NodeRid.class)
          .timeout(Duration.ofSeconds(10)).await()).isEqualTo(mesh.node(1).nodeRid());
      assertThat(mesh.node(0).toActor(id).request(new Count(), Integer.class).timeout(Duration.ofSeconds(10))
          .await()).isEqualTo(1);
    }
  }

  @Test
  void aFactoryThatGivesNullIsAnErrorOfThatNode() {
    assertThatThrownBy(() -> mesh().locationStores(i -> i == 1 ? null : new InMemoryLocationStore()).start(2))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("node 1");
    assertThatThrownBy(() -> mesh().locationStore((LocationStore) null)).isInstanceOf(NullPointerException.class);
  }
}
