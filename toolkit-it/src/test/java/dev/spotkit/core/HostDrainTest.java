package dev.spotkit.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.spotkit.core.location.LocationRecords;
import dev.spotkit.core.location.ObjectKey;
import dev.spotkit.store.InMemoryLocationStore;
import dev.spotkit.testkit.TestMesh;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link MeshNode#relocate(RelocateOptions)} and {@link MeshNode.Builder#drainOnClose}: a host drain moves every
 * Entry Spot actor and every SpotWide room with its members off a node, over loopback TCP between real nodes, while
 * senders keep writing (FACTS.md "Host relocation"; spec 000 sections 4.2 and 7). Forbidden outcomes: a note lost,
 * duplicated or reordered per sender per receiver; an object left on the drained node; two owners.
 */
class HostDrainTest {

  record Join(String roomId) {
  }

  record Note(String sender, long seq) {
  }

  record Count() {
  }

  record Members() {
  }

  /** The offered load of one sender: one message per 250 us. */
  static final long SEND_INTERVAL_NANOS = 250_000;
  /** Every handled Note per receiver id: sender and seq, in handling order. */
  static final Map<String, List<Note>> SEEN = new ConcurrentHashMap<>();
  /** Per receiver, the node (first 4 hex digits) each SEEN note ran on, in the same order: printed on a failure. */
  static final Map<String, List<String>> RAN = new ConcurrentHashMap<>();
  static final AtomicLong HANDLED = new AtomicLong();
  static final AtomicInteger JOINS = new AtomicInteger();
  /** Actor id to the room its join was accepted into. */
  static final Map<String, String> ACCEPTED = new ConcurrentHashMap<>();
  /** Rooms that got OnClosing, with the reason. */
  static final List<String> CLOSINGS = new CopyOnWriteArrayList<>();
  static final List<String> FAILURES = new CopyOnWriteArrayList<>();

  static final class Member implements Actor {
    private final ActorContext ctx;
    long notes;

    Member(final ActorContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public void configure(final ActorHandlers on) {
      on.message(Join.class, j -> ctx.joinSpot(j.roomId()).defer())
          .message(Note.class, n -> {
            notes++;
            SEEN.computeIfAbsent(ctx.self().id().value(), k -> Collections.synchronizedList(new ArrayList<>())).add(n);
            RAN.computeIfAbsent(ctx.self().id().value(), k -> Collections.synchronizedList(new ArrayList<>()))
                .add(ctx.self().nodeRid().hex().substring(0, 4));
            HANDLED.incrementAndGet();
          })
          .request(Count.class, c -> notes);
    }

    @Override
    public void onJoinCompleted(final JoinResult result) {
      if (result instanceof JoinResult.Accepted accepted) {
        ACCEPTED.put(ctx.self().id().value(), accepted.spot().id().value());
      }
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
        SEEN.computeIfAbsent(ctx.self().id().value(), k -> Collections.synchronizedList(new ArrayList<>())).add(n);
        RAN.computeIfAbsent(ctx.self().id().value(), k -> Collections.synchronizedList(new ArrayList<>()))
            .add(ctx.self().nodeRid().hex().substring(0, 4));
        HANDLED.incrementAndGet();
      }).request(Count.class, c -> notes).request(Members.class, m -> ctx.members().size());
    }

    @Override
    public void onClosing(final ClosingContext closing) {
      CLOSINGS.add(ctx.self().id().value() + ":" + closing.reason());
    }
  }

  static final class Solo implements UserSpot<Member> {
    private final UserSpotContext ctx;

    Solo(final UserSpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public UserSpotContext context() {
      return ctx;
    }
  }

  static final class RoomState implements SpotRelocationAdapter<Room> {
    @Override
    public byte[] capture(final Room spot) {
      return ByteBuffer.allocate(8).putLong(spot.notes).array();
    }

    @Override
    public void restore(final Room spot, final byte[] state) {
      spot.notes = ByteBuffer.wrap(state).getLong();
    }
  }

  static final class MemberState implements ActorRelocationAdapter<Member> {
    @Override
    public byte[] capture(final Member actor) {
      return ByteBuffer.allocate(8).putLong(actor.notes).array();
    }

    @Override
    public void restore(final Member actor, final byte[] state) {
      actor.notes = ByteBuffer.wrap(state).getLong();
    }
  }

  private TestMesh mesh;
  private InMemoryLocationStore store;
  private volatile RelocateOptions nextDrainOnClose;
  /** The node without a mesh of {@link #misuseIsATypedError}. */
  private MeshNode lone;

  /** The next node of the mesh; {@code drainOnClose}: what its close drains, null for none. */
  private MeshNode node(final RelocateOptions drainOnClose) {
    nextDrainOnClose = drainOnClose;
    if (mesh == null) {
      mesh = TestMesh.builder().meshName("mesh")
          .objectServer(s -> s.entrySpot(TestNodes.PlainEntry::new)
              .userSpot("room", Room::new, o -> o.spotWide().preserveStateWith(new RoomState()))
              .userSpot("solo", Solo::new, o -> o.perActor().recreateOnRelocation())
              .actor("member", Member::new, a -> a.preserveStateWith(new MemberState())))
          .customize((b, i) -> {
            if (nextDrainOnClose != null) {
              b.drainOnClose(nextDrainOnClose);
            }
          })
          .start(1);
      store = mesh.locationStore();
      return mesh.node(0);
    }
    return mesh.addNode();
  }

  @BeforeEach
  void reset() {
    SEEN.clear();
    RAN.clear();
    HANDLED.set(0);
    JOINS.set(0);
    ACCEPTED.clear();
    CLOSINGS.clear();
    FAILURES.clear();
  }

  @AfterEach
  void close() {
    if (mesh != null) {
      mesh.close();
    }
    if (lone != null) {
      lone.close();
    }
  }

  /** {@code rooms} rooms "r{i}" with {@code members} members "r{i}m{j}" each, and {@code loners} Entry actors. */
  private List<String> populate(final MeshNode node, final int rooms, final int members, final int loners) {
    final List<String> ids = new ArrayList<>();
    for (int i = 0; i < rooms; i++) {
      node.spots().getOrCreate("r" + i, "room").await();
      ids.add("r" + i);
      for (int j = 0; j < members; j++) {
        node.actors().getOrCreate("r" + i + "m" + j, "member").await();
        node.toActor("r" + i + "m" + j).send(new Join("r" + i));
        ids.add("r" + i + "m" + j);
      }
    }
    for (int k = 0; k < loners; k++) {
      node.actors().getOrCreate("e" + k, "member").await();
      ids.add("e" + k);
    }
    await().atMost(Duration.ofSeconds(30)).until(() -> JOINS.get() == rooms * members);
    return ids;
  }

  private String owner(final String id) {
    final ObjectKey key = id.contains("m") || id.startsWith("e") || id.startsWith("j") ? ObjectKey.actor(id)
        : ObjectKey.spot(id);
    return LocationRecords.read(store, key).orElseThrow().authority().allocation().routingIdHex();
  }

  /**
   * One sender: Note(name, seq) to each receiver in turn, until stopped, at chat traffic's pace (an offered load of
   * {@link #SEND_INTERVAL_NANOS} per message, 4,000 per second, not as fast as the cores allow: a drain on a
   * saturated machine waits on the mesh's queues, not on the drain); at most 2,000 unhandled (backpressure).
   */
  private Thread sender(final MeshNode from, final String name, final List<String> to, final AtomicBoolean stop,
      final AtomicLong sent) {
    return Thread.ofPlatform().daemon().name("sender-" + name).start(() -> {
      long nextAt = System.nanoTime();
      for (long seq = 0; seq < 2_000_000 && !stop.get(); seq++) {
        nextAt += SEND_INTERVAL_NANOS;
        for (int spins = 0; (sent.get() - HANDLED.get() > 2_000 || System.nanoTime() - nextAt < 0) && !stop.get()
            && spins < 400_000; spins++) {
          LockSupport.parkNanos(50_000);
        }
        final String id = to.get((int) (seq % to.size()));
        try {
          if (id.startsWith("r") && !id.contains("m")) {
            from.toSpot(id).send(new Note(name, seq));
          } else {
            from.toActor(id).send(new Note(name, seq));
          }
        } catch (RuntimeException e) {
          FAILURES.add(name + " seq " + seq + " to " + id + ": " + e);
          return;
        }
        sent.incrementAndGet();
      }
    });
  }

  /** Up to 12 notes of {@code sender} handled by {@code id} before index {@code at} and 6 after, with their node. */
  private static String around(final String id, final String sender, final int at) {
    final List<Note> notes = SEEN.get(id);
    final List<String> nodes = RAN.get(id);
    final List<String> out = new ArrayList<>();
    for (int i = Math.max(0, at - 60); i < Math.min(notes.size(), at + 30); i++) {
      if (notes.get(i).sender().equals(sender)) {
        out.add((i == at ? "*" : "") + notes.get(i).seq() + "@" + (i < nodes.size() ? nodes.get(i) : "?"));
      }
    }
    return String.join(" ", out);
  }

  /** Nothing lost or duplicated in total, and per receiver each sender's seqs only grow. */
  private static void assertExactlyOnceInOrder(final long total) {
    await().atMost(Duration.ofSeconds(30)).until(() -> HANDLED.get() >= total);
    assertThat(HANDLED.get()).isEqualTo(total);
    assertThat(SEEN.values().stream().mapToLong(List::size).sum()).isEqualTo(total);
    for (Map.Entry<String, List<Note>> e : SEEN.entrySet()) {
      final Map<String, Long> last = new HashMap<>();
      final List<Note> notes = e.getValue();
      for (int i = 0; i < notes.size(); i++) {
        final Note n = notes.get(i);
        final Long before = last.put(n.sender(), n.seq());
        assertThat(before == null || before < n.seq()).as("%s after %s at %s; its sender's notes there around it"
            + " (seq@node): %s", n, before, e.getKey(), around(e.getKey(), n.sender(), i)).isTrue();
      }
    }
  }

  @Test
  @Spec("LOC-20")
  @Spec("SPOT-07")
  @Spec("REL-02")
  void aDrainMovesEveryRoomWithItsMembersAndEveryEntryActorWhileSendersWrite() throws Exception {
    final MeshNode a = node(null);
    final List<String> ids = populate(a, 12, 2, 8);
    final MeshNode b = node(null);
    final MeshNode c = node(null);
    final AtomicBoolean stop = new AtomicBoolean();
    final AtomicLong fromA = new AtomicLong();
    final AtomicLong fromB = new AtomicLong();
    final List<Thread> senders = List.of(sender(a, "a", ids, stop, fromA), sender(b, "b", ids, stop, fromB));
    await().atMost(Duration.ofSeconds(10)).until(() -> fromA.get() > 500 && fromB.get() > 500);

    final RelocateResult result = a.relocate(RelocateOptions.drainAnywhere()).get(60, TimeUnit.SECONDS);

    assertThat(result.kept()).isEmpty();
    assertThat(result.outcome()).isEqualTo(RelocateResult.Outcome.RELOCATED);
    assertThat(result.actors()).hasSize(8);
    assertThat(result.rooms()).hasSize(12);
    assertThat(result.roomMembers()).isEqualTo(24);
    assertThat(result.safeToShutdown()).isFalse(); // the follow windows still run
    assertThat(result.followEndsIn()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(30));
    final long afterDrain = fromA.get() + fromB.get();
    await().atMost(Duration.ofSeconds(10)).until(() -> fromA.get() + fromB.get() > afterDrain + 1_000);
    stop.set(true);
    for (Thread t : senders) {
      t.join(TimeUnit.SECONDS.toMillis(30));
    }
    assertThat(FAILURES).isEmpty();
    assertExactlyOnceInOrder(fromA.get() + fromB.get());

    // every unit is owned by b or c, none by a; both targets took some (weighted round-robin)
    final Set<String> owners = new HashSet<>();
    for (String id : ids) {
      final String owner = owner(id);
      assertThat(owner).as(id).isNotEqualTo(a.nodeRid().hex()).isIn(b.nodeRid().hex(), c.nodeRid().hex());
      owners.add(owner);
    }
    assertThat(owners).hasSize(2);
    // a room's members are where the room is
    for (int i = 0; i < 12; i++) {
      assertThat(owner("r" + i + "m1")).isEqualTo(owner("r" + i));
    }
    // state moved: each unit's count is every note it handled
    for (String id : List.of("r3", "r7m0", "e5")) {
      final Target to = id.startsWith("r") && !id.contains("m") ? b.toSpot(id) : b.toActor(id);
      assertThat(to.request(new Count(), Long.class).timeout(Duration.ofSeconds(10)).await())
          .isEqualTo(SEEN.get(id).size());
    }
    assertThat(CLOSINGS).isEmpty(); // no room was closed by the drain
  }

  /**
   * Cross-node joins into the drained node's rooms race the drain: a join whose approval the room gave is still on
   * its way (the actor's Restore on the room's node, then the CAS) when the room's move is asked for. The seal waits
   * for it, so no accepted joiner becomes a member of a room that already moved away (under load it did: the joined
   * actor sat in the old node's copy of the room, and its lines reached nobody).
   */
  @Test
  @Spec("MEM-36")
  void aDrainWhileActorsOfOtherNodesJoinItsRoomsKeepsEveryAcceptedJoinerWithItsRoom() throws Exception {
    final MeshNode a = node(null);
    populate(a, 6, 0, 0);
    final MeshNode b = node(null);
    final MeshNode c = node(null);
    for (int k = 0; k < 30; k++) {
      b.actors().getOrCreate("j" + k, "member").await();
    }
    for (int k = 0; k < 30; k++) {
      b.toActor("j" + k).send(new Join("r" + (k % 6)));
    }
    // the drain starts once the first join committed, while the others are still on their way: on a loaded machine a
    // drain started at once could seal every room before any join got there (CI saw all 30 refused), and then this
    // test would show nothing of the race it is about
    await().atMost(Duration.ofSeconds(30)).until(() -> !ACCEPTED.isEmpty());

    final RelocateResult result = a.relocate(RelocateOptions.drainAnywhere()).get(60, TimeUnit.SECONDS);
    await().atMost(Duration.ofSeconds(30)).until(() -> JOINS.get() == 30);

    // a joiner that arrived on the drained node as the drain listed its actors is LEFT (it is a room member now)
    assertThat(result.kept()).allSatisfy(k -> assertThat(k.reason()).isEqualTo(RelocateResult.Reason.LEFT));
    assertThat(result.rooms()).hasSize(6);
    assertThat(ACCEPTED).isNotEmpty(); // joins that met a sealed room failed (Unavailable, retry): not members
    for (int i = 0; i < 6; i++) {
      final String room = "r" + i;
      final long joined = ACCEPTED.values().stream().filter(room::equals).count();
      assertThat(owner(room)).isIn(b.nodeRid().hex(), c.nodeRid().hex());
      assertThat(c.toSpot(room).request(new Members(), Integer.class).timeout(Duration.ofSeconds(10)).await())
          .as("members of %s where it is now", room).isEqualTo((int) joined);
    }
    for (Map.Entry<String, String> e : ACCEPTED.entrySet()) {
      assertThat(owner(e.getKey())).as("%s, a member of %s", e.getKey(), e.getValue()).isEqualTo(owner(e.getValue()));
    }
  }

  /**
   * Two nodes drained at once (a rolling restart that stops two workers together): each may still see the other
   * Serving when it picks targets. A node being drained refuses a host move before relay-ready, and the drain tries
   * what was refused again on the targets read anew, so every room ends on the third node, none is left on a
   * drained node (where its close would end it).
   */
  @Test
  void twoNodesDrainedAtOnceMoveEverythingToTheNodeThatStaysNotToEachOther() throws Exception {
    final MeshNode a = node(null);
    final List<String> ids = new ArrayList<>(populate(a, 4, 2, 2));
    final MeshNode b = node(null);
    for (int i = 0; i < 3; i++) {
      final String room = Placed.spotOn(b, "s" + i);
      ids.add(room);
    }
    final MeshNode c = node(null);

    final var fromA = a.relocate(RelocateOptions.drainAnywhere());
    final var fromB = b.relocate(RelocateOptions.drainAnywhere());
    final RelocateResult ra = fromA.get(60, TimeUnit.SECONDS);
    final RelocateResult rb = fromB.get(60, TimeUnit.SECONDS);

    assertThat(ra.kept()).allSatisfy(k -> assertThat(k.reason()).isEqualTo(RelocateResult.Reason.LEFT));
    assertThat(rb.kept()).allSatisfy(k -> assertThat(k.reason()).isEqualTo(RelocateResult.Reason.LEFT));
    for (String id : ids) {
      assertThat(owner(id)).as(id).isEqualTo(c.nodeRid().hex());
    }
  }

  /**
   * The target side of the case above, made deterministic: a node that published Relocating (its drain runs)
   * refuses a room's move and an Entry actor's move before relay-ready; both stay serving on the source. Serving
   * again, it takes them.
   */
  @Test
  void aNodeBeingDrainedRefusesHostMovesBeforeRelayReadyAndTheUnitsStayServing() throws Exception {
    final MeshNode a = node(null);
    populate(a, 1, 1, 1);
    final MeshNode b = node(null);
    final java.lang.reflect.Field field = MeshNode.class.getDeclaredField("rt");
    field.setAccessible(true);
    final dev.spotkit.core.internal.runtime.NodeRuntime bRuntime =
        (dev.spotkit.core.internal.runtime.NodeRuntime) field.get(b);
    bRuntime.publishState(dev.spotkit.core.location.NodeState.RELOCATING); // as its own drain does first

    assertThatThrownBy(() -> a.relocateSpot(new SpotId("r0"), b.nodeRid()).get(30, TimeUnit.SECONDS))
        .hasCauseInstanceOf(SpotkitException.Unavailable.class).hasMessageContaining("being drained itself");
    final HostRelocationResult actors = a.relocate(b.nodeRid()).get(30, TimeUnit.SECONDS);
    assertThat(actors.relocated()).isEmpty();
    assertThat(actors.kept()).containsOnlyKeys(new ActorId("e0"));
    assertThat(owner("r0")).isEqualTo(a.nodeRid().hex());
    assertThat(owner("r0m0")).isEqualTo(a.nodeRid().hex());
    assertThat(owner("e0")).isEqualTo(a.nodeRid().hex());
    assertThat(b.toSpot("r0").request(new Count(), Long.class).timeout(Duration.ofSeconds(10)).await()).isZero();

    bRuntime.publishState(dev.spotkit.core.location.NodeState.SERVING);
    assertThat(a.relocateSpot(new SpotId("r0"), b.nodeRid()).get(30, TimeUnit.SECONDS).members()).isEqualTo(1);
    assertThat(owner("r0")).isEqualTo(b.nodeRid().hex());
  }

  @Test
  void aSenderOnTheNodeTheRoomsMoveToKeepsItsOrder() throws Exception {
    final MeshNode a = node(null);
    final List<String> ids = populate(a, 12, 2, 8);
    final MeshNode b = node(null);
    final AtomicBoolean stop = new AtomicBoolean();
    final AtomicLong fromB = new AtomicLong();
    final Thread sender = sender(b, "b", ids, stop, fromB);
    await().atMost(Duration.ofSeconds(10)).until(() -> fromB.get() > 500);
    assertThat(a.relocate(RelocateOptions.drainTo(b.nodeRid())).get(60, TimeUnit.SECONDS).kept()).isEmpty();
    final long afterDrain = fromB.get();
    await().atMost(Duration.ofSeconds(10)).until(() -> fromB.get() > afterDrain + 1_000);
    stop.set(true);
    sender.join(TimeUnit.SECONDS.toMillis(30));
    assertExactlyOnceInOrder(fromB.get());
  }

  @Test
  @Spec("SPOT-07")
  void closeWithDrainOnCloseMovesTheRoomsBeforeItCloses() throws Exception {
    final MeshNode a = node(RelocateOptions.drainAnywhere().deadline(Duration.ofSeconds(20)));
    final List<String> ids = populate(a, 6, 2, 3);
    final MeshNode b = node(null);
    final AtomicBoolean stop = new AtomicBoolean();
    final AtomicLong sent = new AtomicLong();
    final Thread s = sender(b, "b", ids, stop, sent);
    await().atMost(Duration.ofSeconds(10)).until(() -> sent.get() > 500);
    stop.set(true);
    s.join(TimeUnit.SECONDS.toMillis(30));
    await().atMost(Duration.ofSeconds(30)).until(() -> HANDLED.get() >= sent.get());

    a.close();

    assertThat(a.isClosed()).isTrue();
    assertThat(CLOSINGS).isEmpty(); // no OnClosing(HostShutdown): every room moved before the close
    for (String id : ids) {
      assertThat(owner(id)).as(id).isEqualTo(b.nodeRid().hex());
    }
    for (int i = 0; i < 6; i++) { // served on b with its state
      assertThat(b.toSpot("r" + i).request(new Count(), Long.class).timeout(Duration.ofSeconds(10)).await())
          .isEqualTo(SEEN.get("r" + i).size());
    }
    assertThat(b.toActor("e2").request(new Count(), Long.class).timeout(Duration.ofSeconds(10)).await())
        .isEqualTo(SEEN.get("e2").size());
    assertExactlyOnceInOrder(sent.get());
  }

  @Test
  void aFilterThatAdmitsNoTargetKeepsEverythingWithTypedReasons() throws Exception {
    final MeshNode a = node(null);
    final List<String> ids = populate(a, 3, 1, 2);
    a.spots().getOrCreate("solo-1", "solo").await();
    final MeshNode b = node(null);

    final RelocateResult result = a.relocate(RelocateOptions.drainAnywhere().filter(rid -> false))
        .get(30, TimeUnit.SECONDS);

    assertThat(result.outcome()).isEqualTo(RelocateResult.Outcome.BLOCKED);
    assertThat(result.actors()).isEmpty();
    assertThat(result.rooms()).isEmpty();
    assertThat(result.safeToShutdown()).isFalse();
    assertThat(result.kept(RelocateResult.Reason.NO_TARGET)).extracting(RelocateResult.Kept::id)
        .containsExactly("solo-1", "e0", "e1", "r0", "r1", "r2");
    assertThat(result.kept(RelocateResult.Reason.NO_TARGET)).allSatisfy(k -> {
      assertThat(k.servingHere()).isTrue();
      assertThat(k.error()).isInstanceOf(SpotkitException.Unavailable.class).hasMessageContaining("no target for");
    });
    assertThat(result.kept(RelocateResult.Reason.NO_TARGET).get(0).kind())
        .isEqualTo(RelocateResult.UnitKind.PER_ACTOR_SPOT); // the PerActor shell is visited first (FACTS.md)
    assertThat(result.kept(RelocateResult.Reason.NOT_SUPPORTED)).isEmpty();
    for (String id : ids) { // nothing moved, everything serves on a
      assertThat(owner(id)).as(id).isEqualTo(a.nodeRid().hex());
    }
    b.toActor("e1").send(new Note("x", 1));
    b.toSpot("r2").send(new Note("x", 1));
    await().atMost(Duration.ofSeconds(10)).until(() -> SEEN.containsKey("e1") && SEEN.containsKey("r2"));

    // a Blocked drain published Serving again: a second drain to b moves the rooms and actors
    final RelocateResult second = a.relocate(RelocateOptions.drainTo(b.nodeRid())).get(30, TimeUnit.SECONDS);
    assertThat(second.actors()).hasSize(2);
    assertThat(second.rooms()).hasSize(4); // three SpotWide rooms and the PerActor spot
    assertThat(second.kept()).isEmpty();
    assertThat(second.outcome()).isEqualTo(RelocateResult.Outcome.RELOCATED);
    assertThat(owner("r1m0")).isEqualTo(b.nodeRid().hex());
    assertThat(owner("solo-1")).isEqualTo(b.nodeRid().hex());
  }

  @Test
  void misuseIsATypedError() {
    assertThatThrownBy(() -> RelocateOptions.drainTo()).isInstanceOf(SpotkitException.InvalidOperation.class)
        .hasMessageContaining("drainTo needs one or more NodeRids");
    assertThatThrownBy(() -> RelocateOptions.drainAnywhere().parallelism(0))
        .isInstanceOf(SpotkitException.InvalidOperation.class).hasMessage("parallelism 0 must be 1..256");
    assertThatThrownBy(() -> RelocateOptions.drainAnywhere().deadline(Duration.ZERO))
        .isInstanceOf(SpotkitException.InvalidOperation.class);
    lone = TestNodes.server(s -> { });
    assertThatThrownBy(() -> lone.relocate(RelocateOptions.drainAnywhere()).join()).cause()
        .isInstanceOf(SpotkitException.NotConfigured.class).hasMessageContaining("needs a mesh");
  }
}
