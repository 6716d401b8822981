package dev.spotkit.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spotkit.testkit.TestMesh;
import java.time.Duration;
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
 * The source Spot's OnLeaveActor runs after every message the leaving actor sent that Spot before it left
 * (spec 000 sections 4.1 and 4.2 step 7: the leave is sent one-way from the source runtime): a line said just
 * before a JoinSpot or JoinEntrySpot, same-node or cross-node, is never overtaken by the leave. Each test holds the
 * source room busy (a Block message the actor sends first) until the join committed, so the actor's lines are still
 * queued at the room when its leave is produced.
 */
class LeaveAfterOwnMessagesTest {
  static final String SECRET = "test-cluster-secret-0123456789";
  /** Lines the actor says to its room right before it leaves. */
  static final int LINES = 500;

  record Block() {}

  record Said(ActorRef from, int n) {}

  record Enter(String spotId) {}

  record TalkThenMove(String room, String to, int lines) {}

  /** Holds {@code room} busy, joins {@code to} on another node, then at once joins {@code room} again. */
  record MoveAndBack(String room, String to) {}

  /** Joins {@code room} again. */
  record GoBack(String room) {}

  /** The request of the join back: counts its instances (built once by the sender, once by the room's decode). */
  record Again(String note) {
    Again {
      AGAIN_BUILT.incrementAndGet();
    }
  }

  static final java.util.concurrent.atomic.AtomicInteger AGAIN_BUILT = new java.util.concurrent.atomic.AtomicInteger();

  /** Spot events by spot id ("joined X", "left X", "said N", "stranger N"); join results by actor id. */
  static final Map<String, List<String>> EVENTS = new ConcurrentHashMap<>();
  static final Map<String, List<JoinResult>> RESULTS = new ConcurrentHashMap<>();
  static volatile CountDownLatch unblock = new CountDownLatch(1);
  /** The room each actor joins again right after its next join committed, by actor id. */
  static final Map<String, String> BACK = new ConcurrentHashMap<>();

  static void event(final String spot, final String what) {
    EVENTS.computeIfAbsent(spot, k -> new CopyOnWriteArrayList<>()).add(what);
  }

  static final class Talker implements Actor {
    private final ActorContext ctx;

    Talker(final ActorContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public void configure(final ActorHandlers on) {
      on.message(Enter.class, e -> ctx.joinSpot(e.spotId()).timeout(Duration.ofSeconds(10)).defer())
          .message(TalkThenMove.class, t -> {
            ctx.toSpot(t.room()).send(new Block());
            for (int i = 0; i < t.lines(); i++) {
              ctx.toSpot(t.room()).send(new Said(ctx.self(), i));
            }
            if (t.to() == null) {
              ctx.joinEntrySpot().timeout(Duration.ofSeconds(10)).defer();
            } else {
              ctx.joinSpot(t.to()).timeout(Duration.ofSeconds(10)).defer();
            }
          })
          .message(MoveAndBack.class, m -> {
            ctx.toSpot(m.room()).send(new Block());
            BACK.put(ctx.self().id().value(), m.room());
            ctx.joinSpot(m.to()).timeout(Duration.ofSeconds(10)).defer();
          })
          .message(GoBack.class, g -> ctx.joinSpot(g.room(), new Again("back")).timeout(Duration.ofSeconds(10))
              .defer());
    }

    @Override
    public void onJoinCompleted(final JoinResult result) {
      RESULTS.computeIfAbsent(ctx.self().id().value(), k -> new CopyOnWriteArrayList<>()).add(result);
      final String back = BACK.remove(ctx.self().id().value());
      if (back != null && result instanceof JoinResult.Accepted) {
        ctx.toActor(ctx.self()).send(new GoBack(back)); // a join is registered in a handler turn: the next one
      }
    }
  }

  /** A PerActor room (its own gate, so a Block holds the room only): logs lines of members and of strangers. */
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
      on.message(Block.class, b -> unblock.await(10, TimeUnit.SECONDS))
          .message(Said.class, s -> event(id(), (ctx.members().stream()
              .anyMatch(m -> m.ref().id().equals(s.from().id())) ? "said " : "stranger ") + s.n()));
    }

    private String id() {
      return ctx.self().id().value();
    }

    @Override
    public JoinDecision onActorJoin(final ActorId actor, final Object request) {
      event(id(), "admit " + actor.value());
      return JoinDecision.accept();
    }

    @Override
    public void onJoinedActor(final ActorRef actor) {
      event(id(), "joined " + actor.id().value());
    }

    @Override
    public void onLeaveActor(final ActorRef actor) {
      event(id(), "left " + actor.id().value());
    }
  }

  /** The Entry Spot: logs joins. */
  static final class Lobby implements EntrySpot {
    private final EntrySpotContext ctx;

    Lobby(final EntrySpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public EntrySpotContext context() {
      return ctx;
    }

    @Override
    public void onJoinedActor(final ActorRef actor) {
      event("lobby-" + ctx.self().nodeRid().hex(), "joined " + actor.id().value());
    }
  }

  private TestMesh mesh;

  /** The first call starts the test's mesh with one node, each later call adds one. */
  private MeshNode node() {
    if (mesh == null) {
      mesh = TestMesh.builder().meshName("mesh")
          .objectServer(s -> s.entrySpot(Lobby::new)
              .actor("talker", Talker::new, a -> a.recreateOnRelocation())
              .userSpot("room", Room::new, o -> o.perActor().recreateOnRelocation()))
          .start(1);
      return mesh.node(0);
    }
    return mesh.addNode();
  }

  @AfterEach
  void close() {
    unblock.countDown();
    if (mesh != null) {
      mesh.close();
    }
    EVENTS.clear();
    RESULTS.clear();
    BACK.clear();
    AGAIN_BUILT.set(0);
    unblock = new CountDownLatch(1);
  }

  /** A room of type "room" created through {@code on} that landed there. */
  private String roomOn(final MeshNode on, final String prefix) {
    return mesh.spotOn(mesh.indexOf(on.nodeRid()), prefix, "room");
  }

  /** Creates the talker on {@code a} and makes it a member of {@code room} (same node). */
  private String memberOf(final MeshNode a, final String room) {
    final String actor = mesh.actorOn(mesh.indexOf(a.nodeRid()), "talker", "talker");
    a.toActor(actor).send(new Enter(room));
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> RESULTS.getOrDefault(actor, List.of()).size() == 1);
    assertThat(RESULTS.get(actor).get(0)).isInstanceOf(JoinResult.Accepted.class);
    return actor;
  }

  private static List<String> said(final int n) {
    return IntStream.range(0, n).mapToObj(i -> "said " + i).toList();
  }

  /** The room saw every line as a member's line, in order, and then the leave. */
  private static void assertLinesThenLeave(final String room, final String actor) {
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> EVENTS.getOrDefault(room, List.of())
        .contains("left " + actor));
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> EVENTS.get(room).stream()
        .filter(e -> e.startsWith("said ") || e.startsWith("stranger ")).count() == LINES);
    final List<String> seen = EVENTS.get(room).stream()
        .filter(e -> !e.startsWith("joined ") && !e.startsWith("admit ")).toList();
    final List<String> expected = new java.util.ArrayList<>(said(LINES));
    expected.add("left " + actor);
    assertThat(seen).containsExactlyElementsOf(expected);
  }

  @Test
  @Spec("MEM-34")
  void aCrossNodeJoinLeavesTheSourceRoomAfterTheActorsLinesToIt() {
    final MeshNode a = node();
    final MeshNode b = node();
    final String from = roomOn(a, "from");
    final String to = roomOn(b, "to");
    final String actor = memberOf(a, from);
    a.toActor(actor).send(new TalkThenMove(from, to, LINES));
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> RESULTS.get(actor).size() == 2);
    assertThat(RESULTS.get(actor).get(1)).isInstanceOfSatisfying(JoinResult.Accepted.class, accepted ->
        assertThat(accepted.actor().nodeRid()).isEqualTo(b.nodeRid()));
    unblock.countDown(); // committed on b, leave sent: the lines are still queued at the room on a
    assertLinesThenLeave(from, actor);
  }

  @Test
  @Spec("MEM-34")
  void aSameNodeJoinLeavesTheSourceRoomAfterTheActorsLinesToIt() {
    final MeshNode a = node();
    final String from = roomOn(a, "from");
    final String to = roomOn(a, "to");
    final String actor = memberOf(a, from);
    a.toActor(actor).send(new TalkThenMove(from, to, LINES));
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> EVENTS.getOrDefault(to, List.of())
        .contains("joined " + actor));
    unblock.countDown(); // committed: the lines are still queued at the room
    assertLinesThenLeave(from, actor);
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> RESULTS.get(actor).size() == 2);
    assertThat(RESULTS.get(actor).get(1)).isInstanceOf(JoinResult.Accepted.class);
  }

  @Test
  @Spec("MEM-34")
  void joinEntrySpotLeavesTheRoomAfterTheActorsLinesToIt() {
    final MeshNode a = node();
    final String from = roomOn(a, "from");
    final String actor = memberOf(a, from);
    a.toActor(actor).send(new TalkThenMove(from, null, LINES));
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> EVENTS.getOrDefault("lobby-" + a.nodeRid().hex(),
        List.of()).contains("joined " + actor));
    unblock.countDown();
    assertLinesThenLeave(from, actor);
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> RESULTS.get(actor).size() == 2);
    assertThat(RESULTS.get(actor).get(1)).isInstanceOf(JoinResult.Accepted.class);
  }

  /**
   * An actor that leaves a room for another node and joins it again at once, while the room is busy (its leave still
   * queued behind the room's work): the room sees the old leave before the new admission, never OnActorJoin, then
   * the old OnLeaveActor, then OnJoinedActor (a room keeping members by id forgot the member it had just admitted,
   * and dropped its lines as a stranger's).
   */
  @Test
  @Spec("MEM-34")
  void aRoomSeesTheOldLeaveBeforeTheSameActorJoinsItAgain() {
    final MeshNode a = node();
    final MeshNode b = node();
    final String from = roomOn(a, "from");
    final String to = roomOn(b, "to");
    final String actor = memberOf(a, from);
    a.toActor(actor).send(new MoveAndBack(from, to));
    // the room's node decoded the request of the join back: its approval is on its way to the room's gate
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> AGAIN_BUILT.get() >= 2);
    unblock.countDown();
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> RESULTS.get(actor).size() == 3);
    assertThat(RESULTS.get(actor).get(2)).isInstanceOfSatisfying(JoinResult.Accepted.class, accepted ->
        assertThat(accepted.actor().nodeRid()).isEqualTo(a.nodeRid()));
    final List<String> seen = EVENTS.get(from).stream().filter(e -> e.endsWith(" " + actor)).toList();
    assertThat(seen).containsExactly("admit " + actor, "joined " + actor, "left " + actor, "admit " + actor,
        "joined " + actor);
  }
}
