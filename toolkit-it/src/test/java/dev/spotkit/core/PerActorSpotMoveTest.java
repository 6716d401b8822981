package dev.spotkit.core;

import static org.assertj.core.api.Assertions.assertThat;
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
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The move of a PerActor User Spot (spec 000 section 7; spec 001 sections 3 and 8; FACTS.md "Host relocation"):
 * its runtime-private shell moves first by one CAS of the Spot's authority (same SpotId and ObjectGeneration), then
 * each member Actor as its own unit, keeping its membership with no membership callback; the source shell closes with
 * RELOCATION_OUT after the last member. Real nodes on loopback TCP, by {@link MeshNode#relocateSpot} and by a host
 * drain, while senders write to the Spot and to members directly.
 */
class PerActorSpotMoveTest {
  static final String ROOM = "proom";
  /** A member id whose Restore the refusing target's factory fails. */
  static final String BAD = "bad";

  record Join(String roomId) {
  }

  record Note(String sender, long seq) {
  }

  record Count() {
  }

  record Where() {
  }

  record Hold() {
  }

  record Members() {
  }

  /** Every handled Note per receiver ("spot" or the ActorId), in handling order. */
  static final Map<String, List<Note>> SEEN = new ConcurrentHashMap<>();
  /** Where each handled Note ran, per receiver, in handling order: "{sender}:{seq}@{nodeRid hex}" (diagnostics). */
  static final Map<String, List<String>> WHERE = new ConcurrentHashMap<>();
  static final AtomicLong HANDLED = new AtomicLong();
  static final AtomicLong SENT = new AtomicLong();
  static final long WINDOW = 2_000;
  static final AtomicInteger JOINS = new AtomicInteger();
  static final AtomicInteger MEMBERSHIP_CALLBACKS = new AtomicInteger();
  /** OnClosing calls: "{spotId} {reason} {nodeRid hex}". */
  static final List<String> CLOSINGS = new CopyOnWriteArrayList<>();
  static final List<String> FAILURES = new CopyOnWriteArrayList<>();
  /** Opened by the test to end a {@link Hold} handler; {@link #HELD} counts down when one started. */
  static volatile CountDownLatch release = new CountDownLatch(0);
  static volatile CountDownLatch held = new CountDownLatch(1);
  /** Whether a refusing node's factory fails {@link #BAD} now. */
  static final AtomicBoolean REFUSING = new AtomicBoolean(true);

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
            WHERE.computeIfAbsent(ctx.self().id().value(), k -> Collections.synchronizedList(new ArrayList<>())).add(n.sender() + ":"
                + n.seq() + "@" + ctx.self().nodeRid().hex());
            HANDLED.incrementAndGet();
          })
          .request(Count.class, c -> notes)
          .request(Where.class, w -> ctx.self().nodeRid().hex())
          .message(Hold.class, h -> {
            held.countDown();
            try { // a handler held by the test: the member's own move waits for this turn's end
              if (!release.await(30, TimeUnit.SECONDS)) {
                FAILURES.add("hold of " + ctx.self().id() + " was never released");
              }
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          });
    }

    @Override
    public void onJoinCompleted(final JoinResult result) {
      JOINS.incrementAndGet();
    }
  }

  static final class Room implements UserSpot<Member> {
    private final UserSpotContext ctx;

    Room(final UserSpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public UserSpotContext context() {
      return ctx;
    }

    @Override
    public JoinDecision onActorJoin(final ActorId actor, final Object request) {
      MEMBERSHIP_CALLBACKS.incrementAndGet();
      return UserSpot.super.onActorJoin(actor, request);
    }

    @Override
    public void onJoinedActor(final ActorRef actor) {
      MEMBERSHIP_CALLBACKS.incrementAndGet();
    }

    @Override
    public void onLeaveActor(final ActorRef actor) {
      MEMBERSHIP_CALLBACKS.incrementAndGet();
    }

    @Override
    public void configure(final SpotHandlers on) {
      on.message(Note.class, n -> {
        SEEN.computeIfAbsent("spot", k -> Collections.synchronizedList(new ArrayList<>())).add(n);
        HANDLED.incrementAndGet();
      }).request(Where.class, w -> ctx.self().nodeRid().hex())
          .request(Members.class, m -> ctx.members().size());
    }

    @Override
    public void onClosing(final ClosingContext closing) {
      CLOSINGS.add(ctx.self().id().value() + " " + closing.reason() + " " + ctx.self().nodeRid().hex());
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
  private volatile boolean nextRefuseBad;
  private volatile boolean nextPinned;

  /** {@code refuseBad}: the member factory throws for {@link #BAD}; {@code pinned}: 2 workers, a "pinned" type. */
  private void configure(final MeshNode.Builder b, final boolean refuseBad, final boolean pinned) {
    if (pinned) {
      b.workers(2).objectServer(s -> s.entrySpot(TestNodes.PlainEntry::new)
          .userSpot("proom", Room::new, o -> o.perActor().recreateOnRelocation())
          .actor("member", Member::new, o -> o.preserveStateWith(new MemberState()))
          .actor("pinned", Member::new, o -> o.disableRelocation()));
      return;
    }
    final ActorFactory<Member> members = ctx -> {
      if (refuseBad && REFUSING.get() && BAD.equals(ctx.self().id().value())) {
        throw new IllegalStateException("this node refuses actor '" + BAD + "'");
      }
      return new Member(ctx);
    };
    b.requestTimeout(Duration.ofSeconds(10)).objectServer(s -> s.entrySpot(TestNodes.PlainEntry::new)
        .userSpot("proom", Room::new, o -> o.perActor().recreateOnRelocation())
        .actor("member", members, a -> a.preserveStateWith(new MemberState())));
  }

  /** The next node of the mesh; {@code refuseBad}: its member factory throws for {@link #BAD}. */
  private MeshNode node(final boolean refuseBad) {
    return next(refuseBad, false);
  }

  private MeshNode next(final boolean refuseBad, final boolean pinned) {
    nextRefuseBad = refuseBad;
    nextPinned = pinned;
    if (mesh == null) {
      mesh = TestMesh.builder().meshName("mesh").workers(4)
          .objectServer(s -> s.entrySpot(TestNodes.PlainEntry::new))
          .customize((b, i) -> configure(b, nextRefuseBad, nextPinned))
          .start(1);
      store = mesh.locationStore();
      return mesh.node(0);
    }
    return mesh.addNode();
  }

  @BeforeEach
  void reset() {
    SEEN.clear();
    WHERE.clear();
    HANDLED.set(0);
    SENT.set(0);
    JOINS.set(0);
    MEMBERSHIP_CALLBACKS.set(0);
    CLOSINGS.clear();
    FAILURES.clear();
    release = new CountDownLatch(0);
    held = new CountDownLatch(1);
    REFUSING.set(true);
  }

  @AfterEach
  void close() {
    release.countDown();
    if (mesh != null) {
      mesh.close();
    }
  }

  /** The PerActor room and its members {@code ids}, all on {@code node} (the only node running while made). */
  private void room(final MeshNode node, final List<String> ids) {
    node.spots().getOrCreate(ROOM, "proom").await();
    for (String id : ids) {
      node.actors().getOrCreate(id, "member").await();
      node.toActor(id).send(new Join(ROOM));
    }
    await().atMost(Duration.ofSeconds(30)).until(() -> JOINS.get() == ids.size());
  }

  private static List<String> members(final int n) {
    final List<String> ids = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      ids.add("m" + i);
    }
    return ids;
  }

  private String owner(final ObjectKey key) {
    return LocationRecords.read(store, key).orElseThrow().authority().allocation().routingIdHex();
  }

  /** One sender: Note(name, seq) to the Spot and to each member in turn, until stopped (at most {@code max}). */
  private Thread sender(final MeshNode from, final String name, final List<String> ids, final AtomicBoolean stop,
      final AtomicLong sent, final long max) {
    return Thread.ofPlatform().daemon().name("sender-" + name).start(() -> {
      for (long seq = 0; seq < max && !stop.get(); seq++) {
        // backpressure, not synchronisation: at most WINDOW notes of all senders unhandled (bounded wait)
        for (int spins = 0; SENT.get() - HANDLED.get() > WINDOW && !stop.get() && spins < 400_000; spins++) {
          LockSupport.parkNanos(50_000);
        }
        final int to = (int) (seq % (ids.size() + 1));
        try {
          if (to == ids.size()) {
            from.toSpot(ROOM).send(new Note(name, seq));
          } else {
            from.toActor(ids.get(to)).send(new Note(name, seq));
          }
        } catch (RuntimeException e) {
          FAILURES.add(name + " seq " + seq + ": " + e);
          return;
        }
        sent.incrementAndGet();
        SENT.incrementAndGet();
      }
    });
  }

  /** Every sender's notes arrived once each, and per receiver in the sender's order. */
  private static void assertExactlyOnceInOrder(final long total) {
    await().atMost(Duration.ofSeconds(30)).until(() -> SEEN.values().stream().mapToLong(List::size).sum() >= total);
    assertThat(SEEN.values().stream().mapToLong(List::size).sum()).isEqualTo(total);
    for (Map.Entry<String, List<Note>> e : SEEN.entrySet()) {
      final Map<String, Long> last = new HashMap<>();
      final List<Note> notes = e.getValue();
      for (int i = 0; i < notes.size(); i++) {
        final Note n = notes.get(i);
        final Long before = last.put(n.sender(), n.seq());
        if (before != null && before >= n.seq()) {
          final List<String> where = WHERE.getOrDefault(e.getKey(), List.of());
          final int from = Math.min(where.size(), Math.max(0, i - 6));
          assertThat(n.seq()).as("%s after %s at %s; handled around it: %s", n, before, e.getKey(),
              where.subList(from, Math.min(where.size(), Math.max(from, i + 3)))).isGreaterThan(before);
        }
      }
    }
  }

  @Test
  @Spec("REL-01")
  void aPerActorRoomMovesShellFirstThenEachMemberWhileSendersWriteToTheSpotAndToMembers() throws Exception {
    final List<String> ids = members(8);
    final MeshNode a = node(false);
    room(a, ids);
    final MeshNode b = node(false);
    final int callbacksBefore = MEMBERSHIP_CALLBACKS.get();
    final AtomicBoolean stop = new AtomicBoolean();
    final List<AtomicLong> sent = List.of(new AtomicLong(), new AtomicLong(), new AtomicLong());
    final List<Thread> senders = List.of(sender(a, "s0", ids, stop, sent.get(0), 2_000_000),
        sender(a, "s1", ids, stop, sent.get(1), 2_000_000), sender(b, "s2", ids, stop, sent.get(2), 2_000_000));
    await().atMost(Duration.ofSeconds(30)).until(() -> sent.get(0).get() > 1_000); // traffic before the move

    final long moveStart = System.nanoTime();
    final SpotRelocationResult moved = a.relocateSpot(new SpotId(ROOM), b.nodeRid()).get(60, TimeUnit.SECONDS);
    System.out.printf("PerActor room of %d members moved: Spot pause %d ms, %d ms in all%n", ids.size(),
        moved.paused().toMillis(), (System.nanoTime() - moveStart) / 1_000_000);
    final long after = sent.get(0).get();
    await().atMost(Duration.ofSeconds(30)).until(() -> sent.get(0).get() > after + 1_000); // traffic after it
    stop.set(true);
    for (Thread t : senders) {
      t.join(TimeUnit.SECONDS.toMillis(30));
    }
    assertThat(FAILURES).isEmpty();
    assertThat(moved.spot().nodeRid()).isEqualTo(b.nodeRid());
    assertThat(moved.members()).isEqualTo(ids.size());
    assertThat(moved.keptMembers()).isEmpty();
    assertThat(moved.movedMembers()).extracting(r -> r.id().value()).containsExactlyInAnyOrderElementsOf(ids);
    assertThat(moved.movedMembers()).allSatisfy(r -> assertThat(r.nodeRid()).isEqualTo(b.nodeRid()));
    // one owner: the Location Store names b for the Spot (same ObjectGeneration) and for every member
    final var spotRow = LocationRecords.read(store, ObjectKey.spot(ROOM)).orElseThrow().authority();
    assertThat(spotRow.allocation().routingIdHex()).isEqualTo(b.nodeRid().hex());
    assertThat(spotRow.objectGeneration()).isEqualTo(moved.spot().generation());
    for (String id : ids) {
      assertThat(owner(ObjectKey.actor(id))).as(id).isEqualTo(b.nodeRid().hex());
    }
    assertExactlyOnceInOrder(sent.stream().mapToLong(AtomicLong::get).sum());
    // members kept their membership and state; no membership callback ran for them
    assertThat(a.toSpot(ROOM).request(new Members(), Integer.class).timeout(Duration.ofSeconds(10)).await())
        .isEqualTo(ids.size());
    for (String id : ids) {
      assertThat(a.toActor(id).request(new Count(), Long.class).timeout(Duration.ofSeconds(10)).await())
          .isEqualTo(SEEN.getOrDefault(id, List.of()).size());
    }
    assertThat(MEMBERSHIP_CALLBACKS.get()).isEqualTo(callbacksBefore);
    // the source shell ended with RELOCATION_OUT once every member moved
    await().atMost(Duration.ofSeconds(10)).until(() -> !CLOSINGS.isEmpty());
    assertThat(CLOSINGS).containsExactly(ROOM + " RELOCATION_OUT " + a.nodeRid().hex());
  }

  @Test
  @Spec("REL-01")
  void aHalfMovedRoomServesEachHalfWhereItIsAndClosesTheSourceShellOnlyAfterTheLastMember() throws Exception {
    final List<String> ids = members(3);
    final MeshNode a = node(false);
    room(a, ids);
    final MeshNode b = node(false);
    release = new CountDownLatch(1);
    a.toActor("m1").send(new Hold()); // m1's turn runs until released: its own move must wait for it
    assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();

    final CompletableFuture<SpotRelocationResult> move = a.relocateSpot(new SpotId(ROOM), b.nodeRid());
    // deterministic half-moved state: the Spot and m0, m2 on b; m1 still on a (its handler holds its gate)
    await().atMost(Duration.ofSeconds(30)).until(() -> owner(ObjectKey.actor("m0")).equals(b.nodeRid().hex())
        && owner(ObjectKey.actor("m2")).equals(b.nodeRid().hex()));
    assertThat(owner(ObjectKey.spot(ROOM))).isEqualTo(b.nodeRid().hex());
    assertThat(owner(ObjectKey.actor("m1"))).isEqualTo(a.nodeRid().hex());
    assertThat(move).isNotDone();
    assertThat(CLOSINGS).isEmpty(); // the source shell stays while a member is still here

    // a message for each half, sent to the old address: the moved member's follows it, the Spot's goes to b
    assertThat(a.toActor("m0").request(new Where(), String.class).timeout(Duration.ofSeconds(10)).await())
        .isEqualTo(b.nodeRid().hex());
    assertThat(a.toSpot(ROOM).request(new Where(), String.class).timeout(Duration.ofSeconds(10)).await())
        .isEqualTo(b.nodeRid().hex());
    a.toActor("m0").send(new Note("half", 1));
    a.toActor("m1").send(new Note("half", 1)); // waits in m1's queue on a, behind the held turn
    b.toActor("m1").send(new Note("half", 2)); // from b: routed by the store to a, where m1 still is
    assertThat(owner(ObjectKey.actor("m1"))).isEqualTo(a.nodeRid().hex());

    release.countDown();
    final SpotRelocationResult result = move.get(60, TimeUnit.SECONDS);
    assertThat(result.members()).isEqualTo(3);
    assertThat(result.keptMembers()).isEmpty();
    assertThat(owner(ObjectKey.actor("m1"))).isEqualTo(b.nodeRid().hex());
    await().atMost(Duration.ofSeconds(10)).until(() -> SEEN.getOrDefault("m1", List.of()).size() == 2
        && SEEN.getOrDefault("m0", List.of()).size() == 1);
    assertThat(SEEN.get("m1")).containsExactly(new Note("half", 1), new Note("half", 2));
    assertThat(SEEN.get("m0")).containsExactly(new Note("half", 1));
    assertThat(b.toActor("m1").request(new Where(), String.class).timeout(Duration.ofSeconds(10)).await())
        .isEqualTo(b.nodeRid().hex());
    await().atMost(Duration.ofSeconds(10)).until(() -> !CLOSINGS.isEmpty());
    assertThat(CLOSINGS).containsExactly(ROOM + " RELOCATION_OUT " + a.nodeRid().hex());
    assertThat(FAILURES).isEmpty();
  }

  @Test
  void aDisableRelocationMemberKeepsThePerActorRoomWholeOnTheSourceWithATypedError() throws Exception {
    final MeshNode a = next(false, true); // 2 workers; a "pinned" type whose actors never move
    a.spots().getOrCreate(ROOM, "proom").await();
    a.actors().getOrCreate("m0", "member").await();
    a.actors().getOrCreate("p0", "pinned").await();
    a.toActor("m0").send(new Join(ROOM));
    a.toActor("p0").send(new Join(ROOM));
    await().atMost(Duration.ofSeconds(30)).until(() -> JOINS.get() == 2);
    final MeshNode b = node(false);

    final CompletableFuture<SpotRelocationResult> move = a.relocateSpot(new SpotId(ROOM), b.nodeRid());

    assertThat(move).failsWithin(Duration.ofSeconds(30)).withThrowableOfType(java.util.concurrent
        .ExecutionException.class).havingCause().isInstanceOf(SpotkitException.Rejected.class)
        .withMessageContaining("DisableRelocation");
    assertThat(owner(ObjectKey.spot(ROOM))).isEqualTo(a.nodeRid().hex()); // nothing moved: no half-moved room
    assertThat(owner(ObjectKey.actor("m0"))).isEqualTo(a.nodeRid().hex());
    assertThat(b.toSpot(ROOM).request(new Where(), String.class).timeout(Duration.ofSeconds(10)).await())
        .isEqualTo(a.nodeRid().hex());
    assertThat(CLOSINGS).isEmpty();
  }

  @Test
  @Spec("REL-01")
  void aDrainMovesAPerActorRoomWithItsMembers() throws Exception {
    final List<String> ids = members(4);
    final MeshNode a = node(false);
    room(a, ids);
    a.actors().getOrCreate("loner", "member").await(); // an Entry actor moves in the same drain
    final MeshNode b = node(false);
    final AtomicBoolean stop = new AtomicBoolean();
    final AtomicLong sent = new AtomicLong();
    final Thread s = sender(b, "d0", ids, stop, sent, 2_000_000);
    await().atMost(Duration.ofSeconds(30)).until(() -> sent.get() > 500);

    final long drainStart = System.nanoTime();
    final RelocateResult result = a.relocate(RelocateOptions.drainAnywhere()).get(60, TimeUnit.SECONDS);
    System.out.printf("PerActor drain: %d ms, %s%n", (System.nanoTime() - drainStart) / 1_000_000, result);

    stop.set(true);
    s.join(TimeUnit.SECONDS.toMillis(30));
    assertThat(result.outcome()).isEqualTo(RelocateResult.Outcome.RELOCATED);
    assertThat(result.kept()).isEmpty();
    assertThat(result.actors()).extracting(r -> r.id().value()).containsExactly("loner");
    assertThat(result.rooms()).singleElement().satisfies(r -> {
      assertThat(r.spot().id().value()).isEqualTo(ROOM);
      assertThat(r.members()).isEqualTo(ids.size());
    });
    assertThat(owner(ObjectKey.spot(ROOM))).isEqualTo(b.nodeRid().hex());
    for (String id : ids) {
      assertThat(owner(ObjectKey.actor(id))).as(id).isEqualTo(b.nodeRid().hex());
    }
    assertExactlyOnceInOrder(sent.get());
    await().atMost(Duration.ofSeconds(10)).until(() -> !CLOSINGS.isEmpty());
    assertThat(CLOSINGS).containsExactly(ROOM + " RELOCATION_OUT " + a.nodeRid().hex());
    assertThat(FAILURES).isEmpty();
  }

  @Test
  @Spec("REL-01")
  void aMemberTheTargetRefusesStaysOnTheSourceWithATypedResultAndOneOwner() throws Exception {
    final List<String> ids = List.of("m0", BAD, "m2");
    final MeshNode a = node(false);
    room(a, ids);
    final MeshNode b = node(true); // its factory fails the Restore of BAD
    a.toActor(BAD).send(new Note("pre", 1));
    await().atMost(Duration.ofSeconds(10)).until(() -> SEEN.containsKey(BAD));

    final SpotRelocationResult result = a.relocateSpot(new SpotId(ROOM), b.nodeRid()).get(60, TimeUnit.SECONDS);

    assertThat(result.members()).isEqualTo(2);
    assertThat(result.movedMembers()).extracting(r -> r.id().value()).containsExactlyInAnyOrder("m0", "m2");
    assertThat(result.keptMembers()).containsOnlyKeys(new ActorId(BAD));
    assertThat(result.keptMembers().get(new ActorId(BAD))).isInstanceOf(SpotkitException.class)
        .hasMessageContaining(BAD);
    // one owner each: the Spot and the moved members on b, the refused member on a, where it still serves
    assertThat(owner(ObjectKey.spot(ROOM))).isEqualTo(b.nodeRid().hex());
    assertThat(owner(ObjectKey.actor("m0"))).isEqualTo(b.nodeRid().hex());
    assertThat(owner(ObjectKey.actor(BAD))).isEqualTo(a.nodeRid().hex());
    assertThat(b.toActor(BAD).request(new Where(), String.class).timeout(Duration.ofSeconds(10)).await())
        .isEqualTo(a.nodeRid().hex());
    assertThat(b.toActor(BAD).request(new Count(), Long.class).timeout(Duration.ofSeconds(10)).await())
        .isEqualTo(1L); // restored on a with nothing lost
    assertThat(CLOSINGS).isEmpty(); // the source shell stays open for its member still here

    // once the target accepts it, relocateSpot here with the Spot's new owner moves the member left behind
    REFUSING.set(false);
    final SpotRelocationResult rest = a.relocateSpot(new SpotId(ROOM), b.nodeRid()).get(60, TimeUnit.SECONDS);
    assertThat(rest.movedMembers()).extracting(r -> r.id().value()).containsExactly(BAD);
    assertThat(rest.keptMembers()).isEmpty();
    assertThat(owner(ObjectKey.actor(BAD))).isEqualTo(b.nodeRid().hex());
    assertThat(b.toActor(BAD).request(new Count(), Long.class).timeout(Duration.ofSeconds(10)).await())
        .isEqualTo(1L);
    assertThat(b.toSpot(ROOM).request(new Members(), Integer.class).timeout(Duration.ofSeconds(10)).await())
        .isEqualTo(3);
    await().atMost(Duration.ofSeconds(10)).until(() -> !CLOSINGS.isEmpty());
    assertThat(CLOSINGS).containsExactly(ROOM + " RELOCATION_OUT " + a.nodeRid().hex());
    assertThat(FAILURES).isEmpty();
  }
}
