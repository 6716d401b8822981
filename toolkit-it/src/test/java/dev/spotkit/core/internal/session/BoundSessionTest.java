package dev.spotkit.core.internal.session;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spotkit.core.Actor;
import dev.spotkit.core.ActorHandlers;
import dev.spotkit.core.ActorRef;
import dev.spotkit.core.EntrySpot;
import dev.spotkit.core.EntrySpotContext;
import dev.spotkit.core.MeshNode;
import dev.spotkit.core.NodeRid;
import dev.spotkit.core.internal.relocation.Relocations;
import dev.spotkit.core.internal.runtime.ActorCell;
import dev.spotkit.core.internal.runtime.NodeRuntime;
import dev.spotkit.testkit.TestMesh;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The session view of an actor whose session node is gone (killed: no descriptor, no connection): pushes are
 * dropped at once as counted dead letters instead of one dial and one WARN line each, and the actor's Spot hears
 * of the disconnect once, so a room does not keep a ghost member.
 */
class BoundSessionTest {
  static final List<String> DISCONNECTS = new CopyOnWriteArrayList<>();

  /** Records every disconnect it is told of. */
  static final class RecordingEntry implements EntrySpot {
    private final EntrySpotContext ctx;

    RecordingEntry(final EntrySpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public EntrySpotContext context() {
      return ctx;
    }

    @Override
    public void onDisconnectActor(final ActorRef actor) {
      DISCONNECTS.add(actor.id().value());
    }
  }

  /** Does nothing. */
  static final class Quiet implements Actor {
    @Override
    public void configure(final ActorHandlers on) {
    }
  }

  private TestMesh mesh;

  @AfterEach
  void close() {
    if (mesh != null) {
      mesh.close();
    }
    DISCONNECTS.clear();
  }

  @Test
  void pushesToAGoneSessionNodeAreCountedDeadLettersAndTheSpotHearsOfTheDisconnectOnce() throws Exception {
    mesh = TestMesh.builder().meshName("m")
        .objectServer(s -> s.entrySpot(RecordingEntry::new).actor("quiet", ctx -> new Quiet(),
            a -> a.disableRelocation()))
        .start(1);
    final MeshNode node = mesh.node(0);
    node.actors().getOrCreate("p", "quiet").await();
    final java.lang.reflect.Field field = MeshNode.class.getDeclaredField("rt");
    field.setAccessible(true);
    final NodeRuntime rt = (NodeRuntime) field.get(node);
    final ActorCell cell = rt.actors.get("p");
    // the session node: a node of this mesh that published no descriptor (it was killed and its lease lapsed)
    final NodeRid gone = new NodeRid(0x0dea_d000_0000_0001L);
    final BoundSession session = new BoundSession(rt, new Relocations.Binding(7, gone, 0, false, null, 1, 0),
        cell);

    int refused = 0;
    for (int i = 0; i < 5_000; i++) {
      if (!session.push("line " + i)) {
        refused++;
      }
    }
    Awaitility.await().atMost(20, TimeUnit.SECONDS).until(() -> DISCONNECTS.contains("p"));
    assertThat(session.isOpen()).isFalse();
    assertThat(session.push("after")).isFalse();
    final long dead = rt.deadLetters().counts().getOrDefault(BoundSession.UNREACHABLE, 0L);
    // every push accepted for the one dial became a counted dead letter (none was retried into memory); the
    // others were refused at once: counted while the dial had failed recently, plain false once the view closed
    assertThat(5_000 - refused).isBetween(1, BoundSession.MAX_WAITING);
    assertThat(dead).isBetween(5_000L - refused, 5_000L);
    assertThat(DISCONNECTS).containsExactly("p");
  }
}
