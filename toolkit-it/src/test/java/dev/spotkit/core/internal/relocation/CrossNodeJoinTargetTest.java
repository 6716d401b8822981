package dev.spotkit.core.internal.relocation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spotkit.core.Actor;
import dev.spotkit.core.ActorContext;
import dev.spotkit.core.ActorHandlers;
import dev.spotkit.core.ActorId;
import dev.spotkit.core.JoinDecision;
import dev.spotkit.core.JoinResult;
import dev.spotkit.core.MeshNode;
import dev.spotkit.core.NodeRid;
import dev.spotkit.core.Spec;
import dev.spotkit.core.SpotRef;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.core.UserSpot;
import dev.spotkit.core.UserSpotContext;
import dev.spotkit.core.internal.runtime.NodeRuntime;
import dev.spotkit.core.location.LocationRecords;
import dev.spotkit.core.location.ObjectKey;
import dev.spotkit.testkit.TestMesh;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The target of a cross-node JoinSpot when its approval or its Spot is gone by the time the Restore finishes (spec
 * 000 section 4 and 4.2, MEM-27): the Restore fails explicitly (command 53) before relay-ready, the actor stays on
 * its source, and the join ends Failed with the kind of spec 000 section 4's table.
 */
class CrossNodeJoinTargetTest {
  static final String SECRET = "test-cluster-secret-0123456789";
  static final Map<String, List<JoinResult>> RESULTS = new ConcurrentHashMap<>();
  /** Nodes on which the walker factory waits for {@link #release} (a target stuck in its Restore). */
  static final Set<NodeRid> BLOCKING = ConcurrentHashMap.newKeySet();
  static volatile CountDownLatch restoring = new CountDownLatch(1);
  static volatile CountDownLatch release = new CountDownLatch(1);

  record Move(String spotId) {}

  record Where() {}

  static final class Walker implements Actor {
    final ActorContext ctx;

    Walker(final ActorContext ctx) {
      this.ctx = ctx;
      if (BLOCKING.contains(ctx.self().nodeRid())) {
        restoring.countDown();
        try {
          release.await(20, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }

    @Override
    public void configure(final ActorHandlers on) {
      on.message(Move.class, m -> ctx.joinSpot(m.spotId()).timeout(Duration.ofSeconds(10)).defer())
          .request(Where.class, w -> ctx.self().nodeRid().hex());
    }

    @Override
    public void onJoinCompleted(final JoinResult result) {
      RESULTS.computeIfAbsent(ctx.self().id().value(), k -> new CopyOnWriteArrayList<>()).add(result);
    }
  }

  static final class Room implements UserSpot<Actor> {
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
      return JoinDecision.accept();
    }
  }

  private TestMesh mesh;

  private void startTwoNodes() {
    mesh = TestMesh.builder().meshName("mesh")
        .objectServer(s -> s.entrySpot(HandWrittenPeerFixture.Entry::new)
            .actor("walker", Walker::new, a -> a.recreateOnRelocation())
            .userSpot("room", Room::new, o -> o.recreateOnRelocation()))
        .start(2);
  }

  @AfterEach
  void close() {
    Relocations.preparationValidity(Relocations.PREPARATION_VALIDITY);
    release.countDown();
    BLOCKING.clear();
    RESULTS.clear();
    if (mesh != null) {
      mesh.close();
    }
  }

  private static NodeRuntime runtime(final MeshNode node) throws ReflectiveOperationException {
    final java.lang.reflect.Field field = MeshNode.class.getDeclaredField("rt");
    field.setAccessible(true);
    return (NodeRuntime) field.get(node);
  }

  private String ownerHex(final String actor) {
    return LocationRecords.read(mesh.locationStore(), ObjectKey.actor(actor)).orElseThrow().authority().allocation()
        .routingIdHex();
  }

  private static JoinResult.Failed failed(final String actor) {
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> RESULTS.containsKey(actor));
    assertThat(RESULTS.get(actor)).singleElement().isInstanceOf(JoinResult.Failed.class);
    return (JoinResult.Failed) RESULTS.get(actor).get(0);
  }

  /**
   * The approval lapsed (MEM-27: its preparation validity, shortened to zero here, passed) before the Restore
   * came: the Restore fails Unavailable, not the move into the target's Entry Spot with no join completion.
   */
  @Test
  @Spec("MEM-27")
  void aRestoreWhoseJoinApprovalExpiredFailsAndTheActorStaysOnItsSource() {
    Relocations.preparationValidity(Duration.ZERO);
    startTwoNodes();
    final MeshNode a = mesh.node(0);
    final MeshNode b = mesh.node(1);
    final String actor = mesh.actorOn(0, "late", "walker");
    final String room = mesh.spotOn(1, "room", "room");
    a.toActor(actor).send(new Move(room));
    assertThat(failed(actor).error()).isInstanceOf(SpotkitException.Unavailable.class)
        .hasMessageContaining("failed before relay-ready");
    assertThat(ownerHex(actor)).isEqualTo(a.nodeRid().hex());
    assertThat(b.toActor(actor).request(new Where(), String.class).timeout(Duration.ofSeconds(5)).await())
        .isEqualTo(a.nodeRid().hex());
    assertThat(b.spots().find(room)).isPresent(); // the spot was never held back by the lapsed approval
  }

  /** Spec 000 section 4's table: each command 53 code reaches the source as the Failed kind of its cause. */
  @Test
  void eachTargetFailureCodeEndsWithTheFailedKindOfSpec000Section4() {
    final Map<dev.spotkit.relocation.FailureCode, Class<? extends SpotkitException>> kinds = Map.of(
        dev.spotkit.relocation.FailureCode.TARGET_UNAVAILABLE, SpotkitException.Unavailable.class,
        dev.spotkit.relocation.FailureCode.STALE_GENERATION, SpotkitException.InvalidOperation.class,
        dev.spotkit.relocation.FailureCode.SPOT_NOT_FOUND, SpotkitException.NotFound.class,
        dev.spotkit.relocation.FailureCode.RESTORE_FAILED, SpotkitException.InternalFailure.class,
        dev.spotkit.relocation.FailureCode.CHECKSUM_MISMATCH, SpotkitException.DataLost.class,
        dev.spotkit.relocation.FailureCode.DEADLINE, SpotkitException.DeadlineExceeded.class,
        dev.spotkit.relocation.FailureCode.BUSY, SpotkitException.Unavailable.class,
        dev.spotkit.relocation.FailureCode.UNRECOGNIZED, SpotkitException.Unavailable.class);
    kinds.forEach((code, kind) -> assertThat(RelocationSource.failedKind(
        dev.spotkit.relocation.FailureCode.fromWire(code.wireCode()), "join")).as("%s", code).isInstanceOf(kind));
  }

  /**
   * The approving Spot was released while the Restore ran (its close is refused meanwhile, so the test drops the
   * admitted join by hand, as node shutdown would): the join ends NotFound, spec 000 section 4's kind for "the
   * requested User Spot can't be found", and the actor stays on its source.
   */
  @Test
  void aJoinWhoseSpotIsGoneWhenItsRestoreFinishesEndsNotFound() throws Exception {
    startTwoNodes();
    final MeshNode a = mesh.node(0);
    final MeshNode b = mesh.node(1);
    final String actor = mesh.actorOn(0, "homeless", "walker");
    final String room = mesh.spotOn(1, "room", "room");
    final SpotRef ref = b.spots().find(room).orElseThrow();
    restoring = new CountDownLatch(1);
    release = new CountDownLatch(1);
    BLOCKING.add(b.nodeRid());
    a.toActor(actor).send(new Move(room));
    assertThat(restoring.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(b.spots().close(ref).timeout(Duration.ofSeconds(5)).await()).isFalse(); // the join is admitted
    runtime(b).spots.get(room).admittedJoins.clear();
    assertThat(b.spots().close(ref).timeout(Duration.ofSeconds(5)).await()).isTrue();
    release.countDown();
    assertThat(failed(actor).error()).isInstanceOf(SpotkitException.NotFound.class);
    assertThat(ownerHex(actor)).isEqualTo(a.nodeRid().hex());
  }
}
