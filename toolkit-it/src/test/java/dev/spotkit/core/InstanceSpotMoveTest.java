package dev.spotkit.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.spotkit.core.location.LocationRecords;
import dev.spotkit.core.location.ObjectKey;
import dev.spotkit.store.InMemoryLocationStore;
import dev.spotkit.store.ScanRequest;
import dev.spotkit.store.ScanResult;
import dev.spotkit.testkit.TestMesh;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
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
 * An Instance Spot moves as one Actor-less relocation unit (spec 001 sections 3 and 8, spec 003 section 6): its
 * state by its adapter, its unrun queue, timers and pending ticks, over the same target-only CAS boundary as Actors
 * and SpotWide User Spots, by {@link MeshNode#relocateSpot} and by a host drain, between real nodes on loopback TCP
 * while senders keep writing to it by id and with Instance intent.
 */
class InstanceSpotMoveTest {
  static final String TYPE = "ticker";
  /** The same Instance Spot registered with RecreateOnRelocation: no state travels, queue and timers do. */
  static final String PLAIN = "plain";

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

  record Close() {
  }

  /** Every handled Note per Instance Spot, in handling order. */
  static final Map<String, List<Note>> SEEN = new ConcurrentHashMap<>();
  static final AtomicLong HANDLED = new AtomicLong();
  /** Where each note ran, per Instance Spot in handling order: "{seq}@{node RID prefix}" (diagnostics). */
  static final Map<String, List<String>> WHERE = new ConcurrentHashMap<>();
  /** Factory runs per SpotId: an activation or a move's Restore each build one instance. */
  static final Map<String, AtomicInteger> BUILT = new ConcurrentHashMap<>();
  /** OnClosing calls: "{spotId} {reason} {nodeRid hex}". */
  static final List<String> CLOSINGS = new CopyOnWriteArrayList<>();
  /** Sends that threw (must never happen: a one-way send to a moving Instance Spot is accepted). */
  static final List<String> FAILURES = new CopyOnWriteArrayList<>();

  /** Counts notes and beats; its state moves with {@link TickerState}. */
  static final class Ticker implements InstanceSpot {
    private final InstanceSpotContext ctx;
    long notes;
    long beats;

    Ticker(final InstanceSpotContext ctx) {
      this.ctx = ctx;
      BUILT.computeIfAbsent(ctx.self().id().value(), k -> new AtomicInteger()).incrementAndGet();
    }

    @Override
    public InstanceSpotContext context() {
      return ctx;
    }

    @Override
    public void configure(final SpotHandlers on) {
      on.message(Note.class, n -> {
        notes++;
        SEEN.computeIfAbsent(ctx.self().id().value(), k -> Collections.synchronizedList(new ArrayList<>())).add(n);
        HANDLED.incrementAndGet();
        WHERE.computeIfAbsent(ctx.self().id().value(), k -> Collections.synchronizedList(new ArrayList<>()))
            .add(n.seq() + "@" + ctx.self().nodeRid().hex().substring(0, 4));
      }).request(Count.class, c -> notes)
          .message(StartBeat.class, b -> ctx.timers().every("beat", Duration.ofMillis(10), () -> beats++))
          .request(Beats.class, b -> beats)
          .request(Where.class, w -> ctx.self().nodeRid().hex())
          .request(Close.class, c -> ctx.close())
          .timer("beat", () -> beats++); // the timer resumes on the target
    }

    @Override
    public void onClosing(final ClosingContext closing) {
      CLOSINGS.add(ctx.self().id().value() + " " + closing.reason() + " " + ctx.self().nodeRid().hex());
    }
  }

  static final class TickerState implements SpotRelocationAdapter<Ticker> {
    @Override
    public byte[] capture(final Ticker spot) {
      return ByteBuffer.allocate(16).putLong(spot.notes).putLong(spot.beats).array();
    }

    @Override
    public void restore(final Ticker spot, final byte[] state) {
      final ByteBuffer in = ByteBuffer.wrap(state);
      spot.notes = in.getLong();
      spot.beats = in.getLong();
    }
  }

  private TestMesh mesh;
  private InMemoryLocationStore store;
  private volatile boolean nextWithType;
  /** The route cache's maximum age for the mesh {@link #node} starts, null for the default. */
  private Duration routeCacheMaxAge;

  private static void register(final ObjectServerBuilder s, final boolean withType) {
    s.entrySpot(TestNodes.PlainEntry::new);
    if (withType) {
      s.instanceSpot(TYPE, Ticker::new, o -> o.preserveStateWith(new TickerState()))
          .instanceSpot(PLAIN, Ticker::new, o -> o.recreateOnRelocation());
    }
  }

  /** The next node; {@code withType} false: no factory for {@link #TYPE} (a target that cannot restore it). */
  private MeshNode node(final boolean withType) {
    nextWithType = withType;
    if (mesh == null) {
      mesh = TestMesh.builder().meshName("mesh").objectServer(s -> register(s, true))
          .mesh((m, i) -> {
            if (routeCacheMaxAge != null) {
              m.routeCacheMaxAge(routeCacheMaxAge);
            }
          })
          .node(b -> b.requestTimeout(Duration.ofSeconds(10)))
          .customize((b, i) -> b.objectServer(s -> register(s, nextWithType)))
          .start(1);
      store = mesh.locationStore();
      return mesh.node(0);
    }
    return mesh.addNode();
  }

  @BeforeEach
  void reset() {
    SEEN.clear();
    HANDLED.set(0);
    BUILT.clear();
    WHERE.clear();
    CLOSINGS.clear();
    FAILURES.clear();
    routeCacheMaxAge = null;
  }

  @AfterEach
  void close() {
    if (mesh != null) {
      mesh.close();
    }
  }

  private String owner(final String spotId) {
    return LocationRecords.read(store, ObjectKey.spot(spotId)).orElseThrow().authority().allocation()
        .routingIdHex();
  }

  /** The Instance Spot {@code id}, activated on {@code node} (the only node running then) with Instance intent. */
  private void activate(final MeshNode node, final String id) {
    assertThat(node.toInstanceSpot(id, TYPE).request(new Where(), String.class).timeout(Duration.ofSeconds(10))
        .await()).isEqualTo(node.nodeRid().hex());
  }

  /**
   * One sender: Note(name, seq) to {@code id}, with Instance intent or by id, until stopped (at most 2,000,000);
   * at most 2,000 of all senders unhandled (backpressure, not synchronisation).
   */
  private Thread sender(final MeshNode from, final String name, final String id, final boolean intent,
      final AtomicBoolean stop, final AtomicLong sent, final AtomicLong allSent) {
    return Thread.ofPlatform().daemon().name("sender-" + name).start(() -> {
      for (long seq = 0; seq < 2_000_000 && !stop.get(); seq++) {
        for (int spins = 0; allSent.get() - HANDLED.get() > 2_000 && !stop.get() && spins < 400_000; spins++) {
          LockSupport.parkNanos(50_000);
        }
        try {
          if (intent) {
            from.toInstanceSpot(id, TYPE).send(new Note(name, seq));
          } else {
            from.toSpot(id).send(new Note(name, seq));
          }
        } catch (RuntimeException e) {
          FAILURES.add(name + " seq " + seq + ": " + e);
          return;
        }
        sent.incrementAndGet();
        allSent.incrementAndGet();
      }
    });
  }

  /** Every sender's notes arrived once each and in its order, and the state counted every one. */
  private void assertExactlyOnceInOrder(final MeshNode via, final String id, final Map<String, AtomicLong> sent) {
    final long total = sent.values().stream().mapToLong(AtomicLong::get).sum();
    await().atMost(Duration.ofSeconds(30)).until(() -> SEEN.getOrDefault(id, List.of()).size() >= total);
    final List<Note> seen = SEEN.get(id);
    assertThat(seen).hasSize((int) total);
    final Map<String, Long> next = new HashMap<>();
    for (Note n : seen) {
      final long expected = next.getOrDefault(n.sender(), 0L);
      if (n.seq() != expected) {
        final int at = seen.indexOf(n);
        final List<String> where = WHERE.get(id);
        assertThat(n.seq()).as("%s after %s; handled around it (seq@node): %s", n, expected - 1,
            where.subList(Math.max(0, at - 5), Math.min(where.size(), at + 5))).isEqualTo(expected);
      }
      next.put(n.sender(), expected + 1);
    }
    sent.forEach((name, count) -> assertThat(next.getOrDefault(name, 0L)).as(name).isEqualTo(count.get()));
    assertThat(via.toSpot(id).request(new Count(), Long.class).timeout(Duration.ofSeconds(10)).await())
        .isEqualTo(total); // the state travelled: every note it ever handled
  }

  @Test
  @Spec("REL-01")
  @Spec("SPOT-07")
  void anInstanceSpotWithStateAndATimerMovesAToBToCWhileTwoSendersWriteToIt() throws Exception {
    final String id = "ticker-1";
    final MeshNode a = node(true);
    activate(a, id);
    a.toSpot(id).send(new StartBeat());
    final MeshNode b = node(true);
    final MeshNode c = node(true);
    await().atMost(Duration.ofSeconds(10)).until(() -> beats(a, id) > 3);
    final AtomicBoolean stop = new AtomicBoolean();
    final AtomicLong allSent = new AtomicLong();
    final Map<String, AtomicLong> sent = Map.of("intent", new AtomicLong(), "byId", new AtomicLong());
    // one sender with Instance intent on the first source, one by id on the node the Spot passes through
    final List<Thread> senders = List.of(sender(a, "intent", id, true, stop, sent.get("intent"), allSent),
        sender(b, "byId", id, false, stop, sent.get("byId"), allSent));
    await().atMost(Duration.ofSeconds(10)).until(() -> sent.get("intent").get() > 1_000);

    final MeshNode[][] hops = {{a, b}, {b, c}};
    for (MeshNode[] hop : hops) {
      final long beatsBefore = beats(a, id);
      final SpotRelocationResult moved = hop[0].relocateSpot(new SpotId(id), hop[1].nodeRid())
          .get(60, TimeUnit.SECONDS);
      assertThat(moved.members()).isZero();
      assertThat(moved.spot().nodeRid()).isEqualTo(hop[1].nodeRid());
      assertThat(owner(id)).isEqualTo(hop[1].nodeRid().hex()); // the target's one CAS named it
      assertThat(a.toInstanceSpot(id, TYPE).request(new Where(), String.class).timeout(Duration.ofSeconds(10))
          .await()).isEqualTo(hop[1].nodeRid().hex());
      final long beatsMoved = beats(a, id);
      assertThat(beatsMoved).isGreaterThanOrEqualTo(beatsBefore); // the count travelled with the state
      await().atMost(Duration.ofSeconds(10)).until(() -> beats(a, id) > beatsMoved + 3); // the timer moved too
      final long after = sent.get("intent").get();
      await().atMost(Duration.ofSeconds(10)).until(() -> sent.get("intent").get() > after + 1_000);
    }
    stop.set(true);
    for (Thread t : senders) {
      t.join(TimeUnit.SECONDS.toMillis(30));
    }
    assertThat(FAILURES).isEmpty();
    assertExactlyOnceInOrder(c, id, sent);
    // one activation and one Restore per move: never a second live instance
    assertThat(BUILT.get(id)).hasValue(3);
    // the source instances ended with RelocationOut, each on its own node
    assertThat(CLOSINGS).containsExactly(id + " RELOCATION_OUT " + a.nodeRid().hex(),
        id + " RELOCATION_OUT " + b.nodeRid().hex());
    assertThat(owner(id)).isEqualTo(c.nodeRid().hex());
    assertThat(aggregateRecords()).isZero(); // an Instance Spot's move writes only its own row
  }

  @Test
  @Spec("SPOT-07")
  @Spec("REL-30")
  void aTargetThatCannotRestoreItLeavesItServingOnTheSourceWithNothingLost() throws Exception {
    final String id = "ticker-2";
    final MeshNode a = node(true);
    activate(a, id);
    a.toSpot(id).send(new StartBeat());
    final MeshNode b = node(false); // no Instance Spot factory for the type: Restore fails before relay-ready
    final AtomicBoolean stop = new AtomicBoolean();
    final AtomicLong allSent = new AtomicLong();
    final Map<String, AtomicLong> sent = Map.of("intent", new AtomicLong(), "byId", new AtomicLong());
    final List<Thread> senders = List.of(sender(b, "intent", id, true, stop, sent.get("intent"), allSent),
        sender(a, "byId", id, false, stop, sent.get("byId"), allSent));
    await().atMost(Duration.ofSeconds(10)).until(() -> sent.get("intent").get() > 1_000);

    assertThatThrownBy(() -> a.relocateSpot(new SpotId(id), b.nodeRid()).join())
        .isInstanceOf(CompletionException.class).cause().isInstanceOf(SpotkitException.NotConfigured.class)
        .hasMessageContaining("has no Instance Spot factory for stable type '" + TYPE + "'");

    final long afterFailure = sent.get("intent").get();
    await().atMost(Duration.ofSeconds(10)).until(() -> sent.get("intent").get() > afterFailure + 1_000);
    final long beats = beats(a, id);
    await().atMost(Duration.ofSeconds(10)).until(() -> beats(a, id) > beats + 3); // its timer runs again
    stop.set(true);
    for (Thread t : senders) {
      t.join(TimeUnit.SECONDS.toMillis(30));
    }
    assertThat(FAILURES).isEmpty();
    assertExactlyOnceInOrder(a, id, sent);
    assertThat(owner(id)).isEqualTo(a.nodeRid().hex());
    assertThat(BUILT.get(id)).hasValue(1);
    assertThat(CLOSINGS).isEmpty();
    assertThat(a.toInstanceSpot(id, TYPE).request(new Where(), String.class).timeout(Duration.ofSeconds(10))
        .await()).isEqualTo(a.nodeRid().hex());
  }

  @Test
  @Spec("SPOT-07")
  void aDrainMovesItsInstanceSpotsAndListsThem() throws Exception {
    final MeshNode a = node(true);
    for (int i = 0; i < 3; i++) {
      activate(a, "drained-" + i);
    }
    final MeshNode b = node(true);
    final AtomicBoolean stop = new AtomicBoolean();
    final AtomicLong allSent = new AtomicLong();
    final Map<String, AtomicLong> sent = Map.of("intent", new AtomicLong());
    final Thread s = sender(b, "intent", "drained-1", true, stop, sent.get("intent"), allSent);
    await().atMost(Duration.ofSeconds(10)).until(() -> sent.get("intent").get() > 1_000);

    final RelocateResult result = a.relocate(RelocateOptions.drainAnywhere()).get(60, TimeUnit.SECONDS);

    assertThat(result.outcome()).isEqualTo(RelocateResult.Outcome.RELOCATED);
    assertThat(result.kept()).isEmpty();
    assertThat(result.rooms()).isEmpty();
    assertThat(result.instanceSpots()).extracting(r -> r.spot().id().value())
        .containsExactlyInAnyOrder("drained-0", "drained-1", "drained-2");
    assertThat(result.instanceSpots()).allSatisfy(r -> {
      assertThat(r.spot().nodeRid()).isEqualTo(b.nodeRid());
      assertThat(r.members()).isZero();
    });
    for (int i = 0; i < 3; i++) {
      assertThat(owner("drained-" + i)).isEqualTo(b.nodeRid().hex());
    }
    final long after = sent.get("intent").get();
    await().atMost(Duration.ofSeconds(10)).until(() -> sent.get("intent").get() > after + 1_000);
    stop.set(true);
    s.join(TimeUnit.SECONDS.toMillis(30));
    assertThat(FAILURES).isEmpty();
    assertExactlyOnceInOrder(b, "drained-1", sent);
    assertThat(CLOSINGS).hasSize(3).allSatisfy(c -> assertThat(c).contains("RELOCATION_OUT " + a.nodeRid().hex()));
    assertThat(BUILT.values()).allSatisfy(n -> assertThat(n).hasValue(2));
  }

  @Test
  @Spec("SPOT-07")
  void instanceIntentDuringAndAfterTheMoveReachesTheOneLiveInstance() throws Exception {
    final String id = "ticker-3";
    final MeshNode a = node(true);
    activate(a, id);
    final MeshNode b = node(true);
    final MeshNode c = node(true);
    final AtomicBoolean stop = new AtomicBoolean();
    final AtomicLong allSent = new AtomicLong();
    final Map<String, AtomicLong> sent = Map.of("fromA", new AtomicLong(), "fromB", new AtomicLong(),
        "fromC", new AtomicLong());
    // Instance intent from every node, the source's and the target's included, through the move
    final List<Thread> senders = List.of(sender(a, "fromA", id, true, stop, sent.get("fromA"), allSent),
        sender(b, "fromB", id, true, stop, sent.get("fromB"), allSent),
        sender(c, "fromC", id, true, stop, sent.get("fromC"), allSent));
    await().atMost(Duration.ofSeconds(10)).until(() -> sent.get("fromC").get() > 500);

    a.relocateSpot(new SpotId(id), b.nodeRid()).get(60, TimeUnit.SECONDS);
    final long after = sent.get("fromA").get();
    await().atMost(Duration.ofSeconds(10)).until(() -> sent.get("fromA").get() > after + 500);
    stop.set(true);
    for (Thread t : senders) {
      t.join(TimeUnit.SECONDS.toMillis(30));
    }
    assertThat(FAILURES).isEmpty();
    assertExactlyOnceInOrder(c, id, sent);
    assertThat(BUILT.get(id)).hasValue(2); // its activation and the move's Restore: never a second activation
    for (MeshNode via : List.of(a, b, c)) {
      assertThat(via.toInstanceSpot(id, TYPE).request(new Where(), String.class).timeout(Duration.ofSeconds(10))
          .await()).isEqualTo(b.nodeRid().hex());
    }
    assertThat(BUILT.get(id)).hasValue(2);
    assertThat(CLOSINGS).containsExactly(id + " RELOCATION_OUT " + a.nodeRid().hex());
  }

  /**
   * A sender on a third node, with Instance intent, while the Instance Spot moves back and forth between two other
   * nodes. Its route cache keeps a route for 100 ms, so after each move a send reads the new owner while what it sent
   * before still follows through the old one: it must wait for those (a route switch), not overtake them.
   */
  @Test
  @Spec("REL-01")
  void anInstanceIntentSenderOnAThirdNodeKeepsItsOrderWhileTheSpotMovesBackAndForth() throws Exception {
    final String id = "bounced";
    routeCacheMaxAge = Duration.ofMillis(100);
    final MeshNode a = node(true);
    activate(a, id);
    final MeshNode b = node(true);
    final MeshNode c = node(true);
    final AtomicBoolean stop = new AtomicBoolean();
    final AtomicLong allSent = new AtomicLong();
    final Map<String, AtomicLong> sent = Map.of("fromC", new AtomicLong());
    final Thread s = sender(c, "fromC", id, true, stop, sent.get("fromC"), allSent);
    await().atMost(Duration.ofSeconds(10)).until(() -> sent.get("fromC").get() > 500);
    MeshNode from = a;
    MeshNode to = b;
    for (int round = 0; round < 6; round++) {
      final SpotRelocationResult moved = from.relocateSpot(new SpotId(id), to.nodeRid()).get(60, TimeUnit.SECONDS);
      assertThat(moved.spot().nodeRid()).isEqualTo(to.nodeRid());
      final long after = sent.get("fromC").get();
      final long movedAt = System.nanoTime(); // the sender goes on past its route's age (100 ms) after the move
      await().atMost(Duration.ofSeconds(10)).until(() -> sent.get("fromC").get() > after + 500
          && System.nanoTime() - movedAt > TimeUnit.MILLISECONDS.toNanos(300));
      final MeshNode was = from;
      from = to;
      to = was;
    }
    stop.set(true);
    s.join(TimeUnit.SECONDS.toMillis(30));
    assertThat(FAILURES).isEmpty();
    assertExactlyOnceInOrder(c, id, sent);
    assertThat(BUILT.get(id)).hasValue(7); // its activation and one Restore per move: never a second activation
  }

  @Test
  @Spec("SPOT-07")
  void aRecreatedInstanceSpotMovesWithItsQueueAndTimerAndItsCloseOnTheTargetRemovesItsRow() throws Exception {
    final String id = "plain-1";
    final MeshNode a = node(true);
    assertThat(a.toInstanceSpot(id, PLAIN).request(new Where(), String.class).timeout(Duration.ofSeconds(10))
        .await()).isEqualTo(a.nodeRid().hex());
    final long generation = LocationRecords.read(store, ObjectKey.spot(id)).orElseThrow().authority()
        .objectGeneration().value();
    a.toSpot(id).send(new StartBeat());
    for (int i = 0; i < 1_000; i++) { // queued behind each other: part of them is still unrun at the seal
      a.toSpot(id).send(new Note("s", i));
    }
    final MeshNode b = node(true);
    final SpotRelocationResult moved = a.relocateSpot(new SpotId(id), b.nodeRid()).get(60, TimeUnit.SECONDS);
    assertThat(moved.spot().generation().value()).isEqualTo(generation); // same incarnation
    await().atMost(Duration.ofSeconds(10)).until(() -> SEEN.getOrDefault(id, List.of()).size() == 1_000);
    assertThat(SEEN.get(id)).extracting(Note::seq).isSorted().doesNotHaveDuplicates();
    final long beats = beats(a, id);
    await().atMost(Duration.ofSeconds(10)).until(() -> beats(a, id) > beats + 3); // its timer runs on b
    assertThat(CLOSINGS).containsExactly(id + " RELOCATION_OUT " + a.nodeRid().hex());

    assertThat(a.toSpot(id).request(new Close(), Boolean.class).timeout(Duration.ofSeconds(10)).await()).isTrue();
    await().atMost(Duration.ofSeconds(10)).until(() -> LocationRecords.read(store, ObjectKey.spot(id)).isEmpty());
    assertThat(CLOSINGS).containsExactly(id + " RELOCATION_OUT " + a.nodeRid().hex(),
        id + " EXPLICIT_CLOSE " + b.nodeRid().hex());
    assertThat(aggregateRecords()).isZero();
    // Instance intent activates a new incarnation; the move left nothing that holds the id
    a.toInstanceSpot(id, PLAIN).request(new Where(), String.class).timeout(Duration.ofSeconds(10)).await();
    assertThat(LocationRecords.read(store, ObjectKey.spot(id)).orElseThrow().authority().objectGeneration()
        .value()).isGreaterThan(generation);
    assertThat(BUILT.get(id)).hasValue(3);
  }

  private static long beats(final MeshNode via, final String id) {
    return via.toSpot(id).request(new Beats(), Long.class).timeout(Duration.ofSeconds(10)).await();
  }

  /** Aggregate records in the Location Store (a room's move writes one; an Instance Spot's none). */
  private int aggregateRecords() {
    final ScanResult result = store.scan(ScanRequest.first("aggregate", 100)).toCompletableFuture().join();
    return ((ScanResult.Page) result).entries().size(); // aggregate and aggregate-inventory keys
  }
}
