package dev.spotkit.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.spotkit.core.internal.relocation.AggregateSeal;
import dev.spotkit.core.internal.runtime.NodeRuntime;
import dev.spotkit.core.location.AggregatePointer;
import dev.spotkit.core.location.AuthorityRecord;
import dev.spotkit.core.location.InventoryTree;
import dev.spotkit.core.location.LocationRecords;
import dev.spotkit.core.location.ObjectKey;
import dev.spotkit.relocation.wire.ChunkPlan;
import dev.spotkit.relocation.wire.RelocationEnvelope;
import dev.spotkit.relocation.wire.RelocationEnvelopeCodec;
import dev.spotkit.store.InMemoryLocationStore;
import dev.spotkit.store.ReadResult;
import dev.spotkit.testkit.TestMesh;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The source half of a SpotWide User Spot aggregate move (spec 000 section 7 steps 1-4): typed checks, the reversible
 * seal at the room's turn boundary, capture of each participant by its policy, the inventory in the Location Store,
 * and the whole room in one envelope with a CRC-32C chunk plan.
 */
class AggregateSealTest {
  static final int MEMBERS = 40;

  record Join(String roomId) {
  }

  record Note(String sender, int seq) {
  }

  record Hold() {
  }

  /** Every handled Note, per receiver: "sender:seq". */
  static final Map<String, List<String>> SEEN = new ConcurrentHashMap<>();
  static final AtomicInteger JOINS = new AtomicInteger();
  static final AtomicInteger SPOT_CAPTURES = new AtomicInteger();
  static final AtomicInteger ACTOR_CAPTURES = new AtomicInteger();
  static volatile CountDownLatch HELD = new CountDownLatch(1);
  static volatile CountDownLatch RELEASE = new CountDownLatch(1);

  static final class Member implements Actor {
    private final ActorContext ctx;
    int notes;

    Member(final ActorContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public void configure(final ActorHandlers on) {
      on.message(Join.class, j -> ctx.joinSpot(j.roomId()).defer())
          .message(Note.class, n -> {
            notes++;
            SEEN.computeIfAbsent(ctx.self().id().value(), k -> new CopyOnWriteArrayList<>()).add(n.sender() + ":"
                + n.seq());
          });
    }

    @Override
    public void onJoinCompleted(final JoinResult result) {
      JOINS.incrementAndGet();
    }
  }

  static final class Room implements UserSpot<Member> {
    private final UserSpotContext ctx;
    int notes;

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
        SEEN.computeIfAbsent("room", k -> new CopyOnWriteArrayList<>()).add(n.sender() + ":" + n.seq());
      }).message(Hold.class, h -> {
        HELD.countDown();
        RELEASE.await(10, TimeUnit.SECONDS);
      });
    }
  }

  static final class RoomState implements SpotRelocationAdapter<Room> {
    @Override
    public byte[] capture(final Room spot) {
      SPOT_CAPTURES.incrementAndGet();
      return ("room:" + spot.notes).getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void restore(final Room spot, final byte[] state) {
    }
  }

  static final class MemberState implements ActorRelocationAdapter<Member> {
    @Override
    public byte[] capture(final Member actor) {
      ACTOR_CAPTURES.incrementAndGet();
      return ("member:" + actor.notes).getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void restore(final Member actor, final byte[] state) {
    }
  }

  private TestMesh mesh;
  private InMemoryLocationStore store;
  private volatile boolean nextDisableMembers;
  private volatile boolean nextHall;

  private MeshNode node(final boolean disableMembers) {
    return node(disableMembers, false);
  }

  private static void register(final ObjectServerBuilder s, final boolean disableMembers, final boolean hall) {
    s.entrySpot(TestNodes.PlainEntry::new)
        .actor("member", Member::new, a -> {
          if (disableMembers) {
            a.disableRelocation();
          } else {
            a.preserveStateWith(new MemberState());
          }
        })
        .userSpot("room", Room::new, o -> o.spotWide().preserveStateWith(new RoomState()))
        .userSpot("per", Room::new, o -> o.perActor().recreateOnRelocation());
    if (hall) {
      s.userSpot("hall", Room::new, o -> o.spotWide().recreateOnRelocation());
    }
  }

  /** The next node of the mesh; {@code hall}: it also has the "hall" type, so a hall is placed on it. */
  private MeshNode node(final boolean disableMembers, final boolean hall) {
    nextDisableMembers = disableMembers;
    nextHall = hall;
    if (mesh == null) {
      mesh = TestMesh.builder().meshName("mesh").objectServer(s -> register(s, false, false))
          .customize((b, i) -> b.objectServer(s -> register(s, nextDisableMembers, nextHall)))
          .start(1);
      store = mesh.locationStore();
      return mesh.node(0);
    }
    return mesh.addNode();
  }

  @org.junit.jupiter.api.BeforeEach
  void reset() {
    HELD = new CountDownLatch(1);
    RELEASE = new CountDownLatch(1);
    SEEN.clear();
    SPOT_CAPTURES.set(0);
    ACTOR_CAPTURES.set(0);
  }

  @AfterEach
  void close() {
    RELEASE.countDown();
    if (mesh != null) {
      mesh.close();
    }
  }

  private static NodeRuntime rt(final MeshNode node) throws ReflectiveOperationException {
    return TestNodes.runtime(node);
  }

  private void room(final MeshNode node, final int members) {
    node.spots().getOrCreate("room-1", "room").await();
    final int before = JOINS.get();
    for (int i = 0; i < members; i++) {
      node.actors().getOrCreate("m" + i, "member").await();
      node.toActor("m" + i).send(new Join("room-1"));
    }
    await().atMost(Duration.ofSeconds(20)).until(() -> JOINS.get() - before == members);
  }

  @Test
  @Spec("SPOT-07")
  void aSealTakesEveryParticipantAtOneTurnBoundaryAndARestoreLosesNothing() throws Exception {
    final MeshNode a = node(false);
    room(a, MEMBERS); // before b starts: every participant is placed on a
    a.spots().getOrCreate("room-2", "room").await();
    final MeshNode b = node(false, true);
    final int capturesBefore = ACTOR_CAPTURES.get() + SPOT_CAPTURES.get();
    a.toSpot("room-1").send(new Hold()); // the room's gate is busy: what follows queues behind it
    assertThat(HELD.await(10, TimeUnit.SECONDS)).isTrue();
    for (int seq = 0; seq < 5; seq++) {
      a.toSpot("room-1").send(new Note("s", seq));
      for (int i = 0; i < MEMBERS; i++) {
        a.toActor("m" + i).send(new Note("s", seq));
      }
    }
    final var sealing = AggregateSeal.seal(rt(a), "room-1", b.nodeRid());
    RELEASE.countDown(); // the turn ends; the seal runs at the boundary before any queued Note
    final AggregateSeal seal = sealing.get(10, TimeUnit.SECONDS);
    assertThat(SEEN).isEmpty(); // must never: a queued message run after the seal
    assertThat(capturesBefore).isZero();
    assertThat(SPOT_CAPTURES.get()).isEqualTo(1);
    assertThat(ACTOR_CAPTURES.get()).isEqualTo(MEMBERS); // each member's adapter, separately
    assertThat(seal.participants()).hasSize(MEMBERS + 1);
    assertThat(seal.capturedCounts().values()).containsOnly(5);
    // arrivals after the seal are held, not run
    for (int seq = 5; seq < 8; seq++) {
      a.toSpot("room-1").send(new Note("s", seq));
      a.toActor("m0").send(new Note("s", seq));
    }
    // the envelope: the whole room, each participant's state and queue, and a verified chunk plan
    final RelocationEnvelope envelope = seal.envelope();
    assertThat(envelope.applicationStates()).hasSize(MEMBERS + 1);
    assertThat(envelope.savedWork()).hasSize(5 * (MEMBERS + 1));
    final ChunkPlan plan = seal.chunks(ChunkPlan.UNNEGOTIATED_CHUNK_BYTES);
    final java.io.ByteArrayOutputStream joined = new java.io.ByteArrayOutputStream();
    for (long i = 0; i < plan.chunkCount(); i++) {
      joined.writeBytes(plan.chunk(i));
    }
    assertThat(ChunkPlan.crc32c(joined.toByteArray())).isEqualTo(plan.checksumCrc32c());
    assertThat(RelocationEnvelopeCodec.decode(joined.toByteArray())).isEqualTo(envelope);
    // the Location Store: the inventory and the pointing member rows; the owner is still this node
    final InventoryTree tree = seal.stored().tree();
    assertThat(tree.count()).isEqualTo(MEMBERS + 1);
    final var row = ((ReadResult.Found) store.read(ObjectKey.actor("m3").logicalKey().preimage())
        .toCompletableFuture().join()).value();
    assertThat(AggregatePointer.spotOf(AuthorityRecord.decode(row).payload())).contains("room-1");
    assertThat(LocationRecords.read(store, ObjectKey.actor("m3")).orElseThrow().authority().allocation()
        .routingIdHex()).isEqualTo(a.nodeRid().hex());

    seal.restore().get(10, TimeUnit.SECONDS);

    await().atMost(Duration.ofSeconds(10)).until(() -> SEEN.getOrDefault("room", List.of()).size() == 8
        && SEEN.getOrDefault("m0", List.of()).size() == 8);
    final List<String> inOrder = List.of("s:0", "s:1", "s:2", "s:3", "s:4", "s:5", "s:6", "s:7");
    assertThat(SEEN.get("room")).containsExactlyElementsOf(inOrder); // nothing lost, duplicated or reordered
    assertThat(SEEN.get("m0")).containsExactlyElementsOf(inOrder);
    await().atMost(Duration.ofSeconds(10)).until(() -> SEEN.size() == MEMBERS + 1
        && SEEN.values().stream().allMatch(l -> l.size() >= 5));
    for (int i = 1; i < MEMBERS; i++) {
      assertThat(SEEN.get("m" + i)).containsExactlyElementsOf(inOrder.subList(0, 5));
    }
    // the room serves again, joins included
    a.actors().getOrCreate("late", "member").await();
    final int before = JOINS.get();
    a.toActor("late").send(new Join("room-1"));
    await().atMost(Duration.ofSeconds(10)).until(() -> JOINS.get() == before + 1);
    // a member whose row the seal pointed at the aggregate still writes it: it leaves for another room here
    a.toActor("m3").send(new Join("room-2"));
    await().atMost(Duration.ofSeconds(10)).until(() -> JOINS.get() == before + 2);
    assertThat(LocationRecords.read(store, ObjectKey.actor("m3")).orElseThrow().record().membership())
        .isEqualTo("room-2");
    // and one leaves for a hall on another node: its join's fence is the pointed row's (owner of the aggregate)
    b.spots().getOrCreate("hall-1", "hall").await(); // only b has the type
    a.toActor("m4").send(new Join("hall-1"));
    await().atMost(Duration.ofSeconds(10)).until(() -> JOINS.get() == before + 3);
    final var m4 = LocationRecords.read(store, ObjectKey.actor("m4")).orElseThrow();
    assertThat(m4.record().membership()).isEqualTo("hall-1");
    assertThat(m4.authority().allocation().routingIdHex()).isEqualTo(b.nodeRid().hex());
  }

  @Test
  void theChecksAnswerWithTypedErrorsAndChangeNothing() throws Exception {
    final MeshNode a = node(false);
    room(a, 2);
    a.spots().getOrCreate("per-1", "per").await();
    final MeshNode b = node(false);
    assertThatThrownBy(() -> AggregateSeal.check(rt(a), "nope", b.nodeRid()))
        .isInstanceOf(SpotkitException.NotFound.class).hasMessage("move of spot 'nope' to node " + b.nodeRid()
            + ": no spot 'nope' in mesh mesh");
    // a PerActor User Spot passes the checks: its shell moves, then each member (PerActorSpotMoveTest)
    assertThat(AggregateSeal.check(rt(a), "per-1", b.nodeRid()).id).isEqualTo("per-1");
    assertThatThrownBy(() -> AggregateSeal.check(rt(b), "room-1", a.nodeRid()))
        .isInstanceOf(SpotkitException.InvalidOperation.class).hasMessageContaining("the spot is owned by node "
            + a.nodeRid().hex() + ", not by this node");
    assertThatThrownBy(() -> AggregateSeal.check(rt(a), "room-1", a.nodeRid()))
        .isInstanceOf(SpotkitException.InvalidOperation.class).hasMessageContaining("the target is this node");
    assertThatThrownBy(() -> AggregateSeal.check(rt(a), "room-1", new NodeRid(0x7777)))
        .isInstanceOf(SpotkitException.Unavailable.class).hasMessageContaining("published no descriptor");
    assertThat(AggregateSeal.check(rt(a), "room-1", b.nodeRid()).id).isEqualTo("room-1");
  }

  @Test
  void aDisableRelocationMemberKeepsTheWholeRoomServingWithoutACapture() throws Exception {
    final MeshNode a = node(true);
    room(a, 3);
    final MeshNode b = node(true);
    final int captures = ACTOR_CAPTURES.get() + SPOT_CAPTURES.get();
    assertThatThrownBy(() -> AggregateSeal.seal(rt(a), "room-1", b.nodeRid()).join())
        .isInstanceOf(CompletionException.class).cause().isInstanceOf(SpotkitException.Rejected.class)
        .hasMessageContaining("registered with DisableRelocation: actor 'm");
    assertThat(ACTOR_CAPTURES.get() + SPOT_CAPTURES.get()).isEqualTo(captures);
    a.toActor("m1").send(new Note("x", 1));
    a.toSpot("room-1").send(new Note("x", 1));
    await().atMost(Duration.ofSeconds(10)).until(() -> SEEN.containsKey("m1") && SEEN.containsKey("room"));
  }
}
