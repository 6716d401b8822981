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
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
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
}
