package dev.spotkit.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spotkit.store.InMemoryLocationStore;
import dev.spotkit.testkit.TestMesh;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Message Follow of a moved actor and of a moved User Spot (SpotWide and PerActor) whose committed target dies
 * (halted, as kill -9) ends once the Location Store no longer names that incarnation, as an Instance Spot's does
 * ({@code HaltMidMoveTest}). Node 0 only sends (weight 0); node 1 owns an actor, a SpotWide room and a PerActor
 * room and drains them all to node 2, so it is Relocated and takes no new placement; node 3 is a spare. Node 2 is
 * halted; once its owner lease lapsed, a GetOrCreate on node 0 sweeps each row and makes a new incarnation on node
 * 3 (crash recovery, {@link MeshNode.Builder#recreateAfterOwnerLoss}).
 * <ul>
 *   <li>Until then every object is unavailable (spec 000 section 8): failures are typed.</li>
 *   <li>After it, senders on node 1, the source whose follows still run (30 s), reach the new incarnations by id,
 *       as senders on node 0 do. Before, node 1 answered StaleGeneration for each room for the whole follow
 *       duration (its follow re-routed by the moved incarnation's ref).</li>
 *   <li>A send by the moved incarnation's ref through node 1 is refused StaleGeneration, as through node 0. Before,
 *       the actor's follow re-routed it by id, and the new incarnation took work meant for the dead one.</li>
 * </ul>
 */
class FollowDeadTargetTest {
  private static final Duration RENEW = Duration.ofMillis(100);
  /** The owner lease TTL of node 2, the target that dies: it lapses soon after the halt. */
  private static final Duration TTL = Duration.ofMillis(2500);
  /**
   * The owner lease TTL of the nodes that live on: none may lose its lease on a loaded machine (a 1.5 s one was lost
   * once under four busy loops per core, and its node stopped itself).
   */
  private static final Duration LIVE_TTL = Duration.ofSeconds(15);
  private static final Duration RENEW_TIMEOUT = Duration.ofMillis(200);
  private static final Duration MARGIN = Duration.ofMillis(500);
  /** Scheduling slack on a loaded machine, on top of TTL plus margin (all well inside the 30 s follow). */
  private static final Duration SLACK = Duration.ofSeconds(5);
  private static final Duration ASK = Duration.ofSeconds(1);

  /** Which incarnation answered, and on which node. */
  record Here(String nodeHex, long incarnation) {
  }

  /** Asks an object for its {@link Here}. */
  record Where() {
  }

  private static final AtomicLong INCARNATIONS = new AtomicLong();

  /** An actor that tells where it runs. */
  static final class Keeper implements Actor {
    private final ActorContext ctx;
    private final long incarnation = INCARNATIONS.incrementAndGet();

    Keeper(final ActorContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public void configure(final ActorHandlers on) {
      on.request(Where.class, w -> new Here(ctx.self().nodeRid().hex(), incarnation));
    }
  }

  /** A room that tells where it runs. */
  static final class Room implements UserSpot<Actor> {
    private final UserSpotContext ctx;
    private final long incarnation = INCARNATIONS.incrementAndGet();

    Room(final UserSpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public UserSpotContext context() {
      return ctx;
    }

    @Override
    public void configure(final SpotHandlers on) {
      on.request(Where.class, w -> new Here(ctx.self().nodeRid().hex(), incarnation));
    }
  }

  /** The objects, by id: their types. */
  private static final Map<String, String> TYPES = Map.of("k", "keeper", "r", "room", "p", "proom");

  private final InMemoryLocationStore store = new InMemoryLocationStore();
  private TestMesh mesh;
  private ActorRef movedActor;
  private SpotRef movedRoom;

  @AfterEach
  void close() {
    if (mesh != null) {
      mesh.close();
    }
  }

  /** Nodes 0 and 1 with the objects on node 1, then nodes 2 and 3; node 1 drained to node 2. */
  @BeforeEach
  void start() throws Exception {
    mesh = TestMesh.builder().meshName("followdead").locationStore(store).closeTimeout(Duration.ofSeconds(2))
        .customize((b, i) -> b.recreateAfterOwnerLoss(true).requestTimeout(Duration.ofSeconds(4))
            .ownerLease(RENEW, i == 2 ? TTL : LIVE_TTL, RENEW_TIMEOUT, MARGIN))
        .mesh((m, i) -> m.placementWeight(i == 0 ? 0 : 100))
        .objectServer(s -> s.entrySpot(TestNodes.PlainEntry::new)
            .actor("keeper", Keeper::new, a -> a.recreateOnRelocation())
            .userSpot("room", Room::new, o -> o.recreateOnRelocation())
            .userSpot("proom", Room::new, o -> o.perActor().recreateOnRelocation()))
        .start(2);
    assertThat(mesh.node(0).actors().getOrCreate("k", "keeper").await().nodeRid()).isEqualTo(mesh.node(1).nodeRid());
    assertThat(mesh.node(0).spots().getOrCreate("r", "room").await().nodeRid()).isEqualTo(mesh.node(1).nodeRid());
    assertThat(mesh.node(0).spots().getOrCreate("p", "proom").await().nodeRid()).isEqualTo(mesh.node(1).nodeRid());
    mesh.addNode();
    mesh.addNode();
    final RelocateResult drained = mesh.node(1).relocate(RelocateOptions.drainTo(mesh.node(2).nodeRid()))
        .get(30, TimeUnit.SECONDS);
    assertThat(drained.outcome()).isEqualTo(RelocateResult.Outcome.RELOCATED);
    assertThat(drained.actors()).hasSize(1);
    assertThat(drained.rooms()).hasSize(2);
    movedActor = drained.actors().get(0);
    movedRoom = drained.rooms().stream().map(SpotRelocationResult::spot).filter(s -> s.id().value().equals("r"))
        .findFirst().orElseThrow();
    for (String id : TYPES.keySet()) {
      for (int via = 0; via < 2; via++) {
        assertThat(where(via, id).nodeHex()).as(id + " via node " + via).isEqualTo(mesh.node(2).nodeRid().hex());
      }
    }
  }

  private Here where(final int via, final String id) {
    final MeshNode node = mesh.node(via);
    return (id.equals("k") ? node.toActor(id) : node.toSpot(id)).request(new Where(), Here.class).timeout(ASK)
        .await();
  }

  /** GetOrCreate through node 0 (crash recovery), then one ask through node 0 and one through the source. */
  private Here[] recreateAndAsk(final String id) {
    if (id.equals("k")) {
      mesh.node(0).actors().getOrCreate(id, TYPES.get(id)).await();
    } else {
      mesh.node(0).spots().getOrCreate(id, TYPES.get(id)).await();
    }
    return new Here[] {where(0, id), where(1, id)};
  }

  @Test
  void afterTheCommittedTargetDiedTheSourceReachesTheNewIncarnationsByIdAndRefusesTheOldRef() throws Exception {
    mesh.halt(2); // as kill -9 after its commit: its rows name it until its lease lapses and crash recovery runs
    final long haltedAt = System.nanoTime();
    final ConcurrentHashMap<String, Integer> errors = new ConcurrentHashMap<>();
    final AtomicReference<String> last = new AtomicReference<>();
    final List<String> unreached = new ArrayList<>();
    final Duration bound = TTL.plus(MARGIN).plus(SLACK); // one bound for all: each waits for the same lease to lapse
    for (String id : List.of("k", "r", "p")) {
      final Here[] now = new Here[2];
      final Duration left = bound.minusNanos(System.nanoTime() - haltedAt);
      try {
        Awaitility.await().atMost(left.compareTo(Duration.ofMillis(100)) > 0 ? left : Duration.ofMillis(100))
            .pollInterval(Duration.ofMillis(50)).until(() -> {
          try {
            final Here[] asked = recreateAndAsk(id);
            now[0] = asked[0];
            now[1] = asked[1];
            return !now[0].nodeHex().equals(mesh.node(2).nodeRid().hex()) && now[0].equals(now[1]);
          } catch (SpotkitException e) {
            errors.merge(id + ": " + e.getClass().getSimpleName(), 1, Integer::sum);
            last.set(id + ": " + e);
            return false;
          }
        });
        assertThat(now[1].nodeHex()).as(id + " after " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime()
            - haltedAt) + " ms").isEqualTo(mesh.node(3).nodeRid().hex());
      } catch (ConditionTimeoutException e) {
        unreached.add(id + " (last: " + last.get() + ")");
      }
    }
    assertThat(unreached).as("objects not answering nodes 0 and 1 from one new incarnation within " + bound
        + " of the target's halt; errors meanwhile " + errors).isEmpty();
    assertThat(errors.keySet()).as("typed, as the contract names them while the lease runs out (no StaleGeneration)")
        .allSatisfy(kind -> assertThat(kind).matches(".*: (Unavailable|DeadlineExceeded)"));

    // the moved incarnation's ref is stale everywhere now, also where its follow ran: refused, not redirected
    for (int via = 0; via < 2; via++) {
      final MeshNode node = mesh.node(via);
      assertThatThrownBy(() -> node.toActor(movedActor).request(new Where(), Here.class).timeout(ASK).await())
          .as("the moved actor's ref via node " + via).isInstanceOf(SpotkitException.StaleGeneration.class);
      assertThatThrownBy(() -> node.toSpot(movedRoom).request(new Where(), Here.class).timeout(ASK).await())
          .as("the moved room's ref via node " + via).isInstanceOf(SpotkitException.StaleGeneration.class);
    }
  }
}
