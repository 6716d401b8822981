package dev.spotkit.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spotkit.core.location.LocationKeys;
import dev.spotkit.core.location.ObjectKey;
import dev.spotkit.core.mesh.PeerConnection;
import dev.spotkit.store.InMemoryLocationStore;
import dev.spotkit.testkit.TestMesh;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A room or Instance Spot move whose commit call fails past relay-ready while the target's CAS is still on its way
 * (spec 001 section 9, "Cutover submit result is unknown"). Node 0 only sends (weight 0), node 1 owns the Spot and
 * moves it to node 2, whose view of the store holds its CAS write. The source–target connection closes, so the
 * commit call fails; the source reads the store once (still its own row) and refuses the room at once (REL-30).
 * Then the held write lands. Forbidden outcomes: the source keeps refusing for good although the target owns the
 * room (the gap this covers), a message delivered twice, a refused message delivered later, two owners.
 */
class LateCommitReconcileTest {
  /** Scheduling slack on a loaded machine. */
  private static final Duration SLACK = Duration.ofSeconds(15);
  private static final String ROOM = "late-room";
  private static final int MEMBERS = 2;
  private static final int NOTES = 30;

  /** Where it runs. */
  record Here(String nodeHex) {
  }

  /** Asks for {@link Here}. */
  record Where() {
  }

  /** A numbered one-way message from a sender. */
  record Note(String from, long seq) {
  }

  /** Asks for every {@link Note} seen, in arrival order. */
  record Seen() {
  }

  record Join(String roomId) {
  }

  /** What each Spot or member saw; shared by its handlers. */
  static final class Log {
    private final List<String> seen = new ArrayList<>();

    void configure(final SpotHandlers on, final NodeRid node) {
      on.message(Note.class, n -> seen.add(n.from() + n.seq()))
          .request(Seen.class, s -> List.copyOf(seen))
          .request(Where.class, w -> new Here(node.hex()));
    }
  }

  /** An Instance Spot that records its notes. */
  static final class Tally implements InstanceSpot {
    private final InstanceSpotContext ctx;
    private final Log log = new Log();

    Tally(final InstanceSpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public InstanceSpotContext context() {
      return ctx;
    }

    @Override
    public void configure(final SpotHandlers on) {
      log.configure(on, ctx.self().nodeRid());
    }
  }

  /** A SpotWide room that records its notes. */
  static final class Room implements UserSpot<Member> {
    private final UserSpotContext ctx;
    private final Log log = new Log();

    Room(final UserSpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public UserSpotContext context() {
      return ctx;
    }

    @Override
    public void configure(final SpotHandlers on) {
      log.configure(on, ctx.self().nodeRid());
    }
  }

  /** A room member that records its notes. */
  static final class Member implements Actor {
    private final ActorContext ctx;
    private final List<String> seen = new ArrayList<>();

    Member(final ActorContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public void configure(final ActorHandlers on) {
      on.message(Join.class, j -> ctx.joinSpot(j.roomId()).defer())
          .message(Note.class, n -> seen.add(n.from() + n.seq()))
          .request(Seen.class, s -> List.copyOf(seen));
    }
  }



  private final InMemoryLocationStore store = new InMemoryLocationStore();
  private final HeldWriteStore viewOfTarget = new HeldWriteStore(store);
  private TestMesh mesh;

  @AfterEach
  void close() {
    viewOfTarget.dropHeld();
    if (mesh != null) {
      mesh.close();
    }
  }

  /** Node 0 sends only, node 1 owns what {@code onNode1} creates there, node 2 (the target) joins after. */
  private void start(final java.util.function.Consumer<MeshNode> onNode1) throws Exception {
    mesh = TestMesh.builder().meshName("latecommit").closeTimeout(Duration.ofSeconds(2))
        .locationStores(i -> i == 2 ? viewOfTarget : store)
        .customize((b, i) -> b.requestTimeout(Duration.ofSeconds(4)))
        .mesh((m, i) -> m.placementWeight(i == 0 ? 0 : 100))
        .objectServer(s -> s.entrySpot(TestNodes.PlainEntry::new)
            .instanceSpot("tally", Tally::new, o -> o.recreateOnRelocation())
            .userSpot("room", Room::new, o -> o.spotWide().recreateOnRelocation())
            .actor("member", Member::new, a -> a.recreateOnRelocation()))
        .start(2);
    onNode1.accept(mesh.node(1));
    mesh.addNode();
  }

  /**
   * Moves {@code spotId} from node 1 to node 2 with the target's write of {@code heldKey} held, closes the
   * connection between them, and checks that the source fails the move and refuses at once; then lets the write
   * land.
   */
  private void moveWithLateCommit(final String spotId, final String heldKey,
      final java.util.function.Function<MeshNode, Object> askSpot) throws Exception {
    viewOfTarget.holdWritesOf(heldKey);
    final MeshNode source = mesh.node(1);
    final CompletableFuture<SpotRelocationResult> move = source.relocateSpot(SpotId.of(spotId),
        mesh.node(2).nodeRid());
    assertThat(viewOfTarget.held.await(20, TimeUnit.SECONDS)).as("the target reached its CAS").isTrue();
    final PeerConnection toTarget = TestNodes.runtime(source).mesh().open(mesh.node(2).nodeRid()).orElseThrow();
    toTarget.close(); // the commit call's answer can no longer come
    final Throwable failure = failureOf(move, Duration.ofSeconds(10));
    assertThat(failure).isInstanceOf(SpotkitException.Unavailable.class); // at once, as before the late commit
    // meanwhile the source refuses at once (REL-30), and a one-way message sent now is dropped, never delivered
    final long at = System.nanoTime();
    final Throwable refused = org.assertj.core.api.Assertions.catchThrowable(() -> askSpot.apply(source));
    assertThat(refused).isInstanceOf(SpotkitException.Unavailable.class);
    assertThat(Duration.ofNanos(System.nanoTime() - at)).isLessThan(Duration.ofSeconds(3));
    source.toSpot(spotId).send(new Note("refused", 0));
    viewOfTarget.releaseApplied(); // the target's CAS lands after the source's first read
  }

  @Test
  @Spec("REL-30")
  void anInstanceSpotWhoseCommitLandsLateIsFollowedFromTheSourceAndOwnedOnce() throws Exception {
    start(n -> assertThat(n.toInstanceSpot("dir", "tally").request(new Where(), Here.class)
        .timeout(Duration.ofSeconds(5)).await().nodeHex()).isEqualTo(n.nodeRid().hex()));
    moveWithLateCommit("dir", ObjectKey.spot("dir").logicalKey().preimage(), n -> n.toInstanceSpot("dir", "tally")
        .request(new Where(), Here.class).timeout(Duration.ofSeconds(4)).await());
    final String target = mesh.node(2).nodeRid().hex();
    awaitAnswers("node 2 answers via nodes 0 and 1", () -> {
      for (int via = 0; via < 2; via++) {
        if (!mesh.node(via).toInstanceSpot("dir", "tally").request(new Where(), Here.class)
            .timeout(Duration.ofSeconds(2)).await().nodeHex().equals(target)) {
          return false;
        }
      }
      return true;
    });
    for (long seq = 0; seq < NOTES; seq++) {
      mesh.node(1).toInstanceSpot("dir", "tally").send(new Note("source", seq));
      mesh.node(0).toInstanceSpot("dir", "tally").send(new Note("other", seq));
    }
    final List<?> seen = awaitAll(() -> mesh.node(1).toInstanceSpot("dir", "tally").request(new Seen(), List.class)
        .timeout(Duration.ofSeconds(4)).await());
    assertExactlyOnce(seen);
    assertOneOwner("dir");
  }

  @Test
  @Spec("REL-30")
  void aRoomWhoseCommitLandsLateIsFollowedWithItsMembersAndOwnedOnce() throws Exception {
    start(n -> {
      n.spots().getOrCreate(ROOM, "room").await();
      for (int i = 0; i < MEMBERS; i++) {
        n.actors().getOrCreate("m" + i, "member").await();
        n.toActor("m" + i).send(new Join(ROOM));
      }
      Awaitility.await().atMost(30, TimeUnit.SECONDS).until(() -> TestNodes.runtime(n).spots.get(ROOM) != null
          && TestNodes.runtime(n).spots.get(ROOM).members().size() == MEMBERS);
    });
    moveWithLateCommit(ROOM, LocationKeys.aggregate(ROOM).preimage(), n -> n.toSpot(ROOM).request(new Where(),
        Here.class).timeout(Duration.ofSeconds(4)).await());
    final String target = mesh.node(2).nodeRid().hex();
    awaitAnswers("node 2 answers via nodes 0 and 1", () -> {
      for (int via = 0; via < 2; via++) {
        if (!mesh.node(via).toSpot(ROOM).request(new Where(), Here.class).timeout(Duration.ofSeconds(2)).await()
            .nodeHex().equals(target)) {
          return false;
        }
      }
      return true;
    });
    for (long seq = 0; seq < NOTES; seq++) {
      for (int via = 0; via < 2; via++) {
        final String from = via == 1 ? "source" : "other";
        mesh.node(via).toSpot(ROOM).send(new Note(from, seq));
        for (int i = 0; i < MEMBERS; i++) {
          mesh.node(via).toActor("m" + i).send(new Note(from, seq));
        }
      }
    }
    assertExactlyOnce(awaitAll(() -> mesh.node(1).toSpot(ROOM).request(new Seen(), List.class)
        .timeout(Duration.ofSeconds(4)).await()));
    for (int i = 0; i < MEMBERS; i++) {
      final String member = "m" + i;
      assertExactlyOnce(awaitAll(() -> mesh.node(1).toActor(member).request(new Seen(), List.class)
          .timeout(Duration.ofSeconds(4)).await()));
    }
    assertOneOwner(ROOM);
    for (int i = 0; i < MEMBERS; i++) {
      assertThat(TestNodes.runtime(mesh.node(1)).actors.get("m" + i)).as("member m%d on the source", i).isNull();
    }
  }

  /** Polls {@code answered} (bounded) until it holds; typed failures meanwhile are retried. */
  private static void awaitAnswers(final String what, final java.util.concurrent.Callable<Boolean> answered) {
    Awaitility.await(what).atMost(SLACK).pollInterval(Duration.ofMillis(50))
        .ignoreExceptionsInstanceOf(SpotkitException.class).until(answered);
  }

  /** Polls {@code seen} (bounded) until it holds every note of both senders. */
  private static List<?> awaitAll(final java.util.concurrent.Callable<List<?>> seen) {
    return Awaitility.await().atMost(SLACK).pollInterval(Duration.ofMillis(50))
        .ignoreExceptionsInstanceOf(SpotkitException.class).until(seen, s -> s.size() >= 2 * NOTES);
  }

  /** Each sender's notes once, in its order; nothing refused earlier; nothing else. */
  private static void assertExactlyOnce(final List<?> answer) {
    final List<String> seen = answer.stream().map(String.class::cast).toList();
    final List<String> expected = new ArrayList<>();
    LongStream.range(0, NOTES).forEach(s -> expected.add("source" + s));
    LongStream.range(0, NOTES).forEach(s -> expected.add("other" + s));
    assertThat(seen).as("no note lost, duplicated or resurrected").containsExactlyInAnyOrderElementsOf(expected);
    assertThat(seen.stream().filter(s -> s.startsWith("source")).toList())
        .containsExactlyElementsOf(expected.subList(0, NOTES));
    assertThat(seen.stream().filter(s -> s.startsWith("other")).toList())
        .containsExactlyElementsOf(expected.subList(NOTES, 2 * NOTES));
  }

  /** The Spot runs on node 2 only, and the Location Store names node 2. */
  private void assertOneOwner(final String spotId) throws ReflectiveOperationException {
    assertThat(TestNodes.runtime(mesh.node(1)).spots.get(spotId)).as("on the source").isNull();
    assertThat(TestNodes.runtime(mesh.node(0)).spots.get(spotId)).as("on node 0").isNull();
    assertThat(TestNodes.runtime(mesh.node(2)).spots.get(spotId)).as("on the target").isNotNull();
    assertThat(dev.spotkit.core.location.LocationRecords.read(store, ObjectKey.spot(spotId)).orElseThrow()
        .authority().allocation().routingIdHex()).isEqualTo(mesh.node(2).nodeRid().hex());
  }

  /** Waits up to {@code within} for {@code move} to end; its failure's cause, or null when it succeeded. */
  private static Throwable failureOf(final CompletableFuture<?> move, final Duration within) throws Exception {
    Awaitility.await().atMost(within).until(move::isDone);
    try {
      move.get();
      return null;
    } catch (ExecutionException e) {
      return e.getCause();
    }
  }
}
