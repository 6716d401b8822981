package dev.spotkit.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spotkit.testkit.TestMesh;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Three MeshNodes on loopback sharing one in-memory Location Store: messages and requests cross nodes. */
class MeshRoutingTest {
  static final String SECRET = "test-cluster-secret-0123456789";

  record Note(int n) {}

  record Ask(int n) {}

  record Answer(int n, String by) {}

  record Seen() {}

  record Stall() {}

  record WithLambda(Runnable run) {}

  record WithThread(Thread thread) {}

  record BadReply() {}

  /** Not a record: may not cross nodes by name. */
  static final class Plain {
    public int n = 1;
  }

  /** An Instance Spot type, so Instance intent to a User Spot id can be tried. */
  static final class Tally implements InstanceSpot {
    private final InstanceSpotContext ctx;

    Tally(final InstanceSpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public InstanceSpotContext context() {
      return ctx;
    }
  }

  static volatile java.util.concurrent.CountDownLatch stallGate = new java.util.concurrent.CountDownLatch(0);

  /** Records notes, answers asks with the id of its node. */
  static final class Recorder implements Actor {
    final List<Integer> notes = new CopyOnWriteArrayList<>();
    private final ActorContext ctx;

    Recorder(final ActorContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public void configure(final ActorHandlers on) {
      on.message(Note.class, n -> notes.add(n.n()))
          .request(Ask.class, a -> new Answer(a.n() * 2, ctx.self().nodeRid().hex()))
          .request(Seen.class, s -> List.copyOf(notes))
          .request(BadReply.class, b -> new WithLambda(() -> { }))
          .request(Stall.class, s -> {
            stallGate.await(10, TimeUnit.SECONDS);
            return "late";
          });
    }
  }

  /** A room with no behaviour. */
  static final class Hall implements UserSpot<Actor> {
    private final UserSpotContext ctx;

    Hall(final UserSpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public UserSpotContext context() {
      return ctx;
    }
  }

  private TestMesh mesh;

  /** The first call starts the test's mesh with one node, each later call adds one. */
  private MeshNode node() {
    if (mesh == null) {
      mesh = TestMesh.builder().meshName("mesh")
          .objectServer(s -> s.entrySpot(TestNodes.PlainEntry::new)
              .actor("recorder", Recorder::new, a -> a.disableRelocation())
              .userSpot("hall", Hall::new, o -> o.recreateOnRelocation())
              .instanceSpot("tally", Tally::new, o -> o.recreateOnRelocation()))
          .start(1);
      return mesh.node(0);
    }
    return mesh.addNode();
  }

  /** A node of {@code from} that does not own {@code owner} (messages from it cross the mesh). */
  private static MeshNode notOwning(final NodeRid owner, final MeshNode... from) {
    return java.util.Arrays.stream(from).filter(n -> !n.nodeRid().equals(owner)).findFirst().orElseThrow();
  }

  @AfterEach
  void close() {
    stallGate.countDown();
    if (mesh != null) {
      mesh.close();
    }
  }

  @Test
  void messagesAndRequestsReachTheOwnerOnAnotherNode() {
    final MeshNode a = node();
    final MeshNode b = node();
    final MeshNode c = node();
    final ActorRef ref = a.actors().getOrCreate("alice", "recorder").await();

    for (int i = 0; i < 200; i++) {
      b.toActor("alice").send(new Note(i));
    }
    final Answer answer = c.toActor(ref).request(new Ask(21), Answer.class).timeout(Duration.ofSeconds(5)).await();
    assertThat(answer).isEqualTo(new Answer(42, ref.nodeRid().hex()));
    Awaitility.await().atMost(5, TimeUnit.SECONDS).until(() ->
        b.toActor("alice").request(new Seen(), List.class).await().size() == 200);
  }

  @Test
  void oneSenderKeepsItsOrderAcrossTheMesh() {
    final MeshNode a = node();
    final MeshNode b = node();
    final MeshNode sender = notOwning(a.actors().getOrCreate("bob", "recorder").await().nodeRid(), a, b);
    for (int i = 0; i < 2000; i++) {
      sender.toActor("bob").send(new Note(i));
    }
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() ->
        sender.toActor("bob").request(new Seen(), List.class).await().size() == 2000);
    @SuppressWarnings("unchecked") final List<Object> seen = a.toActor("bob").request(new Seen(), List.class).await();
    assertThat(seen).containsExactlyElementsOf(java.util.stream.IntStream.range(0, 2000).boxed().map(Object.class::cast).toList());
  }

  @Test
  void unknownIdsAndStaleRefsGetTypedErrorsFromAnyNode() {
    final MeshNode a = node();
    final MeshNode other = node();
    final ActorRef ref = a.actors().getOrCreate("carol", "recorder").await();
    final MeshNode b = notOwning(ref.nodeRid(), a, other);
    assertThatThrownBy(() -> b.toActor("nobody").send(new Note(1)))
        .isInstanceOf(SpotkitException.NotFound.class);
    final ActorRef stale = new ActorRef(ref.id(), new ObjectGeneration(ref.generation().value() + 1000),
        ref.meshName(), ref.nodeRid());
    assertThatThrownBy(() -> b.toActor(stale).request(new Ask(1), Answer.class).await())
        .isInstanceOf(SpotkitException.StaleGeneration.class);
  }

  @Test
  void aStoppedOwnerIsReportedAndNotGuessed() {
    final MeshNode a = node();
    final MeshNode b = node();
    final ActorRef dave = a.actors().getOrCreate("dave", "recorder").await();
    final MeshNode owner = dave.nodeRid().equals(a.nodeRid()) ? a : b;
    final MeshNode other = owner == a ? b : a;
    assertThat(other.toActor("dave").request(new Ask(1), Answer.class).await().n()).isEqualTo(2);
    owner.close();
    assertThatThrownBy(() -> other.toActor("dave").request(new Ask(2), Answer.class)
        .timeout(Duration.ofSeconds(2)).await())
        .isInstanceOfAny(SpotkitException.NotFound.class, SpotkitException.Unavailable.class);
  }

  @Test
  @Spec("LOC-07")
  void findFromAnyNodeReturnsTheOwnersRefAndOnlyReadyObjects() {
    final MeshNode a = node();
    final MeshNode b = node();
    final ActorRef actor = a.actors().getOrCreate("erin", "recorder").await();
    final SpotRef hall = a.spots().getOrCreate("hall-1", "hall").await();
    assertThat(b.actors().find("erin")).contains(actor);
    assertThat(b.spots().find("hall-1")).contains(hall);
    assertThat(b.actors().find("nobody")).isEmpty();
    assertThat(b.spots().find("hall-1").orElseThrow().nodeRid()).isEqualTo(hall.nodeRid());
  }

  /**
   * A sender's cached route to an earlier incarnation: the object was destroyed on A and created again on the
   * sender's own node B. A one-way message from B reaches the new incarnation here; it is not sent to A, which no
   * longer has it (a dead letter: the chat demo lost wanderer lines that way when a room was closed and created
   * again on the node that had sent to it).
   */
  @Test
  void aCachedRouteToAnEarlierIncarnationDoesNotTakeMessagesForTheNewOneHere() {
    final MeshNode a = node();
    final ActorRef first = a.actors().getOrCreate("gone", "recorder").await();
    final MeshNode b = node();
    b.toActor("gone").send(new Note(1)); // b caches the route to a
    Awaitility.await().atMost(5, TimeUnit.SECONDS).until(() ->
        a.toActor("gone").request(new Seen(), List.class).await().size() == 1);
    ActorRef again = first;
    for (int i = 0; i < 64 && !again.nodeRid().equals(b.nodeRid()); i++) {
      assertThat(a.actors().destroy(again).await()).isTrue();
      again = b.actors().getOrCreate("gone", "recorder").await();
    }
    assertThat(again.nodeRid()).as("an incarnation on b").isEqualTo(b.nodeRid());
    assertThat(again.generation().value()).isGreaterThan(first.generation().value());

    b.toActor("gone").send(new Note(2));

    Awaitility.await().atMost(5, TimeUnit.SECONDS).until(() ->
        b.toActor("gone").request(new Seen(), List.class).await().equals(List.of(2)));
    assertThat(b.deadLetters()).isEmpty();
    assertThat(a.deadLetters()).isEmpty();
  }

  @Test
  void destroyAndCloseFromAnotherNodeMatchTheRefsGeneration() {
    final MeshNode a = node();
    final MeshNode c = node();
    final MeshNode d = node();
    final ActorRef actor = a.actors().getOrCreate("frank", "recorder").await();
    final MeshNode b = notOwning(actor.nodeRid(), a, c, d);
    final SpotRef hall = b.spots().create("hall").await();
    final MeshNode closer = notOwning(hall.nodeRid(), a, c, d);
    final ActorRef staleActor = new ActorRef(actor.id(), new ObjectGeneration(actor.generation().value() + 7),
        actor.meshName(), actor.nodeRid());
    final SpotRef staleHall = new SpotRef(hall.id(), new ObjectGeneration(hall.generation().value() + 7),
        hall.meshName(), hall.nodeRid());

    assertThatThrownBy(() -> b.actors().destroy(staleActor).await())
        .isInstanceOf(SpotkitException.StaleGeneration.class);
    assertThatThrownBy(() -> closer.spots().close(staleHall).await())
        .isInstanceOf(SpotkitException.StaleGeneration.class);
    assertThat(a.actors().find("frank")).contains(actor);

    assertThat(b.actors().destroy(actor).await()).isTrue();
    assertThat(closer.spots().close(hall).await()).isTrue();
    assertThat(a.actors().find("frank")).isEmpty();
    assertThat(b.spots().find(hall.id().value())).isEmpty();
    assertThat(b.actors().destroy(actor).await()).isFalse();
    assertThat(closer.spots().close(hall).await()).isFalse();
  }

  @Test
  void aRemoteRequestEndsAtItsDeadlineAndTheLateReplyChangesNothing() {
    final MeshNode a = node();
    final MeshNode b = node();
    final ActorRef ref = a.actors().getOrCreate("gina", "recorder").await();
    final MeshNode caller = notOwning(ref.nodeRid(), a, b);
    stallGate = new java.util.concurrent.CountDownLatch(1);
    final long started = System.nanoTime();
    assertThatThrownBy(() -> caller.toActor(ref).request(new Stall(), String.class)
        .timeout(Duration.ofMillis(300)).await())
        .isInstanceOf(SpotkitException.DeadlineExceeded.class);
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(3));
    stallGate.countDown(); // the owner answers late: the caller already failed; the next request still works
    assertThat(caller.toActor(ref).request(new Ask(5), Answer.class).timeout(Duration.ofSeconds(5)).await().n())
        .isEqualTo(10);
  }

  @Test
  void messagesAndRepliesThatCannotCrossNodesAreTypedErrorsAtTheSenderNotLosses() {
    final MeshNode a = node();
    final MeshNode b = node();
    final ActorRef ref = a.actors().getOrCreate("hal", "recorder").await();
    final MeshNode sender = notOwning(ref.nodeRid(), a, b);
    assertThatThrownBy(() -> sender.toActor(ref).send(new WithLambda(() -> { })))
        .isInstanceOf(SpotkitException.InvalidOperation.class).hasMessageContaining("does not survive");
    assertThatThrownBy(() -> sender.toActor(ref).send(new WithThread(Thread.currentThread())))
        .isInstanceOf(SpotkitException.InvalidOperation.class);
    assertThatThrownBy(() -> sender.toActor(ref).send(new Plain()))
        .isInstanceOf(SpotkitException.InvalidOperation.class).hasMessageContaining("a record, an enum");
    assertThatThrownBy(() -> sender.toActor(ref).request(new BadReply(), WithLambda.class)
        .timeout(Duration.ofSeconds(5)).await())
        .isInstanceOf(SpotkitException.InvalidOperation.class).hasMessageContaining("does not survive");
    assertThat(sender.toActor(ref).request(new Seen(), List.class).await()).isEmpty();
  }

  @Test
  void instanceIntentToAUserSpotIdIsATypeMismatchFromEveryNode() {
    final MeshNode a = node();
    final MeshNode b = node();
    final MeshNode c = node();
    a.spots().getOrCreate("shared-id", "hall").await();
    for (MeshNode n : List.of(a, b, c)) {
      assertThatThrownBy(() -> n.toInstanceSpot("shared-id", "tally").send(new Note(1)))
          .isInstanceOf(SpotkitException.TypeMismatch.class);
      assertThatThrownBy(() -> n.toInstanceSpot("shared-id", "tally").request(new Seen(), List.class).await())
          .isInstanceOf(SpotkitException.TypeMismatch.class);
    }
  }
}
