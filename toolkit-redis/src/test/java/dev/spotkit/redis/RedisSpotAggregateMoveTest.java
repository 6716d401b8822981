package dev.spotkit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.spotkit.core.Actor;
import dev.spotkit.core.ActorContext;
import dev.spotkit.core.ActorHandlers;
import dev.spotkit.core.ActorRelocationAdapter;
import dev.spotkit.core.EntrySpot;
import dev.spotkit.core.EntrySpotContext;
import dev.spotkit.core.JoinResult;
import dev.spotkit.core.MeshNode;
import dev.spotkit.core.NodeRid;
import dev.spotkit.core.Spec;
import dev.spotkit.core.SpotHandlers;
import dev.spotkit.core.SpotId;
import dev.spotkit.core.SpotRelocationAdapter;
import dev.spotkit.core.SpotRelocationResult;
import dev.spotkit.core.UserSpot;
import dev.spotkit.core.UserSpotContext;
import dev.spotkit.core.location.LocationRecords;
import dev.spotkit.core.location.ObjectKey;
import dev.spotkit.testkit.TestMesh;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code MeshNode.relocateSpot} with the Location Store and Relocation Store on a real Redis: a room with its members
 * moves A to B to C while a sender writes to it and to its members (spec 000 section 7).
 */
class RedisSpotAggregateMoveTest {
  @RegisterExtension
  static final RedisServerExtension REDIS = new RedisServerExtension();
  static final String ROOM = "room-r";
  static final Map<String, List<Long>> SEEN = new ConcurrentHashMap<>();
  static final AtomicInteger JOINS = new AtomicInteger();
  static final AtomicLong HANDLED = new AtomicLong();

  record Join(String roomId) {
  }

  record Note(long seq) {
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

  static final class Member implements Actor {
    private final ActorContext ctx;
    long notes;

    Member(final ActorContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public void configure(final ActorHandlers on) {
      on.message(Join.class, j -> ctx.joinSpot(j.roomId()).defer()).message(Note.class, n -> {
        notes++;
        SEEN.computeIfAbsent(ctx.self().id().value(), k -> Collections.synchronizedList(new ArrayList<>())).add(n.seq());
        HANDLED.incrementAndGet();
      });
    }

    @Override
    public void onJoinCompleted(final JoinResult result) {
      JOINS.incrementAndGet();
    }
  }

  static final class Room implements UserSpot<Member> {
    private final UserSpotContext ctx;
    long notes;

    Room(final UserSpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public UserSpotContext context() {
      return ctx;
    }

    @Override
    public void configure(final SpotHandlers on) {
      on.message(Note.class, n -> {
        notes++;
        SEEN.computeIfAbsent("spot", k -> Collections.synchronizedList(new ArrayList<>())).add(n.seq());
        HANDLED.incrementAndGet();
      });
    }
  }

  static final class Counts implements SpotRelocationAdapter<Room>, ActorRelocationAdapter<Member> {
    @Override
    public byte[] capture(final Room spot) {
      return ByteBuffer.allocate(8).putLong(spot.notes).array();
    }

    @Override
    public void restore(final Room spot, final byte[] state) {
      spot.notes = ByteBuffer.wrap(state).getLong();
    }

    @Override
    public byte[] capture(final Member actor) {
      return ByteBuffer.allocate(8).putLong(actor.notes).array();
    }

    @Override
    public void restore(final Member actor, final byte[] state) {
      actor.notes = ByteBuffer.wrap(state).getLong();
    }
  }

  private final List<AutoCloseable> stores = new CopyOnWriteArrayList<>();
  private TestMesh mesh;
  private RedisLocationStore view;

  /** The nodes of one mesh on the test kit, each with its own connections to the one Redis. */
  private TestMesh mesh() {
    mesh = TestMesh.builder().meshName("mesh").closeTimeout(Duration.ofSeconds(5))
        // a 40 s lease (admission for 35 s after a renewal): under a machine loaded twice over, renewals once went
        // unanswered for 10 s, the default lease's admission window, and the node refused messages as it should
        .node(b -> b.ownerLease(Duration.ofSeconds(2), Duration.ofSeconds(40), Duration.ofSeconds(3),
            Duration.ofSeconds(5)))
        .locationStores(i -> store(RedisLocationStore.connect(REDIS.uri(), "agg-move")))
        .relocationStores(i -> store(RedisRelocationStore.connect(REDIS.uri(), "agg-move")))
        .objectServer(s -> s.entrySpot(Entry::new)
            .actor("member", Member::new, a -> a.preserveStateWith(new Counts()))
            .userSpot("room", Room::new, o -> o.spotWide().preserveStateWith(new Counts())))
        .start(1);
    return mesh;
  }

  private <S extends AutoCloseable> S store(final S store) {
    stores.add(store);
    return store;
  }

  @AfterEach
  void close() throws Exception {
    if (mesh != null) {
      mesh.close();
    }
    for (AutoCloseable s : stores) {
      s.close();
    }
    if (view != null) {
      view.close();
    }
  }

  private String owner(final ObjectKey key) {
    return LocationRecords.read(view, key).orElseThrow().authority().allocation().routingIdHex();
  }

  @Test
  @Spec("MEM-36")
  @Spec("SPOT-07")
  void aRoomMovesAToBToCOnRedisWhileASenderWritesToItAndItsMembers() throws Exception {
    final int members = 200;
    final MeshNode a = mesh().node(0); // alone first: the room and its members are placed on it
    a.spots().getOrCreate(ROOM, "room").await();
    for (int i = 0; i < members; i++) {
      a.actors().getOrCreate("r" + i, "member").await();
      a.toActor("r" + i).send(new Join(ROOM));
    }
    await().atMost(Duration.ofSeconds(60)).until(() -> JOINS.get() == members);
    final MeshNode b = mesh.addNode();
    final MeshNode c = mesh.addNode();
    view = RedisLocationStore.connect(REDIS.uri(), "agg-move");
    final AtomicBoolean stop = new AtomicBoolean();
    final AtomicLong sent = new AtomicLong();
    final Thread sender = Thread.ofPlatform().daemon().start(() -> {
      for (long seq = 0; seq < 5_000_000 && !stop.get(); seq++) {
        for (int spins = 0; sent.get() - HANDLED.get() > 2_000 && !stop.get() && spins < 600_000; spins++) {
          java.util.concurrent.locks.LockSupport.parkNanos(50_000); // backpressure, bounded
        }
        final int to = seq % 2 == 0 ? members : (int) (seq / 2 % members);
        if (to == members) {
          a.toSpot(ROOM).send(new Note(seq));
        } else {
          a.toActor("r" + to).send(new Note(seq));
        }
        sent.incrementAndGet();
      }
    });
    await().atMost(Duration.ofSeconds(30)).until(() -> sent.get() > 2_000);
    final SpotRelocationResult first = a.relocateSpot(new SpotId(ROOM), b.nodeRid()).get(60, TimeUnit.SECONDS);
    final long afterFirst = sent.get();
    await().atMost(Duration.ofSeconds(30)).until(() -> sent.get() > afterFirst + 2_000);
    final SpotRelocationResult second = b.relocateSpot(new SpotId(ROOM), c.nodeRid()).get(60, TimeUnit.SECONDS);
    final long afterSecond = sent.get();
    await().atMost(Duration.ofSeconds(30)).until(() -> sent.get() > afterSecond + 2_000);
    stop.set(true);
    sender.join(TimeUnit.SECONDS.toMillis(30));
    await().atMost(Duration.ofSeconds(60)).until(() -> HANDLED.get() >= sent.get());

    assertThat(HANDLED.get()).isEqualTo(sent.get()); // nothing lost or duplicated
    for (List<Long> seqs : SEEN.values()) { // nor reordered, per participant
      for (int i = 1; i < seqs.size(); i++) {
        assertThat(seqs.get(i)).isGreaterThan(seqs.get(i - 1));
      }
    }
    final NodeRid expected = c.nodeRid();
    assertThat(owner(ObjectKey.spot(ROOM))).isEqualTo(expected.hex());
    for (int i = 0; i < members; i++) {
      assertThat(owner(ObjectKey.actor("r" + i))).isEqualTo(expected.hex());
    }
    assertThat(first.members()).isEqualTo(members);
    assertThat(second.members()).isEqualTo(members);
    System.out.printf("redis aggregate of %d members: pause A->B %d ms, B->C %d ms, %d notes%n", members,
        first.paused().toMillis(), second.paused().toMillis(), sent.get());
  }
}
