package dev.spotkit.core.internal.relocation;

import dev.spotkit.core.internal.runtime.ActorCell;
import dev.spotkit.core.internal.runtime.CellTimers;
import dev.spotkit.core.internal.runtime.NodeRuntime;
import static org.assertj.core.api.Assertions.assertThat;

import dev.spotkit.core.Actor;
import dev.spotkit.core.ActorContext;
import dev.spotkit.core.ActorHandlers;
import dev.spotkit.core.HostRelocationResult;
import dev.spotkit.core.MeshNode;
import dev.spotkit.core.NodeRid;
import dev.spotkit.testkit.TestMesh;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A timer tick that fires after the source sealed the actor and before it captured it (spec 001 section 4.2:
 * not-yet-run work and pending timer ticks are captured) runs exactly once, on the target. The capture is held by
 * {@link RelocationSource#beforeCapture} until the tick fired. Forbidden outcomes: the tick is lost (the target's
 * first tick is for the following due time), it runs on the source, or it runs twice.
 */
class SealedTimerTickTest {
  static final String SECRET = "test-cluster-secret-0123456789";
  /** Timer period: the first due time falls while the capture is held. */
  static final Duration PERIOD = Duration.ofMillis(1500);

  record StartBeat() {}

  /** Every tick, in run order: the node it ran on and its timer's schedule cursor (next due, nanoTime) then. */
  record Ran(NodeRid node, long cursorNanos) {}

  static final List<Ran> RAN = new CopyOnWriteArrayList<>();
  static final Map<NodeRid, NodeRuntime> RUNTIMES = new ConcurrentHashMap<>();

  /** Starts timer "beat" on {@link StartBeat}; records each tick. */
  static final class Ticker implements Actor {
    private final ActorContext ctx;

    Ticker(final ActorContext ctx) {
      this.ctx = ctx;
    }

    private void beat() {
      final ActorCell cell = RUNTIMES.get(ctx.self().nodeRid()).actors.get(ctx.self().id().value());
      RAN.add(new Ran(ctx.self().nodeRid(), cell.timers.entry("beat").nextAtNanos));
    }

    @Override
    public void configure(final ActorHandlers on) {
      on.message(StartBeat.class, s -> ctx.timers().every("beat", PERIOD, this::beat)).timer("beat", this::beat);
    }
  }

  private final TestMesh mesh = TestMesh.builder().meshName("mesh")
      .objectServer(s -> s.entrySpot(HandWrittenPeerFixture.Entry::new)
          .actor("ticker", Ticker::new, a -> a.recreateOnRelocation()))
      .start(2);
  private final CountDownLatch release = new CountDownLatch(1);

  private MeshNode node(final int index) throws ReflectiveOperationException {
    final MeshNode node = mesh.node(index);
    RUNTIMES.put(node.nodeRid(), RelocationCasAdmissionTest.runtime(node));
    return node;
  }

  @AfterEach
  void close() {
    RelocationSource.beforeCapture = null;
    release.countDown();
    mesh.close();
    RAN.clear();
    RUNTIMES.clear();
  }

  @Test
  void aTickFiredBetweenSealAndCaptureRunsOnceOnTheTarget() throws Exception {
    final MeshNode a = node(0);
    final MeshNode b = node(1);
    final String actor = mesh.actorOn(0, "sealed", "ticker");
    final CountDownLatch sealed = new CountDownLatch(1);
    RelocationSource.beforeCapture = id -> {
      if (id.equals(actor)) {
        sealed.countDown();
        try {
          release.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    };
    a.toActor(actor).send(new StartBeat());
    final CellTimers.Entry timer = Awaitility.await().atMost(5, TimeUnit.SECONDS)
        .until(() -> RUNTIMES.get(a.nodeRid()).actors.get(actor).timers.entry("beat"), e -> e != null);
    final CompletableFuture<HostRelocationResult> moved = a.relocate(b.nodeRid());
    assertThat(sealed.await(10, TimeUnit.SECONDS)).as("the capture started").isTrue();
    assertThat(RAN).as("ticks before the seal (the move must seal before the first due time)").isEmpty();
    // the first due time passes while the capture is held: its tick is offered to the sealed actor
    Awaitility.await().atMost(PERIOD.multipliedBy(2)).pollInterval(Duration.ofMillis(5))
        .until(() -> timer.queued.get());
    final long cursorAfterSealedTick = timer.nextAtNanos; // the due time after the one that fired
    release.countDown();
    assertThat(moved.get(15, TimeUnit.SECONDS).relocated()).extracting(r -> r.id().value()).containsExactly(actor);

    Awaitility.await().atMost(PERIOD.multipliedBy(3)).until(() -> RAN.size() >= 2);
    final List<Ran> ran = List.copyOf(RAN);
    assertThat(ran).as("ticks on the source").allMatch(r -> r.node().equals(b.nodeRid()));
    // The sealed tick runs first on the target, with the cursor it moved with (Unix ms on the wire: +-5 ms); a
    // lost tick would make the first one the next due time's, a period later.
    assertThat(Math.abs(ran.get(0).cursorNanos() - cursorAfterSealedTick)).as("first tick on the target " + ran)
        .isLessThan(TimeUnit.MILLISECONDS.toNanos(5));
    assertThat(ran.get(1).cursorNanos() - ran.get(0).cursorNanos()).as("second tick " + ran)
        .isGreaterThan(PERIOD.toNanos() / 2);
  }
}
