package dev.spotkit.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spotkit.core.location.LocationRecords;
import dev.spotkit.core.location.ObjectKey;
import dev.spotkit.store.InMemoryLocationStore;
import dev.spotkit.store.LocationStore;
import dev.spotkit.store.Mutation;
import dev.spotkit.store.ReadResult;
import dev.spotkit.store.ScanRequest;
import dev.spotkit.store.ScanResult;
import dev.spotkit.store.WriteBatch;
import dev.spotkit.store.WriteResult;
import dev.spotkit.testkit.TestMesh;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What {@link MeshNode#relocate} completing means: every actor it reports as relocated is committed (the Location
 * Store names the target), one that did not commit is reported as kept with a typed error, and closing the source
 * right after the call, or while a move it started is still committing, loses no actor (spec 001 sections 4.5, 6
 * and 9; the source never writes the owner).
 */
class HostRelocationCommitTest {
  static final String SECRET = "test-cluster-secret-0123456789";
  static final int NOTES = 20;

  record Note(int n) {}

  record Seen() {}

  record Where() {}

  /** An actor that keeps the notes it got. */
  static final class Keeper implements Actor {
    final List<Integer> notes = new CopyOnWriteArrayList<>();
    final ActorContext ctx;

    Keeper(final ActorContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public void configure(final ActorHandlers on) {
      on.message(Note.class, n -> notes.add(n.n()))
          .request(Seen.class, s -> List.copyOf(notes))
          .request(Where.class, w -> ctx.self().nodeRid().hex());
    }
  }

  /** The notes as bytes. */
  static final class KeeperState implements ActorRelocationAdapter<Keeper> {
    @Override
    public byte[] capture(final Keeper actor) {
      final java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(4 + 4 * actor.notes.size());
      b.putInt(actor.notes.size());
      actor.notes.forEach(b::putInt);
      return b.array();
    }

    @Override
    public void restore(final Keeper actor, final byte[] state) {
      final java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(state);
      final int n = b.getInt();
      for (int i = 0; i < n; i++) {
        actor.notes.add(b.getInt());
      }
    }
  }

  /**
   * A node's view of the shared store: each write that touches an actor's authority row (on a target node: its
   * relocation CAS) waits for {@link #before} first.
   */
  static final class View implements LocationStore {
    static final String ACTOR_ROWS = ObjectKey.actor("x").logicalKey().preimage().replaceFirst("x$", "");
    final LocationStore inner;
    static final Function<WriteBatch, CompletionStage<Void>> NONE = batch -> CompletableFuture.completedFuture(null);
    volatile Function<WriteBatch, CompletionStage<Void>> before = NONE;

    View(final LocationStore inner) {
      this.inner = inner;
    }

    @Override
    public CompletionStage<ReadResult> read(final String key) {
      return inner.read(key);
    }

    @Override
    public CompletionStage<WriteResult> write(final WriteBatch batch) {
      if (batch.mutations().stream().anyMatch(m -> m.key().startsWith(ACTOR_ROWS))) {
        return before.apply(batch).thenCompose(v -> inner.write(batch));
      }
      return inner.write(batch);
    }

    @Override
    public CompletionStage<ScanResult> scan(final ScanRequest request) {
      return inner.scan(request);
    }
  }

  private final InMemoryLocationStore store = new InMemoryLocationStore();
  private TestMesh mesh;
  /** The Location Store (or view of it) of the node {@link #node} starts next. */
  private LocationStore nextView;

  /** The first call starts the test's mesh on {@link #store} with one node, each later call adds one. */
  private MeshNode node(final LocationStore view) {
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

  private static List<Integer> upTo(final int n) {
    return IntStream.range(0, n).boxed().toList();
  }

  /**
   * The target's CAS reaches the store 400 ms after its reads (a slow store). Each round a fresh source moves its
   * actors and is closed as soon as relocate() returned: every actor reported as relocated is owned by the target
   * in the store at that moment, and runs there with its notes. Before the fix relocate() completed at the
   * cutover, the closing source removed its capacity record under the CAS, and the rows kept naming the closed
   * node.
   */
  @Test
  void closingTheSourceRightAfterRelocateReturnsLosesNoActor() {
    final View slow = new View(store);
    slow.before = batch -> CompletableFuture.runAsync(() -> { },
        CompletableFuture.delayedExecutor(400, TimeUnit.MILLISECONDS));
    final MeshNode b = node(slow);
    try {
      moveAndCloseRounds(b);
    } finally {
      slow.before = View.NONE; // b's own close releases its rows at full speed
    }
  }

  private void moveAndCloseRounds(final MeshNode b) {
    for (int round = 0; round < 3; round++) {
      final MeshNode a = node(store);
      final List<String> ids = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        ids.add(mesh.actorOn(mesh.indexOf(a.nodeRid()), "round" + round + "-" + i, "keeper"));
      }
      for (int n = 0; n < NOTES; n++) {
        for (String id : ids) {
          a.toActor(id).send(new Note(n));
        }
      }
      final HostRelocationResult result = a.relocate(b.nodeRid()).join();
      a.close();
      assertThat(result.kept()).as("round %d: %s", round, result).isEmpty();
      assertThat(result.relocated()).extracting(r -> r.id().value()).containsExactlyInAnyOrderElementsOf(ids);
      for (String id : ids) {
        assertThat(ownerHex(id)).as("round %d: owner of %s when relocate() returned", round, id)
            .isEqualTo(b.nodeRid().hex());
        assertThat(where(b, id)).isEqualTo(b.nodeRid().hex());
        assertThat(seen(b, id)).containsExactlyElementsOf(upTo(NOTES));
      }
    }
  }

  /**
   * The target's CAS finds the row at another version (something rewrote it after the Restore read it): the move
   * ends stale past relay-ready. relocate() reports that actor as kept with Unavailable, not as relocated, and the
   * row still names the source.
   */
  @Test
  void anActorWhoseCasDidNotCommitIsReportedAsNotMoved() {
    final MeshNode a = node(store);
    final View bumping = new View(store);
    final MeshNode b = node(bumping);
    final String actor = mesh.actorOn(mesh.indexOf(a.nodeRid()), "bumped", "keeper");
    final String key = ObjectKey.actor(actor).logicalKey().preimage();
    final AtomicBoolean once = new AtomicBoolean();
    bumping.before = batch -> {
      if (batch.mutations().stream().noneMatch(m -> m.key().equals(key)) || !once.compareAndSet(false, true)) {
        return CompletableFuture.completedFuture(null);
      }
      // Same record, new version: the CAS built on the version the target read now conflicts.
      return store.read(key).thenCompose(read -> store.write(WriteBatch.unconditional(Mutation.Put.of(key,
          ((ReadResult.Found) read).value())))).thenApply(w -> null);
    };
    final HostRelocationResult result = a.relocate(b.nodeRid()).join();
    assertThat(result.relocated()).as(result.toString()).isEmpty();
    assertThat(result.kept()).containsOnlyKeys(new ActorId(actor));
    assertThat(result.kept().get(new ActorId(actor))).isInstanceOf(SpotkitException.Unavailable.class);
    assertThat(once).isTrue();
    assertThat(ownerHex(actor)).isEqualTo(a.nodeRid().hex());
  }

  /**
   * The source is closed while the target's CAS is on its way to the store (the source already cut over). The
   * close waits for that move to commit before it removes the node's capacity record and descriptor: the move
   * commits, relocate() reports it, and the actor runs on the target with its notes.
   */
  @Test
  void closingTheSourceWhileACasIsInFlightWaitsForTheCommit() throws Exception {
    final MeshNode a = node(store);
    final View held = new View(store);
    final MeshNode b = node(held);
    final String actor = mesh.actorOn(mesh.indexOf(a.nodeRid()), "inflight", "keeper");
    final String key = ObjectKey.actor(actor).logicalKey().preimage();
    for (int n = 0; n < NOTES; n++) {
      a.toActor(actor).send(new Note(n));
    }
    final CountDownLatch reached = new CountDownLatch(1);
    final CompletableFuture<Void> open = new CompletableFuture<>();
    held.before = batch -> {
      if (batch.mutations().stream().noneMatch(m -> m.key().equals(key))) {
        return CompletableFuture.completedFuture(null);
      }
      reached.countDown();
      return open;
    };
    final CompletableFuture<HostRelocationResult> relocation = a.relocate(b.nodeRid());
    assertThat(reached.await(10, TimeUnit.SECONDS)).isTrue(); // the CAS is held; the source cut over
    final Thread closer = Thread.ofVirtual().start(a::close);
    Awaitility.await().atMost(5, TimeUnit.SECONDS).until(a::isClosed);
    // Before the fix the close ended here, its capacity record removed under the held CAS.
    closer.join(Duration.ofMillis(500));
    open.complete(null);
    closer.join(Duration.ofSeconds(10));
    assertThat(closer.isAlive()).isFalse();
    final HostRelocationResult result = relocation.get(10, TimeUnit.SECONDS);
    assertThat(result.relocated()).as(result.toString()).extracting(r -> r.id().value()).containsExactly(actor);
    assertThat(ownerHex(actor)).isEqualTo(b.nodeRid().hex());
    assertThat(where(b, actor)).isEqualTo(b.nodeRid().hex());
    assertThat(seen(b, actor)).containsExactlyElementsOf(upTo(NOTES));
  }
}
