package dev.spotkit.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spotkit.core.HostRelocationCommitTest.Keeper;
import dev.spotkit.core.HostRelocationCommitTest.KeeperState;
import dev.spotkit.core.HostRelocationCommitTest.Note;
import dev.spotkit.core.HostRelocationCommitTest.Seen;
import dev.spotkit.core.HostRelocationCommitTest.Where;
import dev.spotkit.core.location.LocationRecords;
import dev.spotkit.core.location.ObjectKey;
import dev.spotkit.store.InMemoryLocationStore;
import dev.spotkit.store.StoreFaults;
import dev.spotkit.testkit.TestMesh;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * REL-19 (spec 001 sections 4.5 and 6): a retryable or indeterminate answer to the target's CAS is retried with the
 * same expected source values until Restore validity (10 s) expires, and converges when the re-read shows the target
 * already recorded as owner. Each store call of the CAS waits only a fraction of the validity, so the re-read and the
 * retry happen inside it.
 */
class RelocationCasRetryTest {
  static final int NOTES = 20;
  /** Restore validity on the target (Relocations.RESTORE_VALIDITY). */
  static final Duration RESTORE_VALIDITY = Duration.ofSeconds(10);

  private final TestMesh mesh = TestMesh.builder().meshName("mesh")
      .objectServer(s -> s.entrySpot(TestNodes.PlainEntry::new)
          .actor("keeper", Keeper::new, a -> a.preserveStateWith(new KeeperState())))
      .start(2);
  private final InMemoryLocationStore store = mesh.locationStore();

  @AfterEach
  void close() {
    store.faults().clear();
    mesh.close();
  }

  private String ownerHex(final String actor) {
    return LocationRecords.read(store, ObjectKey.actor(actor)).orElseThrow().authority().allocation()
        .routingIdHex();
  }

  private static String where(final MeshNode via, final String actor) {
    return via.toActor(actor).request(new Where(), String.class).timeout(Duration.ofSeconds(5)).await();
  }

  @SuppressWarnings("unchecked")
  private static List<Integer> seen(final MeshNode via, final String actor) {
    return via.toActor(actor).request(new Seen(), List.class).timeout(Duration.ofSeconds(5)).await();
  }

  /** An actor on {@code a} with {@link #NOTES} notes, and the predicate of a write of its authority row. */
  private String loadedActor(final MeshNode a, final String prefix) {
    final String actor = mesh.actorOn(mesh.nodes().indexOf(a), prefix, "keeper");
    for (int n = 0; n < NOTES; n++) {
      a.toActor(actor).send(new Note(n));
    }
    return actor;
  }

  private static java.util.function.Predicate<StoreFaults.Call> casOf(final String actor) {
    final String key = ObjectKey.actor(actor).logicalKey().preimage();
    return call -> call.kind() == StoreFaults.Kind.WRITE && call.touches(key);
  }

  private void assertMovedAndUsable(final HostRelocationResult result, final MeshNode a, final MeshNode b,
      final String actor) {
    assertThat(result.kept()).as(result.toString()).isEmpty();
    assertThat(result.relocated()).extracting(r -> r.id().value()).containsExactly(actor);
    assertThat(ownerHex(actor)).isEqualTo(b.nodeRid().hex());
    assertThat(where(b, actor)).isEqualTo(b.nodeRid().hex());
    assertThat(where(a, actor)).isEqualTo(b.nodeRid().hex()); // Message Follow, or the store's route
    assertThat(seen(b, actor)).containsExactlyElementsOf(IntStream.range(0, NOTES).boxed().toList());
  }

  /**
   * The first CAS write never answers (held before it reaches the store). Its wait ends well inside the Restore
   * validity, the row is re-read (still the source's), the same CAS is sent again and commits: the move is
   * reported, the target runs the actor. Before the fix that wait was the whole validity (10 s): the target removed
   * its staging at the validity, and the retry that followed committed a row naming a node that answers for no
   * such actor. Releasing the first write afterwards changes nothing (its conditions no longer hold).
   */
  @Test
  void aCasWhoseFirstAnswerNeverComesIsRetriedInsideRestoreValidityAndCommits() throws Exception {
    final MeshNode a = mesh.node(0);
    final MeshNode b = mesh.node(1);
    final String actor = loadedActor(a, "held");
    final StoreFaults.Stall stall = store.faults().stallNext(1, casOf(actor));
    final long start = System.nanoTime();
    final HostRelocationResult result = a.relocate(b.nodeRid()).get(30, TimeUnit.SECONDS);
    final Duration took = Duration.ofNanos(System.nanoTime() - start);
    assertThat(stall.stalled()).isEqualTo(1);
    assertMovedAndUsable(result, a, b, actor);
    assertThat(took).as("relocate() took %s", took).isLessThan(RESTORE_VALIDITY);
    stall.release(); // the late first write applies now: Conflict, nothing changes
    assertThat(ownerHex(actor)).isEqualTo(b.nodeRid().hex());
    assertThat(where(b, actor)).isEqualTo(b.nodeRid().hex());
  }

  /**
   * The first CAS write applies but its answer is lost: the re-read finds the row the target wrote (the target is
   * already recorded as owner), so the move converges to success without a second change.
   */
  @Test
  void aCasWhoseAnswerIsLostConvergesByTheReRead() throws Exception {
    final MeshNode a = mesh.node(0);
    final MeshNode b = mesh.node(1);
    final String actor = loadedActor(a, "lost");
    store.faults().loseAnswerOfNext(1, casOf(actor));
    final HostRelocationResult result = a.relocate(b.nodeRid()).get(30, TimeUnit.SECONDS);
    assertMovedAndUsable(result, a, b, actor);
  }

  /**
   * The first two CAS writes fail retryably before they reach the store: the target retries the same CAS and the
   * third commits, inside the validity.
   */
  @Test
  void aCasFailingRetryablyIsRetriedUntilItCommits() throws Exception {
    final MeshNode a = mesh.node(0);
    final MeshNode b = mesh.node(1);
    final String actor = loadedActor(a, "flaky");
    store.faults().failNext(2, casOf(actor));
    final HostRelocationResult result = a.relocate(b.nodeRid()).get(30, TimeUnit.SECONDS);
    assertMovedAndUsable(result, a, b, actor);
  }
}
