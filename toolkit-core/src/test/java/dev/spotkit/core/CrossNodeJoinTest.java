package dev.spotkit.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spotkit.core.location.LocationRecords;
import dev.spotkit.core.location.ObjectKey;
import dev.spotkit.store.InMemoryLocationStore;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Cross-node JoinSpot on in-process MeshNodes over loopback sharing one in-memory Location Store (spec 000
 * section 4.2, spec 001): the actor moves with its state, queue and timers while senders keep sending.
 */
class CrossNodeJoinTest {
  static final String SECRET = "test-cluster-secret-0123456789";

  record Note(int sender, int n) {}

  record Move(String spotId) {}

  record Seen(int sender) {}

  record Where() {}

  record Beats() {}

  record StartBeat() {}

  record Ask(int n) {}

  record Hi(String text) {}

  /** Join results by actor id; spot membership events by spot id. */
  static final Map<String, List<JoinResult>> RESULTS = new ConcurrentHashMap<>();
  static final Map<String, List<String>> EVENTS = new ConcurrentHashMap<>();
  /** Node rids whose factory for "mover" throws (a target that fails Restore). */
  static final java.util.Set<NodeRid> FAILING = ConcurrentHashMap.newKeySet();
  /** Node rids whose factory for "mover" blocks until released (a target stuck in Restore). */
  static final java.util.Set<NodeRid> BLOCKING = ConcurrentHashMap.newKeySet();
  static volatile CountDownLatch restoring = new CountDownLatch(1);
  static volatile CountDownLatch release = new CountDownLatch(1);

  static void event(final String key, final String what) {
    EVENTS.computeIfAbsent(key, k -> new CopyOnWriteArrayList<>()).add(what);
  }

  /** Records notes per sender; state (the notes) moves with PreserveStateWith. */
  static class Mover implements Actor {
    final Map<Integer, List<Integer>> notes = new ConcurrentHashMap<>();
    final ActorContext ctx;
    int beats;

    Mover(final ActorContext ctx) {
      this.ctx = ctx;
      if (FAILING.contains(ctx.self().nodeRid())) {
        throw new IllegalStateException("factory refuses on this node");
      }
      if (BLOCKING.contains(ctx.self().nodeRid())) {
        restoring.countDown();
        try {
          release.await(20, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }

    private void beat() {
      beats++;
    }

    @Override
    public void configure(final ActorHandlers on) {
      on.message(Note.class, n -> notes.computeIfAbsent(n.sender(), k -> new CopyOnWriteArrayList<>()).add(n.n()))
          .message(Move.class, m -> ctx.joinSpot(m.spotId(), new Hi("let me in")).timeout(Duration.ofSeconds(10))
              .defer())
          .message(StartBeat.class, s -> ctx.timers().every("beat", Duration.ofMillis(10), this::beat))
          .request(Seen.class, s -> List.copyOf(notes.getOrDefault(s.sender(), List.of())))
          .request(Where.class, w -> ctx.self().nodeRid().hex())
          .request(Beats.class, b -> beats)
          .request(Ask.class, a -> a.n() * 2)
          .timer("beat", this::beat);
    }

    @Override
    public void onJoinCompleted(final JoinResult result) {
      RESULTS.computeIfAbsent(ctx.self().id().value(), k -> new CopyOnWriteArrayList<>()).add(result);
    }
  }

  /** Notes of sender 0 as bytes: the PreserveStateWith adapter. */
  static final class MoverState implements ActorRelocationAdapter<Mover> {
    @Override
    public byte[] capture(final Mover actor) {
      final ByteBuffer b = ByteBuffer.allocate(8 + 4 * total(actor));
      b.putInt(actor.beats);
      b.putInt(actor.notes.size());
      actor.notes.forEach((sender, list) -> {
        b.putInt(sender);
        b.putInt(list.size());
        list.forEach(b::putInt);
      });
      return java.util.Arrays.copyOf(b.array(), b.position());
    }

    private static int total(final Mover actor) {
      return actor.notes.values().stream().mapToInt(l -> l.size() + 2).sum();
    }

    @Override
    public void restore(final Mover actor, final byte[] state) {
      final ByteBuffer b = ByteBuffer.wrap(state);
      actor.beats = b.getInt();
      final int senders = b.getInt();
      for (int s = 0; s < senders; s++) {
        final int sender = b.getInt();
        final List<Integer> list = new CopyOnWriteArrayList<>();
        final int n = b.getInt();
        for (int i = 0; i < n; i++) {
          list.add(b.getInt());
        }
        actor.notes.put(sender, list);
      }
    }
  }

  /** A room that admits everyone except requests saying "no". */
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
    public JoinDecision onActorJoin(final ActorId actor, final Object request) {
      event(ctx.self().id().value(), "join? " + actor.value());
      return ctx.self().id().value().startsWith("closed") ? JoinDecision.reject(new Hi("full"))
          : JoinDecision.accept(new Hi("welcome"));
    }

    @Override
    public void onJoinedActor(final ActorRef actor) {
      event(ctx.self().id().value(), "joined " + actor.id().value());
    }

    @Override
    public void onLeaveActor(final ActorRef actor) {
      event(ctx.self().id().value(), "left " + actor.id().value());
    }
  }

  private final InMemoryLocationStore store = new InMemoryLocationStore();
  private final List<MeshNode> nodes = new CopyOnWriteArrayList<>();

  private MeshNode node() {
    final MeshNode node = MeshNode.builder().meshName("mesh").locationStore(store).workers(2)
        .closeTimeout(Duration.ofSeconds(5))
        .mesh(m -> m.listen("127.0.0.1", 0).clusterSecret(SECRET))
        .objectServer(s -> s.entrySpot(TestNodes.PlainEntry::new)
            .actor("mover", Mover::new, a -> a.preserveStateWith(new MoverState()))
            .actor("fresh", Mover::new, a -> a.recreateOnRelocation())
            .actor("pinned", Mover::new, a -> a.disableRelocation())
            .userSpot("room", Room::new, o -> o.recreateOnRelocation()))
        .start();
    nodes.add(node);
    return node;
  }

  @AfterEach
  void close() {
    release.countDown();
    FAILING.clear();
    BLOCKING.clear();
    nodes.forEach(MeshNode::close);
  }

  /** An actor of {@code type} created through {@code via} that landed on {@code on}: ids tried in turn. */
  private static String actorOn(final MeshNode on, final MeshNode via, final String prefix, final String type) {
    for (int i = 0; i < 64; i++) {
      final String id = prefix + "-" + i;
      if (via.actors().getOrCreate(id, type).await().nodeRid().equals(on.nodeRid())) {
        return id;
      }
    }
    throw new AssertionError("placement never chose " + on.nodeRid());
  }

  private static String spotOn(final MeshNode on, final String prefix) {
    for (int i = 0; i < 64; i++) {
      final String id = prefix + "-" + i;
      if (on.spots().getOrCreate(id, "room").await().nodeRid().equals(on.nodeRid())) {
        return id;
      }
    }
    throw new AssertionError("placement never chose " + on.nodeRid());
  }

  private static String where(final MeshNode via, final String actor) {
    return via.toActor(actor).request(new Where(), String.class).timeout(Duration.ofSeconds(5)).await();
  }

  @SuppressWarnings("unchecked")
  private static List<Integer> seen(final MeshNode via, final String actor, final int sender) {
    return via.toActor(actor).request(new Seen(sender), List.class).timeout(Duration.ofSeconds(5)).await();
  }

  private static List<Integer> upTo(final int n) {
    return IntStream.range(0, n).boxed().toList();
  }

  private dev.spotkit.core.location.AuthorityRecord row(final String actor) {
    return LocationRecords.read(store, ObjectKey.actor(actor)).orElseThrow().authority();
  }

  @Test
  @Spec("MEM-20") @Spec("REL-02") @Spec("REL-22") @Spec("REL-24")
  void anActorJoinsASpotOnAnotherNodeKeepingStateQueueTimersAndOrder() {
    final MeshNode a = node();
    final MeshNode b = node();
    final String actor = actorOn(a, a, "alice", "mover");
    final String room = spotOn(b, "room");
    final dev.spotkit.core.location.AuthorityRecord before = row(actor);
    a.toActor(actor).send(new StartBeat());
    Awaitility.await().atMost(5, TimeUnit.SECONDS).until(() ->
        a.toActor(actor).request(new Beats(), Integer.class).await() >= 3);
    final List<Call<Integer>> asks = new ArrayList<>();
    for (int i = 0; i < 3000; i++) {
      a.toActor(actor).send(new Note(0, i)); // a local sender: before, during and after the move, in order
      if (i == 1000) {
        a.toActor(actor).send(new Move(room));
      }
      if (i % 500 == 0) {
        asks.add(a.toActor(actor).request(new Ask(i), Integer.class).timeout(Duration.ofSeconds(10)));
      }
    }
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> RESULTS.containsKey(actor));
    assertThat(RESULTS.get(actor)).singleElement().isInstanceOfSatisfying(JoinResult.Accepted.class, accepted -> {
      assertThat(accepted.actor().nodeRid()).isEqualTo(b.nodeRid());
      assertThat(accepted.reply()).contains(new Hi("welcome"));
    });
    assertThat(where(a, actor)).isEqualTo(b.nodeRid().hex());
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> seen(b, actor, 0).size() == 3000);
    assertThat(seen(b, actor, 0)).containsExactlyElementsOf(upTo(3000));
    for (int i = 0; i < asks.size(); i++) {
      assertThat(asks.get(i).await()).isEqualTo(i * 500 * 2); // requests kept their reply route
    }
    final int beats = b.toActor(actor).request(new Beats(), Integer.class).await();
    assertThat(beats).isGreaterThanOrEqualTo(3); // state moved (PreserveStateWith)
    Awaitility.await().atMost(5, TimeUnit.SECONDS).until(() ->
        b.toActor(actor).request(new Beats(), Integer.class).await() > beats); // the timer resumed on b
    final dev.spotkit.core.location.AuthorityRecord after = row(actor);
    assertThat(after.objectGeneration()).isEqualTo(before.objectGeneration());
    assertThat(after.authorityOwnerGeneration().value()).isGreaterThan(before.authorityOwnerGeneration().value());
    assertThat(after.allocation().routingIdHex()).isEqualTo(b.nodeRid().hex());
    assertThat(after.payload().asUtf8()).isEqualTo(room);
    Awaitility.await().atMost(5, TimeUnit.SECONDS).until(() -> EVENTS.getOrDefault(room, List.of())
        .contains("joined " + actor));
    assertThat(EVENTS.get(room)).containsSubsequence("join? " + actor, "joined " + actor);
  }

  @Test
  @Spec("MEM-26") @Spec("REL-30")
  void aRejectingSpotKeepsTheActorWhereItIs() {
    final MeshNode a = node();
    final MeshNode b = node();
    final String actor = actorOn(a, a, "bob", "mover");
    final String room = spotOn(b, "closed");
    a.toActor(actor).send(new Note(0, 1));
    a.toActor(actor).send(new Move(room));
    a.toActor(actor).send(new Note(0, 2));
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> RESULTS.containsKey(actor));
    assertThat(RESULTS.get(actor)).singleElement().isInstanceOfSatisfying(JoinResult.Rejected.class, rejected ->
        assertThat(rejected.reply()).contains(new Hi("full")));
    assertThat(where(b, actor)).isEqualTo(a.nodeRid().hex());
    assertThat(seen(a, actor, 0)).containsExactly(1, 2);
  }

  @Test
  @Spec("MEM-19")
  void disableRelocationRefusesACrossNodeJoinWithRejected() {
    final MeshNode a = node();
    final MeshNode b = node();
    final String actor = actorOn(a, a, "pin", "pinned");
    final String room = spotOn(b, "room");
    final long aog = row(actor).authorityOwnerGeneration().value();
    a.toActor(actor).send(new Move(room));
    for (int i = 0; i < 100; i++) {
      a.toActor(actor).send(new Note(0, i));
    }
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> RESULTS.containsKey(actor));
    assertThat(RESULTS.get(actor)).singleElement().isInstanceOfSatisfying(JoinResult.Failed.class, failed ->
        assertThat(failed.error()).isInstanceOf(SpotkitException.Rejected.class));
    assertThat(where(b, actor)).isEqualTo(a.nodeRid().hex());
    Awaitility.await().atMost(5, TimeUnit.SECONDS).until(() -> seen(a, actor, 0).size() == 100);
    assertThat(seen(a, actor, 0)).containsExactlyElementsOf(upTo(100));
    assertThat(row(actor).authorityOwnerGeneration().value()).isEqualTo(aog);
  }

  @Test
  @Spec("MEM-20")
  void recreateOnRelocationMovesQueueAndTimersButNotState() {
    final MeshNode a = node();
    final MeshNode b = node();
    final String actor = actorOn(a, a, "fresh", "fresh");
    final String room = spotOn(b, "room");
    final long generation = row(actor).objectGeneration().value();
    a.toActor(actor).send(new Note(0, -1));
    a.toActor(actor).send(new StartBeat());
    a.toActor(actor).send(new Move(room));
    for (int i = 0; i < 200; i++) {
      a.toActor(actor).send(new Note(0, i));
    }
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> RESULTS.containsKey(actor));
    assertThat(RESULTS.get(actor)).singleElement().isInstanceOf(JoinResult.Accepted.class);
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> seen(b, actor, 0).size() == 200);
    assertThat(seen(b, actor, 0)).containsExactlyElementsOf(upTo(200)); // -1 was state, not queue: gone
    Awaitility.await().atMost(5, TimeUnit.SECONDS).until(() ->
        b.toActor(actor).request(new Beats(), Integer.class).await() > 2); // the timer kept running
    assertThat(row(actor).objectGeneration().value()).isEqualTo(generation);
  }

  @Test
  @Spec("REL-30")
  void aTargetThatFailsRestoreLeavesTheSourceServingWithNothingLost() {
    final MeshNode a = node();
    final MeshNode b = node();
    final String actor = actorOn(a, a, "carl", "mover");
    final String room = spotOn(b, "room");
    FAILING.add(b.nodeRid());
    for (int i = 0; i < 500; i++) {
      a.toActor(actor).send(new Note(0, i));
      if (i == 100) {
        a.toActor(actor).send(new Move(room));
      }
    }
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> RESULTS.containsKey(actor));
    assertThat(RESULTS.get(actor)).singleElement().isInstanceOf(JoinResult.Failed.class);
    assertThat(where(b, actor)).isEqualTo(a.nodeRid().hex());
    Awaitility.await().atMost(5, TimeUnit.SECONDS).until(() -> seen(a, actor, 0).size() == 500);
    assertThat(seen(a, actor, 0)).containsExactlyElementsOf(upTo(500));
  }

  @Test
  @Spec("REL-30")
  void aTargetNodeClosingMidRestoreLeavesTheSourceServingWithNothingLost() throws Exception {
    final MeshNode a = node();
    final MeshNode b = node();
    final String actor = actorOn(a, a, "dora", "mover");
    final String room = spotOn(b, "room");
    restoring = new CountDownLatch(1);
    release = new CountDownLatch(1);
    BLOCKING.add(b.nodeRid());
    for (int i = 0; i < 100; i++) {
      a.toActor(actor).send(new Note(0, i));
    }
    a.toActor(actor).send(new Move(room));
    assertThat(restoring.await(10, TimeUnit.SECONDS)).isTrue();
    for (int i = 100; i < 300; i++) {
      a.toActor(actor).send(new Note(0, i)); // the ingress hold
    }
    final Thread closer = Thread.ofVirtual().start(b::close);
    Awaitility.await().atMost(15, TimeUnit.SECONDS).until(() -> RESULTS.containsKey(actor));
    release.countDown();
    closer.join(10_000);
    assertThat(RESULTS.get(actor)).singleElement().isInstanceOf(JoinResult.Failed.class);
    Awaitility.await().atMost(5, TimeUnit.SECONDS).until(() -> seen(a, actor, 0).size() == 300);
    assertThat(seen(a, actor, 0)).containsExactlyElementsOf(upTo(300));
    assertThat(where(a, actor)).isEqualTo(a.nodeRid().hex());
  }
}
