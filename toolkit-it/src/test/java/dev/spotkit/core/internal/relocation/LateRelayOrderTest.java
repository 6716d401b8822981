package dev.spotkit.core.internal.relocation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spotkit.core.Actor;
import dev.spotkit.core.ActorContext;
import dev.spotkit.core.ActorHandlers;
import dev.spotkit.core.HostRelocationResult;
import dev.spotkit.core.MeshNode;
import dev.spotkit.core.NodeEvent;
import dev.spotkit.core.Spec;
import dev.spotkit.testkit.TestMesh;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * After a cutover-wait fallback (spec 001 section 4.4, REL-27) one sender's work keeps its order: the target opened
 * the actor before the source's relay came, and the source then sends the relay, its cutover and Message Follow of
 * later work on one connection, in that order. Found under load (PerActorSpotMoveTest, issue 13): the target's lane
 * ran the relay late while its event loop handed a followed message straight to the open mailbox, ahead of relay
 * read before it. Here the source holds its relay-ready reply until the target logged {@code cutover_timeout} and
 * opened the actor, and
 * the target's lane holds the first late relay record until the followed message was read (offered to the mailbox,
 * or queued behind the relay on the lane).
 */
class LateRelayOrderTest {
  /** One sender's note, numbered from 1. */
  record Note(int seq) {
  }

  /** Every note the actor ran, in run order, on whichever node. */
  static final List<Integer> RAN = new CopyOnWriteArrayList<>();

  /** Records each note. */
  static final class Log implements Actor {
    Log(final ActorContext ctx) {
      // no state: the notes go to RAN
    }

    @Override
    public void configure(final ActorHandlers on) {
      on.message(Note.class, n -> RAN.add(n.seq()));
    }
  }

  private final TestMesh mesh = TestMesh.builder().meshName("laterelay")
      .objectServer(s -> s.entrySpot(HandWrittenPeerFixture.Entry::new).actor("log", Log::new,
          a -> a.recreateOnRelocation()))
      .start(2);
  @AfterEach
  void close() {
    Relocations.beforeRelayReady = null;
    TargetObject.beforeRelay = null;
    mesh.close();
    RAN.clear();
  }

  @Test
  @Spec("REL-27")
  void followedWorkRunsBehindLateRelayAfterACutoverWaitFallback() throws Exception {
    final MeshNode a = mesh.node(0);
    final MeshNode b = mesh.node(1);
    final Relocations targetMoves = RelocationCasAdmissionTest.runtime(b).relocations();
    final String actor = mesh.actorOn(0, "late", "log");
    send(a, actor, 1, 5);
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> RAN.size() == 5);

    final CountDownLatch cutoverTimedOut = new CountDownLatch(1);
    final CountDownLatch openedOnTarget = new CountDownLatch(1);
    final CountDownLatch lateCutover = new CountDownLatch(1);
    b.events().addListener(e -> {
      if (e instanceof NodeEvent.CutoverTimeout t && t.objectId().equals(actor)) {
        cutoverTimedOut.countDown();
      } else if (e instanceof NodeEvent.RelocationCommitted c && c.objectId().equals(actor)
          && c.role() == NodeEvent.RelocationRole.TARGET) {
        openedOnTarget.countDown();
      } else if (e instanceof NodeEvent.LateCutover l && l.objectId().equals(actor)) {
        lateCutover.countDown();
      }
    });
    final CountDownLatch relayReadyHeld = new CountDownLatch(1);
    final AtomicBoolean holdReady = new AtomicBoolean(true);
    Relocations.beforeRelayReady = id -> { // the source's event loop: relay-ready reaches it after the fallback
      if (id.equals(actor) && holdReady.compareAndSet(true, false)) {
        relayReadyHeld.countDown();
        awaitQuietly(openedOnTarget);
      }
    };
    final CountDownLatch lateRelayHeld = new CountDownLatch(1);
    final AtomicBoolean holdRelay = new AtomicBoolean(true);
    TargetObject.beforeRelay = id -> { // the target's lane: behind the event loop that reads the follow
      if (id.equals(actor) && holdRelay.compareAndSet(true, false)) {
        lateRelayHeld.countDown();
        Awaitility.await().atMost(20, TimeUnit.SECONDS).until(() -> RAN.contains(21)
            || targetMoves.divertedInFlight(actor) > 0);
      }
    };

    final CompletableFuture<HostRelocationResult> moved = a.relocate(b.nodeRid());
    assertThat(relayReadyHeld.await(15, TimeUnit.SECONDS)).as("the target replied relay-ready").isTrue();
    send(a, actor, 6, 15); // sealed: the source's ingress hold, relayed once relay-ready is taken
    assertThat(cutoverTimedOut.await(15, TimeUnit.SECONDS)).as("the target fell back (cutover_timeout)").isTrue();
    assertThat(openedOnTarget.await(15, TimeUnit.SECONDS)).as("and opened the actor, committed").isTrue();
    assertThat(lateRelayHeld.await(15, TimeUnit.SECONDS)).as("late relay reached the target").isTrue();
    send(a, actor, 16, 21); // after the relay and the cutover: Message Follow on the same connection

    assertThat(moved.get(20, TimeUnit.SECONDS).relocated()).singleElement().satisfies(r -> {
      assertThat(r.id().value()).isEqualTo(actor);
      assertThat(r.nodeRid()).isEqualTo(b.nodeRid());
    });
    Awaitility.await().atMost(20, TimeUnit.SECONDS).until(() -> RAN.size() >= 21);
    assertThat(lateCutover.await(10, TimeUnit.SECONDS)).as("the late cutover: a warning only").isTrue();
    assertThat(RelocationCasAdmissionTest.runtime(b).actors.get(actor)).as("the actor stays on the target")
        .isNotNull();
    // the late cutover changed no queue: every note ran once, in send order, relay before followed work
    assertThat(RAN).as("one sender's notes in send order").containsExactlyElementsOf(IntStream.rangeClosed(1, 21)
        .boxed().toList());
  }

  private static void send(final MeshNode from, final String actor, final int first, final int last) {
    for (int seq = first; seq <= last; seq++) {
      from.toActor(actor).send(new Note(seq));
    }
  }

  /** Waits up to 20 s (bounded: the case fails on its own assertion when the latch never opens). */
  private static void awaitQuietly(final CountDownLatch latch) {
    try {
      latch.await(20, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
