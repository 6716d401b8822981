package dev.spotkit.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spotkit.store.InMemoryLocationStore;
import dev.spotkit.testkit.TestMesh;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The application-signaled relocation boundary of a SpotWide User Spot (spec 003 section 5.1, spec 000 section 7):
 * a move waits for {@code relocationReady().defer()}; {@code onRelocationReadyCompleted} runs once per boundary, on
 * the node that runs the Spot next, before its next job.
 */
class RelocationReadyTest {
  static final String SECRET = "test-cluster-secret-0123456789";

  /** Ends a round: registers the boundary when {@code boundary} is set. Request; the reply is the node's hex. */
  record EndRound(boolean boundary) {}

  /** A request answered with the node's hex, logged as "ping@node". */
  record Ping() {}

  /** Calls defer() and answers with the error's simple class name, or "ok". */
  record TryDefer() {}

  /** Spot events in order: "round@NODE", "completed OUTCOME@NODE", "ping@NODE". */
  static final List<String> EVENTS = new CopyOnWriteArrayList<>();
  /** Nodes whose Match factory throws (a target whose restore fails before relay-ready). */
  static final java.util.Set<NodeRid> REFUSE_ON = java.util.concurrent.ConcurrentHashMap.newKeySet();

  /** A match: ApplicationSignaled, or FrameworkManaged (type "plain"). */
  static final class Match implements UserSpot<Actor> {
    private final UserSpotContext ctx;

    Match(final UserSpotContext ctx) {
      this.ctx = ctx;
      if (REFUSE_ON.contains(ctx.self().nodeRid())) {
        throw new IllegalStateException("this node refuses matches (test)");
      }
    }

    @Override
    public UserSpotContext context() {
      return ctx;
    }

    private String node() {
      return ctx.self().nodeRid().hex();
    }

    @Override
    public void configure(final SpotHandlers on) {
      on.request(EndRound.class, r -> {
        EVENTS.add("round@" + node());
        if (r.boundary()) {
          ctx.relocationReady().defer();
        }
        return node();
      }).request(Ping.class, p -> {
        EVENTS.add("ping@" + node());
        return node();
      }).request(TryDefer.class, t -> {
        try {
          ctx.relocationReady().defer();
          return "ok";
        } catch (SpotkitException e) {
          return e.getClass().getSimpleName();
        }
      });
    }

    @Override
    public void onRelocationReadyCompleted(final RelocationReadyOutcome outcome) {
      EVENTS.add("completed " + outcome + "@" + node());
    }
  }

  private final TestMesh mesh = TestMesh.builder().meshName("mesh")
      .objectServer(s -> s.entrySpot(TestNodes.PlainEntry::new)
          .userSpot("room", Match::new, o -> o.spotWide().recreateOnRelocation().applicationSignaledRelocation())
          .userSpot("plain", Match::new, o -> o.spotWide().recreateOnRelocation()))
      .start(2);

  @AfterEach
  void close() {
    mesh.close();
    EVENTS.clear();
    REFUSE_ON.clear();
  }

  private static String ask(final MeshNode via, final String spot, final Object request) {
    return via.toSpot(spot).request(request, String.class).timeout(Duration.ofSeconds(10)).await();
  }

  @Test
  void aBoundaryWithNoMoveContinuesHereBeforeTheNextJob() {
    final MeshNode a = mesh.node(0);
    final String match = mesh.spotOn(0, "match", "room");
    final String here = a.nodeRid().hex();
    ask(a, match, new EndRound(true));
    ask(a, match, new Ping());
    assertThat(EVENTS).containsExactly("round@" + here, "completed CONTINUED@" + here, "ping@" + here);
  }

  @Test
  void aMoveWaitsForTheBoundaryThenTheTargetCompletesBeforeItsFirstJob() throws Exception {
    final MeshNode a = mesh.node(0);
    final MeshNode b = mesh.node(1);
    final String match = mesh.spotOn(0, "match", "room");
    final CompletableFuture<SpotRelocationResult> move = a.relocateSpot(new SpotId(match), b.nodeRid());
    // rounds without a boundary: the match keeps playing on a, the move waits
    assertThat(ask(a, match, new EndRound(false))).isEqualTo(a.nodeRid().hex());
    assertThat(ask(a, match, new Ping())).isEqualTo(a.nodeRid().hex());
    assertThat(move).isNotDone();
    ask(a, match, new EndRound(true)); // the boundary: the move seals here
    assertThat(move.get(30, TimeUnit.SECONDS).spot().nodeRid()).isEqualTo(b.nodeRid());
    assertThat(ask(b, match, new Ping())).isEqualTo(b.nodeRid().hex());
    final String hexA = a.nodeRid().hex();
    final String hexB = b.nodeRid().hex();
    assertThat(EVENTS).containsExactly("round@" + hexA, "ping@" + hexA, "round@" + hexA,
        "completed RELOCATED@" + hexB, "ping@" + hexB);
  }

  @Test
  void aMoveThatFailsBeforeRelayReadyContinuesOnTheSource() throws Exception {
    final MeshNode a = mesh.node(0);
    final MeshNode b = mesh.node(1);
    final String match = mesh.spotOn(0, "match", "room");
    REFUSE_ON.add(b.nodeRid()); // its restore fails: before relay-ready, so the match stays on a
    final CompletableFuture<SpotRelocationResult> move = a.relocateSpot(new SpotId(match), b.nodeRid());
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> {
      if (!move.isDone()) {
        ask(a, match, new EndRound(true));
      }
      return move.isDone();
    });
    assertThat(move).isCompletedExceptionally();
    assertThat(ask(a, match, new Ping())).isEqualTo(a.nodeRid().hex());
    // every boundary ended CONTINUED on a, also the one the failed move sealed (restored before its next job)
    assertThat(EVENTS.stream().filter(e -> e.startsWith("completed")).distinct().toList())
        .containsExactly("completed CONTINUED@" + a.nodeRid().hex());
    assertThat(EVENTS.stream().filter(e -> e.startsWith("completed")).count())
        .isEqualTo(EVENTS.stream().filter(e -> e.startsWith("round")).count());
  }

  @Test
  void deferOutsideAnApplicationSignaledSpotWideSpotIsInvalidOperation() {
    final MeshNode a = mesh.node(0);
    final SpotRef plain = a.spots().getOrCreate("plain-1", "plain").await();
    assertThat(ask(a, plain.id().value(), new TryDefer())).isEqualTo("InvalidOperation");
    assertThat(EVENTS).isEmpty(); // no completion callback
  }

  @Test
  void applicationSignaledWithPerActorIsRefusedAtStart() {
    assertThatThrownBy(() -> MeshNode.builder().meshName("mesh").locationStore(new InMemoryLocationStore())
        .objectServer(s -> s.entrySpot(TestNodes.PlainEntry::new)
            .userSpot("room", Match::new, o -> o.perActor().recreateOnRelocation().applicationSignaledRelocation()))
        .start()).isInstanceOf(SpotkitException.InvalidOperation.class).hasMessageContaining("SpotWide");
  }
}
