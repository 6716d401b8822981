package dev.spotkit.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.spotkit.store.InMemoryLocationStore;
import dev.spotkit.testkit.TestMesh;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The meters of {@link MeshNode.Builder#metrics} and the events of {@link MeshNode#events()} on real nodes over
 * loopback: a host relocation between two nodes moves the relocation counters and the pause histogram on both sides
 * and emits start before commit on each; a move the target refuses emits start then fail and counts a failure;
 * handler turns, mailbox depth, store calls, lease renewals and mesh traffic are recorded; a throwing listener is
 * counted and changes nothing; a closed node leaves no meter behind.
 */
class MetricsAndEventsTest {
  static final int NOTES = 20;

  record Note(int n) {}

  record Seen() {}

  record Hold() {}

  /** Keeps the notes it got; {@link Hold} blocks its turn until {@link #release} opens. */
  static final class Keeper implements Actor {
    static volatile CountDownLatch release = new CountDownLatch(0);
    static volatile CountDownLatch holding = new CountDownLatch(0);
    final List<Integer> notes = new CopyOnWriteArrayList<>();

    Keeper(final ActorContext ctx) {
    }

    @Override
    public void configure(final ActorHandlers on) {
      on.message(Note.class, n -> notes.add(n.n()))
          .message(Hold.class, h -> {
            holding.countDown();
            try {
              release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          })
          .request(Seen.class, s -> List.copyOf(notes));
    }
  }

  /** The notes as bytes; {@code refuse} makes Restore throw (the target refuses the move). */
  static final class KeeperState implements ActorRelocationAdapter<Keeper> {
    private final boolean refuse;

    KeeperState(final boolean refuse) {
      this.refuse = refuse;
    }

    @Override
    public byte[] capture(final Keeper actor) {
      final java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(4 + 4 * actor.notes.size());
      b.putInt(actor.notes.size());
      actor.notes.forEach(b::putInt);
      return b.array();
    }

    @Override
    public void restore(final Keeper actor, final byte[] state) {
      if (refuse) {
        throw new IllegalStateException("this node refuses keepers (test)");
      }
      final java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(state);
      final int n = b.getInt();
      for (int i = 0; i < n; i++) {
        actor.notes.add(b.getInt());
      }
    }
  }

  private final InMemoryLocationStore store = new InMemoryLocationStore();
  private TestMesh mesh;
  private volatile MeterRegistry nextRegistry;
  private volatile List<NodeEvent> nextEvents;
  private volatile boolean nextRefuse;

  /** The next node of the mesh: its own registry and event list when not null; {@code refuse}: its state refuses. */
  private MeshNode node(final MeterRegistry registry, final List<NodeEvent> events, final boolean refuse) {
    nextRegistry = registry;
    nextEvents = events;
    nextRefuse = refuse;
    if (mesh == null) {
      mesh = TestMesh.builder().meshName("mesh").locationStore(store)
          .objectServer(s -> s.entrySpot(TestNodes.PlainEntry::new))
          // renewals every 200 ms so the lease counter moves within the test (LOC-03 still holds: 0.2+3 < 15-5)
          .node(b -> b.ownerLease(Duration.ofMillis(200), Duration.ofSeconds(15), Duration.ofSeconds(3),
              Duration.ofSeconds(5)))
          .customize((b, i) -> {
            final boolean refuses = nextRefuse;
            b.objectServer(s -> s.entrySpot(TestNodes.PlainEntry::new)
                .actor("keeper", Keeper::new, o -> o.preserveStateWith(new KeeperState(refuses))));
            final MeterRegistry r = nextRegistry;
            if (r != null) {
              b.metrics(r);
            }
            final List<NodeEvent> e = nextEvents;
            if (e != null) {
              b.eventListener(e::add);
            }
          })
          .start(1);
      return mesh.node(0);
    }
    return mesh.addNode();
  }

  @AfterEach
  void close() {
    Keeper.release.countDown();
    if (mesh != null) {
      mesh.close();
    }
  }

  private static double count(final MeterRegistry r, final String name, final String... tags) {
    final Counter c = r.find(name).tags(tags).counter();
    final FunctionCounter f = r.find(name).tags(tags).functionCounter();
    return c != null ? c.count() : f != null ? f.count() : 0;
  }

  private static double timerCount(final MeterRegistry r, final String name, final String... tags) {
    final Timer t = r.find(name).tags(tags).timer();
    final FunctionTimer f = r.find(name).tags(tags).functionTimer();
    return t != null ? t.count() : f != null ? f.count() : 0;
  }

  @SuppressWarnings("unchecked")
  private static List<Integer> seen(final MeshNode via, final String actor) {
    return via.toActor(actor).request(new Seen(), List.class).timeout(Duration.ofSeconds(5)).await();
  }

  /**
   * A host relocation of one actor from A to B: on A (source) and B (target) the started and committed counters
   * read 1, the pause timer recorded one move with histogram buckets, A wrote relocation bytes, and each side's
   * listener saw RelocationStarted before RelocationCommitted for the actor (after the node's RUNNING state).
   * A's send after the move went by its Message Follow and was counted. Handler turns, store calls, mesh traffic and
   * lease renewals moved too.
   */
  @Test
  void aCrossNodeMoveCountsOnBothSidesAndEmitsStartThenCommit() {
    final SimpleMeterRegistry ra = new SimpleMeterRegistry();
    final SimpleMeterRegistry rb = new SimpleMeterRegistry();
    final List<NodeEvent> ea = new CopyOnWriteArrayList<>();
    final List<NodeEvent> eb = new CopyOnWriteArrayList<>();
    final MeshNode a = node(ra, ea, false);
    final String id = Placed.actorOn(a, "keeper", "keeper"); // A is alone: placement can only choose it
    final MeshNode b = node(rb, eb, false);
    for (int n = 0; n < NOTES; n++) {
      a.toActor(id).send(new Note(n));
    }
    assertThat(seen(a, id)).hasSize(NOTES); // every note ran on A before the move

    final HostRelocationResult result = a.relocate(b.nodeRid()).join();
    assertThat(result.fullyRelocated()).as("%s", result).isTrue();
    assertThat(seen(b, id)).hasSize(NOTES);
    a.toActor(id).send(new Note(NOTES)); // A no longer has it: its Message Follow forwards the note to B
    await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(seen(b, id)).hasSize(NOTES + 1));
    assertThat(count(ra, "spotkit.relocation.follow.forwards")).as("Message Follow forwards on A").isPositive();

    assertThat(count(ra, "spotkit.relocations.started", "kind", "host", "role", "source")).isEqualTo(1);
    assertThat(count(ra, "spotkit.relocations", "kind", "host", "role", "source", "outcome", "committed"))
        .isEqualTo(1);
    assertThat(count(ra, "spotkit.relocations", "kind", "host", "role", "source", "outcome", "failed")).isZero();
    final Timer sourcePause = ra.get("spotkit.relocation.pause").tag("role", "source").timer();
    assertThat(sourcePause.count()).isEqualTo(1);
    assertThat(sourcePause.totalTime(TimeUnit.NANOSECONDS)).isPositive();
    assertThat(sourcePause.takeSnapshot().histogramCounts()).as("pause histogram buckets").isNotEmpty();
    assertThat(count(ra, "spotkit.relocation.bytes", "direction", "sent")).isPositive();
    await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
      assertThat(count(rb, "spotkit.relocations.started", "kind", "host", "role", "target")).isEqualTo(1);
      assertThat(count(rb, "spotkit.relocations", "kind", "host", "role", "target", "outcome", "committed"))
          .isEqualTo(1);
      assertThat(timerCount(rb, "spotkit.relocation.pause", "role", "target")).isEqualTo(1);
    });

    assertThat(relocationEvents(ea, id)).containsExactly("relocation_started:SOURCE", "relocation_committed:SOURCE");
    await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(relocationEvents(eb, id))
        .containsExactly("relocation_started:TARGET", "relocation_committed:TARGET"));
    assertThat(ea.get(0)).isInstanceOfSatisfying(NodeEvent.NodeStateChanged.class,
        s -> assertThat(s.to()).isEqualTo(NodeEvent.NodeLifecycle.RUNNING));
    final NodeEvent.RelocationCommitted committed = ea.stream().filter(NodeEvent.RelocationCommitted.class::isInstance)
        .map(NodeEvent.RelocationCommitted.class::cast).findFirst().orElseThrow();
    assertThat(committed.peer()).isEqualTo(b.nodeRid());
    assertThat(committed.pause()).isPositive();
    assertThat(committed.relocationId()).hasSize(32);

    // the rest of the node moved too
    assertThat(count(ra, "spotkit.messages.handled", "kind", "actor", "type", "keeper", "outcome", "ok"))
        .isGreaterThanOrEqualTo(NOTES + 1);
    assertThat(timerCount(ra, "spotkit.turn.duration", "kind", "actor", "type", "keeper"))
        .isGreaterThanOrEqualTo(NOTES + 1);
    assertThat(timerCount(ra, "spotkit.store.duration", "store", "location", "operation", "write", "outcome", "ok"))
        .isPositive();
    assertThat(timerCount(rb, "spotkit.store.duration", "store", "location", "operation", "read", "outcome", "ok"))
        .isPositive();
    assertThat(ra.get("spotkit.store.errors").tags("store", "location", "operation", "write", "error",
        "Indeterminate").counter().count()).as("the SPI's store errors exist at 0 before any failure").isZero();
    assertThat(count(ra, "spotkit.mesh.bytes", "direction", "sent")).isPositive();
    assertThat(count(rb, "spotkit.mesh.bytes", "direction", "received")).isPositive();
    assertThat(ra.get("spotkit.mesh.connections").gauge().value()).isGreaterThanOrEqualTo(1);
    assertThat(ra.get("spotkit.permits.limit").gauge().value())
        .isEqualTo(MeshNode.Builder.DEFAULT_APPLICATION_JOB_LIMIT);
    await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
        assertThat(count(ra, "spotkit.lease.renewals", "outcome", "ok")).isPositive());
  }

  /**
   * B's Restore throws: the move fails before relay-ready, the actor stays on A. A's listener saw RelocationStarted
   * then RelocationFailed (not past relay-ready), and the failed counter reads 1, the committed one 0; no pause
   * is recorded for a failed move.
   */
  @Test
  void aRefusedMoveEmitsStartThenFailAndCountsAFailure() {
    final SimpleMeterRegistry ra = new SimpleMeterRegistry();
    final List<NodeEvent> ea = new CopyOnWriteArrayList<>();
    final MeshNode a = node(ra, ea, false);
    final String id = Placed.actorOn(a, "keeper", "keeper");
    final MeshNode b = node(null, null, true);

    final HostRelocationResult result = a.relocate(b.nodeRid()).join();
    assertThat(result.kept()).containsKey(new ActorId(id));
    assertThat(seen(a, id)).isEmpty(); // still served on A

    assertThat(relocationEvents(ea, id)).containsExactly("relocation_started:SOURCE", "relocation_failed:SOURCE");
    final NodeEvent.RelocationFailed failed = ea.stream().filter(NodeEvent.RelocationFailed.class::isInstance)
        .map(NodeEvent.RelocationFailed.class::cast).findFirst().orElseThrow();
    assertThat(failed.pastRelayReady()).isFalse();
    assertThat(failed.kind()).isEqualTo(NodeEvent.RelocationKind.HOST);
    assertThat(failed.reason()).contains("failed before relay-ready");
    assertThat(count(ra, "spotkit.relocations", "kind", "host", "role", "source", "outcome", "failed")).isEqualTo(1);
    assertThat(count(ra, "spotkit.relocations", "kind", "host", "role", "source", "outcome", "committed")).isZero();
    assertThat(timerCount(ra, "spotkit.relocation.pause", "role", "source")).isZero();
  }

  /**
   * Every CAS of the target fails retryably (the store refuses the write): past relay-ready the target retries until
   * the Restore validity (10 s) and gives up with the spec's {@code location_update_failed} (spec 001 section 4.5),
   * a typed event on B followed by its RelocationFailed past relay-ready; the store errors are counted by operation
   * on B, and A, which learns by reading the row, reports its own RelocationFailed past relay-ready.
   */
  @Test
  void aTargetThatCannotCommitEmitsLocationUpdateFailedAndCountsStoreErrors() {
    final SimpleMeterRegistry ra = new SimpleMeterRegistry();
    final SimpleMeterRegistry rb = new SimpleMeterRegistry();
    final List<NodeEvent> ea = new CopyOnWriteArrayList<>();
    final List<NodeEvent> eb = new CopyOnWriteArrayList<>();
    final MeshNode a = node(ra, ea, false);
    final String id = Placed.actorOn(a, "stuck", "keeper");
    final MeshNode b = node(rb, eb, false);
    final String key = dev.spotkit.core.location.ObjectKey.actor(id).logicalKey().preimage();
    store.faults().failNext(100_000, call -> call.kind() == dev.spotkit.store.StoreFaults.Kind.WRITE
        && call.touches(key));
    try {
      final HostRelocationResult result = a.relocate(b.nodeRid()).join(); // bounded: validity + one store call
      assertThat(result.kept()).containsKey(new ActorId(id));
      await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(eb.stream()
          .filter(e -> !(e instanceof NodeEvent.NodeStateChanged)).map(NodeEvent::code).toList())
          .containsExactly("relocation_started", "location_update_failed", "relocation_failed"));
      final NodeEvent.RelocationFailed targetFailed = (NodeEvent.RelocationFailed) eb.get(eb.size() - 1);
      assertThat(targetFailed.pastRelayReady()).isTrue();
      assertThat(targetFailed.role()).isEqualTo(NodeEvent.RelocationRole.TARGET);
      assertThat(count(rb, "spotkit.store.errors", "store", "location", "operation", "write", "error",
          "Unavailable")).isPositive();
      assertThat(count(rb, "spotkit.relocations", "kind", "host", "role", "target", "outcome", "failed"))
          .isEqualTo(1);
      assertThat(relocationEvents(ea, id)).containsExactly("relocation_started:SOURCE", "relocation_failed:SOURCE");
      assertThat(ea.stream().filter(NodeEvent.RelocationFailed.class::isInstance)
          .map(NodeEvent.RelocationFailed.class::cast).findFirst().orElseThrow().pastRelayReady()).isTrue();
    } finally {
      store.faults().clear(); // the nodes' close writes normally
    }
  }

  /**
   * A one-way message from A reaches B after the actor it names was destroyed there: B counts a dead letter, and its
   * {@code spotkit.dead.letters} meter of that reason reads what {@link MeshNode#deadLetters()} says.
   */
  @Test
  void aDeadLetterIsCountedByReason() {
    final SimpleMeterRegistry rb = new SimpleMeterRegistry();
    final MeshNode b = node(rb, null, false);
    final String id = Placed.actorOn(b, "gone", "keeper");
    final MeshNode a = node(null, null, false);
    final ActorRef ref = a.actors().find(id).orElseThrow();
    assertThat(seen(a, id)).isEmpty(); // A routes to B
    assertThat(b.actors().destroy(ref).await()).isTrue();
    a.toActor(ref).send(new Note(1)); // to the destroyed incarnation, one-way: dropped on B
    await().atMost(Duration.ofSeconds(5)).until(() -> !b.deadLetters().isEmpty());
    final Map.Entry<String, Long> dead = b.deadLetters().entrySet().iterator().next();
    assertThat(count(rb, "spotkit.dead.letters", "reason", dead.getKey())).isEqualTo(dead.getValue().doubleValue());
  }

  /**
   * An actor blocked in a turn: the mailbox depth gauge of its type shows the messages queued behind it and drops
   * back to 0 once they ran; the live permits gauge shows the blocked turn's permit. The high-water gauges keep
   * what the instant gauges lose between scrapes: the depth max reads the 4 notes queued behind the first one to
   * run, then 0 once read; the live permits max reads at least the blocked turn's permit, then 0 once the workers
   * idle.
   */
  @Test
  void mailboxDepthAndLivePermitsFollowABlockedActor() throws InterruptedException {
    final SimpleMeterRegistry r = new SimpleMeterRegistry();
    final MeshNode a = node(r, null, false);
    final String id = Placed.actorOn(a, "keeper", "keeper");
    Keeper.release = new CountDownLatch(1);
    Keeper.holding = new CountDownLatch(1);
    a.toActor(id).send(new Hold());
    assertThat(Keeper.holding.await(5, TimeUnit.SECONDS)).isTrue();
    for (int n = 0; n < 5; n++) {
      a.toActor(id).send(new Note(n));
    }
    final Gauge depth = r.get("spotkit.mailbox.depth").tags("kind", "actor", "type", "keeper").gauge();
    await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(depth.value()).isEqualTo(5));
    assertThat(r.get("spotkit.permits.live").gauge().value()).isGreaterThanOrEqualTo(1);
    final Gauge depthMax = r.get("spotkit.mailbox.depth.max").tags("kind", "actor", "type", "keeper").gauge();
    final Gauge permitsMax = r.get("spotkit.permits.live.max").gauge();
    assertThat(permitsMax.value()).isGreaterThanOrEqualTo(1);
    Keeper.release.countDown();
    await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(depth.value()).isZero());
    assertThat(depthMax.value()).as("queued behind the first note at its turn start").isEqualTo(4);
    assertThat(depthMax.value()).as("a read starts a new period").isZero();
    assertThat(seen(a, id)).hasSize(5);
    await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(permitsMax.value()).isZero());
  }

  /**
   * A listener that throws on every event is counted (and logged), the other listener still gets every event in
   * order, and the node closes normally: RUNNING, CLOSING, CLOSED. After the close the registry holds none of the
   * node's meters, so a later node may register its own.
   */
  @Test
  void aThrowingListenerIsCountedAndTheNodeGoesOn() {
    final SimpleMeterRegistry r = new SimpleMeterRegistry();
    final List<NodeEvent> seen = new CopyOnWriteArrayList<>();
    final MeshNode a = node(r, seen, false);
    a.events().addListener(e -> {
      throw new IllegalStateException("listener failure (test)");
    });
    a.close();
    await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(seen).extracting(e ->
        ((NodeEvent.NodeStateChanged) e).to()).containsExactly(NodeEvent.NodeLifecycle.RUNNING,
        NodeEvent.NodeLifecycle.CLOSING, NodeEvent.NodeLifecycle.CLOSED));
    await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(a.events().listenerFailures()).isEqualTo(2));
    assertThat(a.terminated()).isCompleted();
    assertThat(r.getMeters()).as("meters left after close").isEmpty();
  }

  /** Without a registry the node runs as before and its event feed still works. */
  @Test
  void withoutARegistryTheNodeRunsAndEventsStillArrive() {
    final List<NodeEvent> seen = new CopyOnWriteArrayList<>();
    final MeshNode a = node(null, seen, false);
    final String id = Placed.actorOn(a, "keeper", "keeper");
    a.toActor(id).send(new Note(1));
    assertThat(seen(a, id)).containsExactly(1);
    assertThat(seen).hasSize(1).first().isInstanceOf(NodeEvent.NodeStateChanged.class);
  }

  private static List<String> relocationEvents(final List<NodeEvent> events, final String id) {
    return events.stream().<String>mapMulti((e, out) -> {
      switch (e) {
        case NodeEvent.RelocationStarted s when s.objectId().equals(id) -> out.accept(s.code() + ":" + s.role());
        case NodeEvent.RelocationCommitted c when c.objectId().equals(id) -> out.accept(c.code() + ":" + c.role());
        case NodeEvent.RelocationFailed f when f.objectId().equals(id) -> out.accept(f.code() + ":" + f.role());
        default -> { }
      }
    }).toList();
  }
}
