package dev.spotkit.core.internal.relocation;

import dev.spotkit.core.internal.runtime.ActorCell;
import dev.spotkit.core.internal.runtime.CellState;
import dev.spotkit.core.internal.runtime.NodeRuntime;
import static org.assertj.core.api.Assertions.assertThat;

import dev.spotkit.core.Actor;
import dev.spotkit.core.ActorContext;
import dev.spotkit.core.ActorHandlers;
import dev.spotkit.core.HostRelocationResult;
import dev.spotkit.core.MeshNode;
import dev.spotkit.core.location.ObjectKey;
import dev.spotkit.store.InMemoryLocationStore;
import dev.spotkit.store.StoreFaults;
import dev.spotkit.testkit.TestMesh;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A message for an actor whose source instance just detached (the source sent the cutover, the instance is GONE,
 * the target's CAS has not committed yet, so the store still names the source): a sender that found the GONE cell
 * in the registry (it read the registry just before the detach removed it) hands the message to the source unit,
 * which follows it to the target (spec 001 section 10, Message Follow), instead of routing by the store, which
 * still names this node and so answered NotFound: a one-way message lost. Both paths: a local send and a message a
 * peer routed here.
 */
class DetachedSourceDeliveryTest {
  static final String SECRET = "test-cluster-secret-0123456789";

  record Note(int n) {}

  /** Notes by actor id, with the node they ran on. */
  static final Map<String, List<String>> NOTES = new ConcurrentHashMap<>();

  static final class Keeper implements Actor {
    private final ActorContext ctx;

    Keeper(final ActorContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public void configure(final ActorHandlers on) {
      on.message(Note.class, n -> NOTES.computeIfAbsent(ctx.self().id().value(), k -> new CopyOnWriteArrayList<>())
          .add(n.n() + "@" + ctx.self().nodeRid().hex()));
    }
  }

  /** The Entry Spot of the test nodes. */
  static final class Entry implements dev.spotkit.core.EntrySpot {
    private final dev.spotkit.core.EntrySpotContext ctx;

    Entry(final dev.spotkit.core.EntrySpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public dev.spotkit.core.EntrySpotContext context() {
      return ctx;
    }
  }

  private final TestMesh mesh = TestMesh.builder().meshName("mesh")
      .objectServer(s -> s.entrySpot(Entry::new).actor("keeper", Keeper::new, a -> a.recreateOnRelocation()))
      .start(2);
  private final InMemoryLocationStore store = mesh.locationStore();

  @AfterEach
  void close() {
    store.faults().clear();
    mesh.close();
    NOTES.clear();
  }

  private static NodeRuntime runtime(final MeshNode node) throws ReflectiveOperationException {
    final java.lang.reflect.Field field = MeshNode.class.getDeclaredField("rt");
    field.setAccessible(true);
    return (NodeRuntime) field.get(node);
  }

  @Test
  void aMessageForAJustDetachedSourceInstanceFollowsTheActor() throws Exception {
    final MeshNode a = mesh.node(0);
    final MeshNode b = mesh.node(1);
    final NodeRuntime ra = runtime(a);
    final String actor = mesh.actorOn(0, "keeper", "keeper");
    final ActorCell cell = ra.actors.get(actor);
    final String key = ObjectKey.actor(actor).logicalKey().preimage();
    final StoreFaults.Stall cas = store.faults().stallNext(1, call -> call.kind() == StoreFaults.Kind.WRITE
        && call.touches(key)); // the target's first CAS waits: the store still names a
    final CompletableFuture<HostRelocationResult> moved = a.relocate(b.nodeRid());
    Awaitility.await().atMost(10, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(2)).until(() ->
        cas.stalled() == 1 && ra.actors.get(actor) == null); // cutover sent, source detached, not committed
    assertThat(cell.state).isEqualTo(CellState.GONE);
    ra.actors.put(actor, cell); // what a sender that read the registry just before the detach holds
    try {
      a.toActor(actor).send(new Note(1)); // a local send
      b.toActor(actor).send(new Note(2)); // routed by the store to a, a peer's message there
      cas.release(); // the first CAS applies now (or its retry does): the target commits and runs the notes
      Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> NOTES.getOrDefault(actor, List.of()).size() == 2);
    } finally {
      ra.actors.remove(actor, cell);
    }
    assertThat(moved.get(30, TimeUnit.SECONDS).relocated()).extracting(r -> r.id().value()).containsExactly(actor);
    assertThat(NOTES.get(actor)).containsExactlyInAnyOrder("1@" + b.nodeRid().hex(), "2@" + b.nodeRid().hex());
  }
}
