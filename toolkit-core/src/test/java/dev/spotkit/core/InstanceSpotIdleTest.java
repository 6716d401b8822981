package dev.spotkit.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.spotkit.core.location.LocationRecords;
import dev.spotkit.core.location.ObjectKey;
import dev.spotkit.store.InMemoryLocationStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Idle cleanup of an Instance Spot (spec 003 section 6.2, {@code InstanceSpotIdleTimeout}): evicted only once the
 * timeout passed since its last work with nothing in progress (no timer, no pending call), OnClosing(IDLE_EVICTED),
 * the owner record removed, a regular message NotFound afterwards, Instance intent activating a new incarnation with
 * a higher ObjectGeneration, and a message arriving while the cleanup runs handed to that new incarnation.
 */
class InstanceSpotIdleTest {
  static final Duration IDLE = Duration.ofMillis(200);
  static final String TYPE = "idler";

  record Note(String text) {
  }

  record Seen() {
  }

  record StartTimer() {
  }

  record StopTimer() {
  }

  /** Asks the holder spot {@code holderId} and does not wait for its answer. */
  record AskHolder(String holderId) {
  }

  record Hold() {
  }

  /** When each spot's last handler turn ended, by SpotId (System.nanoTime). */
  static final Map<String, Long> LAST_HANDLED = new ConcurrentHashMap<>();
  /** When OnClosing(IDLE_EVICTED) started, by SpotId (System.nanoTime). */
  static final Map<String, Long> EVICTED_AT = new ConcurrentHashMap<>();
  /** "{spotId} {reason} {generation}" per OnClosing. */
  static final List<String> CLOSINGS = new CopyOnWriteArrayList<>();
  /** When set, OnClosing signals {@code closingEntered} and waits for this latch (a slow cleanup). */
  static volatile CountDownLatch closingMayEnd;
  static volatile CountDownLatch closingEntered;
  /** The holder's handler waits for this latch. */
  static volatile CountDownLatch holderMayAnswer;

  /** Records its notes; its handlers note when they ended. */
  static final class Idler implements InstanceSpot {
    private final InstanceSpotContext ctx;
    private final List<String> seen = new ArrayList<>();

    Idler(final InstanceSpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public InstanceSpotContext context() {
      return ctx;
    }

    @Override
    public void configure(final SpotHandlers on) {
      on.message(Note.class, n -> {
        seen.add(n.text());
        handled();
      }).request(Seen.class, s -> {
        handled();
        return List.copyOf(seen);
      }).request(StartTimer.class, s -> {
        ctx.timers().every("slow", Duration.ofHours(1), () -> { });
        handled();
        return true;
      }).request(StopTimer.class, s -> {
        final boolean was = ctx.timers().cancel("slow");
        handled();
        return was;
      }).request(AskHolder.class, a -> {
        ctx.toInstanceSpot(a.holderId(), "holder").request(new Hold(), Boolean.class).toFuture();
        handled();
        return true;
      }).timer("slow", () -> { });
    }

    private void handled() {
      LAST_HANDLED.put(ctx.self().id().value(), System.nanoTime()); // last statement: before the turn ends
    }

    @Override
    public void onClosing(final ClosingContext closing) {
      final String id = ctx.self().id().value();
      if (closing.reason() == ClosingReason.IDLE_EVICTED) {
        EVICTED_AT.putIfAbsent(id, System.nanoTime());
      }
      CLOSINGS.add(id + " " + closing.reason() + " " + ctx.self().generation().value());
      final CountDownLatch mayEnd = closingMayEnd;
      if (mayEnd != null) {
        closingEntered.countDown();
        try {
          mayEnd.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }

  /** Answers a Hold once {@link #holderMayAnswer} opens; no idle cleanup. */
  static final class Holder implements InstanceSpot {
    private final InstanceSpotContext ctx;

    Holder(final InstanceSpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public InstanceSpotContext context() {
      return ctx;
    }

    @Override
    public void configure(final SpotHandlers on) {
      on.request(Hold.class, h -> holderMayAnswer.await(10, TimeUnit.SECONDS));
    }
  }

  private final InMemoryLocationStore store = new InMemoryLocationStore();
  private final MeshNode node = TestNodes.server(store, s -> s
      .instanceSpot(TYPE, Idler::new, o -> o.recreateOnRelocation().idleTimeout(IDLE))
      .instanceSpot("holder", Holder::new, o -> o.recreateOnRelocation()));

  @AfterEach
  void close() {
    final CountDownLatch mayEnd = closingMayEnd;
    if (mayEnd != null) {
      mayEnd.countDown();
    }
    final CountDownLatch holder = holderMayAnswer;
    if (holder != null) {
      holder.countDown();
    }
    closingMayEnd = null;
    holderMayAnswer = null;
    node.close();
  }

  private SpotRef activate(final String id) {
    node.toInstanceSpot(id, TYPE).request(new Seen(), List.class).await();
    return node.spots().find(id).orElseThrow();
  }

  private boolean evicted(final String id) {
    return CLOSINGS.stream().anyMatch(c -> c.startsWith(id + " IDLE_EVICTED "));
  }

  private static List<String> closings(final String id) {
    return CLOSINGS.stream().filter(c -> c.startsWith(id + " ")).toList();
  }

  private long idleNanos(final String id) {
    return EVICTED_AT.get(id) - LAST_HANDLED.get(id);
  }

  @Test
  void anIdleInstanceSpotIsEvictedOnlyAfterTheIdleTimeSinceItsLastWork() {
    final String id = "idler:1";
    final SpotRef first = activate(id);
    node.toSpot(first).send(new Note("a"));
    await().atMost(Duration.ofSeconds(10)).until(() -> evicted(id));
    assertThat(idleNanos(id)).isGreaterThanOrEqualTo(IDLE.toNanos());
    await().atMost(Duration.ofSeconds(5)).until(() -> node.spots().find(id).isEmpty());
    assertThat(closings(id)).containsExactly(id + " IDLE_EVICTED " + first.generation().value());
    assertThat(LocationRecords.read(store, ObjectKey.spot(id), Duration.ofSeconds(2))).isEmpty();
    // A regular message ends NotFound; Instance intent activates a new incarnation with a higher generation.
    assertThatThrownBy(() -> node.toSpot(id).request(new Seen(), List.class).await())
        .isInstanceOf(SpotkitException.NotFound.class);
    assertThatThrownBy(() -> node.toSpot(first).send(new Note("late"))).isInstanceOf(SpotkitException.NotFound.class);
    assertThat(node.toInstanceSpot(id, TYPE).request(new Seen(), List.class).await()).isEmpty();
    assertThat(node.spots().find(id).orElseThrow().generation().value())
        .isGreaterThan(first.generation().value());
  }

  @Test
  void aRegisteredTimerKeepsItAliveUntilItIsCancelled() {
    final String id = "idler:2";
    final SpotRef ref = activate(id);
    assertThat(node.toSpot(ref).request(new StartTimer(), Boolean.class).await()).isTrue();
    // Several idle timeouts pass with a registered timer (its period is an hour: no tick is work here).
    await().during(IDLE.multipliedBy(4)).atMost(IDLE.multipliedBy(4).plusSeconds(10)).until(() -> !evicted(id));
    assertThat(node.spots().find(id)).contains(ref);
    assertThat(node.toSpot(ref).request(new StopTimer(), Boolean.class).await()).isTrue();
    await().atMost(Duration.ofSeconds(10)).until(() -> evicted(id));
    assertThat(idleNanos(id)).isGreaterThanOrEqualTo(IDLE.toNanos());
  }

  @Test
  void aPendingCallItStartedKeepsItAliveUntilTheCallCompletes() {
    final String id = "idler:3";
    holderMayAnswer = new CountDownLatch(1);
    final SpotRef ref = activate(id);
    assertThat(node.toSpot(ref).request(new AskHolder("holder:3"), Boolean.class).await()).isTrue();
    await().during(IDLE.multipliedBy(4)).atMost(IDLE.multipliedBy(4).plusSeconds(10)).until(() -> !evicted(id));
    final long answeredAfter = System.nanoTime();
    holderMayAnswer.countDown(); // the call completes after this: the idle time counts from its completion
    await().atMost(Duration.ofSeconds(10)).until(() -> evicted(id));
    assertThat(EVICTED_AT.get(id) - answeredAfter).isGreaterThanOrEqualTo(IDLE.toNanos());
    assertThat(node.spots().find("holder:3")).isPresent(); // no idle timeout registered: never cleaned up
  }

  @Test
  void messagesArrivingWhileTheCleanupRunsActivateTheNextIncarnationInOrder() throws Exception {
    final String id = "idler:4";
    closingEntered = new CountDownLatch(1);
    closingMayEnd = new CountDownLatch(1);
    final SpotRef first = activate(id);
    assertThat(closingEntered.await(10, TimeUnit.SECONDS)).isTrue(); // the cleanup is in OnClosing now
    final Target byIntent = node.toInstanceSpot(id, TYPE);
    byIntent.send(new Note("one"));
    byIntent.send(new Note("two"));
    final CompletableFuture<List> seen = byIntent.request(new Seen(), List.class).toFuture();
    final CompletableFuture<List> byId = node.toSpot(first).request(new Seen(), List.class).toFuture();
    assertThat(seen).isNotDone(); // kept, not run by the closing instance
    closingMayEnd.countDown();
    assertThat(seen.get(10, TimeUnit.SECONDS)).containsExactly("one", "two");
    assertThatThrownBy(() -> byId.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(SpotkitException.NotFound.class);
    final SpotRef next = node.spots().find(id).orElseThrow();
    assertThat(next.generation().value()).isGreaterThan(first.generation().value());
    assertThat(closings(id)).containsExactly(id + " IDLE_EVICTED " + first.generation().value());
  }

  @Test
  void theIdleTimeoutIsValidated() {
    assertThatThrownBy(() -> TestNodes.server(s -> s.instanceSpot(TYPE, Idler::new,
        o -> o.recreateOnRelocation().idleTimeout(Duration.ofMillis(-1)))))
        .isInstanceOf(SpotkitException.InvalidOperation.class)
        .hasMessage("instance spot idle timeout PT-0.001S is outside 1 ms..PT8760H; pass e.g. Duration.ofMinutes(5),"
            + " or Duration.ZERO for no idle cleanup (spec 003 section 6.2)");
    assertThatThrownBy(() -> TestNodes.server(s -> s.instanceSpot(TYPE, Idler::new,
        o -> o.recreateOnRelocation().idleTimeout(null))))
        .isInstanceOf(SpotkitException.InvalidOperation.class);
  }
}
