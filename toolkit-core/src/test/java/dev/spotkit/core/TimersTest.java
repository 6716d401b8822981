package dev.spotkit.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Named periodic timers delivered as turns through the owner's mailbox. */
class TimersTest {

  record Start(String name, String label) {}

  record Names() {}

  record Work() {}

  record TryStart(String name, Duration period) {}

  final List<String> ticks = new CopyOnWriteArrayList<>();
  final AtomicInteger inTurn = new AtomicInteger();
  final AtomicInteger overlaps = new AtomicInteger();

  final class Ticker implements Actor {
    private final ActorContext ctx;

    Ticker(final ActorContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public void configure(final ActorHandlers on) {
      on.message(Start.class, s -> ctx.timers().every(s.name(), Duration.ofMillis(5), () -> turn(s.label())))
          .request(Names.class, n -> ctx.timers().names())
          .message(Work.class, w -> turn(null))
          .request(TryStart.class, t -> {
            try {
              ctx.timers().every(t.name(), t.period(), () -> { });
              return "ok";
            } catch (SpotkitException e) {
              return e.getMessage();
            }
          });
    }

    private void turn(final String label) {
      if (inTurn.incrementAndGet() != 1) {
        overlaps.incrementAndGet();
      }
      if (label != null) {
        ticks.add(label);
      }
      Thread.onSpinWait();
      inTurn.decrementAndGet();
    }
  }

  final class Clock implements UserSpot<Ticker> {
    private final UserSpotContext ctx;

    Clock(final UserSpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public UserSpotContext context() {
      return ctx;
    }

    @Override
    public void configure(final SpotHandlers on) {
      timers().every("flush", Duration.ofMillis(5), () -> ticks.add("flush"));
    }
  }

  final MeshNode node = TestNodes.server(s -> s.actor("ticker", Ticker::new, a -> a.disableRelocation())
      .userSpot("clock", Clock::new, o -> o.recreateOnRelocation()));

  @AfterEach
  void close() {
    node.close();
  }

  @Test
  void ticksRunAsTurnsNeverBesideAHandler() {
    final ActorRef ref = node.actors().getOrCreate("t", "ticker").await();
    node.toActor(ref).send(new Start("a", "a"));
    for (int i = 0; i < 200; i++) {
      node.toActor(ref).send(new Work());
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> ticks.size() >= 5);
    assertThat(overlaps.get()).isZero();
  }

  @Test
  void aSecondTimerWithTheSameNameReplacesTheFirst() {
    final ActorRef ref = node.actors().getOrCreate("t", "ticker").await();
    node.toActor(ref).send(new Start("a", "first"));
    await().atMost(Duration.ofSeconds(5)).until(() -> ticks.contains("first"));
    node.toActor(ref).send(new Start("a", "second"));
    await().atMost(Duration.ofSeconds(5)).until(() -> ticks.contains("second"));
    final int mark = ticks.size();
    await().atMost(Duration.ofSeconds(5)).until(() -> ticks.size() >= mark + 5);
    final List<String> snapshot = List.copyOf(ticks);
    assertThat(snapshot.subList(mark, snapshot.size())).containsOnly("second");
    @SuppressWarnings("unchecked")
    final Set<String> names = node.toActor(ref).request(new Names(), Set.class).await();
    assertThat(names).containsExactly("a");
  }

  @Test
  void timersStopWhenTheOwnerIsDestroyedOrClosed() {
    final ActorRef ref = node.actors().getOrCreate("t", "ticker").await();
    node.toActor(ref).send(new Start("a", "actor"));
    final SpotRef clock = node.spots().getOrCreate("clock:1", "clock").await();
    await().atMost(Duration.ofSeconds(5)).until(() -> ticks.contains("actor") && ticks.contains("flush"));
    assertThat(node.actors().destroy(ref).await()).isTrue();
    assertThat(node.spots().close(clock).await()).isTrue();
    final int mark = ticks.size();
    // Must never: a tick after its owner is gone (a tick already queued is dropped with the mailbox).
    await().during(Duration.ofMillis(100)).atMost(Duration.ofSeconds(2)).until(() -> ticks.size() == mark);
  }

  @Test
  void periodAndNameAreValidated() {
    final ActorRef ref = node.actors().getOrCreate("t", "ticker").await();
    assertThat(node.toActor(ref).request(new TryStart("a", Duration.ofNanos(999_999)), String.class).await())
        .isEqualTo("timer 'a' period PT0.000999999S is outside 1 ms..PT8760H; use e.g. Duration.ofMillis(100)");
    assertThat(node.toActor(ref).request(new TryStart("b", Duration.ofSeconds(Long.MAX_VALUE)), String.class)
        .await()).startsWith("timer 'b' period PT2562047788015215H30M7S is outside 1 ms..PT8760H");
    assertThat(node.toActor(ref).request(new TryStart("", Duration.ofSeconds(1)), String.class).await())
        .isEqualTo("timer name '' is 0 UTF-8 bytes; it must be 1..255 bytes");
    assertThat(node.toActor(ref).request(new TryStart("ok", Duration.ofSeconds(1)), String.class).await())
        .isEqualTo("ok");
  }
}
