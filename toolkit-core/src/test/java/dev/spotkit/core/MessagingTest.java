package dev.spotkit.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Send, request, deadlines, typed failures, refs and turns. */
class MessagingTest {

  record Ping(int n) {}

  record Pong(int n) {}

  record Block(int id) {}

  record Count() {}

  record Max() {}

  record Boom() {}

  record Refuse() {}

  static final CountDownLatch NEVER = new CountDownLatch(1);

  /** Echoes, counts, blocks on a per-test latch, and fails on demand. */
  static final class Echo implements Actor {
    final AtomicInteger running = new AtomicInteger();
    final AtomicInteger maxRunning = new AtomicInteger();
    final List<Integer> seen = new ArrayList<>();
    static volatile CountDownLatch gate = new CountDownLatch(0);
    static volatile CountDownLatch entered = new CountDownLatch(1);

    Echo(final ActorContext ctx) {
    }

    @Override
    public void configure(final ActorHandlers on) {
      on.request(Ping.class, ping -> turn(() -> new Pong(ping.n())))
          .message(Block.class, block -> turn(() -> {
            entered.countDown();
            gate.await(10, TimeUnit.SECONDS);
            return null;
          }))
          .request(Count.class, c -> seen.size())
          .request(Max.class, m -> maxRunning.get())
          .request(Boom.class, b -> {
            throw new IllegalStateException("kaput");
          })
          .request(Refuse.class, r -> {
            throw new SpotkitException.NotFound("no such thing");
          });
    }

    private <T> T turn(final java.util.concurrent.Callable<T> body) throws Exception {
      maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
      try {
        seen.add(seen.size());
        return body.call();
      } finally {
        running.decrementAndGet();
      }
    }
  }

  private final MeshNode node = TestNodes.server(s -> s
      .actor("echo", Echo::new, a -> a.disableRelocation())
      .actor("small", Echo::new, a -> a.disableRelocation().mailboxCapacity(2)));

  @AfterEach
  void close() {
    Echo.gate.countDown();
    node.close();
  }

  @Test
  void requestGetsTheReply() {
    final ActorRef echo = node.actors().getOrCreate("e1", "echo").await();
    assertThat(node.toActor(echo).request(new Ping(7), Pong.class).await()).isEqualTo(new Pong(7));
    assertThat(node.toActor("e1").request(new Ping(8), Pong.class).toFuture().join()).isEqualTo(new Pong(8));
  }

  @Test
  void requestAwaitBlocksAVirtualThread() throws Exception {
    node.actors().getOrCreate("e1", "echo").await();
    final List<Pong> replies = new java.util.concurrent.CopyOnWriteArrayList<>();
    final List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      final int n = i;
      threads.add(Thread.ofVirtual().start(() -> replies.add(node.toActor("e1").request(new Ping(n), Pong.class)
          .await())));
    }
    for (Thread t : threads) {
      assertThat(t.join(Duration.ofSeconds(10))).isTrue();
    }
    assertThat(replies).hasSize(50);
  }

  @Test
  void aBlockedHandlerKeepsItsTurn() throws Exception {
    Echo.gate = new CountDownLatch(1);
    Echo.entered = new CountDownLatch(1);
    node.actors().getOrCreate("e1", "echo").await();
    node.toActor("e1").send(new Block(1));
    assertThat(Echo.entered.await(5, TimeUnit.SECONDS)).isTrue();
    final var count = node.toActor("e1").request(new Count(), Integer.class).toFuture();
    // Must never: the Count request runs while Block holds the turn.
    assertThat(count).isNotDone();
    Echo.gate.countDown();
    assertThat(count.get(5, TimeUnit.SECONDS)).isEqualTo(1);
  }

  @Test
  void deadlineExceededWhenNoReplyInTime() throws Exception {
    Echo.gate = new CountDownLatch(1);
    Echo.entered = new CountDownLatch(1);
    node.actors().getOrCreate("e1", "echo").await();
    node.toActor("e1").send(new Block(1));
    assertThat(Echo.entered.await(5, TimeUnit.SECONDS)).isTrue();
    assertThatThrownBy(() -> node.toActor("e1").request(new Ping(1), Pong.class)
        .timeout(Duration.ofMillis(100)).await())
        .isInstanceOf(SpotkitException.DeadlineExceeded.class)
        .hasMessageContaining("did not complete within 100 ms");
  }

  @Test
  void missingTargetIsNotFound() {
    assertThatThrownBy(() -> node.toActor("nobody").send(new Ping(1)))
        .isInstanceOf(SpotkitException.NotFound.class).hasMessageStartingWith("actor 'nobody' not found");
    assertThatThrownBy(() -> node.toActor("nobody").request(new Ping(1), Pong.class).await())
        .isInstanceOf(SpotkitException.NotFound.class);
  }

  @Test
  void typeMismatchForMissingHandlerAndWrongReplyType() {
    node.actors().getOrCreate("e1", "echo").await();
    assertThatThrownBy(() -> node.toActor("e1").request("text", String.class).await())
        .isInstanceOf(SpotkitException.TypeMismatch.class)
        .hasMessageContaining("has no handler for java.lang.String");
    assertThatThrownBy(() -> node.toActor("e1").request(new Ping(1), String.class).await())
        .isInstanceOf(SpotkitException.TypeMismatch.class)
        .hasMessageContaining("reply of type " + Pong.class.getName() + " is not the expected java.lang.String");
  }

  @Test
  void handlerFailuresAreTyped() {
    node.actors().getOrCreate("e1", "echo").await();
    assertThatThrownBy(() -> node.toActor("e1").request(new Boom(), Pong.class).await())
        .isInstanceOf(SpotkitException.InternalFailure.class).hasMessageContaining("kaput")
        .hasCauseInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> node.toActor("e1").request(new Refuse(), Pong.class).await())
        .isInstanceOf(SpotkitException.NotFound.class).hasMessage("no such thing");
    // the actor keeps working after a failed turn
    assertThat(node.toActor("e1").request(new Ping(3), Pong.class).await()).isEqualTo(new Pong(3));
  }

  @Test
  void staleRefIsRefusedNotMisrouted() {
    final ActorRef first = node.actors().getOrCreate("e1", "echo").await();
    assertThat(node.actors().destroy(first).await()).isTrue();
    final ActorRef second = node.actors().getOrCreate("e1", "echo").await();
    assertThat(second.generation().value()).isGreaterThan(first.generation().value());
    assertThatThrownBy(() -> node.toActor(first).send(new Ping(1)))
        .isInstanceOf(SpotkitException.StaleGeneration.class)
        .isInstanceOf(SpotkitException.InvalidOperation.class)
        .hasMessage("ref of e1 has generation " + first.generation() + " but the live incarnation has generation "
            + second.generation() + "; refused rather than misrouted. Get a fresh ref with find(\"e1\")");
    assertThatThrownBy(() -> node.actors().destroy(first).await())
        .isInstanceOf(SpotkitException.StaleGeneration.class);
    assertThat(node.toActor(second).request(new Ping(2), Pong.class).await()).isEqualTo(new Pong(2));
  }

  @Test
  void destroyOfAGoneGenerationIsFalse() {
    final ActorRef ref = node.actors().getOrCreate("e1", "echo").await();
    assertThat(node.actors().destroy(ref).await()).isTrue();
    assertThat(node.actors().destroy(ref).await()).isFalse();
    assertThat(node.actors().find("e1")).isEmpty();
  }

  @Test
  void fullMailboxIsCapacityExceeded() throws Exception {
    Echo.gate = new CountDownLatch(1);
    Echo.entered = new CountDownLatch(1);
    node.actors().getOrCreate("s1", "small").await();
    node.toActor("s1").send(new Block(1));
    assertThat(Echo.entered.await(5, TimeUnit.SECONDS)).isTrue();
    node.toActor("s1").send(new Ping(1));
    node.toActor("s1").send(new Ping(2));
    assertThatThrownBy(() -> node.toActor("s1").send(new Ping(3)))
        .isInstanceOf(SpotkitException.CapacityExceeded.class)
        .hasMessageEndingWith("is full: capacity 2 messages; slow the sender down or raise mailboxCapacity(...) of"
            + " its type");
  }

  @Test
  void oneTurnAtATimePerActor() throws Exception {
    node.actors().getOrCreate("e1", "echo").await();
    final List<Thread> senders = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      senders.add(Thread.ofVirtual().start(() -> {
        for (int i = 0; i < 50; i++) {
          node.toActor("e1").request(new Ping(i), Pong.class).await();
        }
      }));
    }
    for (Thread t : senders) {
      assertThat(t.join(Duration.ofSeconds(10))).isTrue();
    }
    // Must never: two turns of one actor overlapping (max concurrent turns above 1) or a lost turn.
    assertThat(node.toActor("e1").request(new Max(), Integer.class).await()).isEqualTo(1);
    assertThat(node.toActor("e1").request(new Count(), Integer.class).await()).isEqualTo(200);
  }
}
