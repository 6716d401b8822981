package dev.spotkit.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spotkit.store.InMemoryLocationStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
    public void configure(final SpotHandlers on) {
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
    assertThat(store.size()).isZero(); // store records released
    node.close(); // second close: no-op
    assertThat(node.isClosed()).isTrue();
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
