package dev.spotkit.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spotkit.core.location.AuthorityKind;
import dev.spotkit.core.location.LocationKeys;
import dev.spotkit.core.location.LocationQuery;
import dev.spotkit.store.InMemoryLocationStore;
import dev.spotkit.store.ReadResult;
import dev.spotkit.store.StoreVersion;
import dev.spotkit.testkit.TestMesh;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The background dead-owner sweep ({@link MeshNode.Builder#deadOwnerSweep(Duration)}; issue 15: rows and capacity of
 * dead owners are swept). Node a owns actors and a room that nobody asks for again; it is halted as {@code kill -9}
 * stops a process. Without any {@code getOrCreate} or message, the live node b removes a's rows, descriptor and
 * capacity record once a's owner lease lapsed, and leaves its own rows alone. With crash recovery off nothing is swept.
 * Before the sweeper, a's rows stayed listed (Unavailable) for good: the first test fails without it.
 */
class DeadOwnerSweepTest {
  private static final String MESH = "sweep";
  private static final Duration RENEW = Duration.ofMillis(100);
  /** The owner lease TTL of node a, which every case halts. */
  private static final Duration TTL = Duration.ofMillis(1500);
  /** The live node's TTL: no case waits for it to lapse, and a short one can lapse on a loaded machine. */
  private static final Duration LIVE_TTL = Duration.ofSeconds(15);
  private static final Duration RENEW_TIMEOUT = Duration.ofMillis(200);
  private static final Duration MARGIN = Duration.ofMillis(500);
  private static final Duration PERIOD = Duration.ofSeconds(1);
  /**
   * a's lease lapses, then up to two jittered periods (1.25 s each): the pass that first finds a gone notes it; the
   * grace ({@code DeadOwnerSweeper.GRACE}) and the pass after it; plus slack for a loaded machine.
   */
  private static final Duration SWEPT_WITHIN = TTL.plus(MARGIN).plus(Duration.ofMillis(2500))
      .plus(dev.spotkit.core.internal.creation.DeadOwnerSweeper.GRACE).plus(Duration.ofSeconds(15));

  /** An actor that answers where it runs. */
  static final class Keeper implements Actor {
    private final ActorContext ctx;

    Keeper(final ActorContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public void configure(final ActorHandlers on) {
      on.request(String.class, s -> ctx.self().nodeRid().hex());
    }
  }

  /** A room with no behaviour. */
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
    public void configure(final SpotHandlers on) {
      on.request(String.class, s -> ctx.self().nodeRid().hex());
    }
  }

  private final InMemoryLocationStore store = new InMemoryLocationStore();
  private final LocationQuery query = new LocationQuery(store, Duration.ofSeconds(5));
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private TestMesh mesh;

  @AfterEach
  void close() {
    if (mesh != null) {
      mesh.close();
    }
  }

  /** Node 0 (a) alone, with a short lease; {@link TestMesh#addNode()} adds b with metrics on. */
  private MeshNode start(final boolean recover) {
    mesh = TestMesh.builder().meshName(MESH).locationStore(store).closeTimeout(Duration.ofSeconds(2))
        .customize((b, i) -> {
          b.recreateAfterOwnerLoss(recover).deadOwnerSweep(PERIOD).requestTimeout(Duration.ofSeconds(4))
              .ownerLease(RENEW, i == 0 ? TTL : LIVE_TTL, RENEW_TIMEOUT, MARGIN);
          if (i == 1) {
            b.metrics(registry);
          }
        })
        .objectServer(s -> s.entrySpot(TestNodes.PlainEntry::new)
            .actor("keeper", Keeper::new, a -> a.disableRelocation())
            .userSpot("room", Room::new, o -> o.recreateOnRelocation()))
        .start(1);
    return mesh.node(0);
  }

  /** Every authority row of the store: its key's id (kind-prefixed) to its owner RoutingId and version. */
  private Map<String, Row> rows() {
    final Map<String, Row> out = new HashMap<>();
    for (AuthorityKind kind : AuthorityKind.values()) {
      final LocationQuery.Listing listing = query.list(kind, Optional.empty(), Optional.empty(), 1000,
          Optional.empty());
      assertThat(listing).isInstanceOf(LocationQuery.Listing.Page.class);
      final LocationQuery.Listing.Page page = (LocationQuery.Listing.Page) listing;
      assertThat(page.continuation()).as("one page holds every row of this test").isEmpty();
      page.entries().forEach(v -> out.put(kind.segment() + ":" + v.key().id(), new Row(v.routingIdHex(),
          v.version())));
    }
    return out;
  }

  /** One row as read. */
  record Row(String ownerHex, StoreVersion version) {
  }

  private Map<String, Row> rowsOf(final MeshNode node) {
    final Map<String, Row> out = new HashMap<>(rows());
    out.values().removeIf(r -> !r.ownerHex().equals(node.nodeRid().hex()));
    return out;
  }

  private ReadResult read(final String key) throws Exception {
    return store.read(key).toCompletableFuture().get(5, TimeUnit.SECONDS);
  }

  private double swept() {
    return registry.get("spotkit.recovery.swept").counter().count();
  }

  @Test
  void aHaltedNodesRowsThatNobodyAsksForAgainAreSweptWithItsCapacityAndTheLiveNodesRowsStay() throws Exception {
    final MeshNode a = start(true); // alone: placement puts everything on a
    for (int i = 0; i < 6; i++) {
      assertThat(a.actors().getOrCreate("player-" + i, "keeper").await().nodeRid()).isEqualTo(a.nodeRid());
    }
    assertThat(a.spots().getOrCreate("room-1", "room").await().nodeRid()).isEqualTo(a.nodeRid());
    final MeshNode b = mesh.addNode();
    mesh.actorOn(1, "mine", "keeper"); // one of b's own (tries that land on a are a's rows too)
    final Map<String, Row> ofA = rowsOf(a);
    final Map<String, Row> ofB = rowsOf(b);
    assertThat(ofA).containsKeys("actor:player-0", "actor:player-5", "spot:room-1", "spot:" + a.entrySpot().id()
        .value());
    assertThat(ofB).containsKey("spot:" + b.entrySpot().id().value()).hasSizeGreaterThanOrEqualTo(2);
    final String capacityOfA = LocationKeys.nodeCapacity(MESH, a.nodeRid().hex()).preimage();
    final String descriptorOfA = LocationKeys.meshNode(MESH, a.nodeRid().hex()).preimage();
    assertThat(read(capacityOfA)).isInstanceOf(ReadResult.Found.class);

    mesh.halt(0); // kill -9: a's rows keep naming it; its lease lapses one TTL after its last renewal
    Awaitility.await().atMost(SWEPT_WITHIN).pollInterval(Duration.ofMillis(100))
        .until(() -> rowsOf(a).isEmpty());

    assertThat(rowsOf(b)).as("must never: a live owner's row written").isEqualTo(ofB);
    Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100)).until(() ->
        read(descriptorOfA) instanceof ReadResult.Missing && read(capacityOfA) instanceof ReadResult.Missing);
    // the Entry Spot row may go with a's descriptor instead (the lease can lapse between the two steps of a sweep)
    assertThat(swept()).as("rows removed by b's sweep").isBetween(ofA.size() - 1.0, (double) ofA.size());
    // nobody asked for the actors again: the next getOrCreate finds them missing and creates them on b
    assertThat(b.actors().getOrCreate("player-0", "keeper").await().nodeRid()).isEqualTo(b.nodeRid());
    assertThat(b.toActor("player-0").request("where", String.class).await()).isEqualTo(b.nodeRid().hex());
  }

  @Test
  void withCrashRecoveryOffNothingIsSwept() throws Exception {
    final MeshNode a = start(false);
    for (int i = 0; i < 3; i++) {
      a.actors().getOrCreate("player-" + i, "keeper").await();
    }
    final MeshNode b = mesh.addNode();
    final Map<String, Row> ofA = rowsOf(a);
    assertThat(ofA).hasSizeGreaterThanOrEqualTo(4); // three actors and the Entry Spot
    final String leaseOfA = LocationKeys.ownerLease(ownerIdOf("player-0")).preimage();

    mesh.halt(0);
    Awaitility.await().atMost(TTL.plus(Duration.ofSeconds(10))).pollInterval(Duration.ofMillis(50))
        .until(() -> read(leaseOfA) instanceof ReadResult.Missing);
    // three sweep periods after a's lease is gone: a bounded window in which nothing may change
    Awaitility.await().during(PERIOD.multipliedBy(3)).atMost(PERIOD.multipliedBy(3).plus(Duration.ofSeconds(5)))
        .pollInterval(Duration.ofMillis(200)).until(() -> rowsOf(a).equals(ofA));
    assertThat(read(LocationKeys.meshNode(MESH, a.nodeRid().hex()).preimage())).as("a's descriptor stays")
        .isInstanceOf(ReadResult.Found.class);
    assertThat(swept()).isZero();
    assertThatThrownBy(() -> b.toActor("player-0").request("where", String.class).await())
        .as("the contract's plain Unavailable").isInstanceOf(SpotkitException.Unavailable.class);
  }

  @Test
  void thePeriodIsCheckedOnTheBuilder() {
    assertThatThrownBy(() -> MeshNode.builder().deadOwnerSweep(Duration.ofMillis(999)))
        .isInstanceOf(SpotkitException.InvalidOperation.class)
        .hasMessage("deadOwnerSweep PT0.999S is outside PT1S..PT1H; pass e.g. Duration.ofSeconds(60)");
    assertThatThrownBy(() -> MeshNode.builder().deadOwnerSweep(Duration.ofHours(1).plusMillis(1)))
        .isInstanceOf(SpotkitException.InvalidOperation.class);
    assertThatThrownBy(() -> MeshNode.builder().deadOwnerSweep(null))
        .isInstanceOf(SpotkitException.InvalidOperation.class);
    assertThat(MeshNode.builder().deadOwnerSweep(Duration.ofSeconds(1)).deadOwnerSweep(Duration.ofHours(1)))
        .isNotNull();
  }

  private String ownerIdOf(final String actorId) throws Exception {
    return query.locate(new dev.spotkit.core.location.ObjectKey(AuthorityKind.ACTOR, actorId)).orElseThrow()
        .ownerId();
  }
}
