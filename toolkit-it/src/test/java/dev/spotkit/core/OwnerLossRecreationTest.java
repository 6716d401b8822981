package dev.spotkit.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spotkit.core.location.AuthorityRecord;
import dev.spotkit.core.location.LocationKeys;
import dev.spotkit.core.location.ObjectKey;
import dev.spotkit.store.InMemoryLocationStore;
import dev.spotkit.store.ReadResult;
import dev.spotkit.testkit.TestMesh;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Crash recovery (issue 15, {@link MeshNode.Builder#recreateAfterOwnerLoss(boolean)}): node A owns an actor and a
 * User Spot, then is cut from the store as if paused (SIGSTOP) so its owner lease lapses. GetOrCreate on live node B
 * sweeps the rows of the dead owner and makes new incarnations there (higher ObjectGeneration); messages reach them.
 * A resumed (SIGCONT) is fenced out: every store write it attempts is rejected, it stops itself, and no id ever has
 * two handler turns running at once. With the option off, B keeps answering Unavailable as the contract says.
 */
class OwnerLossRecreationTest {
  private static final Duration RENEW = Duration.ofMillis(100);
  /** The owner lease TTL of the first node, which every case stops (cut off or halted). */
  private static final Duration TTL = Duration.ofMillis(1500);
  /**
   * The owner lease TTL of the nodes added after it: no case waits for theirs to lapse, and a 1.5 s one can lapse on a
   * loaded machine (that node then stops itself, and the case fails for a reason it does not test).
   */
  private static final Duration LIVE_TTL = Duration.ofSeconds(15);
  private static final Duration RENEW_TIMEOUT = Duration.ofMillis(200);
  private static final Duration MARGIN = Duration.ofMillis(500);
  /** Scheduling slack on a loaded 2-core machine, on top of TTL plus margin. */
  private static final Duration SLACK = Duration.ofSeconds(3);

  /** Which incarnation answered, and on which node. */
  record Here(String nodeHex, long incarnation) {
  }

  /** Asks an object for its {@link Here}. */
  record Where() {
  }

  private static final AtomicLong INCARNATIONS = new AtomicLong();
  /** Handler turns running now, per id; must never exceed 1 whatever incarnation runs them. */
  private static final ConcurrentHashMap<String, AtomicInteger> RUNNING = new ConcurrentHashMap<>();
  private static final ConcurrentHashMap<String, AtomicInteger> MAX_RUNNING = new ConcurrentHashMap<>();

  private static Here answer(final String id, final NodeRid node, final long incarnation) {
    final int now = RUNNING.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
    MAX_RUNNING.computeIfAbsent(id, k -> new AtomicInteger()).accumulateAndGet(now, Math::max);
    try {
      return new Here(node.hex(), incarnation);
    } finally {
      RUNNING.get(id).decrementAndGet();
    }
  }

  /** An actor that tells where it runs. */
  static final class Keeper implements Actor {
    private final ActorContext ctx;
    private final long incarnation = INCARNATIONS.incrementAndGet();

    Keeper(final ActorContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public void configure(final ActorHandlers on) {
      on.request(Where.class, w -> answer("actor:" + ctx.self().id().value(), ctx.self().nodeRid(), incarnation));
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
      on.request(Where.class, w -> answer("spot:" + ctx.self().id().value(), ctx.self().nodeRid(), incarnation));
    }
  }

  /** An Instance Spot that tells where it runs. */
  static final class Directory implements InstanceSpot {
    private final InstanceSpotContext ctx;
    private final long incarnation = INCARNATIONS.incrementAndGet();

    Directory(final InstanceSpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public InstanceSpotContext context() {
      return ctx;
    }

    @Override
    public void configure(final SpotHandlers on) {
      on.request(Where.class, w -> answer("instance:" + ctx.self().id().value(), ctx.self().nodeRid(), incarnation));
    }
  }

  /** Set: the next {@link SlowDirectory} built blocks in onInitialize until {@link #RELEASE_INIT} opens (bounded). */
  private static final AtomicBoolean BLOCK_NEXT_INIT = new AtomicBoolean();
  /** Counted down once a {@link SlowDirectory} blocks in onInitialize; holds its incarnation. */
  private static volatile CountDownLatch initBlocked = new CountDownLatch(1);
  private static final AtomicLong BLOCKED_INCARNATION = new AtomicLong();
  /** Lets a blocked onInitialize go on (the test's end: the halted node's handler thread ends). */
  private static volatile CountDownLatch releaseInit = new CountDownLatch(1);

  /** An Instance Spot whose onInitialize blocks once, when {@link #BLOCK_NEXT_INIT} is set. */
  static final class SlowDirectory implements InstanceSpot {
    private final InstanceSpotContext ctx;
    private final long incarnation = INCARNATIONS.incrementAndGet();

    SlowDirectory(final InstanceSpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public InstanceSpotContext context() {
      return ctx;
    }

    @Override
    public void onInitialize() {
      if (BLOCK_NEXT_INIT.compareAndSet(true, false)) {
        BLOCKED_INCARNATION.set(incarnation);
        initBlocked.countDown();
        try {
          releaseInit.await(60, TimeUnit.SECONDS); // bounded: the test releases it when it ends
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }

    @Override
    public void configure(final SpotHandlers on) {
      on.request(Where.class, w -> answer("instance:" + ctx.self().id().value(), ctx.self().nodeRid(), incarnation));
    }
  }

  private final InMemoryLocationStore store = new InMemoryLocationStore();
  private TestMesh mesh;
  /** The options of the node {@link #node} starts next. */
  private dev.spotkit.store.LocationStore nextView;
  private boolean nextRecreate;
  private int nextWeight;

  @AfterEach
  void close() {
    releaseInit.countDown();
    if (mesh != null) {
      mesh.close();
    }
    RUNNING.clear();
    MAX_RUNNING.clear();
    BLOCK_NEXT_INIT.set(false);
    initBlocked = new CountDownLatch(1);
    releaseInit = new CountDownLatch(1);
  }

  private MeshNode node(final dev.spotkit.store.LocationStore view, final boolean recreate) {
    return node(view, recreate, 100);
  }

  /** The first call starts the test's mesh on {@link #store} with one node, each later call adds one. */
  private MeshNode node(final dev.spotkit.store.LocationStore view, final boolean recreate, final int weight) {
    nextView = view;
    nextRecreate = recreate;
    nextWeight = weight;
    if (mesh == null) {
      mesh = TestMesh.builder().meshName("recovery").locationStore(store).closeTimeout(Duration.ofSeconds(2))
          .customize((b, i) -> b.locationStore(nextView).recreateAfterOwnerLoss(nextRecreate)
              .requestTimeout(Duration.ofSeconds(4)).ownerLease(RENEW, i == 0 ? TTL : LIVE_TTL, RENEW_TIMEOUT,
              MARGIN))
          .mesh((m, i) -> m.placementWeight(nextWeight))
          .objectServer(s -> s.entrySpot(TestNodes.PlainEntry::new)
              .actor("keeper", Keeper::new, a -> a.disableRelocation())
              .userSpot("room", Room::new, o -> o.recreateOnRelocation())
              .instanceSpot("directory", Directory::new, o -> o.recreateOnRelocation())
              .instanceSpot("slow-directory", SlowDirectory::new, o -> o.recreateOnRelocation()))
          .start(1);
      return mesh.node(0);
    }
    return mesh.addNode();
  }

  @Test
  @Spec("LOC-01")
  @Spec("LOC-04")
  void aDeadOwnersObjectsAreCreatedAgainOnALiveNodeAndTheResumedOwnerIsFencedOut() throws Exception {
    final CutStore viewOfA = new CutStore(store);
    final MeshNode a = node(viewOfA, true); // alone in the mesh: placement puts everything on a
    final ActorRef oldActor = a.actors().getOrCreate("k", "keeper").await();
    final SpotRef oldRoom = a.spots().getOrCreate("r", "room").await();
    assertThat(oldActor.nodeRid()).isEqualTo(a.nodeRid());
    assertThat(oldRoom.nodeRid()).isEqualTo(a.nodeRid());
    final String entryOfA = a.entrySpot().id().value();
    final MeshNode b = node(store, true);
    final MeshNode c = node(store, true, 0); // placement never picks c: it only sends, by id
    // a is alive: getOrCreate on b finds its objects and sweeps nothing
    assertThat(b.actors().getOrCreate("k", "keeper").await()).isEqualTo(oldActor);
    final Here before = b.toActor(oldActor).request(new Where(), Here.class).await();
    assertThat(before.nodeHex()).isEqualTo(a.nodeRid().hex());
    assertThat(c.toActor("k").request(new Where(), Here.class).await()).isEqualTo(before); // c caches a's route

    viewOfA.cut(); // SIGSTOP: a renews no more; its lease lapses in the store one TTL after its last renewal
    final long cutAt = System.nanoTime();
    final ActorRef[] newActor = new ActorRef[1];
    Awaitility.await().atMost(TTL.plus(MARGIN).plus(SLACK)).pollInterval(Duration.ofMillis(50)).until(() -> {
      newActor[0] = b.actors().getOrCreate("k", "keeper").await();
      return !newActor[0].equals(oldActor);
    });
    final Duration took = Duration.ofNanos(System.nanoTime() - cutAt);
    assertThat(took).as("re-created after the lease lapsed, within TTL + margin (+ slack)")
        .isGreaterThanOrEqualTo(TTL.minus(RENEW).minus(RENEW_TIMEOUT)).isLessThan(TTL.plus(MARGIN).plus(SLACK));
    assertThat(newActor[0].nodeRid()).isEqualTo(b.nodeRid());
    assertThat(newActor[0].generation().value()).isGreaterThan(oldActor.generation().value());
    final SpotRef newRoom = b.spots().getOrCreate("r", "room").await();
    assertThat(newRoom.nodeRid()).isEqualTo(b.nodeRid());
    assertThat(newRoom.generation().value()).isGreaterThan(oldRoom.generation().value());

    // messages reach the new incarnations
    final Here actorNow = b.toActor(newActor[0]).request(new Where(), Here.class).await();
    assertThat(actorNow.nodeHex()).isEqualTo(b.nodeRid().hex());
    assertThat(actorNow.incarnation()).isNotEqualTo(before.incarnation());
    assertThat(b.toSpot(newRoom).request(new Where(), Here.class).await().nodeHex()).isEqualTo(b.nodeRid().hex());
    // c's cached route to a goes at the first failure; then c's messages by id reach the new incarnation
    Awaitility.await().atMost(Duration.ofSeconds(10)).ignoreException(SpotkitException.Unavailable.class)
        .until(() -> c.toActor("k").request(new Where(), Here.class).await().equals(actorNow));
    // the dead incarnation's ref is stale now, not silently redirected
    assertThatThrownBy(() -> b.toActor(oldActor).request(new Where(), Here.class).await())
        .isInstanceOf(SpotkitException.StaleGeneration.class);

    // SIGCONT: a comes back; its renewal finds the lease gone and it stops itself, and nothing it writes applies
    viewOfA.resume();
    assertThatThrownBy(() -> a.terminated().get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
        .cause().isInstanceOf(SpotkitException.Unavailable.class).hasMessageContaining("lost for good");
    assertThat(viewOfA.writesAfterResume()).as("the resumed owner tried to write (its renewal)").isPositive();
    assertThat(viewOfA.appliedAfterResume()).as("every write of the resumed owner was rejected").isZero();
    assertThatThrownBy(() -> a.toActor(oldActor).request(new Where(), Here.class).await())
        .isInstanceOf(SpotkitException.class);
    // the new incarnations still answer, and no id ever ran two turns at once
    assertThat(b.toActor(newActor[0]).request(new Where(), Here.class).await().incarnation())
        .isEqualTo(actorNow.incarnation());
    assertThat(MAX_RUNNING).allSatisfy((id, max) -> assertThat(max).hasValueLessThanOrEqualTo(1));
    // the dead node's descriptor and capacity record were swept when placement read the mesh
    Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> store.read(LocationKeys.meshNode("recovery",
        a.nodeRid().hex()).preimage()).toCompletableFuture().get() instanceof ReadResult.Missing);
    assertThat(store.read(LocationKeys.nodeCapacity("recovery", a.nodeRid().hex()).preimage())
        .toCompletableFuture().get()).isInstanceOf(ReadResult.Missing.class);
    assertThat(store.read(ObjectKey.spot(entryOfA).logicalKey().preimage()).toCompletableFuture().get())
        .as("the dead run's Entry Spot row").isInstanceOf(ReadResult.Missing.class);
  }

  /**
   * An Instance Spot has no GetOrCreate: the next message with Instance intent is what re-creates it. Its owner is
   * halted as a killed process stops (no word on the way out); a node that cached the route to it gets Unavailable
   * until the owner lease lapsed, then its message sweeps the dead owner's row and activates a new incarnation.
   */
  @Test
  void aDeadOwnersInstanceSpotIsActivatedAgainByTheNextInstanceIntent() throws Exception {
    final MeshNode a = node(store, true); // alone in the mesh: the Instance Spot activates on a
    final Here first = a.toInstanceSpot("dir", "directory").request(new Where(), Here.class).await();
    assertThat(first.nodeHex()).isEqualTo(a.nodeRid().hex());
    final MeshNode b = node(store, true);
    assertThat(b.toInstanceSpot("dir", "directory").request(new Where(), Here.class).await())
        .as("b routes to the live incarnation on a").isEqualTo(first);

    mesh.halt(mesh.indexOf(a.nodeRid())); // as kill -9: its rows stay, its lease lapses one TTL after its last renewal
    final long haltedAt = System.nanoTime();
    final Here[] now = new Here[1];
    Awaitility.await().atMost(TTL.plus(MARGIN).plus(SLACK).plus(Duration.ofSeconds(4)))
        .pollInterval(Duration.ofMillis(50)).ignoreExceptionsInstanceOf(SpotkitException.class).until(() -> {
          now[0] = b.toInstanceSpot("dir", "directory").request(new Where(), Here.class)
              .timeout(Duration.ofSeconds(1)).await();
          return true;
        });
    assertThat(Duration.ofNanos(System.nanoTime() - haltedAt)).as("not before the dead owner's lease lapsed")
        .isGreaterThanOrEqualTo(TTL.minus(RENEW).minus(RENEW_TIMEOUT));
    assertThat(now[0].nodeHex()).isEqualTo(b.nodeRid().hex());
    assertThat(now[0].incarnation()).as("a new incarnation").isNotEqualTo(first.incarnation());
    assertThat(b.toInstanceSpot("dir", "directory").request(new Where(), Here.class).await()).isEqualTo(now[0]);
  }

  /**
   * The node activating an Instance Spot is halted (as kill -9) while the Spot's onInitialize runs: its Creating row
   * stays, naming the dead node, and nothing was Ready. Once that node's owner lease lapsed, the next message with
   * Instance intent aborts the dead reservation, as GetOrCreate's recovery does (spec 000 section 2 step 7), and
   * activates the Spot on a live node. Before the fix, only Ready rows of a dead owner were swept: the live node's
   * activation lost the reservation to the dead one and every message answered Unavailable for good.
   */
  @Test
  void anInstanceSpotWhoseActivatingNodeDiedIsActivatedByTheNextInstanceIntent() throws Exception {
    final MeshNode a = node(store, true); // alone in the mesh: the Instance Spot activates on a
    BLOCK_NEXT_INIT.set(true);
    final CompletableFuture<Here> first = a.toInstanceSpot("dir", "slow-directory").request(new Where(), Here.class)
        .toFuture();
    assertThat(initBlocked.await(20, TimeUnit.SECONDS)).as("a's activation runs onInitialize").isTrue();
    final AuthorityRecord reserved = row(ObjectKey.spot("dir"));
    assertThat(reserved.allocation().state()).isEqualTo(AuthorityRecord.State.RESERVED);
    assertThat(reserved.allocation().routingIdHex()).isEqualTo(a.nodeRid().hex());
    final MeshNode b = node(store, true);

    final long leaseReadAt = System.nanoTime(); // before the read: a's lease is valid at least validFor from here
    final ReadResult lease = store.read(LocationKeys.ownerLease(reserved.ownerId()).preimage()).toCompletableFuture()
        .get(5, TimeUnit.SECONDS);
    assertThat(lease).as("a's owner lease while its activation runs").isInstanceOf(ReadResult.Found.class);
    final ReadResult.Found held = (ReadResult.Found) lease;
    final Duration validFor = Duration.ofMillis(held.expiresAtMillis().orElseThrow() - held.now().epochMillis());
    mesh.halt(mesh.indexOf(a.nodeRid())); // a renews no more: its lease lapses one TTL after its last renewal
    final Here[] now = new Here[1];
    Awaitility.await().atMost(TTL.plus(MARGIN).plus(SLACK).plus(Duration.ofSeconds(4)))
        .pollInterval(Duration.ofMillis(50)).ignoreExceptionsInstanceOf(SpotkitException.class).until(() -> {
          now[0] = b.toInstanceSpot("dir", "slow-directory").request(new Where(), Here.class)
              .timeout(Duration.ofSeconds(1)).await();
          return true;
        });
    // store time and System.nanoTime both follow the real clock here; 1 ms for the store's millisecond grain
    assertThat(Duration.ofNanos(System.nanoTime() - leaseReadAt)).as("not before the dead node's lease lapsed")
        .isGreaterThanOrEqualTo(validFor.minusMillis(1));
    assertThat(now[0].nodeHex()).isEqualTo(b.nodeRid().hex());
    assertThat(now[0].incarnation()).as("a new incarnation").isNotEqualTo(BLOCKED_INCARNATION.get());
    final AuthorityRecord ready = row(ObjectKey.spot("dir"));
    assertThat(ready.allocation().state()).isEqualTo(AuthorityRecord.State.ACTIVE);
    assertThat(ready.allocation().routingIdHex()).isEqualTo(b.nodeRid().hex());
    assertThat(ready.objectGeneration().value()).isGreaterThan(reserved.objectGeneration().value());
    assertThat(b.toInstanceSpot("dir", "slow-directory").request(new Where(), Here.class).await()).isEqualTo(now[0]);
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(first::isDone);
    assertThat(first).as("the first request died with its node").isCompletedExceptionally();
  }

  @Test
  void withTheOptionOffADeadOwnersObjectStaysUnavailable() throws Exception {
    final CutStore viewOfA = new CutStore(store);
    final MeshNode a = node(viewOfA, false);
    final ActorRef oldActor = a.actors().getOrCreate("k", "keeper").await();
    final MeshNode b = node(store, false);
    final String leaseKey = LocationKeys.ownerLease(ownerOf(ObjectKey.actor("k"))).preimage();

    viewOfA.cut();
    Awaitility.await().atMost(TTL.plus(SLACK)).pollInterval(Duration.ofMillis(50)).until(() ->
        store.read(leaseKey).toCompletableFuture().get() instanceof ReadResult.Missing);

    assertThat(b.actors().getOrCreate("k", "keeper").await()).as("the row of the dead owner stays").isEqualTo(oldActor);
    assertThatThrownBy(() -> b.toActor(oldActor).request(new Where(), Here.class).await())
        .isInstanceOf(SpotkitException.Unavailable.class);
    assertThat(store.read(LocationKeys.meshNode("recovery", a.nodeRid().hex()).preimage()).toCompletableFuture()
        .get()).as("nothing swept").isInstanceOf(ReadResult.Found.class);
  }

  private AuthorityRecord row(final ObjectKey key) throws Exception {
    final ReadResult read = store.read(key.logicalKey().preimage()).toCompletableFuture().get(5, TimeUnit.SECONDS);
    return AuthorityRecord.decode(((ReadResult.Found) read).value());
  }

  private String ownerOf(final ObjectKey key) throws Exception {
    final ReadResult read = store.read(key.logicalKey().preimage()).toCompletableFuture().get(5, TimeUnit.SECONDS);
    return AuthorityRecord.decode(((ReadResult.Found) read).value()).ownerId();
  }
}
