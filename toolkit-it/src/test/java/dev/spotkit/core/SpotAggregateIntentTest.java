package dev.spotkit.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.spotkit.core.location.LocationRecords;
import dev.spotkit.core.location.ObjectKey;
import dev.spotkit.store.InMemoryLocationStore;
import dev.spotkit.testkit.TestMesh;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The aggregate move's intent (spec 000 section 7): while a member is in a join of its own, the room is not sealed;
 * the intent comes back later and seals the room as it is then.
 */
class SpotAggregateIntentTest {
  static final String ROOM = "room-i";

  record Go(String spotId) {
  }

  final AtomicInteger joins = new AtomicInteger();
  final CountDownLatch hallAsked = new CountDownLatch(1);
  final CountDownLatch hallAnswer = new CountDownLatch(1);
  InMemoryLocationStore store;
  TestMesh mesh;
  private volatile boolean nextHall;

  final class Member implements Actor {
    private final ActorContext ctx;

    Member(final ActorContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public void configure(final ActorHandlers on) {
      on.message(Go.class, g -> ctx.joinSpot(g.spotId()).timeout(Duration.ofSeconds(20)).defer());
    }

    @Override
    public void onJoinCompleted(final JoinResult result) {
      joins.incrementAndGet();
    }
  }

  final class Room implements UserSpot<Member> {
    private final UserSpotContext ctx;

    Room(final UserSpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public UserSpotContext context() {
      return ctx;
    }
  }

  /** A hall whose OnActorJoin waits for the test: the joining member stays in its join meanwhile. */
  final class Hall implements UserSpot<Member> {
    private final UserSpotContext ctx;

    Hall(final UserSpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public UserSpotContext context() {
      return ctx;
    }

    @Override
    public JoinDecision onActorJoin(final ActorId actor, final Object request) {
      hallAsked.countDown();
      try {
        hallAnswer.await(20, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return JoinDecision.accept();
    }
  }

  private void register(final ObjectServerBuilder s, final boolean hall) {
    s.entrySpot(TestNodes.PlainEntry::new)
        .actor("member", Member::new, a -> a.recreateOnRelocation())
        .userSpot("room", Room::new, o -> o.spotWide().recreateOnRelocation());
    if (hall) {
      s.userSpot("hall", Hall::new, o -> o.spotWide().recreateOnRelocation());
    }
  }

  /** The next node of the mesh; it registers the hall's type when {@code hall}. */
  private MeshNode node(final boolean hall) {
    if (mesh == null) {
      mesh = TestMesh.builder().meshName("mesh").objectServer(s -> register(s, false))
          .customize((b, i) -> b.objectServer(s -> register(s, nextHall)))
          .start(1);
      store = mesh.locationStore();
      return mesh.node(0);
    }
    nextHall = hall;
    return mesh.addNode();
  }

  @AfterEach
  void close() {
    hallAnswer.countDown();
    if (mesh != null) {
      mesh.close();
    }
  }

  private String owner(final ObjectKey key) {
    return LocationRecords.read(store, key).orElseThrow().authority().allocation().routingIdHex();
  }

  @Test
  @Spec("SPOT-07")
  void aMemberInAJoinOfItsOwnDefersTheSealUntilItsJoinEnded() throws Exception {
    final MeshNode a = node(false);
    a.spots().getOrCreate(ROOM, "room").await();
    for (int i = 0; i < 5; i++) {
      a.actors().getOrCreate("q" + i, "member").await();
      a.toActor("q" + i).send(new Go(ROOM));
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> joins.get() == 5);
    final MeshNode b = node(true); // only b has the hall's type: it is placed there
    b.spots().getOrCreate("hall", "hall").await();
    a.toActor("q0").send(new Go("hall")); // q0's cross-node join waits in the hall's OnActorJoin
    assertThat(hallAsked.await(10, TimeUnit.SECONDS)).isTrue();

    final CompletableFuture<SpotRelocationResult> moved = a.relocateSpot(new SpotId(ROOM), b.nodeRid());
    assertThat(moved).isNotDone(); // no seal while q0 is in its join: the intent comes back later
    hallAnswer.countDown(); // q0's join ends: it leaves the room for the hall

    final SpotRelocationResult result = moved.get(30, TimeUnit.SECONDS);
    assertThat(result.members()).isEqualTo(4); // the room as it was when sealed
    await().atMost(Duration.ofSeconds(10)).until(() -> joins.get() == 6);
    assertThat(owner(ObjectKey.spot(ROOM))).isEqualTo(b.nodeRid().hex());
    for (int i = 0; i < 5; i++) {
      assertThat(owner(ObjectKey.actor("q" + i))).isEqualTo(b.nodeRid().hex()); // q0 by its join, the rest by the move
    }
  }
}
