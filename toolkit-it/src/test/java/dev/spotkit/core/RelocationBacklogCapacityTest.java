package dev.spotkit.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spotkit.testkit.TestMesh;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * REL-23: a relocation backlog larger than the live limits still runs, in order, and never fails for capacity. An
 * actor with a bounded mailbox (64) joins a room on node B whose Restore takes 2 s; during that Restore a sender on A
 * sends 5,000 one-way notes, all held at the source. B does not read its connection from A from the Restore until
 * its queue opened, so the relay and the cutover wait in TCP: B's cutover wait falls back, the CAS commits, the queue
 * opens, and only then does the relay arrive (late relay after the fallback, spec 001 section 4.4), 5,000 notes into
 * a mailbox of 64 whose handler is slower than the relay. Forbidden: a note the sender saw accepted that never runs,
 * with no error anywhere (the target's dispatch of the late relay used to ignore MAILBOX_FULL: "accepted 5000, typed
 * errors {}, handled 4633"); a note refused for capacity after it was accepted; notes out of order.
 */
class RelocationBacklogCapacityTest {
  static final int NOTES = 5_000;
  static final int CAPACITY = 64;
  static final List<Integer> HANDLED = new CopyOnWriteArrayList<>();
  static final Map<String, JoinResult> JOINED = new ConcurrentHashMap<>();
  static final java.util.Set<NodeRid> SLOW_RESTORE = ConcurrentHashMap.newKeySet();
  /** Run by the slow Restore before it parks: the test stalls B's reads and starts the sender there. */
  static volatile Runnable onRestore = () -> { };
  /** The Restore returns once this is counted down (the sender is done), or after 2 s at most. */
  static volatile java.util.concurrent.CountDownLatch restoreMayEnd = new java.util.concurrent.CountDownLatch(0);

  record Note(int n) {}

  record Move(String spotId) {}

  static final class Laggard implements Actor {
    final ActorContext ctx;

    Laggard(final ActorContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public void configure(final ActorHandlers on) {
      on.message(Note.class, n -> {
        HANDLED.add(n.n());
        LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(200)); // slower than the sender: the mailbox fills
      }).message(Move.class, m -> ctx.joinSpot(m.spotId(), "in").timeout(Duration.ofSeconds(20)).defer());
    }

    @Override
    public void onJoinCompleted(final JoinResult result) {
      JOINED.put(ctx.self().id().value(), result);
    }
  }

  static final class LaggardState implements ActorRelocationAdapter<Laggard> {
    @Override
    public byte[] capture(final Laggard actor) {
      return new byte[0];
    }

    @Override
    public void restore(final Laggard actor, final byte[] state) {
      if (SLOW_RESTORE.contains(actor.ctx.self().nodeRid())) {
        onRestore.run();
        try {
          restoreMayEnd.await(2, TimeUnit.SECONDS); // the long Restore of the issue; bounded
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }

  private final TestMesh mesh = TestMesh.builder().meshName("backlog")
      .objectServer(s -> s.entrySpot(TestNodes.PlainEntry::new)
          .actor("laggard", Laggard::new, a -> a.preserveStateWith(new LaggardState()).mailboxCapacity(CAPACITY))
          .userSpot("room", CrossNodeJoinTest.Room::new, o -> o.recreateOnRelocation()))
      .start(2);

  @AfterEach
  void close() {
    mesh.close();
    HANDLED.clear();
    JOINED.clear();
    SLOW_RESTORE.clear();
    onRestore = () -> { };
    CrossNodeJoinTest.EVENTS.clear();
  }

  @Test
  @Spec("REL-23")
  void aBacklogLargerThanTheMailboxRunsInOrderAndNeverFailsForCapacity() throws Exception {
    final MeshNode a = mesh.node(0);
    final MeshNode b = mesh.node(1);
    SLOW_RESTORE.add(b.nodeRid());
    final String actor = mesh.actorOn(0, "laggard", "laggard");
    final String room = mesh.spotOn(1, "room", "room");
    final java.util.concurrent.atomic.AtomicReference<io.netty.channel.Channel> stalled =
        new java.util.concurrent.atomic.AtomicReference<>();
    final List<Integer> accepted = new CopyOnWriteArrayList<>();
    final Map<String, AtomicInteger> errors = new ConcurrentHashMap<>();
    final java.util.concurrent.CountDownLatch sent = new java.util.concurrent.CountDownLatch(1);
    restoreMayEnd = sent;
    onRestore = () -> {
      final io.netty.channel.Channel bFromA;
      try {
        bFromA = MeshOutboundBoundTest.channel(MeshOutboundBoundTest.runtime(b).mesh().open(a.nodeRid())
            .orElseThrow());
      } catch (ReflectiveOperationException e) {
        throw new AssertionError(e);
      }
      stalled.set(bFromA);
      bFromA.config().setAutoRead(false); // B reads nothing more from A until its queue opened
      Thread.ofVirtual().start(() -> {
        for (int n = 0; n < NOTES; n++) { // bounded; the actor is sealed on A: every note goes to the hold
          try {
            a.toActor(actor).send(new Note(n));
            accepted.add(n);
          } catch (SpotkitException e) {
            errors.computeIfAbsent(e.getClass().getSimpleName(), k -> new AtomicInteger()).incrementAndGet();
          }
        }
        sent.countDown();
      });
    };
    a.toActor(actor).send(new Move(room));
    Awaitility.await().atMost(30, TimeUnit.SECONDS).until(() -> JOINED.containsKey(actor));
    final io.netty.channel.Channel bFromA = stalled.get();
    assertThat(bFromA).as("B's Restore ran").isNotNull();
    bFromA.eventLoop().submit(() -> bFromA.config().setAutoRead(true)).get(5, TimeUnit.SECONDS);
    assertThat(sent.await(30, TimeUnit.SECONDS)).as("sender done").isTrue();
    assertThat(JOINED.get(actor)).isInstanceOf(JoinResult.Accepted.class);
    // Every accepted note runs: wait until they all did, or until nothing ran for a while.
    final AtomicInteger last = new AtomicInteger(-1);
    Awaitility.await().atMost(60, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(500)).until(() ->
        HANDLED.size() >= accepted.size() || HANDLED.size() == last.getAndSet(HANDLED.size()));
    final Map<String, Long> dead = new ConcurrentHashMap<>(a.deadLetters());
    b.deadLetters().forEach((k, v) -> dead.merge(k, v, Long::sum));
    System.out.printf("accepted %d, typed errors %s, handled %d, dead letters %s%n", accepted.size(), errors,
        HANDLED.size(), dead);
    assertThat(errors).as("typed errors at the sender (capacity of the live mailbox only)").doesNotContainKeys(
        "Unavailable", "InternalFailure");
    final List<Integer> handled = new ArrayList<>(HANDLED);
    assertThat(handled).as("every accepted note ran once, in send order").containsExactlyElementsOf(accepted);
    assertThat(dead).as("dead letters").isEmpty();
  }
}
