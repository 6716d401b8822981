package dev.spotkit.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spotkit.core.HostRelocationCommitTest.Keeper;
import dev.spotkit.core.HostRelocationCommitTest.KeeperState;
import dev.spotkit.core.HostRelocationCommitTest.Note;
import dev.spotkit.core.HostRelocationCommitTest.Seen;
import dev.spotkit.core.HostRelocationCommitTest.View;
import dev.spotkit.core.HostRelocationCommitTest.Where;
import dev.spotkit.core.location.LocationRecords;
import dev.spotkit.core.location.ObjectKey;
import dev.spotkit.store.InMemoryLocationStore;
import dev.spotkit.store.Mutation;
import dev.spotkit.store.ReadResult;
import dev.spotkit.store.WriteBatch;
import dev.spotkit.testkit.TestMesh;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Spec 001 sections 9 and 10, through the public API: a move whose target CAS fails past the relay-ready reply
 * leaves the actor running nowhere, and that must end in a state the application recovers from. Requests get
 * Unavailable (never NotFound, never a hang) for the Message Follow duration; the application can destroy the
 * actor at once, and without a destroy the record is gone once Message Follow ended (or the source closed), so
 * getOrCreate makes a fresh instance. Before the fix destroy returned false and getOrCreate kept returning the dead
 * ref for good.
 */
class RelocationFailureRecoveryTest {
  private final InMemoryLocationStore store = new InMemoryLocationStore();
  private TestMesh mesh;
  /** The Location Store (or view of it) of the node {@link #node} starts next. */
  private dev.spotkit.store.LocationStore nextView;

  /** The first call starts the test's mesh on {@link #store} with one node, each later call adds one. */
  private MeshNode node(final dev.spotkit.store.LocationStore view) {
    nextView = view;
    if (mesh == null) {
      mesh = TestMesh.builder().meshName("mesh").locationStore(store)
          .customize((b, i) -> b.locationStore(nextView))
          .objectServer(s -> s.entrySpot(TestNodes.PlainEntry::new)
              .actor("keeper", Keeper::new, a -> a.preserveStateWith(new KeeperState())))
          .start(1);
      return mesh.node(0);
    }
    return mesh.addNode();
  }

  @AfterEach
  void close() {
    if (mesh != null) {
      mesh.close();
    }
  }

  /** Makes the first CAS of {@code actor} through {@code view} conflict: its row is rewritten (new version) first. */
  private void conflictFirstCasOf(final View view, final String actor) {
    final String key = ObjectKey.actor(actor).logicalKey().preimage();
    final AtomicBoolean once = new AtomicBoolean();
    view.before = batch -> {
      if (batch.mutations().stream().noneMatch(m -> m.key().equals(key)) || !once.compareAndSet(false, true)) {
        return CompletableFuture.completedFuture(null);
      }
      return store.read(key).thenCompose(read -> store.write(WriteBatch.unconditional(Mutation.Put.of(key,
          ((ReadResult.Found) read).value())))).thenApply(w -> null);
    };
  }

  /** Moves {@code actor} from {@code a} to {@code b} with a failing CAS; returns its ref from before the move. */
  private ActorRef failedMove(final MeshNode a, final View bView, final MeshNode b, final String actor) {
    final ActorRef ref = a.actors().find(actor).orElseThrow();
    a.toActor(actor).send(new Note(1));
    conflictFirstCasOf(bView, actor);
    final HostRelocationResult result = a.relocate(b.nodeRid()).join();
    assertThat(result.relocated()).as(result.toString()).isEmpty();
    assertThat(result.kept().get(new ActorId(actor))).isInstanceOf(SpotkitException.Unavailable.class);
    return ref;
  }

  private static void assertUnavailable(final MeshNode via, final String actor) {
    assertThat(via.toActor(actor).request(new Where(), String.class).timeout(Duration.ofSeconds(5)).toFuture())
        .failsWithin(Duration.ofSeconds(6)).withThrowableOfType(ExecutionException.class)
        .withCauseInstanceOf(SpotkitException.Unavailable.class);
  }

  /** A fresh incarnation of {@code actor}, made through {@code via}, that answers through every node given. */
  private static void assertFreshAndUsable(final MeshNode via, final ActorRef old, final List<MeshNode> all) {
    final String actor = old.id().value();
    final ActorRef fresh = via.actors().getOrCreate(actor, "keeper").await();
    assertThat(fresh.generation()).isNotEqualTo(old.generation());
    for (MeshNode n : all) {
      assertThat(n.toActor(actor).request(new Where(), String.class).timeout(Duration.ofSeconds(5)).await())
          .isEqualTo(fresh.nodeRid().hex());
    }
    via.toActor(actor).send(new Note(7));
    Awaitility.await().atMost(5, TimeUnit.SECONDS).until(() -> via.toActor(actor).request(new Seen(), List.class)
        .timeout(Duration.ofSeconds(5)).await().equals(List.of(7))); // a new instance: no state of the old one
  }

  @Test
  void afterACasFailedPastRelayReadyRequestsAreUnavailableAndTheActorCanBeDestroyedAndMadeAfresh() {
    final MeshNode a = node(store);
    final View bView = new View(store);
    final MeshNode b = node(bView);
    final String actor = mesh.actorOn(0, "abandoned", "keeper");
    final ActorRef ref = failedMove(a, bView, b, actor);
    assertUnavailable(a, actor);
    assertUnavailable(b, actor);
    assertThat(a.actors().destroy(ref).timeout(Duration.ofSeconds(5)).await()).isTrue();
    assertThat(LocationRecords.read(store, ObjectKey.actor(actor))).isEmpty();
    assertThat(b.actors().destroy(ref).timeout(Duration.ofSeconds(5)).await()).isFalse(); // that generation is gone
    assertFreshAndUsable(b, ref, List.of(a, b));
  }

  /**
   * Without a destroy: Unavailable while Message Follow runs (30 s), then the source removes the record it still
   * holds, and getOrCreate makes a fresh instance.
   */
  @Test
  void withoutADestroyTheRecordIsGoneOnceMessageFollowEndedAndGetOrCreateMakesAFreshInstance() {
    final MeshNode a = node(store);
    final View bView = new View(store);
    final MeshNode b = node(bView);
    final String actor = mesh.actorOn(0, "expired", "keeper");
    final ActorRef ref = failedMove(a, bView, b, actor);
    assertUnavailable(a, actor);
    assertUnavailable(b, actor);
    assertThat(b.actors().getOrCreate(actor, "keeper").await()).isEqualTo(ref); // the record still names it
    Awaitility.await().atMost(45, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(500))
        .until(() -> LocationRecords.read(store, ObjectKey.actor(actor)).isEmpty());
    assertFreshAndUsable(b, ref, List.of(a, b));
  }

  /** The source closes after such a move: its close removes that record with its own, and the actor is made anew. */
  @Test
  void aSourceClosingAfterACasFailedPastRelayReadyLeavesNoRecordNamingIt() {
    final MeshNode a = node(store);
    final View bView = new View(store);
    final MeshNode b = node(bView);
    final String actor = mesh.actorOn(0, "orphaned", "keeper");
    final ActorRef ref = failedMove(a, bView, b, actor);
    a.close();
    assertThat(LocationRecords.read(store, ObjectKey.actor(actor))).isEmpty();
    assertFreshAndUsable(b, ref, List.of(b));
  }
}
