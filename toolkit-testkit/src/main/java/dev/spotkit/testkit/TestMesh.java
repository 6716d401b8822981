package dev.spotkit.testkit;

import dev.spotkit.core.internal.runtime.Cell;
import dev.spotkit.core.internal.runtime.CellState;
import dev.spotkit.core.internal.runtime.NodeRuntime;

import dev.spotkit.core.MeshNode;
import dev.spotkit.core.MeshOptions;
import dev.spotkit.core.NodeRid;
import dev.spotkit.core.ObjectServerBuilder;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.store.InMemoryLocationStore;
import dev.spotkit.store.InMemoryRelocationStore;
import dev.spotkit.store.LocationStore;
import dev.spotkit.store.RelocationStore;
import dev.spotkit.store.StoreFaults;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import java.util.function.ObjIntConsumer;

/**
 * N MeshNodes in one JVM for multi-node tests of an application (issue 15): every node listens on 127.0.0.1 on a
 * port the OS picks, all share one {@link InMemoryLocationStore} and one {@link InMemoryRelocationStore} by default
 * (as the processes of a real mesh share Redis) and one random cluster secret, and each registers the same objects.
 *
 * <pre>{@code
 * try (TestMesh mesh = TestMesh.builder()
 *     .objectServer(s -> s.entrySpot(Lobby::new).actor("player", Player::new, a -> a.preserveState(...)))
 *     .start(3)) {
 *   String alice = mesh.actorOn(1, "alice", "player");        // created, and placed on node 1
 *   mesh.node(0).toActor(alice).send(new Say("hi"));
 *   mesh.node(1).relocate(mesh.node(2).nodeRid()).join();     // moves it to node 2
 *   mesh.locationStore().faults().failNext(1, call -> true);  // the next store call fails Unavailable
 * }
 * }</pre>
 *
 * <p>Node i is {@link #node(int)}, in start order; {@link #addNode()} starts one more (a node to drain to),
 * {@link #close()} closes every node still open. Thread-safety: any thread; the builder is not thread-safe.
 *
 * <p>Other stores: {@link Builder#locationStore(LocationStore)} and {@link Builder#relocationStore(RelocationStore)}
 * give the nodes one shared store of any kind (e.g. the Redis stores of toolkit-redis, or a view that cuts a node
 * off), {@link Builder#locationStores(IntFunction)} and {@link Builder#relocationStores(IntFunction)} one store per
 * node (e.g. each node its own Redis connection to one Redis); {@link #locationStore(int)} and
 * {@link #relocationStore(int)} tell which store node i was started with. The mesh never closes a store (a node
 * does when the test sets {@code closeStoresOnClose()} through {@link Builder#node}).
 *
 * <p>Crash tests: {@link #halt(int)} stops a node as {@code kill -9} does; its objects can be created again once its
 * owner lease lapsed (default TTL 15 s). Give the nodes a short lease to keep such a test fast, e.g.
 * {@code .node(b -> b.ownerLease(ofMillis(200), ofMillis(1500), ofMillis(400), ofMillis(300)))} (renew interval,
 * TTL, renew timeout, fencing margin; see {@code MeshNode.Builder#ownerLease}). Object timers are driven with
 * {@link #fireTimer}.
 *
 * <p>Running it: on JDK 24 and later, Agrona (the mailboxes) needs
 * {@code --add-opens=java.base/jdk.internal.misc=ALL-UNNAMED} and Netty wants
 * {@code --enable-native-access=ALL-UNNAMED} (and, from JDK 23, {@code --sun-misc-unsafe-memory-access=allow}) on
 * the test JVM: put them in Surefire's {@code <argLine>}; without the first every node fails to start with
 * {@code IllegalAccessError ... jdk.internal.misc.Unsafe}. The kit logs through SLF4J and brings no binding: add one
 * (e.g. {@code slf4j-simple}, test scope) to see the nodes' logs.
 */
public final class TestMesh implements AutoCloseable {
  /** Ids tried by {@link #actorOn} and {@link #spotOn} before giving up. */
  public static final int PLACEMENT_TRIES = 64;

  private final Builder builder;
  private final String secret = "testkit-" + UUID.randomUUID();
  /** The store every node shares, or null when each node gets one from {@link Builder#locationStores}. */
  private final LocationStore locationStore;
  /** As {@link #locationStore}, for the Relocation Store. */
  private final RelocationStore relocationStore;
  private final List<MeshNode> nodes = new CopyOnWriteArrayList<>();
  private final List<LocationStore> nodeLocationStores = new CopyOnWriteArrayList<>();
  private final List<RelocationStore> nodeRelocationStores = new CopyOnWriteArrayList<>();

  private TestMesh(final Builder builder) {
    this.builder = builder;
    this.locationStore = builder.locationStores != null ? null
        : builder.locationStore != null ? builder.locationStore : new InMemoryLocationStore();
    this.relocationStore = builder.relocationStores != null ? null
        : builder.relocationStore != null ? builder.relocationStore : new InMemoryRelocationStore();
  }

  /**
   * A new builder: MeshName "test", 2 workers per node, close timeout 5 s.
   *
   * @return the builder.
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Starts one more node with the same registrations (e.g. a target for a drain).
   *
   * @return the started node, now {@code node(size() - 1)}.
   * @throws SpotkitException as {@link MeshNode.Builder#start()}: NotConfigured or InvalidOperation for a bad
   *     registration, Unavailable when the store does not answer.
   * @throws NullPointerException when a {@link Builder#locationStores} or {@link Builder#relocationStores} factory
   *     returns null for this node.
   */
  public MeshNode addNode() {
    synchronized (nodes) {
      final int index = nodes.size();
      final LocationStore locations = locationStore != null ? locationStore
          : Objects.requireNonNull(builder.locationStores.apply(index), "locationStores(...) gave null for node "
              + index);
      final RelocationStore relocations = relocationStore != null ? relocationStore
          : Objects.requireNonNull(builder.relocationStores.apply(index), "relocationStores(...) gave null for node "
              + index);
      final MeshNode.Builder b = MeshNode.builder().meshName(builder.meshName).locationStore(locations)
          .relocationStore(relocations).workers(builder.workers).closeTimeout(builder.closeTimeout)
          .mesh(m -> {
            m.listen("127.0.0.1", 0).clusterSecret(secret);
            builder.meshOptions.accept(m, index);
          })
          .objectServer(builder.registrations);
      builder.customize.accept(b);
      builder.perNode.accept(b, index);
      final MeshNode node = b.start();
      nodes.add(node);
      nodeLocationStores.add(locations);
      nodeRelocationStores.add(relocations);
      return node;
    }
  }

  /**
   * Node {@code index}, in start order (closed nodes keep their index).
   *
   * @param index 0..{@code size() - 1}.
   * @return the node.
   * @throws IndexOutOfBoundsException when there is no such node.
   */
  public MeshNode node(final int index) {
    return nodes.get(index);
  }

  /**
   * Every node started, in start order, closed ones included.
   *
   * @return an unmodifiable snapshot.
   */
  public List<MeshNode> nodes() {
    return List.copyOf(nodes);
  }

  /**
   * How many nodes were started.
   *
   * @return the count.
   */
  public int size() {
    return nodes.size();
  }

  /**
   * The index of the node with this RoutingId.
   *
   * @param rid a node's RoutingId.
   * @return its index.
   * @throws IllegalArgumentException when no node of this mesh has it.
   */
  public int indexOf(final NodeRid rid) {
    for (int i = 0; i < nodes.size(); i++) {
      if (nodes.get(i).nodeRid().equals(rid)) {
        return i;
      }
    }
    throw new IllegalArgumentException("no node of this test mesh has RoutingId " + rid);
  }

  /**
   * The shared in-memory Location Store; its {@link InMemoryLocationStore#faults()} fail, stall or lose the answer
   * of the next calls ({@link StoreFaults}).
   *
   * @return the store: the one given to {@link Builder#locationStore(InMemoryLocationStore)}, else a new empty one.
   * @throws IllegalStateException when the nodes were given another kind of store
   *     ({@link Builder#locationStore(LocationStore)}) or one store each ({@link Builder#locationStores}); use
   *     {@link #locationStore(int)} then.
   */
  public InMemoryLocationStore locationStore() {
    if (locationStore instanceof InMemoryLocationStore inMemory) {
      return inMemory;
    }
    throw new IllegalStateException("this test mesh has no shared in-memory Location Store (it was given "
        + (locationStore == null ? "one store per node" : locationStore.getClass().getSimpleName())
        + "); locationStore(index) returns the store of node index");
  }

  /**
   * The Location Store node {@code index} was started with: the shared one, or the one
   * {@link Builder#locationStores} gave it.
   * (A store a test sets through {@link Builder#customize} is not seen here.)
   *
   * @param index 0..{@code size() - 1}.
   * @return that node's store.
   * @throws IndexOutOfBoundsException when there is no such node.
   */
  public LocationStore locationStore(final int index) {
    return nodeLocationStores.get(index);
  }

  /**
   * The shared in-memory Relocation Store (relocation payloads); it has {@link StoreFaults} too.
   *
   * @return the store (a new empty one unless the builder was given another).
   * @throws IllegalStateException when the nodes were given another kind of store
   *     ({@link Builder#relocationStore(RelocationStore)}) or one store each ({@link Builder#relocationStores});
   *     use {@link #relocationStore(int)} then.
   */
  public InMemoryRelocationStore relocationStore() {
    if (relocationStore instanceof InMemoryRelocationStore inMemory) {
      return inMemory;
    }
    throw new IllegalStateException("this test mesh has no shared in-memory Relocation Store (it was given "
        + (relocationStore == null ? "one store per node" : relocationStore.getClass().getSimpleName())
        + "); relocationStore(index) returns the store of node index");
  }

  /**
   * The Relocation Store node {@code index} was started with: the shared one, or the one
   * {@link Builder#relocationStores} gave it.
   * (A store a test sets through {@link Builder#customize} is not seen here.)
   *
   * @param index 0..{@code size() - 1}.
   * @return that node's store.
   * @throws IndexOutOfBoundsException when there is no such node.
   */
  public RelocationStore relocationStore(final int index) {
    return nodeRelocationStores.get(index);
  }

  /**
   * Creates an actor of {@code type} that lands on node {@code index}: placement picks by weight, so ids
   * {@code prefix-0}, {@code prefix-1}, ... are created through that node until one lands there (the others stay
   * created where they landed).
   *
   * @param index the node it must be on.
   * @param prefix the id prefix, so that {@code prefix-N} is a valid ActorId (1..255 UTF-8 bytes, no NUL).
   * @param type a registered actor type.
   * @return the id of the actor on that node.
   * @throws IllegalStateException when none of {@value #PLACEMENT_TRIES} tries landed there (e.g. the node has
   *     placement weight 0).
   * @throws SpotkitException as {@code actors().getOrCreate(...).await()}.
   */
  public String actorOn(final int index, final String prefix, final String type) {
    return actorOn(index, index, prefix, type);
  }

  /**
   * Creates an actor of {@code type} through node {@code via} that lands on node {@code index}, as
   * {@link #actorOn(int, String, String)}: {@code via} then already routes to it (e.g. a sender whose connection to
   * the owner must exist before the test starts).
   *
   * @param index the node it must be on.
   * @param via the node whose {@code actors().getOrCreate} creates it.
   * @param prefix the id prefix.
   * @param type a registered actor type.
   * @return the id of the actor on node {@code index}.
   * @throws IllegalStateException when none of {@value #PLACEMENT_TRIES} tries landed there.
   * @throws IndexOutOfBoundsException when there is no node {@code index} or {@code via}.
   * @throws SpotkitException as {@code actors().getOrCreate(...).await()}.
   */
  public String actorOn(final int index, final int via, final String prefix, final String type) {
    final MeshNode on = node(index);
    final MeshNode through = node(via);
    for (int i = 0; i < PLACEMENT_TRIES; i++) {
      final String id = prefix + "-" + i;
      if (through.actors().getOrCreate(id, type).await().nodeRid().equals(on.nodeRid())) {
        return id;
      }
    }
    throw new IllegalStateException("placement never chose node " + index + " (" + on.nodeRid() + ") in "
        + PLACEMENT_TRIES + " tries");
  }

  /**
   * Creates a User Spot of {@code type} that lands on node {@code index}, as {@link #actorOn}.
   *
   * @param index the node it must be on.
   * @param prefix the id prefix.
   * @param type a registered User Spot type.
   * @return the SpotId.
   * @throws IllegalStateException when none of {@value #PLACEMENT_TRIES} tries landed there.
   * @throws SpotkitException as {@code spots().getOrCreate(...).await()}.
   */
  public String spotOn(final int index, final String prefix, final String type) {
    final MeshNode on = node(index);
    for (int i = 0; i < PLACEMENT_TRIES; i++) {
      final String id = prefix + "-" + i;
      if (on.spots().getOrCreate(id, type).await().nodeRid().equals(on.nodeRid())) {
        return id;
      }
    }
    throw new IllegalStateException("placement never chose node " + index + " (" + on.nodeRid() + ") in "
        + PLACEMENT_TRIES + " tries");
  }

  /**
   * Timer control: queues one tick of the timer {@code timerName} of the actor or Spot {@code objectId} on node
   * {@code index} now, so a test need not wait out a period (as Orleans' test kit fires a grain timer); the timer's
   * schedule goes on as before, and the tick runs in the object's turn like a scheduled one. No second tick is queued
   * while one is still waiting.
   *
   * @param index 0..{@link #size()}-1.
   * @param objectId the ActorId or SpotId of an object Ready on that node.
   * @param timerName the name the object registered the timer with ({@code ctx.timers().every(name, ...)}).
   * @return true when a tick of that timer was queued now or one is already waiting; false when the object has no
   *     timer of that name, or the node admits no work (its owner lease is past its local admission deadline, spec 002
   *     section 5), or the object is being released.
   * @throws IllegalArgumentException when no actor or Spot {@code objectId} is Ready on that node (none there, or
   *     it is moving away, being created or closing).
   * @throws IllegalStateException when that node was closed or {@link #halt halted}: it runs nothing.
   * @throws NullPointerException when {@code objectId} or {@code timerName} is null.
   * @throws IndexOutOfBoundsException when {@code index} is not a node of this mesh.
   */
  public boolean fireTimer(final int index, final String objectId, final String timerName) {
    java.util.Objects.requireNonNull(objectId, "objectId");
    java.util.Objects.requireNonNull(timerName, "timerName");
    final NodeRuntime rt = runtime(node(index));
    if (node(index).isClosed()) {
      throw new IllegalStateException("node " + index + " (" + node(index).nodeRid() + ") was closed or halted: it"
          + " runs no timer");
    }
    final Cell cell = rt.actors.containsKey(objectId) ? rt.actors.get(objectId) : rt.spots.get(objectId);
    if (cell == null || cell.state != CellState.READY) {
      throw new IllegalArgumentException("no actor or spot '" + objectId + "' is Ready on node " + index + " ("
          + node(index).nodeRid() + ")");
    }
    return cell.timers.fireNow(timerName);
  }

  /**
   * Stops node {@code index} the way a killed process stops ({@code kill -9}), for tests of crash handling: its mesh
   * connections close first, so nothing it would say on the way out reaches a peer; no handler runs on; nothing is
   * written to the Location Store, so its objects' rows keep naming it and its owner lease lapses one TTL after its
   * last renewal (spec 002 section 5). The node stays in {@link #nodes()}. A no-op on a
   * node already closing.
   *
   * @param index 0..{@link #size()}-1.
   * @throws IndexOutOfBoundsException when {@code index} is not a node of this mesh.
   */
  public void halt(final int index) {
    runtime(node(index)).halt();
  }

  /** The runtime behind {@code node} (not API: the test kit reaches into the node for timer control). */
  private static NodeRuntime runtime(final MeshNode node) {
    try {
      final java.lang.reflect.Field field = MeshNode.class.getDeclaredField("rt");
      field.setAccessible(true);
      return (NodeRuntime) field.get(node);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("this toolkit-core has no node runtime the test kit can reach", e);
    }
  }

  /** Closes every node still open, in reverse start order; the stores hold no resources. Idempotent. */
  @Override
  public void close() {
    final List<MeshNode> all = new ArrayList<>(nodes);
    for (int i = all.size() - 1; i >= 0; i--) {
      all.get(i).close();
    }
  }

  /** What every node of a {@link TestMesh} is started with. Not thread-safe. */
  public static final class Builder {
    private String meshName = "test";
    private int workers = 2;
    private Duration closeTimeout = Duration.ofSeconds(5);
    private Consumer<ObjectServerBuilder> registrations;
    private LocationStore locationStore;
    private IntFunction<? extends LocationStore> locationStores;
    private RelocationStore relocationStore;
    private IntFunction<? extends RelocationStore> relocationStores;
    private Consumer<MeshNode.Builder> customize = b -> { };
    private ObjIntConsumer<MeshNode.Builder> perNode = (b, index) -> { };
    private ObjIntConsumer<MeshOptions> meshOptions = (m, index) -> { };

    private Builder() {
    }

    /**
     * The MeshName of every node.
     *
     * @param name 1..255 UTF-8 bytes, no NUL (checked at start).
     * @return this builder.
     */
    public Builder meshName(final String name) {
      this.meshName = Objects.requireNonNull(name, "name");
      return this;
    }

    /**
     * Dispatcher workers per node (default 2).
     *
     * @param n 1..256 (checked at start).
     * @return this builder.
     */
    public Builder workers(final int n) {
      this.workers = n;
      return this;
    }

    /**
     * How long each node's close waits for its objects (default 5 s).
     *
     * @param timeout checked at start.
     * @return this builder.
     */
    public Builder closeTimeout(final Duration timeout) {
      this.closeTimeout = Objects.requireNonNull(timeout, "timeout");
      return this;
    }

    /**
     * The objects every node registers, as {@link MeshNode.Builder#objectServer}.
     *
     * @param configure registers the actor and spot types, and the Entry Spot (when it registers none, each node gets
     *     a {@link PlainEntrySpot}: no handlers, every callback the default).
     * @return this builder.
     */
    public Builder objectServer(final Consumer<ObjectServerBuilder> configure) {
      Objects.requireNonNull(configure, "configure");
      this.registrations = server -> {
        configure.accept(server);
        try { // the test registered none: a plain one, so an actor-only test needs no Entry Spot class
          server.entrySpot(PlainEntrySpot::new);
        } catch (dev.spotkit.core.SpotkitException.InvalidOperation registered) {
          // the test's own Entry Spot stays
        }
      };
      return this;
    }

    /**
     * The Location Store the nodes share (default: a new empty one), e.g. one the test already wraps in a per-node
     * view (a store that delays or fails one node's calls) before the nodes start; that node then gets the view
     * through {@link #customize}. Replaces an earlier {@code locationStore(...)} or {@link #locationStores} call.
     * The mesh never closes it.
     *
     * @param store an in-memory store; {@link TestMesh#locationStore()} returns it.
     * @return this builder.
     * @throws NullPointerException when store is null.
     */
    public Builder locationStore(final InMemoryLocationStore store) {
      return locationStore((LocationStore) store);
    }

    /**
     * A Location Store of any kind that every node shares (spec 002 section 3), e.g. a Redis store of toolkit-redis
     * or a view of one that cuts its node off. Replaces an earlier {@code locationStore(...)} or
     * {@link #locationStores} call. The mesh never closes it. {@link TestMesh#locationStore()} returns it when it is
     * an {@link InMemoryLocationStore}, else throws; {@link TestMesh#locationStore(int)} always does.
     *
     * @param store the shared store.
     * @return this builder.
     * @throws NullPointerException when store is null.
     */
    public Builder locationStore(final LocationStore store) {
      this.locationStore = Objects.requireNonNull(store, "store");
      this.locationStores = null;
      return this;
    }

    /**
     * One Location Store per node: {@code perNode} is called once for each node started (also by
     * {@link TestMesh#addNode()}) with its index, before that node's builder is configured, e.g.
     * {@code i -> RedisLocationStore.connect(uri, prefix)} for a Redis connection of its own per node, or
     * {@code i -> i == 0 ? cutView : shared} for one node that a test cuts off. The stores should hold the same data
     * (one Redis, one prefix; views over one store) for the nodes to form one mesh. Replaces an earlier
     * {@code locationStore(...)} call. The mesh never closes them ({@code node(MeshNode.Builder::closeStoresOnClose)}
     * makes each node close its own). {@link TestMesh#locationStore()} then throws; use
     * {@link TestMesh#locationStore(int)}.
     *
     * @param perNode the store of node {@code index} (0..63); it must not return null ({@link TestMesh#addNode()}
     *     throws NullPointerException).
     * @return this builder.
     * @throws NullPointerException when perNode is null.
     */
    public Builder locationStores(final IntFunction<? extends LocationStore> perNode) {
      this.locationStores = Objects.requireNonNull(perNode, "perNode");
      this.locationStore = null;
      return this;
    }

    /**
     * A Relocation Store of any kind that every node shares (spec 002 section 2), e.g. a Redis store of
     * toolkit-redis; the default is a new {@link InMemoryRelocationStore}. Replaces an earlier
     * {@code relocationStore(...)} or {@link #relocationStores} call. The mesh never closes it.
     * {@link TestMesh#relocationStore()} returns it when it is an {@link InMemoryRelocationStore}, else throws;
     * {@link TestMesh#relocationStore(int)} always does.
     *
     * @param store the shared store.
     * @return this builder.
     * @throws NullPointerException when store is null.
     */
    public Builder relocationStore(final RelocationStore store) {
      this.relocationStore = Objects.requireNonNull(store, "store");
      this.relocationStores = null;
      return this;
    }

    /**
     * One Relocation Store per node, as {@link #locationStores}: {@code perNode} is called once for each node
     * started with its index, e.g. {@code i -> RedisRelocationStore.connect(uri, prefix)}. Replaces an earlier
     * {@code relocationStore(...)} call. The mesh never closes them. {@link TestMesh#relocationStore()} then throws;
     * use {@link TestMesh#relocationStore(int)}.
     *
     * @param perNode the store of node {@code index} (0..63); it must not return null ({@link TestMesh#addNode()}
     *     throws NullPointerException).
     * @return this builder.
     * @throws NullPointerException when perNode is null.
     */
    public Builder relocationStores(final IntFunction<? extends RelocationStore> perNode) {
      this.relocationStores = Objects.requireNonNull(perNode, "perNode");
      this.relocationStore = null;
      return this;
    }

    /**
     * Anything else on each node's builder (metrics, event listeners, owner lease timings), applied last.
     *
     * @param customize called once per node with its builder.
     * @return this builder.
     */
    public Builder node(final Consumer<MeshNode.Builder> customize) {
      this.customize = Objects.requireNonNull(customize, "customize");
      return this;
    }

    /**
     * Anything that differs between nodes, applied after {@link #node(Consumer)}: node {@code index} (0 for the
     * first started, {@code size()} for the next {@link TestMesh#addNode()}) gets its own options, e.g.
     * {@code (b, i) -> { if (i == 2) b.objectClient(); }} for a node that hosts nothing,
     * {@code b.drainOnClose(Duration.ofSeconds(5))} on the node a test closes, a metrics registry per node, other
     * registrations ({@code b.objectServer(...)} replaces the shared ones) or a store of its own
     * ({@code b.locationStore(...)}, then it no longer shares {@link TestMesh#locationStore()}). Do not call
     * {@code b.mesh(...)} here: it replaces the loopback listener and the cluster secret; use {@link #mesh} instead.
     *
     * @param customize called once per node with its builder and its index (0..63).
     * @return this builder.
     */
    public Builder customize(final ObjIntConsumer<MeshNode.Builder> customize) {
      this.perNode = Objects.requireNonNull(customize, "customize");
      return this;
    }

    /**
     * Mesh options of node {@code index} on top of the loopback listener and the shared cluster secret, e.g.
     * {@code (m, i) -> m.acceptAdminDrains(Duration.ofMillis(100))}; setting {@code clusterSecret} here gives that
     * node another secret (a node that must not join), {@code listen} another address.
     *
     * @param configure called once per node with its {@link MeshOptions} and its index (0..63).
     * @return this builder.
     */
    public Builder mesh(final ObjIntConsumer<MeshOptions> configure) {
      this.meshOptions = Objects.requireNonNull(configure, "configure");
      return this;
    }

    /**
     * Starts {@code count} nodes, one after another.
     *
     * @param count 1..64.
     * @return the running mesh; close it (try-with-resources).
     * @throws IllegalArgumentException when count is out of range.
     * @throws IllegalStateException when no {@link #objectServer} was given.
     * @throws SpotkitException as {@link MeshNode.Builder#start()}; the nodes already started are closed.
     */
    public TestMesh start(final int count) {
      if (count < 1 || count > 64) {
        throw new IllegalArgumentException("count " + count + " must be 1..64");
      }
      if (registrations == null) {
        throw new IllegalStateException("objectServer(...) registers what the nodes serve; it was not called");
      }
      final TestMesh mesh = new TestMesh(this);
      try {
        for (int i = 0; i < count; i++) {
          mesh.addNode();
        }
      } catch (RuntimeException e) {
        mesh.close();
        throw e;
      }
      return mesh;
    }
  }

  /**
   * The Entry Spot a node gets when the test registers none (spec 000 section 2: every object server has one): no
   * handlers of its own, every callback the default. Built by the runtime at node start.
   */
  public static final class PlainEntrySpot implements dev.spotkit.core.EntrySpot {
    private final dev.spotkit.core.EntrySpotContext ctx;

    /**
     * Built by the runtime.
     *
     * @param ctx the Entry Spot's context.
     */
    public PlainEntrySpot(final dev.spotkit.core.EntrySpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public dev.spotkit.core.EntrySpotContext context() {
      return ctx;
    }
  }
}
