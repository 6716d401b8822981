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
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link MeshNode#relocateSpot}: a SpotWide User Spot and all its members move as one aggregate (spec 000 section 7)
 * over loopback TCP between real nodes, while senders keep writing to the room and to members directly.
 */
class SpotAggregateMoveTest {
  static final String ROOM = "room-1";

  record Join(String roomId) {
  }

  record Note(String sender, long seq) {
  }

  record Count() {
  }

  record StartBeat() {
  }

  record Beats() {
  }

  record Where() {
  }

  /** Every handled Note per receiver ("spot" or the ActorId): sender and seq, in handling order. */
  static final Map<String, List<Note>> SEEN = new ConcurrentHashMap<>();
  static final AtomicInteger JOINS = new AtomicInteger();
  /** Notes handled by any participant: senders keep at most {@link #WINDOW} of theirs unhandled. */
  static final AtomicLong HANDLED = new AtomicLong();
  static final AtomicLong SENT = new AtomicLong();
  static final long WINDOW = 3_000;
  /** Sends that threw (must never happen: a one-way send to a moving room is accepted). */
  static final List<String> FAILURES = new CopyOnWriteArrayList<>();
  static final AtomicInteger MEMBERSHIP_CALLBACKS = new AtomicInteger();

  static final class Member implements Actor {
    private final ActorContext ctx;
    long notes;
    long beats;

    Member(final ActorContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public void configure(final ActorHandlers on) {
      on.message(Join.class, j -> ctx.joinSpot(j.roomId()).defer())
          .message(Note.class, n -> {
            notes++;
            SEEN.computeIfAbsent(ctx.self().id().value(), k -> Collections.synchronizedList(new ArrayList<>())).add(n);
            HANDLED.incrementAndGet();
          })
          .request(Count.class, c -> notes)
          .message(StartBeat.class, b -> ctx.timers().every("beat", Duration.ofMillis(10), () -> beats++))
          .request(Beats.class, b -> beats)
          .request(Where.class, w -> ctx.self().nodeRid().hex())
          .timer("beat", () -> beats++);
    }

    @Override
    public void onJoinCompleted(final JoinResult result) {
      JOINS.incrementAndGet();
    }
  }

  static final class Room implements UserSpot<Member> {
    private final UserSpotContext ctx;
    long notes;
    long beats;

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
    public void configure(final SpotHandlers on) {
      on.message(Note.class, n -> {
        notes++;
        SEEN.computeIfAbsent("spot", k -> Collections.synchronizedList(new ArrayList<>())).add(n);
        HANDLED.incrementAndGet();
      }).request(Count.class, c -> notes)
          .message(StartBeat.class, b -> timers().every("beat", Duration.ofMillis(10), () -> beats++))
          .request(Beats.class, b -> beats)
          .timer("beat", () -> beats++); // the Spot's own timer resumes after the room's move
    }
  }

  static final class RoomState implements SpotRelocationAdapter<Room> {
    @Override
    public byte[] capture(final Room spot) {
      return ByteBuffer.allocate(16).putLong(spot.notes).putLong(spot.beats).array();
    }

    @Override
    public void restore(final Room spot, final byte[] state) {
      final ByteBuffer in = ByteBuffer.wrap(state);
      spot.notes = in.getLong();
      spot.beats = in.getLong();
    }
  }

  static final class MemberState implements ActorRelocationAdapter<Member> {
    @Override
    public byte[] capture(final Member actor) {
      return ByteBuffer.allocate(16).putLong(actor.notes).putLong(actor.beats).array();
    }

    @Override
    public void restore(final Member actor, final byte[] state) {
      final ByteBuffer b = ByteBuffer.wrap(state);
      actor.notes = b.getLong();
      actor.beats = b.getLong();
    }
  }

  private final InMemoryLocationStore store = new InMemoryLocationStore();
  private TestMesh mesh;
  private volatile boolean nextMembers;
  private volatile boolean nextDisableMembers;
  private volatile dev.spotkit.store.LocationStore nextLocations;

  private MeshNode node(final boolean members, final boolean disableMembers) {
    return node(members, disableMembers, store);
  }

  private static void register(final ObjectServerBuilder s, final boolean members, final boolean disableMembers) {
    s.entrySpot(TestNodes.PlainEntry::new)
        .userSpot("room", Room::new, o -> o.spotWide().preserveStateWith(new RoomState()));
    if (members) {
      s.actor("member", Member::new, a -> {
        if (disableMembers) {
          a.disableRelocation();
        } else {
          a.preserveStateWith(new MemberState());
        }
      });
    }
  }

  /** The next node of the mesh, with its own view of the shared {@link #store} when {@code locations} is one. */
  private MeshNode node(final boolean members, final boolean disableMembers,
      final dev.spotkit.store.LocationStore locations) {
    nextMembers = members;
    nextDisableMembers = disableMembers;
    nextLocations = locations;
    if (mesh == null) {
      mesh = TestMesh.builder().meshName("mesh").locationStore(store)
          .objectServer(s -> register(s, true, false))
          .customize((b, i) -> b.locationStore(nextLocations)
              .objectServer(s -> register(s, nextMembers, nextDisableMembers)))
          .start(1);
      return mesh.node(0);
    }
    return mesh.addNode();
  }

  @BeforeEach
  void reset() {
    SEEN.clear();
    FAILURES.clear();
    HANDLED.set(0);
    SENT.set(0);
    JOINS.set(0);
    MEMBERSHIP_CALLBACKS.set(0);
  }

  @AfterEach
  void close() {
    if (mesh != null) {
      mesh.close();
    }
    assertThat(FAILURES).isEmpty();
  }

  /** The room and its members, all on {@code node} (the only node running while they are made). */
  private void room(final MeshNode node, final int members) {
    node.spots().getOrCreate(ROOM, "room").await();
    for (int i = 0; i < members; i++) {
      node.actors().getOrCreate("m" + i, "member").await();
      node.toActor("m" + i).send(new Join(ROOM));
    }
    await().atMost(Duration.ofSeconds(60)).until(() -> JOINS.get() == members);
  }

  private String owner(final ObjectKey key) {
    return LocationRecords.read(store, key).orElseThrow().authority().allocation().routingIdHex();
  }

  /**
   * One sender: Note(name, seq), half to the room and m0, half to the members in turn, until stopped (at most
   * {@code max}).
   */
  private Thread sender(final MeshNode from, final String name, final int members, final AtomicBoolean stop,
      final AtomicLong sent, final long max) {
    return Thread.ofPlatform().daemon().name("sender-" + name).start(() -> {
      for (long seq = 0; seq < max && !stop.get(); seq++) {
        // backpressure, not synchronisation: at most WINDOW notes of all senders unhandled (bounded wait)
        for (int spins = 0; SENT.get() - HANDLED.get() > WINDOW && !stop.get() && spins < 600_000; spins++) {
          java.util.concurrent.locks.LockSupport.parkNanos(50_000);
        }
        // half of the notes go to two hot participants (the room and m0), so a hold holds long runs per sender
        final int to = seq % 4 == 0 ? members : seq % 4 == 2 ? 0 : (int) (seq / 2 % (members + 1));
        try {
          if (to == members) {
            from.toSpot(ROOM).send(new Note(name, seq));
          } else {
            from.toActor("m" + to).send(new Note(name, seq));
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

  @Test
  @Spec("MEM-36")
  @Spec("SPOT-07")
  @Spec("REL-01")
  @Spec("LOC-20")
  void aRoomOfAThousandMembersMovesAToBToCWhileSendersWriteToItAndItsMembers() throws Exception {
    final int members = 1_000;
    final MeshNode a = node(true, false);
    room(a, members); // every participant on a
    final MeshNode b = node(true, false);
    final MeshNode c = node(true, false);
    final int callbacksBefore = MEMBERSHIP_CALLBACKS.get();
    final AtomicBoolean stop = new AtomicBoolean();
    final List<AtomicLong> sent = List.of(new AtomicLong(), new AtomicLong(), new AtomicLong());
    final List<Thread> senders = List.of(sender(a, "s0", members, stop, sent.get(0), 5_000_000),
        sender(a, "s1", members, stop, sent.get(1), 5_000_000), sender(a, "s2", members, stop, sent.get(2), 5_000_000));
    final AtomicLong answered = new AtomicLong();
    final Thread requester = Thread.ofPlatform().daemon().name("requester").start(() -> {
      for (int k = 0; k < 1_000_000 && !stop.get(); k++) { // requests keep their reply route across both moves
        try {
          a.toActor("m" + (k * 7 % members)).request(new Count(), Long.class).timeout(Duration.ofSeconds(20))
              .await();
          a.toSpot(ROOM).request(new Count(), Long.class).timeout(Duration.ofSeconds(20)).await();
          answered.incrementAndGet();
        } catch (RuntimeException e) {
          FAILURES.add("request " + k + ": " + e);
          return;
        }
      }
    });
    await().atMost(Duration.ofSeconds(10)).until(() -> sent.get(0).get() > 2_000); // traffic before the move

    final SpotRelocationResult first = a.relocateSpot(new SpotId(ROOM), b.nodeRid()).get(60, TimeUnit.SECONDS);
    assertThat(first.members()).isEqualTo(members);
    assertThat(first.spot().nodeRid()).isEqualTo(b.nodeRid());
    assertThat(owner(ObjectKey.spot(ROOM))).isEqualTo(b.nodeRid().hex());
    final long afterFirst = sent.get(0).get();
    await().atMost(Duration.ofSeconds(10)).until(() -> sent.get(0).get() > afterFirst + 2_000);

    final SpotRelocationResult second = b.relocateSpot(new SpotId(ROOM), c.nodeRid()).get(60, TimeUnit.SECONDS);
    assertThat(second.members()).isEqualTo(members);
    final long afterSecond = sent.get(0).get();
    await().atMost(Duration.ofSeconds(10)).until(() -> sent.get(0).get() > afterSecond + 2_000);
    stop.set(true);
    for (Thread t : senders) {
      t.join(TimeUnit.SECONDS.toMillis(30));
    }
    requester.join(TimeUnit.SECONDS.toMillis(30));
    assertThat(FAILURES).isEmpty();
    assertThat(answered.get()).isPositive();
    final long total = sent.stream().mapToLong(AtomicLong::get).sum();
    await().atMost(Duration.ofSeconds(60)).until(() -> SEEN.values().stream().mapToLong(List::size).sum() >= total);

    // nothing lost, duplicated or reordered per sender per participant
    assertThat(SEEN.values().stream().mapToLong(List::size).sum()).isEqualTo(total);
    for (Map.Entry<String, List<Note>> e : SEEN.entrySet()) {
      final Map<String, Long> last = new java.util.HashMap<>();
      for (Note n : e.getValue()) {
        final Long before = last.put(n.sender(), n.seq());
        assertThat(before == null || before < n.seq()).as("%s after %s at %s", n, before, e.getKey()).isTrue();
      }
    }
    // never two owners: the Location Store names c for the Spot and every member
    assertThat(owner(ObjectKey.spot(ROOM))).isEqualTo(c.nodeRid().hex());
    for (int i = 0; i < members; i++) {
      assertThat(owner(ObjectKey.actor("m" + i))).isEqualTo(c.nodeRid().hex());
    }
    // state preserved: each participant's count is every note it ever handled, across both moves
    assertThat(a.toSpot(ROOM).request(new Count(), Long.class).timeout(Duration.ofSeconds(10)).await())
        .isEqualTo(SEEN.get("spot").size());
    for (int i = 0; i < members; i += 97) {
      assertThat(a.toActor("m" + i).request(new Count(), Long.class).timeout(Duration.ofSeconds(10)).await())
          .isEqualTo(SEEN.getOrDefault("m" + i, List.of()).size());
    }
    assertThat(MEMBERSHIP_CALLBACKS.get()).isEqualTo(callbacksBefore); // no membership callbacks for members
    System.out.printf("aggregate of %d members: pause A->B %d ms, B->C %d ms, %d notes, %d request pairs%n",
        members, first.paused().toMillis(), second.paused().toMillis(), total, answered.get());
  }

  @Test
  @Spec("MEM-36")
  void aTargetThatCannotRestoreARoomLeavesItServingOnTheSourceWithNothingLost() throws Exception {
    final int members = 50;
    final MeshNode a = node(true, false);
    room(a, members);
    final MeshNode b = node(false, false); // no factory for the members' type: Restore fails before relay-ready
    final AtomicBoolean stop = new AtomicBoolean();
    final AtomicLong sent = new AtomicLong();
    final Thread s = sender(a, "s", members, stop, sent, 5_000_000);
    await().atMost(Duration.ofSeconds(10)).until(() -> sent.get() > 1_000);

    assertThatThrownBy(() -> a.relocateSpot(new SpotId(ROOM), b.nodeRid()).join())
        .isInstanceOf(CompletionException.class).cause().isInstanceOf(SpotkitException.NotConfigured.class)
        .hasMessageContaining("has no actor factory for stable type 'member'");

    final long afterFailure = sent.get();
    await().atMost(Duration.ofSeconds(10)).until(() -> sent.get() > afterFailure + 1_000); // serving again
    stop.set(true);
    s.join(TimeUnit.SECONDS.toMillis(30));
    await().atMost(Duration.ofSeconds(30)).until(() -> SEEN.values().stream().mapToLong(List::size).sum()
        >= sent.get());
    assertThat(SEEN.values().stream().mapToLong(List::size).sum()).isEqualTo(sent.get());
    for (List<Note> notes : SEEN.values()) {
      for (int i = 1; i < notes.size(); i++) {
        assertThat(notes.get(i).seq()).isGreaterThan(notes.get(i - 1).seq());
      }
    }
    assertThat(owner(ObjectKey.spot(ROOM))).isEqualTo(a.nodeRid().hex());
    assertThat(owner(ObjectKey.actor("m7"))).isEqualTo(a.nodeRid().hex());
    assertThat(a.toActor("m7").request(new Count(), Long.class).timeout(Duration.ofSeconds(10)).await())
        .isEqualTo(SEEN.get("m7").size());
    // joins are admitted again
    a.actors().getOrCreate("late", "member").await();
    a.toActor("late").send(new Join(ROOM));
    await().atMost(Duration.ofSeconds(10)).until(() -> JOINS.get() == members + 1);
  }

  @Test
  @Spec("SPOT-07")
  void aRoomMovesAwayAndBackAndItsMembersTimersKeepTickingWithTheirState() throws Exception {
    final int members = 10;
    final MeshNode a = node(true, false);
    room(a, members);
    final MeshNode b = node(true, false);
    for (int i = 0; i < members; i++) {
      a.toActor("m" + i).send(new StartBeat());
    }
    a.toSpot(ROOM).send(new StartBeat());
    await().atMost(Duration.ofSeconds(10)).until(() -> beats(a, "m" + (members - 1)) > 3 && roomBeats(a) > 3);
    for (final MeshNode[] hop : new MeshNode[][] {{a, b}, {b, a}}) {
      final long before = beats(a, "m0");
      final long roomBefore = roomBeats(a);
      assertThat(hop[0].relocateSpot(new SpotId(ROOM), hop[1].nodeRid()).get(30, TimeUnit.SECONDS).members())
          .isEqualTo(members);
      for (int i = 0; i < members; i++) {
        assertThat(a.toActor("m" + i).request(new Where(), String.class).timeout(Duration.ofSeconds(10)).await())
            .isEqualTo(hop[1].nodeRid().hex());
      }
      final long moved = beats(a, "m0");
      assertThat(moved).isGreaterThanOrEqualTo(before); // the count travelled with the state
      await().atMost(Duration.ofSeconds(10)).until(() -> beats(a, "m0") > moved + 3); // the timer moved too
      final long roomMoved = roomBeats(a);
      assertThat(roomMoved).isGreaterThanOrEqualTo(roomBefore);
      await().atMost(Duration.ofSeconds(10)).until(() -> roomBeats(a) > roomMoved + 3); // the room's timer too
    }
    assertThat(owner(ObjectKey.spot(ROOM))).isEqualTo(a.nodeRid().hex());
    assertThat(owner(ObjectKey.actor("m3"))).isEqualTo(a.nodeRid().hex());
    a.toActor("m3").send(new Note("x", 1)); // the room serves on a again, directly
    await().atMost(Duration.ofSeconds(10)).until(() -> SEEN.containsKey("m3"));
  }

  private static long roomBeats(final MeshNode via) {
    return via.toSpot(ROOM).request(new Beats(), Long.class).timeout(Duration.ofSeconds(10)).await();
  }

  private static long beats(final MeshNode via, final String member) {
    return via.toActor(member).request(new Beats(), Long.class).timeout(Duration.ofSeconds(10)).await();
  }

  @Test
  void aMemberThatMovedWithItsRoomJoinsARoomOnAnotherNodeAndItsRowNamesItsOwnOwnerAgain() throws Exception {
    final MeshNode a = node(true, false);
    room(a, 5);
    a.spots().getOrCreate("room-x", "room").await(); // on a too: a is the only node yet
    final MeshNode b = node(true, false);
    assertThat(a.relocateSpot(new SpotId(ROOM), b.nodeRid()).get(30, TimeUnit.SECONDS).members()).isEqualTo(5);
    final int before = JOINS.get();
    b.toActor("m2").send(new Join("room-x")); // a cross-node join out of the moved room, back to a
    await().atMost(Duration.ofSeconds(20)).until(() -> JOINS.get() == before + 1);
    final LocationRecords.Stored row = LocationRecords.read(store, ObjectKey.actor("m2")).orElseThrow();
    assertThat(row.authority().allocation().routingIdHex()).isEqualTo(a.nodeRid().hex());
    assertThat(row.record().membership()).isEqualTo("room-x");
    assertThat(dev.spotkit.core.location.AggregatePointer.spotOf(row.authority().payload())).isEmpty();
    assertThat(owner(ObjectKey.actor("m1"))).isEqualTo(b.nodeRid().hex()); // the others stay with the room
    a.toActor("m2").send(new Note("x", 1));
    await().atMost(Duration.ofSeconds(10)).until(() -> SEEN.containsKey("m2"));
  }

  @Test
  @Spec("MEM-37")
  void aMoveWhoseCasFailsPastRelayReadyRollsNoParticipantBack() throws Exception {
    final int members = 12;
    final AtomicBoolean refuse = new AtomicBoolean();
    final dev.spotkit.store.LocationStore view = new dev.spotkit.store.LocationStore() {
      @Override
      public java.util.concurrent.CompletionStage<dev.spotkit.store.ReadResult> read(final String key) {
        return store.read(key);
      }

      @Override
      public java.util.concurrent.CompletionStage<dev.spotkit.store.WriteResult> write(
          final dev.spotkit.store.WriteBatch batch) {
        final boolean aggregateCommit = batch.mutations().stream().anyMatch(m -> m.key().startsWith("aggregate\0"))
            && batch.mutations().stream().anyMatch(m -> m.key().startsWith("authority\0spot\0"));
        if (refuse.get() && aggregateCommit) { // the target's one CAS never applies
          return java.util.concurrent.CompletableFuture.completedFuture(new dev.spotkit.store.WriteResult.Conflict());
        }
        return store.write(batch);
      }

      @Override
      public java.util.concurrent.CompletionStage<dev.spotkit.store.ScanResult> scan(
          final dev.spotkit.store.ScanRequest request) {
        return store.scan(request);
      }
    };
    final MeshNode a = node(true, false, view);
    room(a, members);
    final MeshNode b = node(true, false, view);
    refuse.set(true);
    assertThatThrownBy(() -> a.relocateSpot(new SpotId(ROOM), b.nodeRid()).join()).cause()
        .isInstanceOf(SpotkitException.Unavailable.class).hasMessageContaining("passed relay-ready but did not"
            + " commit");
    // the store still names a for every participant (never two owners) ...
    assertThat(owner(ObjectKey.spot(ROOM))).isEqualTo(a.nodeRid().hex());
    for (int i = 0; i < members; i++) {
      assertThat(owner(ObjectKey.actor("m" + i))).isEqualTo(a.nodeRid().hex());
    }
    // ... and no participant serves anywhere: the source did not roll some of them back (spec 000 section 8)
    for (final String id : List.of("m0", "m5", "m11")) { // answered at once, not kept until the deadline
      assertThatThrownBy(() -> b.toActor(id).request(new Count(), Long.class).timeout(Duration.ofSeconds(10))
          .await()).isInstanceOf(SpotkitException.Unavailable.class).hasMessageContaining("did not commit");
    }
    assertThatThrownBy(() -> a.toSpot(ROOM).request(new Count(), Long.class).timeout(Duration.ofSeconds(10))
        .await()).isInstanceOf(SpotkitException.Unavailable.class).hasMessageContaining("did not commit");
  }

  /** A view of the shared store whose writes and reads a test can disturb: {@code onWrite} decides per batch. */
  private dev.spotkit.store.LocationStore view(
      final java.util.function.Function<dev.spotkit.store.WriteBatch, java.util.concurrent.CompletionStage<
          dev.spotkit.store.WriteResult>> onWrite, final AtomicInteger failAggregateReads) {
    return new dev.spotkit.store.LocationStore() {
      @Override
      public java.util.concurrent.CompletionStage<dev.spotkit.store.ReadResult> read(final String key) {
        if (key.startsWith("aggregate\0") && failAggregateReads.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
          return java.util.concurrent.CompletableFuture.failedFuture(new dev.spotkit.store.StoreException.Unavailable(
              "test: the read of the aggregate does not answer", null));
        }
        return store.read(key);
      }

      @Override
      public java.util.concurrent.CompletionStage<dev.spotkit.store.WriteResult> write(
          final dev.spotkit.store.WriteBatch batch) {
        final java.util.concurrent.CompletionStage<dev.spotkit.store.WriteResult> custom = onWrite.apply(batch);
        return custom != null ? custom : store.write(batch);
      }

      @Override
      public java.util.concurrent.CompletionStage<dev.spotkit.store.ScanResult> scan(
          final dev.spotkit.store.ScanRequest request) {
        return store.scan(request);
      }
    };
  }

  private static boolean aggregateCommit(final dev.spotkit.store.WriteBatch batch) {
    return batch.mutations().stream().anyMatch(m -> m.key().startsWith("aggregate\0"))
        && batch.mutations().stream().anyMatch(m -> m.key().startsWith("authority\0spot\0"));
  }

  @Test
  @Spec("MEM-37")
  void aCasThatAppliedWithItsAnswerLostAndItsFirstReReadFailingStillOpensTheRoomOnTheTarget() throws Exception {
    final int members = 8;
    final AtomicBoolean loseAnswer = new AtomicBoolean();
    final AtomicInteger failAggregateReads = new AtomicInteger();
    final dev.spotkit.store.LocationStore view = view(batch -> {
      if (loseAnswer.get() && aggregateCommit(batch) && loseAnswer.compareAndSet(true, false)) {
        // applied, but the answer is lost, and the target's re-reads of the aggregate fail twice
        return store.write(batch).thenCompose(applied -> {
          failAggregateReads.set(2);
          return java.util.concurrent.CompletableFuture.failedFuture(
              new dev.spotkit.store.StoreException.Indeterminate("test: the answer of the aggregate CAS was lost", null));
        });
      }
      return null;
    }, failAggregateReads);
    final MeshNode a = node(true, false, view);
    room(a, members);
    for (int i = 0; i < members; i++) {
      a.toActor("m" + i).send(new Note("before", i));
    }
    final MeshNode b = node(true, false, view);
    loseAnswer.set(true);
    assertThat(a.relocateSpot(new SpotId(ROOM), b.nodeRid())).succeedsWithin(30, TimeUnit.SECONDS);
    assertThat(loseAnswer).isFalse(); // the fault was injected
    assertThat(owner(ObjectKey.spot(ROOM))).isEqualTo(b.nodeRid().hex());
    for (int i = 0; i < members; i++) { // state and queue arrived: nobody lost the room
      assertThat(b.toActor("m" + i).request(new Count(), Long.class).timeout(Duration.ofSeconds(10)).await())
          .isEqualTo(1L);
      assertThat(b.toActor("m" + i).request(new Where(), String.class).timeout(Duration.ofSeconds(10)).await())
          .isEqualTo(b.nodeRid().hex());
    }
  }

  @Test
  @Spec("MEM-37")
  void aRequestHeldForTheRelayIsAnsweredUnavailableAtOnceWhenTheCasDoesNotCommit() throws Exception {
    final int members = 4;
    final AtomicBoolean refuse = new AtomicBoolean();
    final AtomicBoolean sealSeen = new AtomicBoolean();
    final java.util.concurrent.atomic.AtomicReference<MeshNode> source = new java.util.concurrent.atomic
        .AtomicReference<>();
    final java.util.concurrent.atomic.AtomicReference<java.util.concurrent.CompletableFuture<Long>> held =
        new java.util.concurrent.atomic.AtomicReference<>();
    final dev.spotkit.store.LocationStore view = view(batch -> {
      final boolean aggregate = batch.mutations().stream().anyMatch(m -> m.key().startsWith("aggregate\0"));
      if (refuse.get() && aggregate && !aggregateCommit(batch) && sealSeen.compareAndSet(false, true)) {
        // the seal's write: every mailbox is closed, so this request waits in m1's ingress hold for the relay
        held.set(source.get().toActor("m1").request(new Count(), Long.class).timeout(Duration.ofSeconds(60))
            .toFuture());
      }
      if (refuse.get() && aggregateCommit(batch)) {
        return java.util.concurrent.CompletableFuture.completedFuture(new dev.spotkit.store.WriteResult.Conflict());
      }
      return null;
    }, new AtomicInteger());
    final MeshNode a = node(true, false, view);
    source.set(a);
    room(a, members);
    final MeshNode b = node(true, false, view);
    refuse.set(true);
    final long started = System.nanoTime();
    assertThatThrownBy(() -> a.relocateSpot(new SpotId(ROOM), b.nodeRid()).join()).cause()
        .isInstanceOf(SpotkitException.Unavailable.class);
    assertThat(held.get()).as("a request held by the seal").isNotNull();
    // answered by the abandon, long before its 60 s deadline (which would end it with DeadlineExceeded)
    assertThat(held.get()).failsWithin(20, TimeUnit.SECONDS).withThrowableThat().havingRootCause()
        .isInstanceOf(SpotkitException.Unavailable.class);
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(40));
  }

  @Test
  @Spec("LOC-16")
  void aTargetWithoutRoomForEveryMemberRefusesTheWholeRoomBeforeRelayReady() throws Exception {
    final int members = 30;
    final MeshNode a = node(true, false);
    room(a, members);
    final MeshNode b = node(true, false);
    new dev.spotkit.core.location.PlacementBatches(store, Duration.ofSeconds(5), 8).publishLimits("mesh",
        b.nodeRid().hex(), new dev.spotkit.core.location.NodeCapacityRecord(
            new dev.spotkit.core.location.NodeCapacityRecord.Slots(0, 0, members - 1),
            dev.spotkit.core.location.NodeCapacityRecord.Slots.NONE, List.of()));
    final AtomicBoolean stop = new AtomicBoolean();
    final AtomicLong sent = new AtomicLong();
    final Thread s = sender(a, "s", members, stop, sent, 5_000_000);
    await().atMost(Duration.ofSeconds(10)).until(() -> sent.get() > 1_000);

    assertThatThrownBy(() -> a.relocateSpot(new SpotId(ROOM), b.nodeRid()).join()).cause()
        .isInstanceOf(SpotkitException.CapacityExceeded.class).hasMessageContaining("the room stays on its source");

    final long afterRefusal = sent.get();
    await().atMost(Duration.ofSeconds(10)).until(() -> sent.get() > afterRefusal + 1_000); // serving again
    stop.set(true);
    s.join(TimeUnit.SECONDS.toMillis(30));
    await().atMost(Duration.ofSeconds(30)).until(() -> HANDLED.get() >= sent.get());
    assertThat(HANDLED.get()).isEqualTo(sent.get()); // nothing lost or duplicated
    assertThat(owner(ObjectKey.spot(ROOM))).isEqualTo(a.nodeRid().hex());
    assertThat(owner(ObjectKey.actor("m0"))).isEqualTo(a.nodeRid().hex());
  }

  @Test
  void aDisableRelocationMemberOrAnUnknownSpotIsATypedErrorAndTheRoomStays() throws Exception {
    final MeshNode a = node(true, true);
    room(a, 3);
    final MeshNode b = node(true, true);
    assertThatThrownBy(() -> a.relocateSpot(new SpotId(ROOM), b.nodeRid()).join()).cause()
        .isInstanceOf(SpotkitException.Rejected.class).hasMessageContaining("DisableRelocation");
    assertThatThrownBy(() -> a.relocateSpot(new SpotId("nope"), b.nodeRid()).join()).cause()
        .isInstanceOf(SpotkitException.NotFound.class);
    assertThatThrownBy(() -> b.relocateSpot(new SpotId(ROOM), a.nodeRid()).join()).cause()
        .isInstanceOf(SpotkitException.InvalidOperation.class).hasMessageContaining("not by this node");
    a.toActor("m1").send(new Note("x", 1));
    await().atMost(Duration.ofSeconds(10)).until(() -> SEEN.containsKey("m1"));
    assertThat(owner(ObjectKey.spot(ROOM))).isEqualTo(a.nodeRid().hex());
  }
}
