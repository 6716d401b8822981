package dev.spotkit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spotkit.core.Actor;
import dev.spotkit.core.ActorContext;
import dev.spotkit.core.ActorHandlers;
import dev.spotkit.core.ActorRef;
import dev.spotkit.core.CutStore;
import dev.spotkit.core.EntrySpot;
import dev.spotkit.core.EntrySpotContext;
import dev.spotkit.core.MeshNode;
import dev.spotkit.core.Spec;
import dev.spotkit.core.SpotHandlers;
import dev.spotkit.core.SpotRef;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.core.UserSpot;
import dev.spotkit.core.UserSpotContext;
import dev.spotkit.testkit.TestMesh;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Crash recovery (issue 15) on a real Redis: node A owns an actor and a room, then is cut from Redis as if paused
 * (SIGSTOP) until its owner lease key expires (Redis PEXPIRE). GetOrCreate on B sweeps the dead owner's rows through
 * the Lua write script (conditioned on the row version and on the lease key being absent) and creates both again on B
 * with higher ObjectGenerations; messages reach them. A resumed is fenced out: every write it attempts is rejected,
 * it stops itself, and no id runs two handler turns at once.
 */
class RedisOwnerLossRecreationTest {
  @RegisterExtension
  static final RedisServerExtension REDIS = new RedisServerExtension();
  private static final Duration TTL = Duration.ofMillis(1500);
  private static final Duration MARGIN = Duration.ofMillis(500);
  private static final Duration SLACK = Duration.ofSeconds(3);
  private static final AtomicLong INCARNATIONS = new AtomicLong();
  private static final ConcurrentHashMap<String, AtomicInteger> RUNNING = new ConcurrentHashMap<>();
  private static final ConcurrentHashMap<String, AtomicInteger> MAX_RUNNING = new ConcurrentHashMap<>();

  /** Which incarnation answered, and on which node. */
  record Here(String nodeHex, long incarnation) {
  }

  /** Asks for {@link Here}. */
  record Where() {
  }

  private static Here answer(final String id, final String nodeHex, final long incarnation) {
    final int now = RUNNING.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
    MAX_RUNNING.computeIfAbsent(id, k -> new AtomicInteger()).accumulateAndGet(now, Math::max);
    try {
      return new Here(nodeHex, incarnation);
    } finally {
      RUNNING.get(id).decrementAndGet();
    }
  }

  static final class Entry implements EntrySpot {
    private final EntrySpotContext ctx;

    Entry(final EntrySpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public EntrySpotContext context() {
      return ctx;
    }
  }

  static final class Keeper implements Actor {
    private final ActorContext ctx;
    private final long incarnation = INCARNATIONS.incrementAndGet();

    Keeper(final ActorContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public void configure(final ActorHandlers on) {
      on.request(Where.class, w -> answer("actor:" + ctx.self().id().value(), ctx.self().nodeRid().hex(),
          incarnation));
    }
  }

  static final class Room implements UserSpot<Actor> {
    private final UserSpotContext ctx;
    private final long incarnation = INCARNATIONS.incrementAndGet();

    Room(final UserSpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public UserSpotContext context() {
      return ctx;
    }

    @Override
    public void configure(final SpotHandlers on) {
      on.request(Where.class, w -> answer("spot:" + ctx.self().id().value(), ctx.self().nodeRid().hex(),
          incarnation));
    }
  }

  private final List<AutoCloseable> resources = new CopyOnWriteArrayList<>();
  private TestMesh mesh;

  @AfterEach
  void close() throws Exception {
    if (mesh != null) {
      mesh.close(); // the nodes first, then the stores they used
    }
    for (AutoCloseable r : resources.reversed()) {
      r.close();
    }
    RUNNING.clear();
    MAX_RUNNING.clear();
  }

  /** One node on the test kit, node 0 on {@code viewOfA}, every later one on a Redis connection of its own. */
  private TestMesh mesh(final CutStore viewOfA) {
    mesh = TestMesh.builder().meshName("recovery").closeTimeout(Duration.ofSeconds(2))
        .locationStores(i -> i == 0 ? viewOfA : store())
        .node(b -> b.requestTimeout(Duration.ofSeconds(4))
            .ownerLease(Duration.ofMillis(100), TTL, Duration.ofMillis(200), MARGIN))
        .objectServer(s -> s.entrySpot(Entry::new).actor("keeper", Keeper::new, a -> a.disableRelocation())
            .userSpot("room", Room::new, o -> o.disableRelocation()))
        .start(1);
    return mesh;
  }

  private RedisLocationStore store() {
    final RedisLocationStore store = RedisLocationStore.connect(REDIS.uri(), "recovery");
    resources.add(store);
    return store;
  }

  @Test
  @Spec("LOC-01")
  @Spec("LOC-04")
  void aDeadOwnersObjectsAreCreatedAgainOnALiveNodeAndTheResumedOwnerIsFencedOut() throws Exception {
    final CutStore viewOfA = new CutStore(store());
    final MeshNode a = mesh(viewOfA).node(0); // alone: placement puts everything on a
    final ActorRef oldActor = a.actors().getOrCreate("k", "keeper").await();
    final SpotRef oldRoom = a.spots().getOrCreate("r", "room").await();
    final MeshNode b = mesh.addNode();
    assertThat(b.actors().getOrCreate("k", "keeper").await()).isEqualTo(oldActor); // a alive: nothing swept
    final Here before = b.toActor(oldActor).request(new Where(), Here.class).await();
    assertThat(before.nodeHex()).isEqualTo(a.nodeRid().hex());

    viewOfA.cut(); // SIGSTOP
    final ActorRef[] newActor = new ActorRef[1];
    Awaitility.await().atMost(TTL.plus(MARGIN).plus(SLACK)).pollInterval(Duration.ofMillis(50)).until(() -> {
      newActor[0] = b.actors().getOrCreate("k", "keeper").await();
      return !newActor[0].equals(oldActor);
    });
    assertThat(newActor[0].nodeRid()).isEqualTo(b.nodeRid());
    assertThat(newActor[0].generation().value()).isGreaterThan(oldActor.generation().value());
    final SpotRef newRoom = b.spots().getOrCreate("r", "room").await();
    assertThat(newRoom.nodeRid()).isEqualTo(b.nodeRid());
    assertThat(newRoom.generation().value()).isGreaterThan(oldRoom.generation().value());
    final Here now = b.toActor(newActor[0]).request(new Where(), Here.class).await();
    assertThat(now.nodeHex()).isEqualTo(b.nodeRid().hex());
    assertThat(now.incarnation()).isNotEqualTo(before.incarnation());
    assertThat(b.toSpot(newRoom).request(new Where(), Here.class).await().nodeHex()).isEqualTo(b.nodeRid().hex());

    viewOfA.resume(); // SIGCONT
    assertThatThrownBy(() -> a.terminated().get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
        .cause().isInstanceOf(SpotkitException.Unavailable.class).hasMessageContaining("lost for good");
    assertThat(viewOfA.writesAfterResume()).isPositive();
    assertThat(viewOfA.appliedAfterResume()).as("every write of the resumed owner was rejected").isZero();
    assertThat(b.toActor(newActor[0]).request(new Where(), Here.class).await().incarnation())
        .isEqualTo(now.incarnation());
    assertThat(MAX_RUNNING).allSatisfy((id, max) -> assertThat(max).hasValueLessThanOrEqualTo(1));
  }
}
