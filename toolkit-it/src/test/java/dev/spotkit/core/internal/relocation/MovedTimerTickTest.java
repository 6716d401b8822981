package dev.spotkit.core.internal.relocation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spotkit.core.Actor;
import dev.spotkit.core.ActorContext;
import dev.spotkit.core.ActorHandlers;
import dev.spotkit.core.ActorId;
import dev.spotkit.core.JoinDecision;
import dev.spotkit.core.JoinResult;
import dev.spotkit.core.MeshNode;
import dev.spotkit.core.NodeRid;
import dev.spotkit.core.UserSpot;
import dev.spotkit.core.UserSpotContext;
import dev.spotkit.core.internal.runtime.ActorCell;
import dev.spotkit.core.internal.runtime.CellTimers;
import dev.spotkit.core.internal.runtime.NodeRuntime;
import dev.spotkit.testkit.TestMesh;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A timer that moves with a tick still pending (spec 001 section 4.2: pendingTimerTicks; CellTimers: while a tick
 * is queued, later ones are skipped) ticks once per due time on the target. Each move is set up so that the
 * actor's timer has a tick waiting in its queue behind a few thousand not-yet-run messages, and the timer's next
 * due time has already passed, when the move captures it: the target restores the registration due at once and
 * the pending tick behind those messages. Every tick callback records the timer's schedule cursor (the next due
 * time the scheduler set when it queued a tick): two callbacks seeing the same cursor ran for one due time.
 */
class MovedTimerTickTest {
  static final String SECRET = "test-cluster-secret-0123456789";
  /** Moves per test run. */
  static final int MOVES = 15;
  /** Messages queued ahead of the pending tick. */
  static final int NOTES = 3_000;
  /** Timer period. */
  static final Duration PERIOD = Duration.ofMillis(200);

  record Note(int n) {}

  record Move(String spotId) {}

  record StartBeat() {}

  record StopBeat() {}

  /** Holds the actor's turn until {@link #busy} is released. */
  record Busy() {}

  /** What each actor ran, in run order: "note@node", or "tick@node:cursor" for a tick of timer "beat". */
  static final Map<String, List<String>> LOG = new ConcurrentHashMap<>();
  static final Map<String, JoinResult> RESULTS = new ConcurrentHashMap<>();
  /** The runtime of each node, for the tick callback to read its timer's cursor. */
  static final Map<NodeRid, NodeRuntime> RUNTIMES = new ConcurrentHashMap<>();
  static volatile CountDownLatch busy = new CountDownLatch(0);

  /** Ticks every {@link #PERIOD} once started; records notes and ticks. */
  static final class Ticker implements Actor {
    private final ActorContext ctx;

    Ticker(final ActorContext ctx) {
      this.ctx = ctx;
    }

    private void log(final String what) {
      LOG.computeIfAbsent(ctx.self().id().value(), k -> Collections.synchronizedList(new ArrayList<>()))
          .add(what + "@" + ctx.self().nodeRid().hex());
    }

    private void beat() {
      final ActorCell cell = RUNTIMES.get(ctx.self().nodeRid()).actors.get(ctx.self().id().value());
      log("tick:" + cell.timers.entry("beat").nextAtNanos);
    }

    @Override
    public void configure(final ActorHandlers on) {
      on.message(Note.class, n -> log("note"))
          .message(StartBeat.class, s -> ctx.timers().every("beat", PERIOD, this::beat))
          .message(StopBeat.class, s -> ctx.timers().cancel("beat"))
          .message(Busy.class, b -> busy.await(10, TimeUnit.SECONDS))
          .message(Move.class, m -> ctx.joinSpot(m.spotId()).timeout(Duration.ofSeconds(30)).defer())
          .timer("beat", this::beat);
    }

    @Override
    public void onJoinCompleted(final JoinResult result) {
      RESULTS.put(ctx.self().id().value(), result);
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
    public JoinDecision onActorJoin(final ActorId actor, final Object request) {
      return JoinDecision.accept();
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
      .objectServer(s -> s.entrySpot(Entry::new)
          .actor("ticker", Ticker::new, a -> a.recreateOnRelocation())
          .userSpot("room", Room::new, o -> o.recreateOnRelocation()))
      .start(2);

  private MeshNode node(final int index) throws ReflectiveOperationException {
    final MeshNode node = mesh.node(index);
    RUNTIMES.put(node.nodeRid(), runtime(node));
    return node;
  }

  @AfterEach
  void close() {
    busy.countDown();
    mesh.close();
    LOG.clear();
    RESULTS.clear();
    RUNTIMES.clear();
  }

  @Test
  void aTimerMovedWithAPendingTickTicksOncePerDueTimeOnTheTarget() throws Exception {
    final MeshNode a = node(0);
    final MeshNode b = node(1);
    final String room = mesh.spotOn(1, "tick-room", "room");
    final String onB = "@" + b.nodeRid().hex();
    final List<String> doubled = new ArrayList<>();
    for (int move = 0; move < MOVES; move++) {
      final String actor = mesh.actorOn(0, "ticker-" + move, "ticker");
      a.toActor(actor).send(new StartBeat());
      Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> ticks(actor, "").size() >= 1);
      busy = new CountDownLatch(1);
      a.toActor(actor).send(new Busy()); // the next tick queues behind these notes while Busy runs
      a.toActor(actor).send(new Move(room));
      for (int i = 0; i < NOTES; i++) {
        a.toActor(actor).send(new Note(i));
      }
      final CellTimers.Entry timer = RUNTIMES.get(a.nodeRid()).actors.get(actor).timers.entry("beat");
      Awaitility.await().atMost(10, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(5)).until(() ->
          timer.queued.get() && System.nanoTime() - timer.nextAtNanos > 0); // pending, and its next due time passed
      busy.countDown();
      Awaitility.await().atMost(30, TimeUnit.SECONDS).until(() -> RESULTS.containsKey(actor));
      assertThat(RESULTS.get(actor)).as(actor).isInstanceOf(JoinResult.Accepted.class);
      Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> ticks(actor, onB).size() >= 3);
      a.toActor(actor).send(new StopBeat());
      final List<String> onTarget = ticks(actor, onB);
      for (int i = 1; i < onTarget.size(); i++) {
        if (onTarget.get(i).equals(onTarget.get(i - 1))) {
          doubled.add(actor + ": " + onTarget);
          break;
        }
      }
    }
    assertThat(doubled).as("moves whose timer ticked twice for one due time on the target (of " + MOVES + ")")
        .isEmpty();
  }

  /** The ticks {@code actor} ran on the node whose suffix is {@code on} ("" for any), in run order. */
  private static List<String> ticks(final String actor, final String on) {
    final List<String> log = LOG.getOrDefault(actor, List.of());
    synchronized (log) {
      return log.stream().filter(e -> e.startsWith("tick:") && e.endsWith(on)).toList();
    }
  }

  private static NodeRuntime runtime(final MeshNode node) throws ReflectiveOperationException {
    final java.lang.reflect.Field field = MeshNode.class.getDeclaredField("rt");
    field.setAccessible(true);
    return (NodeRuntime) field.get(node);
  }
}
