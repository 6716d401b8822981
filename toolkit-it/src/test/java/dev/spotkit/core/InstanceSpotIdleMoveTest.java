package dev.spotkit.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.spotkit.core.location.LocationRecords;
import dev.spotkit.core.location.ObjectKey;
import dev.spotkit.store.InMemoryLocationStore;
import dev.spotkit.testkit.TestMesh;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Idle cleanup and moves of an Instance Spot never race (spec 003 section 6.2: no cleanup while it takes part in a
 * relocation): both are decided on the Spot's gate, so a Spot is either moved (and later cleaned up on its new node)
 * or cleaned up where it was (and the move fails), never both; between two real nodes on loopback TCP.
 */
class InstanceSpotIdleMoveTest {
  static final String TYPE = "idle-mover";

  record Where() {
  }

  /** "{spotId} {reason} {nodeRid hex}" per OnClosing. */
  static final List<String> CLOSINGS = new CopyOnWriteArrayList<>();

  static final class Mover implements InstanceSpot {
    private final InstanceSpotContext ctx;

    Mover(final InstanceSpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public InstanceSpotContext context() {
      return ctx;
    }

    @Override
    public void configure(final SpotHandlers on) {
      on.request(Where.class, w -> ctx.self().nodeRid().hex());
    }

    @Override
    public void onClosing(final ClosingContext closing) {
      CLOSINGS.add(ctx.self().id().value() + " " + closing.reason() + " " + ctx.self().nodeRid().hex());
    }
  }

  private TestMesh mesh;
  private InMemoryLocationStore store;

  private TestMesh mesh(final Duration idle, final int count) {
    mesh = TestMesh.builder().meshName("mesh")
        .node(b -> b.requestTimeout(Duration.ofSeconds(10)))
        .objectServer(s -> s.entrySpot(TestNodes.PlainEntry::new)
            .instanceSpot(TYPE, Mover::new, o -> o.recreateOnRelocation().idleTimeout(idle)))
        .start(count);
    store = mesh.locationStore();
    return mesh;
  }

  @AfterEach
  void close() {
    if (mesh != null) {
      mesh.close();
    }
    CLOSINGS.clear();
  }

  private static List<String> closings(final String id) {
    return CLOSINGS.stream().filter(c -> c.startsWith(id + " ")).toList();
  }

  @Test
  void aMovedInstanceSpotIsCleanedUpWhenIdleOnItsNewNodeAndReactivatesFromAnyNode() throws Exception {
    final MeshNode a = mesh(Duration.ofMillis(400), 1).node(0);
    final String id = "mover:1";
    assertThat(a.toInstanceSpot(id, TYPE).request(new Where(), String.class).await()).isEqualTo(a.nodeRid().hex());
    final MeshNode b = mesh.addNode();
    final long before = a.spots().find(id).orElseThrow().generation().value();
    a.relocateSpot(new SpotId(id), b.nodeRid()).get(60, TimeUnit.SECONDS);
    await().atMost(Duration.ofSeconds(20)).until(() -> closings(id).size() == 2);
    assertThat(closings(id)).containsExactly(id + " RELOCATION_OUT " + a.nodeRid().hex(),
        id + " IDLE_EVICTED " + b.nodeRid().hex());
    assertThat(LocationRecords.read(store, ObjectKey.spot(id))).isEmpty();
    a.toInstanceSpot(id, TYPE).request(new Where(), String.class).await();
    final long after = await().atMost(Duration.ofSeconds(5)).until(() -> LocationRecords.read(store,
        ObjectKey.spot(id)), java.util.Optional::isPresent).orElseThrow().authority().objectGeneration().value();
    assertThat(after).isGreaterThan(before);
  }

  @Test
  void aSpotIsEitherMovedOrCleanedUpWhereItWasNeverBoth() throws Exception {
    final Duration idle = Duration.ofMillis(5);
    final MeshNode a = mesh(idle, 2).node(0);
    final MeshNode b = mesh.node(1);
    int moved = 0;
    int evicted = 0;
    for (int round = 0; round < 12; round++) { // bounded; each round races the move's seal with the idle check
      final String id = "mover:race-" + round;
      final String where = a.toInstanceSpot(id, TYPE).request(new Where(), String.class).await();
      assertThat(where).isIn(a.nodeRid().hex(), b.nodeRid().hex());
      final MeshNode owner = where.equals(a.nodeRid().hex()) ? a : b;
      final MeshNode other = owner == a ? b : a;
      boolean committed;
      try {
        owner.relocateSpot(new SpotId(id), other.nodeRid()).get(60, TimeUnit.SECONDS);
        committed = true;
      } catch (ExecutionException e) {
        assertThat(e.getCause()).isInstanceOfAny(SpotkitException.Unavailable.class,
            SpotkitException.NotFound.class, SpotkitException.InvalidOperation.class);
        committed = false;
      }
      await().atMost(Duration.ofSeconds(20)).until(() -> closings(id).stream().anyMatch(c -> c.contains(
          " IDLE_EVICTED ")));
      final List<String> seen = closings(id);
      if (committed) {
        moved++;
        // the target may clean it up before the source's OnClosing(RELOCATION_OUT) ran: two nodes, no order
        assertThat(seen).containsExactlyInAnyOrder(id + " RELOCATION_OUT " + owner.nodeRid().hex(),
            id + " IDLE_EVICTED " + other.nodeRid().hex());
      } else {
        evicted++;
        assertThat(seen).containsExactly(id + " IDLE_EVICTED " + owner.nodeRid().hex());
      }
      await().atMost(Duration.ofSeconds(5)).until(() -> LocationRecords.read(store, ObjectKey.spot(id)).isEmpty());
    }
    assertThat(moved + evicted).isEqualTo(12);
  }
}
