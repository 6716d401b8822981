package dev.spotkit.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spotkit.core.location.ObjectKey;
import dev.spotkit.store.InMemoryLocationStore;
import dev.spotkit.store.StoreFaults;
import dev.spotkit.testkit.TestMesh;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A coordinator's reservation for node B (command 49) that reaches B while a GetOrCreate of the same id on B
 * has staged its own attempt (found by the three-JVM test in toolkit-redis): the reserved creation must wait
 * for the staged attempt to step aside, not refuse, or the Creating row keeps no creator until every caller's
 * deadline.
 */
class MeshCreationRaceTest {
  static final ConcurrentHashMap<String, AtomicInteger> RUNS = new ConcurrentHashMap<>();

  /** Counts its factory runs. */
  static final class Counted implements Actor {
    Counted(final ActorContext ctx) {
      RUNS.computeIfAbsent(ctx.self().id().value(), k -> new AtomicInteger()).incrementAndGet();
    }

    @Override
    public void configure(final ActorHandlers on) {
    }
  }

  /** Node 0 with placement weight 0, node 1 with 100: placement always picks node 1. */
  private static TestMesh twoNodes() {
    return TestMesh.builder().meshName("race").closeTimeout(Duration.ofSeconds(2))
        .node(b -> b.requestTimeout(Duration.ofSeconds(4)))
        .mesh((m, i) -> m.placementWeight(i == 0 ? 0 : 100))
        .objectServer(s -> s.entrySpot(TestNodes.PlainEntry::new).actor("counted", Counted::new,
            a -> a.disableRelocation()).userSpot("room", MeshCreationTest.Room::new, o -> o.recreateOnRelocation()))
        .start(2);
  }

  @Test
  @Spec("MEM-03")
  void aReservationArrivingWhileALocalAttemptIsStagedWaitsForItAndRunsTheFactoryOnce() throws Exception {
    try (TestMesh mesh = twoNodes()) { // placement always picks b
      final InMemoryLocationStore store = mesh.locationStore();
      final MeshNode a = mesh.node(0);
      final MeshNode b = mesh.node(1);
      // Which of b's two threads gets there first after both stalls are released is up to the scheduler (the
      // reserved creation checking its registry, or the staged attempt stepping aside); before the fix the
      // first order failed. Several ids give that order its chances.
      for (int i = 0; i < ROUNDS; i++) {
        race(store, a, b, "x" + i, ActorKind.ACTOR);
      }
      assertThat(RUNS).as("one factory run per id, every round").hasSize(ROUNDS)
          .allSatisfy((id, runs) -> assertThat(runs).hasValue(1));
    } finally {
      RUNS.clear();
    }
  }

  @Test
  void theSameForAUserSpotCreation() throws Exception {
    try (TestMesh mesh = twoNodes()) {
      final InMemoryLocationStore store = mesh.locationStore();
      final MeshNode a = mesh.node(0);
      final MeshNode b = mesh.node(1);
      for (int i = 0; i < ROUNDS; i++) {
        race(store, a, b, "s" + i, ActorKind.SPOT);
      }
    } finally {
      MeshCreationTest.FACTORY_RUNS.keySet().removeIf(k -> k.startsWith("spot:s"));
    }
  }

  private static final int ROUNDS = 20;

  /** Which manager the race goes through. */
  enum ActorKind { ACTOR, SPOT }

  private static CompletableFuture<CreateOutcome<Object>> getOrCreate(final MeshNode node, final String id,
      final ActorKind kind) {
    return kind == ActorKind.ACTOR
        ? node.actors().getOrCreate(id, "counted").toOutcomeFuture().thenApply(MeshCreationRaceTest::widen)
        : node.spots().getOrCreate(id, "room").toOutcomeFuture().thenApply(MeshCreationRaceTest::widen);
  }

  @SuppressWarnings("unchecked")
  private static CreateOutcome<Object> widen(final CreateOutcome<?> outcome) {
    return (CreateOutcome<Object>) outcome;
  }

  private static NodeRid ownerOf(final Object ref) {
    return ref instanceof ActorRef actor ? actor.nodeRid() : ((SpotRef) ref).nodeRid();
  }

  private static void race(final InMemoryLocationStore store, final MeshNode a, final MeshNode b, final String id,
      final ActorKind kind) throws Exception {
    final String row = (kind == ActorKind.ACTOR ? ObjectKey.actor(id) : ObjectKey.spot(id)).logicalKey()
        .preimage();
    // b's own GetOrCreate: it reads the row (Missing), stages its cell and holds b's Entry Spot gate in its
    // reserve, whose read of the row (the 2nd) is stalled here
    final AtomicInteger readsBefore = new AtomicInteger();
    final StoreFaults.Stall localReserve = store.faults().stallNext(1, call -> call.kind() == StoreFaults.Kind.READ
        && call.touches(row) && readsBefore.incrementAndGet() == 2);
    final CompletableFuture<CreateOutcome<Object>> onB = getOrCreate(b, id, kind);
    assertThat(localReserve.awaitStalled(1, Duration.ofSeconds(10))).isTrue();
    // a coordinates a creation on b: reads (Missing), reserves for b, sends command 49; b checks the row
    // against the fence (the 3rd read from here on), stalled until b has the command in hand
    final AtomicInteger readsAfter = new AtomicInteger();
    final StoreFaults.Stall fenceRead = store.faults().stallNext(1, call -> call.kind() == StoreFaults.Kind.READ
        && call.touches(row) && readsAfter.incrementAndGet() == 3);
    final CompletableFuture<CreateOutcome<Object>> onA = getOrCreate(a, id, kind);
    assertThat(fenceRead.awaitStalled(1, Duration.ofSeconds(10))).isTrue();
    fenceRead.release();    // b registers the reserved creation, maybe while its staged attempt is still there
    localReserve.release(); // which then finds the row reserved and steps aside

    final CreateOutcome<Object> fromA = onA.get(20, TimeUnit.SECONDS);
    final CreateOutcome<Object> fromB = onB.get(20, TimeUnit.SECONDS);
    assertThat(fromA).as(id).isInstanceOf(CreateOutcome.Created.class);
    final Object created = ((CreateOutcome.Created<Object>) fromA).ref();
    assertThat(ownerOf(created)).isEqualTo(b.nodeRid());
    assertThat(fromB).isEqualTo(new CreateOutcome.Existing<>(created));
    if (kind == ActorKind.ACTOR) {
      assertThat(RUNS.get(id)).hasValue(1);
      assertThat(a.actors().find(id)).contains((ActorRef) created);
    } else {
      assertThat(MeshCreationTest.FACTORY_RUNS.get("spot:" + id)).hasValue(1);
      assertThat(a.spots().find(id)).contains((SpotRef) created);
    }
  }
}
