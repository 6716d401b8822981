package dev.spotkit.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spotkit.store.InMemoryLocationStore;
import dev.spotkit.store.InMemoryRelocationStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Node close: finish accepted turns, OnClosing(HostShutdown) on every spot, release everything. */
class NodeCloseTest {

  record Work(int n) {}

  record Block() {}

  record Ping() {}

  final List<String> events = new CopyOnWriteArrayList<>();
  final AtomicInteger done = new AtomicInteger();
  final CountDownLatch blocked = new CountDownLatch(1);
  final CountDownLatch release = new CountDownLatch(1);

  final class Worker implements Actor {
    Worker(final ActorContext ctx) {
    }

    @Override
    public void configure(final ActorHandlers on) {
      on.message(Work.class, w -> {
        Thread.onSpinWait();
        done.incrementAndGet();
      }).message(Block.class, b -> {
        blocked.countDown();
        release.await(5, TimeUnit.SECONDS);
        events.add("block finished");
      }).request(Ping.class, p -> "pong");
    }
  }

  final class Room implements UserSpot<Worker> {
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
      timers().every("t", Duration.ofMillis(20), () -> { });
    }

    @Override
    public void onClosing(final ClosingContext closing) {
      events.add("closing " + ctx.self().id() + " " + closing.reason() + " deadline-left="
          + (closing.deadline().remaining().toMillis() > 0) + " after-work=" + done.get());
    }
  }

  final class Entry implements EntrySpot {
    private final EntrySpotContext ctx;

    Entry(final EntrySpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public EntrySpotContext context() {
      return ctx;
    }

    @Override
    public void onClosing(final ClosingContext closing) {
      events.add("closing entry " + closing.reason() + " members=" + ctx.members().size());
    }
  }

  @Test
  void closeFinishesAcceptedTurnsThenClosesEverySpotThenReleases() throws Exception {
    final InMemoryLocationStore store = new InMemoryLocationStore();
    final MeshNode node = TestNodes.bare(store, s -> s.entrySpot(Entry::new)
        .actor("worker", Worker::new, a -> a.disableRelocation())
        .userSpot("room", Room::new, o -> o.recreateOnRelocation()));
    node.actors().getOrCreate("w", "worker").await();
    node.spots().getOrCreate("room:1", "room").await();
    node.spots().getOrCreate("room:2", "room").await();
    node.toActor("w").send(new Block());
    assertThat(blocked.await(5, TimeUnit.SECONDS)).isTrue();
    for (int i = 0; i < 100; i++) {
      node.toActor("w").send(new Work(i));
    }
    final CompletableFuture<Void> closing = CompletableFuture.runAsync(node::close);
    org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(node::isClosed);
    assertThatThrownBy(() -> node.toActor("w").send(new Work(-1))).isInstanceOf(SpotkitException.ShuttingDown.class)
        .hasMessageContaining("is closing; no new work is accepted");
    assertThatThrownBy(() -> node.spots().create("room").await()).isInstanceOf(SpotkitException.ShuttingDown.class);
    release.countDown();
    closing.get(10, TimeUnit.SECONDS);
    assertThat(done.get()).isEqualTo(100); // every accepted turn ran before OnClosing
    assertThat(events).containsExactlyInAnyOrder("block finished",
        "closing room:1 HOST_SHUTDOWN deadline-left=true after-work=100",
        "closing room:2 HOST_SHUTDOWN deadline-left=true after-work=100",
        "closing entry HOST_SHUTDOWN members=1");
    assertThat(events.get(0)).isEqualTo("block finished");
    assertThat(TestNodes.authorityRows(store)).isZero(); // store records released
    node.close(); // second close: no-op
    assertThat(node.isClosed()).isTrue();
  }

  record Stall() {}

  final CountDownLatch stalled = new CountDownLatch(2);
  /** Opens only after the test: the stuck handlers stay stuck for the whole close. */
  final CountDownLatch never = new CountDownLatch(1);

  final class Staller implements Actor {
    Staller(final ActorContext ctx) {
    }

    @Override
    public void configure(final ActorHandlers on) {
      on.request(Stall.class, s -> {
        stalled.countDown();
        never.await(30, TimeUnit.SECONDS);
        return "late";
      }).request(Ping.class, p -> "pong");
    }
  }

  final class Hall implements UserSpot<Staller> {
    private final UserSpotContext ctx;

    Hall(final UserSpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public UserSpotContext context() {
      return ctx;
    }

    @Override
    public void configure(final SpotHandlers on) {
      on.message(Stall.class, s -> {
        stalled.countDown();
        never.await(30, TimeUnit.SECONDS);
      });
    }

    @Override
    public void onClosing(final ClosingContext closing) {
      events.add("closing " + ctx.self().id() + " " + closing.reason() + " deadline-left="
          + (closing.deadline().remaining().toMillis() > 0));
    }
  }

  @AfterEach
  void unstick() {
    never.countDown();
  }

  /** An object server with 1 s close timeout, an actor stuck in a request and a spot stuck in a message. */
  private MeshNode stuckNode() throws InterruptedException {
    final MeshNode node = MeshNode.builder().meshName("stuck").locationStore(new InMemoryLocationStore())
        .relocationStore(new InMemoryRelocationStore()).workers(2).closeTimeout(Duration.ofSeconds(1))
        .objectServer(s -> s.entrySpot(Entry::new).actor("staller", Staller::new, a -> a.disableRelocation())
            .userSpot("hall", Hall::new, o -> o.recreateOnRelocation()))
        .start();
    node.actors().getOrCreate("w", "staller").await();
    node.spots().getOrCreate("jam", "hall").await();
    node.spots().getOrCreate("calm", "hall").await();
    node.toSpot("jam").send(new Stall());
    return node;
  }

  @Test
  void aStuckTurnNeitherOverrunsTheCloseBoundNorLeavesRequestsPendingNorStopsOtherSpotsClosing()
      throws Exception {
    final MeshNode node = stuckNode();
    final CompletableFuture<String> stuck = node.toActor("w").request(new Stall(), String.class)
        .timeout(Duration.ofSeconds(20)).toFuture();
    assertThat(stalled.await(5, TimeUnit.SECONDS)).isTrue(); // the actor and the "jam" spot are stuck
    final CompletableFuture<String> queued = node.toActor("w").request(new Ping(), String.class)
        .timeout(Duration.ofSeconds(20)).toFuture();
    final long start = System.nanoTime();
    node.close();
    final Duration took = Duration.ofNanos(System.nanoTime() - start);
    // closeTimeout 1 s + CLOSE_MARGIN 250 ms, plus slack for a loaded machine; before: 1 s + 5 s.
    assertThat(took).isLessThan(Duration.ofSeconds(1).plus(MeshNode.CLOSE_MARGIN).plusMillis(750));
    for (CompletableFuture<String> request : List.of(stuck, queued)) {
      assertThat(request).isCompletedExceptionally();
      assertThatThrownBy(request::join).hasCauseInstanceOf(SpotkitException.ShuttingDown.class);
    }
    // Every spot not stuck itself ran OnClosing(HostShutdown) before its deadline.
    assertThat(events).containsExactlyInAnyOrder("closing calm HOST_SHUTDOWN deadline-left=true",
        "closing entry HOST_SHUTDOWN members=1");
  }

  @Test
  void aConcurrentSecondCloseWaitsForTheFirst() throws Exception {
    final MeshNode node = stuckNode();
    final CompletableFuture<String> stuck = node.toActor("w").request(new Stall(), String.class)
        .timeout(Duration.ofSeconds(20)).toFuture();
    assertThat(stalled.await(5, TimeUnit.SECONDS)).isTrue();
    final CompletableFuture<Void> first = CompletableFuture.runAsync(node::close);
    org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(node::isClosed);
    node.close(); // the second close returns only once the first finished: the stuck request has ended
    assertThat(stuck).isCompletedExceptionally();
    first.get(5, TimeUnit.SECONDS);
  }

  @Test
  void closeFromInsideAHandlerStartsTheCloseAndReturns() throws Exception {
    final MeshNode[] holder = new MeshNode[1];
    final CountDownLatch returned = new CountDownLatch(1);
    final class Closer implements Actor {
      Closer(final ActorContext ctx) {
      }

      @Override
      public void configure(final ActorHandlers on) {
        on.message(Ping.class, p -> {
          holder[0].close();
          returned.countDown();
        });
      }
    }
    holder[0] = TestNodes.server(s -> s.actor("closer", Closer::new, a -> a.disableRelocation()));
    holder[0].actors().getOrCreate("c", "closer").await();
    holder[0].toActor("c").send(new Ping());
    assertThat(returned.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(holder[0].isClosed()).isTrue();
  }
}
