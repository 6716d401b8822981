package dev.spotkit.core;

import static dev.spotkit.core.Placed.actorOn;
import static dev.spotkit.core.Placed.spotOn;
import static org.assertj.core.api.Assertions.assertThat;

import dev.spotkit.core.location.LocationRecords;
import dev.spotkit.core.location.ObjectKey;
import dev.spotkit.store.InMemoryLocationStore;
import dev.spotkit.testkit.TestMesh;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Hostile cases of cross-node JoinSpot (spec 000 section 4.2, spec 001): several joins in one handler, adapters
 * that throw in capture or restore, and a state far bigger than the in-flight budget. Invariants checked: one
 * owner in the Location Store, every join completes with a result (no hang), nothing accepted is lost or
 * reordered, and the source keeps serving when the move fails before relay-ready.
 */
class CrossNodeJoinBreakTest {

  record Note(int n) {}

  record Seen() {}

  record Where() {}

  record Beats() {}

  record StartBeat() {}

  record MoveTwice(String first, String second) {}

  record Move(String spotId) {}

  record Grow(int bytes) {}

  record MoveWithin(String spotId, long millis) {}

  static final Map<String, List<JoinResult>> RESULTS = new ConcurrentHashMap<>();
  /** Timer callbacks run, by node rid (which node's instance ran them). */
  static final Map<NodeRid, java.util.concurrent.atomic.AtomicInteger> TICKS = new ConcurrentHashMap<>();
  /** Node rids on which restore of the "brittle" type throws. */
  static final java.util.Set<NodeRid> RESTORE_FAILS = ConcurrentHashMap.newKeySet();
  /** Node rids on which the factory of "walker" blocks until {@link #release} (a target stuck in Restore). */
  static final java.util.Set<NodeRid> BLOCKING = ConcurrentHashMap.newKeySet();
  static volatile java.util.concurrent.CountDownLatch restoring = new java.util.concurrent.CountDownLatch(1);
  static volatile java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);

  /** An actor recording notes; its state is the notes plus an optional ballast of bytes. */
  static class Walker implements Actor {
    final List<Integer> notes = new CopyOnWriteArrayList<>();
    final ActorContext ctx;
    byte[] ballast = new byte[0];
    int beats;

    Walker(final ActorContext ctx) {
      this.ctx = ctx;
      if (BLOCKING.contains(ctx.self().nodeRid())) {
        restoring.countDown();
        try {
          release.await(20, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }

    @Override
    public void configure(final ActorHandlers on) {
      on.message(Note.class, n -> notes.add(n.n()))
          .message(StartBeat.class, s -> ctx.timers().every("beat", Duration.ofMillis(10), () -> beats++))
          .message(Move.class, m -> ctx.joinSpot(m.spotId()).timeout(Duration.ofSeconds(10)).defer())
          .message(MoveTwice.class, m -> {
            ctx.joinSpot(m.first()).timeout(Duration.ofSeconds(10)).defer();
            ctx.joinSpot(m.second()).timeout(Duration.ofSeconds(10)).defer();
          })
          .message(Grow.class, g -> ballast = new byte[g.bytes()])
          .message(MoveWithin.class, m -> ctx.joinSpot(m.spotId()).timeout(Duration.ofMillis(m.millis())).defer())
          .request(Seen.class, s -> List.copyOf(notes))
          .request(Where.class, w -> ctx.self().nodeRid().hex())
          .request(Beats.class, b -> beats)
          .timer("beat", () -> {
            beats++;
            TICKS.computeIfAbsent(ctx.self().nodeRid(), k -> new java.util.concurrent.atomic.AtomicInteger())
                .incrementAndGet();
          });
    }

    @Override
    public void onJoinCompleted(final JoinResult result) {
      RESULTS.computeIfAbsent(ctx.self().id().value(), k -> new CopyOnWriteArrayList<>()).add(result);
    }
  }

  /** Notes and ballast as bytes. */
  static class WalkerState implements ActorRelocationAdapter<Walker> {
    @Override
    public byte[] capture(final Walker actor) {
      final java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(8 + 4 * actor.notes.size() + actor.ballast.length);
      b.putInt(actor.notes.size());
      actor.notes.forEach(b::putInt);
      b.putInt(actor.ballast.length);
      b.put(actor.ballast);
      return b.array();
    }

    @Override
    public void restore(final Walker actor, final byte[] state) {
      final java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(state);
      final int n = b.getInt();
      for (int i = 0; i < n; i++) {
        actor.notes.add(b.getInt());
      }
      actor.ballast = new byte[b.getInt()];
      b.get(actor.ballast);
    }
  }

  /** Capture throws while {@link #CAPTURE_FAILS} is set. */
  static final class FlakyCapture extends WalkerState {
    @Override
    public byte[] capture(final Walker actor) {
      if (CAPTURE_FAILS.get()) {
        throw new IllegalStateException("capture refuses this time");
      }
      return super.capture(actor);
    }
  }

  static final java.util.concurrent.atomic.AtomicBoolean CAPTURE_FAILS =
      new java.util.concurrent.atomic.AtomicBoolean();

  /** Capture always throws. */
  static final class CaptureThrows extends WalkerState {
    @Override
    public byte[] capture(final Walker actor) {
      throw new IllegalStateException("capture refuses");
    }
  }

  /** Restore throws on the nodes in {@link #RESTORE_FAILS}. */
  static final class RestoreThrows extends WalkerState {
    @Override
    public void restore(final Walker actor, final byte[] state) {
      if (RESTORE_FAILS.contains(actor.ctx.self().nodeRid())) {
        throw new IllegalStateException("restore refuses");
      }
      super.restore(actor, state);
    }
  }

  /** A room that admits everyone. */
  static final class Room implements UserSpot<Actor> {
    private final UserSpotContext ctx;

    Room(final UserSpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public UserSpotContext context() {
      return ctx;
    }

    @Override
    public void configure(final SpotHandlers on) {
      on.request(Members.class, m -> ctx.members().stream().map(x -> x.ref().id().value()).toList());
    }

    @Override
    public JoinDecision onActorJoin(final ActorId actor, final Object request) {
      return JoinDecision.accept();
    }

    @Override
    public void onLeaveActor(final ActorRef actor) {
      LEFT.add(ctx.self().id().value() + " " + actor.id().value());
    }
  }

  /** Asks a room for its members' ids (a List of String). */
  record Members() {}

  /** OnLeaveActor calls seen, as "room actor". */
  static final List<String> LEFT = new CopyOnWriteArrayList<>();

  private final InMemoryLocationStore store = new InMemoryLocationStore();
  private TestMesh mesh;
  private volatile dev.spotkit.store.LocationStore nextLocations;

  private MeshNode node() {
    return node(store);
  }

  /** The next node of the mesh, on {@code locationStore} (the shared {@link #store} or a view of it). */
  private MeshNode node(final dev.spotkit.store.LocationStore locationStore) {
    nextLocations = locationStore;
    if (mesh == null) {
      mesh = TestMesh.builder().meshName("mesh").locationStore(store)
          .objectServer(s -> s.entrySpot(TestNodes.PlainEntry::new)
              .actor("walker", Walker::new, a -> a.preserveStateWith(new WalkerState()))
              .actor("no-capture", Walker::new, a -> a.preserveStateWith(new CaptureThrows()))
              .actor("brittle", Walker::new, a -> a.preserveStateWith(new RestoreThrows()))
              .actor("flaky", Walker::new, a -> a.preserveStateWith(new FlakyCapture()))
              .userSpot("room", Room::new, o -> o.recreateOnRelocation()))
          .customize((b, i) -> b.locationStore(nextLocations))
          .start(1);
      return mesh.node(0);
    }
    return mesh.addNode();
  }

  @AfterEach
  void close() {
    release.countDown();
    BLOCKING.clear();
    RESULTS.clear();
    TICKS.clear();
    CAPTURE_FAILS.set(false);
    RESTORE_FAILS.clear();
    LEFT.clear();
    if (mesh != null) {
      mesh.close();
    }
  }

  private static String where(final MeshNode via, final String actor) {
    return via.toActor(actor).request(new Where(), String.class).timeout(Duration.ofSeconds(5)).await();
  }

  @SuppressWarnings("unchecked")
  private static List<Integer> seen(final MeshNode via, final String actor) {
    return via.toActor(actor).request(new Seen(), List.class).timeout(Duration.ofSeconds(5)).await();
  }

  private String ownerHex(final String actor) {
    return LocationRecords.read(store, ObjectKey.actor(actor)).orElseThrow().authority().allocation()
        .routingIdHex();
  }

  private static List<Integer> upTo(final int n) {
    return IntStream.range(0, n).boxed().toList();
  }

  @Test
  void twoJoinsOfOneHandlerToSpotsOnTwoOtherNodesBothComplete() {
    final MeshNode a = node();
    final MeshNode b = node();
    final MeshNode c = node();
    final String actor = actorOn(a, "twice", "walker");
    final String roomB = spotOn(b, "room-b");
    final String roomC = spotOn(c, "room-c");
    a.toActor(actor).send(new MoveTwice(roomB, roomC));
    for (int i = 0; i < 200; i++) {
      a.toActor(actor).send(new Note(i));
    }
    // Spec 000 section 4: every join registered by defer() gets its completion; none is dropped silently.
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> RESULTS.getOrDefault(actor, List.of()).size() == 2);
    final List<JoinResult> results = RESULTS.get(actor);
    assertThat(results).filteredOn(r -> r instanceof JoinResult.Accepted).hasSize(1);
    assertThat(results).filteredOn(r -> r instanceof JoinResult.Failed).singleElement()
        .isInstanceOfSatisfying(JoinResult.Failed.class, f ->
            assertThat(f.error()).isInstanceOf(SpotkitException.Unavailable.class)); // "the Actor is moving"
    final MeshNode owner = where(a, actor).equals(b.nodeRid().hex()) ? b : c;
    assertThat(ownerHex(actor)).isEqualTo(owner.nodeRid().hex());
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> seen(owner, actor).size() == 200);
    assertThat(seen(owner, actor)).containsExactlyElementsOf(upTo(200));
  }

  @Test
  void anAdapterThrowingInCaptureFailsTheJoinAndTheSourceKeepsServingWithItsTimers() {
    final MeshNode a = node();
    final MeshNode b = node();
    final String actor = actorOn(a, "nocap", "no-capture");
    final String room = spotOn(b, "room");
    a.toActor(actor).send(new StartBeat());
    for (int i = 0; i < 300; i++) {
      a.toActor(actor).send(new Note(i));
      if (i == 100) {
        a.toActor(actor).send(new Move(room));
      }
    }
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> RESULTS.containsKey(actor));
    assertThat(RESULTS.get(actor)).singleElement().isInstanceOfSatisfying(JoinResult.Failed.class, f ->
        assertThat(f.error()).isInstanceOf(SpotkitException.InternalFailure.class));
    assertThat(where(b, actor)).isEqualTo(a.nodeRid().hex());
    assertThat(ownerHex(actor)).isEqualTo(a.nodeRid().hex());
    Awaitility.await().atMost(5, TimeUnit.SECONDS).until(() -> seen(a, actor).size() == 300);
    assertThat(seen(a, actor)).containsExactlyElementsOf(upTo(300));
    final int beats = a.toActor(actor).request(new Beats(), Integer.class).await();
    Awaitility.await().atMost(5, TimeUnit.SECONDS).until(() ->
        a.toActor(actor).request(new Beats(), Integer.class).await() > beats); // the timer came back
  }

  @Test
  void anAdapterThrowingInRestoreFailsTheJoinAndTheSourceKeepsEverything() {
    final MeshNode a = node();
    final MeshNode b = node();
    final String actor = actorOn(a, "brittle", "brittle");
    final String room = spotOn(b, "room");
    RESTORE_FAILS.add(b.nodeRid());
    for (int i = 0; i < 300; i++) {
      a.toActor(actor).send(new Note(i));
      if (i == 100) {
        a.toActor(actor).send(new Move(room));
      }
    }
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> RESULTS.containsKey(actor));
    assertThat(RESULTS.get(actor)).singleElement().isInstanceOfSatisfying(JoinResult.Failed.class, f ->
        assertThat(f.error()).isInstanceOf(SpotkitException.InternalFailure.class));
    assertThat(ownerHex(actor)).isEqualTo(a.nodeRid().hex());
    Awaitility.await().atMost(5, TimeUnit.SECONDS).until(() -> seen(a, actor).size() == 300);
    assertThat(seen(a, actor)).containsExactlyElementsOf(upTo(300));
    RESTORE_FAILS.clear();
    a.toActor(actor).send(new Move(room)); // the target is clean again: a second attempt succeeds
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> RESULTS.get(actor).size() == 2);
    assertThat(RESULTS.get(actor).get(1)).isInstanceOf(JoinResult.Accepted.class);
    assertThat(seen(b, actor)).containsExactlyElementsOf(upTo(300));
  }

  @Test
  void aStateBiggerThanTheInFlightBudgetMovesWhileSendersKeepSending() {
    final MeshNode a = node();
    final MeshNode b = node();
    final String actor = actorOn(a, "heavy", "walker");
    final String room = spotOn(b, "room");
    a.toActor(actor).send(new Grow(20 << 20)); // 20 MiB, over the 16 MiB per-peer budget
    for (int i = 0; i < 300; i++) {
      a.toActor(actor).send(new Note(i));
      if (i == 50) {
        a.toActor(actor).send(new Move(room));
      }
    }
    Awaitility.await().atMost(20, TimeUnit.SECONDS).until(() -> RESULTS.containsKey(actor));
    assertThat(RESULTS.get(actor)).singleElement().isInstanceOf(JoinResult.Accepted.class);
    assertThat(ownerHex(actor)).isEqualTo(b.nodeRid().hex());
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> seen(b, actor).size() == 300);
    assertThat(seen(b, actor)).containsExactlyElementsOf(upTo(300));
  }

  /**
   * Spec 000 (close "checks active Actor membership and relocation state before admission"): a User Spot that
   * admitted a cross-node join refuses to close until that join commits or fails. Before the fix the close
   * returned true while the Restore ran (no member yet), and a join past relay-ready then ended Accepted into the
   * released Spot (notes/core-bug-close-during-cross-node-join.md).
   */
  @Test
  void aUserSpotDoesNotCloseWhileAJoinItAdmittedIsInFlightAndClosesAfterItFailed() throws Exception {
    final MeshNode a = node();
    final MeshNode b = node();
    final String actor = actorOn(a, "guest", "walker");
    final String room = spotOn(b, "room");
    final SpotRef roomRef = b.spots().find(room).orElseThrow();
    restoring = new java.util.concurrent.CountDownLatch(1);
    release = new java.util.concurrent.CountDownLatch(1);
    BLOCKING.add(b.nodeRid());
    for (int i = 0; i < 100; i++) {
      a.toActor(actor).send(new Note(i));
    }
    a.toActor(actor).send(new Move(room));
    assertThat(restoring.await(10, TimeUnit.SECONDS)).isTrue();
    for (int i = 100; i < 200; i++) {
      a.toActor(actor).send(new Note(i)); // the ingress hold
    }
    assertThat(b.spots().close(roomRef).timeout(Duration.ofSeconds(5)).await())
        .as("no member yet, but an admitted join in flight").isFalse();
    release.countDown();
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> RESULTS.containsKey(actor));
    assertThat(RESULTS.get(actor)).singleElement().isInstanceOf(JoinResult.Accepted.class);
    assertThat(b.spots().find(room)).isPresent();
    assertThat(ownerHex(actor)).isEqualTo(b.nodeRid().hex());
    Awaitility.await().atMost(5, TimeUnit.SECONDS).until(() -> seen(b, actor).size() == 200);
    assertThat(seen(b, actor)).containsExactlyElementsOf(upTo(200));
    assertThat(b.spots().close(roomRef).timeout(Duration.ofSeconds(5)).await()).as("a member now").isFalse();

    // A join that fails (Restore throws on the target) stops holding the close back once it ended.
    final String other = spotOn(b, "other");
    final SpotRef otherRef = b.spots().find(other).orElseThrow();
    final String brittle = actorOn(a, "brittle", "brittle");
    restoring = new java.util.concurrent.CountDownLatch(1);
    release = new java.util.concurrent.CountDownLatch(1);
    RESTORE_FAILS.add(b.nodeRid());
    a.toActor(brittle).send(new Move(other));
    assertThat(restoring.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(b.spots().close(otherRef).timeout(Duration.ofSeconds(5)).await()).isFalse();
    release.countDown();
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> RESULTS.containsKey(brittle));
    assertThat(RESULTS.get(brittle)).singleElement().isInstanceOf(JoinResult.Failed.class);
    assertThat(ownerHex(brittle)).isEqualTo(a.nodeRid().hex());
    Awaitility.await().atMost(5, TimeUnit.SECONDS).until(() ->
        b.spots().close(otherRef).timeout(Duration.ofSeconds(5)).await());
    assertThat(b.spots().find(other)).isEmpty();
  }

  @Test
  void anActorDestroyedWhileItsRestoreRunsIsNotBroughtBackOnTheTarget() throws Exception {
    final MeshNode a = node();
    final MeshNode b = node();
    final String actor = actorOn(a, "doomed", "walker");
    final ActorRef ref = a.actors().find(actor).orElseThrow();
    final String room = spotOn(b, "room");
    restoring = new java.util.concurrent.CountDownLatch(1);
    release = new java.util.concurrent.CountDownLatch(1);
    BLOCKING.add(b.nodeRid());
    a.toActor(actor).send(new Move(room));
    assertThat(restoring.await(10, TimeUnit.SECONDS)).isTrue();
    final Call<Boolean> destroyed = a.actors().destroy(ref).timeout(Duration.ofSeconds(10));
    release.countDown();
    final java.util.concurrent.CompletableFuture<Boolean> outcome = destroyed.toFuture();
    Awaitility.await().atMost(15, TimeUnit.SECONDS).until(outcome::isDone);
    final boolean gone = !outcome.isCompletedExceptionally() && outcome.join();
    Awaitility.await().atMost(15, TimeUnit.SECONDS).until(() -> {
      final boolean rowGone = LocationRecords.read(store, ObjectKey.actor(actor)).isEmpty();
      return gone == rowGone;
    });
    if (gone) { // destroyed: no node runs it and no row names an owner
      assertThat(LocationRecords.read(store, ObjectKey.actor(actor))).isEmpty();
      for (MeshNode n : List.of(a, b)) {
        assertThat(n.toActor(actor).request(new Where(), String.class).timeout(Duration.ofSeconds(5))
            .toFuture()).failsWithin(Duration.ofSeconds(6));
      }
    } else { // refused: exactly one owner, and it answers
      assertThat(where(a, actor)).isEqualTo(ownerHex(actor));
      assertThat(where(b, actor)).isEqualTo(ownerHex(actor));
    }
  }

  /** A view of the shared store that holds back a write of one key until released (a slow target CAS). */
  static final class HeldStore implements dev.spotkit.store.LocationStore {
    final dev.spotkit.store.LocationStore inner;
    volatile String heldKey;
    final java.util.concurrent.CountDownLatch reached = new java.util.concurrent.CountDownLatch(1);
    final java.util.concurrent.CompletableFuture<Void> open = new java.util.concurrent.CompletableFuture<>();

    HeldStore(final dev.spotkit.store.LocationStore inner) {
      this.inner = inner;
    }

    @Override
    public java.util.concurrent.CompletionStage<dev.spotkit.store.ReadResult> read(final String key) {
      return inner.read(key);
    }

    @Override
    public java.util.concurrent.CompletionStage<dev.spotkit.store.WriteResult> write(
        final dev.spotkit.store.WriteBatch batch) {
      final String key = heldKey;
      if (key != null && batch.mutations().stream().anyMatch(m -> m.key().equals(key))) {
        reached.countDown();
        return open.thenCompose(v -> inner.write(batch));
      }
      return inner.write(batch);
    }

    @Override
    public java.util.concurrent.CompletionStage<dev.spotkit.store.ScanResult> scan(
        final dev.spotkit.store.ScanRequest request) {
      return inner.scan(request);
    }
  }

  /**
   * The target node closes after relay-ready, while its CAS is on the way to the store (the source already cut
   * over). Spec 001 section 10 ("Target CAS fails ... after the ready-to-receive-relay reply": owner last confirmed
   * by the Store, source dispatch isn't reopened): the row keeps naming the source, no node runs the actor, and a
   * caller gets a typed error at once rather than a hang.
   */
  @Test
  void aTargetClosingWhileItsCasIsInFlightLeavesTheStoreOwnerAndTypedErrors() throws Exception {
    final MeshNode a = node();
    final HeldStore held = new HeldStore(store);
    final MeshNode b = node(held);
    final String actor = actorOn(a, "orphan", "walker");
    final String home = spotOn(a, "home");
    a.toActor(actor).send(new Move(home));
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> RESULTS.getOrDefault(actor, List.of()).size() == 1);
    assertThat(a.toSpot(home).request(new Members(), List.class).await()).containsExactly(actor);
    final String room = spotOn(b, "room");
    final String versionBefore = LocationRecords.read(store, ObjectKey.actor(actor)).orElseThrow().version().value();
    held.heldKey = ObjectKey.actor(actor).logicalKey().preimage();
    a.toActor(actor).send(new Move(room));
    assertThat(held.reached.await(10, TimeUnit.SECONDS)).isTrue(); // the target's CAS is in flight
    final Thread closer = Thread.ofVirtual().start(b::close);
    Awaitility.await().atMost(5, TimeUnit.SECONDS).until(b::isClosed);
    held.open.complete(null);
    closer.join(15_000);
    assertThat(closer.isAlive()).isFalse();
    final LocationRecords.Stored row = LocationRecords.read(store, ObjectKey.actor(actor)).orElseThrow();
    assertThat(row.authority().allocation().routingIdHex()).isEqualTo(a.nodeRid().hex());
    assertThat(row.version().value()).isEqualTo(versionBefore);
    // Spec 001 section 9: the move did not commit and source dispatch is not reopened: that unit stays
    // Unavailable (before the fix: NotFound, "recorded on this node but is not Ready here").
    assertThat(a.toActor(actor).request(new Where(), String.class).timeout(Duration.ofSeconds(5)).toFuture())
        .failsWithin(Duration.ofSeconds(6)).withThrowableOfType(java.util.concurrent.ExecutionException.class)
        .withCauseInstanceOf(SpotkitException.Unavailable.class);
    // Runs nowhere, so it is no member of its old room any more: once the move is known not to have committed (the
    // target's Restore validity, 10 s, plus a store call), the room gets OnLeaveActor and stops listing it (a chat
    // room kept such players in /who and in its count for good).
    Awaitility.await().atMost(20, TimeUnit.SECONDS).until(() -> LEFT.contains(home + " " + actor));
    assertThat(a.toSpot(home).request(new Members(), List.class).await()).isEmpty();
  }

  /**
   * The target's CAS fails after relay-ready while both nodes keep running (the row changed under it): no node
   * runs the actor, and a request through either node ends Unavailable (spec 001 section 9: that unit stays
   * unavailable; section 10), where the target answered NotFound ("not found on this node") before the fix.
   */
  @Test
  void aCasFailedPastRelayReadyLeavesRequestsUnavailableNotNotFound() throws Exception {
    final MeshNode a = node();
    final HeldStore held = new HeldStore(store);
    final MeshNode b = node(held);
    final String actor = actorOn(a, "stranded", "walker");
    final String room = spotOn(b, "room");
    final String key = ObjectKey.actor(actor).logicalKey().preimage();
    held.heldKey = key;
    a.toActor(actor).send(new Move(room));
    assertThat(held.reached.await(10, TimeUnit.SECONDS)).isTrue(); // b's CAS is in flight, a cut over
    final dev.spotkit.store.ReadResult.Found row = (dev.spotkit.store.ReadResult.Found) store.read(key)
        .toCompletableFuture().get(5, TimeUnit.SECONDS);
    store.write(dev.spotkit.store.WriteBatch.unconditional(dev.spotkit.store.Mutation.Put.of(key, row.value())))
        .toCompletableFuture().get(5, TimeUnit.SECONDS); // same record, new version: b's CAS now fails
    held.open.complete(null);
    // b either sees the conflict as stale at once or retries its CAS until the Restore validity (10 s) ends;
    // either way queued and later requests end Unavailable, so the timeout is above that validity
    for (MeshNode via : List.of(a, b)) {
      assertThat(via.toActor(actor).request(new Where(), String.class).timeout(Duration.ofSeconds(13)).toFuture())
          .failsWithin(Duration.ofSeconds(15)).withThrowableOfType(java.util.concurrent.ExecutionException.class)
          .withCauseInstanceOf(SpotkitException.Unavailable.class);
    }
    assertThat(ownerHex(actor)).isEqualTo(a.nodeRid().hex());
  }

  @Test
  void actorsSwappingNodesBothWaysAtOnceLoseAndReorderNothing() {
    final MeshNode a = node();
    final MeshNode b = node();
    final String roomA = spotOn(a, "swap-a");
    final String roomB = spotOn(b, "swap-b");
    final List<String> fromA = new java.util.ArrayList<>();
    final List<String> fromB = new java.util.ArrayList<>();
    for (int i = 0; i < 200 && (fromA.size() < 20 || fromB.size() < 20); i++) {
      final ActorRef ref = a.actors().getOrCreate("swap-" + i, "walker").await();
      (ref.nodeRid().equals(a.nodeRid()) ? fromA : fromB).add(ref.id().value());
    }
    final int notes = 100;
    for (int k = 0; k < notes; k++) {
      for (String id : fromA) {
        a.toActor(id).send(new Note(k));
        if (k == notes / 2) {
          a.toActor(id).send(new Move(roomB));
        }
      }
      for (String id : fromB) {
        b.toActor(id).send(new Note(k));
        if (k == notes / 2) {
          b.toActor(id).send(new Move(roomA));
        }
      }
    }
    final List<String> all = new java.util.ArrayList<>(fromA);
    all.addAll(fromB);
    Awaitility.await().atMost(20, TimeUnit.SECONDS).until(() -> all.stream().allMatch(RESULTS::containsKey));
    for (String id : all) {
      final MeshNode now = fromA.contains(id) ? b : a;
      assertThat(RESULTS.get(id)).as(id).singleElement().isInstanceOf(JoinResult.Accepted.class);
      assertThat(ownerHex(id)).as(id).isEqualTo(now.nodeRid().hex());
      Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> seen(now, id).size() == notes);
      assertThat(seen(now, id)).as(id).containsExactlyElementsOf(upTo(notes));
    }
  }

  @Test
  void aJoinRequestedJustAfterAHostRelocationSealedEndsWithAResultAndOneOwner() {
    final MeshNode a = node();
    final MeshNode b = node();
    final MeshNode c = node();
    final String actor = actorOn(a, "host-first", "walker");
    final String room = spotOn(b, "room");
    for (int i = 0; i < 100; i++) {
      a.toActor(actor).send(new Note(i));
    }
    final java.util.concurrent.CompletableFuture<HostRelocationResult> relocation = a.relocate(c.nodeRid());
    a.toActor(actor).send(new Move(room));
    for (int i = 100; i < 200; i++) {
      a.toActor(actor).send(new Note(i));
    }
    relocation.join();
    Awaitility.await().atMost(15, TimeUnit.SECONDS).until(() -> RESULTS.containsKey(actor));
    final String owner = ownerHex(actor);
    final MeshNode now = owner.equals(b.nodeRid().hex()) ? b : owner.equals(c.nodeRid().hex()) ? c : a;
    assertThat(now.nodeRid().hex()).isEqualTo(owner);
    assertThat(where(a, actor)).isEqualTo(owner);
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> seen(now, actor).size() == 200);
    assertThat(seen(now, actor)).containsExactlyElementsOf(upTo(200));
  }

  /**
   * Message Follow must not loop. The actor moves b -> a (b keeps a follow route to a for 30 s), then a -> b,
   * whose CAS fails after relay-ready (the row changed under it), so no node runs the actor and a follows to b.
   * A request to it must end Unavailable (spec 002 section 7.3: at most 8 hops, a cycle ends Unavailable), not
   * bounce between a and b until its deadline.
   */
  @Test
  void messageFollowBetweenTwoStaleRoutesEndsUnavailableInsteadOfLooping() throws Exception {
    final MeshNode a = node();
    final HeldStore held = new HeldStore(store);
    final MeshNode b = node(held);
    final String actor = actorOn(b, "pingpong", "walker");
    final String roomA = spotOn(a, "room-a");
    final String roomB = spotOn(b, "room-b");
    b.toActor(actor).send(new Move(roomA));
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> RESULTS.containsKey(actor));
    assertThat(RESULTS.get(actor)).singleElement().isInstanceOf(JoinResult.Accepted.class);
    final String key = ObjectKey.actor(actor).logicalKey().preimage();
    held.heldKey = key;
    a.toActor(actor).send(new Move(roomB));
    assertThat(held.reached.await(10, TimeUnit.SECONDS)).isTrue(); // b's CAS is in flight, a cut over
    final dev.spotkit.store.ReadResult.Found row = (dev.spotkit.store.ReadResult.Found) store.read(key)
        .toCompletableFuture().get(5, TimeUnit.SECONDS);
    store.write(dev.spotkit.store.WriteBatch.unconditional(dev.spotkit.store.Mutation.Put.of(key, row.value())))
        .toCompletableFuture().get(5, TimeUnit.SECONDS); // same record, new version: b's CAS now fails
    held.open.complete(null);
    final long start = System.nanoTime();
    assertThat(a.toActor(actor).request(new Where(), String.class).timeout(Duration.ofSeconds(4)).toFuture())
        .failsWithin(Duration.ofSeconds(6)).withThrowableOfType(java.util.concurrent.ExecutionException.class)
        .withCauseInstanceOf(SpotkitException.Unavailable.class);
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(4));
  }

  /**
   * The source node closes while the target's Restore runs (spec 001 section 10, source shutdown races
   * relocation): the close ends in its bound, and the actor ends with no row naming the closed node: either the
   * target committed and runs it with the moved notes, or the row is gone.
   */
  @Test
  void aSourceClosingMidRestoreLeavesNoRowNamingTheClosedNode() throws Exception {
    final MeshNode a = node();
    final MeshNode b = node();
    final String actor = actorOn(a, "leaving", "walker");
    final String room = spotOn(b, "room");
    restoring = new java.util.concurrent.CountDownLatch(1);
    release = new java.util.concurrent.CountDownLatch(1);
    BLOCKING.add(b.nodeRid());
    for (int i = 0; i < 50; i++) {
      a.toActor(actor).send(new Note(i));
    }
    a.toActor(actor).send(new Move(room));
    assertThat(restoring.await(10, TimeUnit.SECONDS)).isTrue();
    final Thread closer = Thread.ofVirtual().start(a::close);
    Awaitility.await().atMost(5, TimeUnit.SECONDS).until(a::isClosed);
    release.countDown();
    closer.join(15_000);
    assertThat(closer.isAlive()).isFalse();
    Awaitility.await().atMost(15, TimeUnit.SECONDS).until(() -> LocationRecords.read(store, ObjectKey.actor(actor))
        .map(r -> !r.authority().allocation().routingIdHex().equals(a.nodeRid().hex())).orElse(true));
    if (LocationRecords.read(store, ObjectKey.actor(actor)).isPresent()) {
      assertThat(ownerHex(actor)).isEqualTo(b.nodeRid().hex());
      Awaitility.await().atMost(5, TimeUnit.SECONDS).until(() -> seen(b, actor).size() == 50);
      assertThat(seen(b, actor)).containsExactlyElementsOf(upTo(50));
    }
  }

  /** Closes every mesh connection {@code node}'s relocation driver knows (a transport failure, not a close). */
  @SuppressWarnings("unchecked")
  private static int dropRelocationConnections(final MeshNode node) throws Exception {
    final java.lang.reflect.Field rtField = MeshNode.class.getDeclaredField("rt");
    rtField.setAccessible(true);
    final Object rt = rtField.get(node);
    final java.lang.reflect.Method relocations = rt.getClass().getDeclaredMethod("relocations");
    relocations.setAccessible(true);
    final Object r = relocations.invoke(rt);
    final java.lang.reflect.Field connections = r.getClass().getDeclaredField("connections");
    connections.setAccessible(true);
    final Map<Long, dev.spotkit.core.mesh.PeerConnection> map =
        (Map<Long, dev.spotkit.core.mesh.PeerConnection>) connections.get(r);
    final List<dev.spotkit.core.mesh.PeerConnection> all = List.copyOf(map.values());
    all.forEach(dev.spotkit.core.mesh.PeerConnection::close);
    return all.size();
  }

  /**
   * The connection between source and target breaks after the chunks, while the target's Restore runs (before
   * relay-ready). The source redials; the move ends with one result, one owner that runs the actor, and every
   * note in order, including those held during the break.
   */
  @Test
  void aConnectionBreakingBeforeRelayReadyEndsWithOneOwnerAndNothingLost() throws Exception {
    final MeshNode a = node();
    final MeshNode b = node();
    final String actor = actorOn(a, "cut", "walker");
    final String room = spotOn(b, "room");
    restoring = new java.util.concurrent.CountDownLatch(1);
    release = new java.util.concurrent.CountDownLatch(1);
    BLOCKING.add(b.nodeRid());
    for (int i = 0; i < 50; i++) {
      a.toActor(actor).send(new Note(i));
    }
    a.toActor(actor).send(new Move(room));
    assertThat(restoring.await(10, TimeUnit.SECONDS)).isTrue();
    for (int i = 50; i < 100; i++) {
      a.toActor(actor).send(new Note(i)); // the ingress hold
    }
    assertThat(dropRelocationConnections(a)).isPositive();
    for (int i = 100; i < 150; i++) {
      a.toActor(actor).send(new Note(i));
    }
    release.countDown();
    Awaitility.await().atMost(20, TimeUnit.SECONDS).until(() -> RESULTS.containsKey(actor));
    assertThat(RESULTS.get(actor)).hasSize(1);
    final String owner = ownerHex(actor);
    final MeshNode now = owner.equals(a.nodeRid().hex()) ? a : b;
    assertThat(owner).isEqualTo(now.nodeRid().hex());
    assertThat(where(a, actor)).isEqualTo(owner);
    assertThat(where(b, actor)).isEqualTo(owner);
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> seen(now, actor).size() >= 150);
    assertThat(seen(now, actor)).containsExactlyElementsOf(upTo(150));
  }

  /**
   * A Restore that blocks past the Restore validity (10 s): the move fails, the source keeps serving with its
   * timer, and the late-finishing staging instance on the target never runs a handler or timer (no second
   * instance).
   */
  @Test
  void aRestoreBlockingPastItsValidityLeavesNoStagingInstanceRunningOnTheTarget() throws Exception {
    final MeshNode a = node();
    final MeshNode b = node();
    final String actor = actorOn(a, "slow", "walker");
    final String room = spotOn(b, "room");
    restoring = new java.util.concurrent.CountDownLatch(1);
    release = new java.util.concurrent.CountDownLatch(1);
    BLOCKING.add(b.nodeRid());
    a.toActor(actor).send(new StartBeat());
    a.toActor(actor).send(new Move(room));
    assertThat(restoring.await(10, TimeUnit.SECONDS)).isTrue();
    Awaitility.await().atMost(20, TimeUnit.SECONDS).until(() -> RESULTS.containsKey(actor));
    assertThat(RESULTS.get(actor)).singleElement().isInstanceOf(JoinResult.Failed.class);
    BLOCKING.clear();
    release.countDown(); // the staging factory returns now, long after its unit ended
    final int beats = a.toActor(actor).request(new Beats(), Integer.class).await();
    Awaitility.await().atMost(5, TimeUnit.SECONDS).until(() ->
        a.toActor(actor).request(new Beats(), Integer.class).await() >= beats + 30); // >= 300 ms of 10 ms ticks
    assertThat(TICKS.getOrDefault(b.nodeRid(), new java.util.concurrent.atomic.AtomicInteger()).get())
        .as("timer callbacks run by a staging instance on the target").isZero();
    assertThat(ownerHex(actor)).isEqualTo(a.nodeRid().hex());
    assertThat(where(b, actor)).isEqualTo(a.nodeRid().hex());
  }

  /**
   * A join approved by the target Spot whose move then failed at the source (capture threw) leaves a prepared
   * approval on the target for 30 s (MEM-27). A host relocation of the same actor to that node within that time
   * is not a join: the actor must land in the target's Entry Spot with no join completion, not in the Spot of the
   * failed join with a second completion (Accepted after Failed) for the same OperationId.
   */
  @Test
  void aHostRelocationDoesNotConsumeTheApprovalOfAnEarlierFailedJoin() {
    final MeshNode a = node();
    final MeshNode b = node();
    final String actor = actorOn(a, "flaky", "flaky");
    final String room = spotOn(b, "room");
    CAPTURE_FAILS.set(true);
    a.toActor(actor).send(new Move(room));
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> RESULTS.containsKey(actor));
    assertThat(RESULTS.get(actor)).singleElement().isInstanceOf(JoinResult.Failed.class);
    CAPTURE_FAILS.set(false);
    final HostRelocationResult result = a.relocate(b.nodeRid()).join();
    assertThat(result.relocated()).extracting(r -> r.id().value()).contains(actor);
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> ownerHex(actor).equals(b.nodeRid().hex()));
    assertThat(LocationRecords.read(store, ObjectKey.actor(actor)).orElseThrow().authority().payload().asUtf8())
        .isEqualTo(b.entrySpot().id().value());
    assertThat(where(b, actor)).isEqualTo(b.nodeRid().hex());
    assertThat(RESULTS.get(actor)).hasSize(1); // a host relocation runs no join completion
  }

  /**
   * The join's timeout covers the whole join plus the relocation (spec 000 section 4): a Restore on the target
   * that is still running when the join's deadline passes must not commit afterwards; the join ends Failed with
   * DeadlineExceeded and the actor stays where it was with nothing lost.
   */
  @Test
  void aJoinWhoseDeadlinePassesDuringTheRestoreIsNotCommittedAfterIt() throws Exception {
    final MeshNode a = node();
    final MeshNode b = node();
    final String actor = actorOn(a, "late", "walker");
    final String room = spotOn(b, "room");
    restoring = new java.util.concurrent.CountDownLatch(1);
    release = new java.util.concurrent.CountDownLatch(1);
    BLOCKING.add(b.nodeRid());
    for (int i = 0; i < 20; i++) {
      a.toActor(actor).send(new Note(i));
    }
    final long sent = System.nanoTime();
    a.toActor(actor).send(new MoveWithin(room, 1_000));
    assertThat(restoring.await(10, TimeUnit.SECONDS)).isTrue();
    for (int i = 20; i < 40; i++) {
      a.toActor(actor).send(new Note(i));
    }
    Awaitility.await().atMost(5, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(50))
        .until(() -> System.nanoTime() - sent > TimeUnit.MILLISECONDS.toNanos(1_500)); // the join's deadline passed
    release.countDown();
    Awaitility.await().atMost(15, TimeUnit.SECONDS).until(() -> RESULTS.containsKey(actor));
    assertThat(RESULTS.get(actor)).singleElement().isInstanceOfSatisfying(JoinResult.Failed.class, f ->
        assertThat(f.error()).isInstanceOf(SpotkitException.DeadlineExceeded.class));
    assertThat(ownerHex(actor)).isEqualTo(a.nodeRid().hex());
    Awaitility.await().atMost(5, TimeUnit.SECONDS).until(() -> seen(a, actor).size() == 40);
    assertThat(seen(a, actor)).containsExactlyElementsOf(upTo(40));
  }
}
