package dev.spotkit.core;

import dev.spotkit.core.internal.runtime.NodeConfig;
import dev.spotkit.core.location.LeaseSettings;
import dev.spotkit.core.location.LocationQuery;
import dev.spotkit.store.RelocationStore;
import dev.spotkit.core.internal.runtime.NodeRuntime;
import dev.spotkit.core.internal.runtime.SpotCell;
import dev.spotkit.store.LocationStore;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * One runtime node: a MeshName, a NodeRid and an object role (DESIGN.md "Nodes, transport and sessions").
 * An object server hosts actors and spots on virtual-thread workers; it needs a Location Store, and nothing
 * creates a hidden one (MEM-01). Every method is safe from any thread.
 *
 * <pre>{@code
 * MeshNode node = MeshNode.builder()
 *     .meshName("chat")
 *     .locationStore(new InMemoryLocationStore())
 *     .objectServer(server -> server
 *         .entrySpot(Lobby::new)
 *         .actor("player", Player::new, actor -> actor.disableRelocation())
 *         .userSpot("room", Room::new, spot -> spot.spotWide().recreateOnRelocation()))
 *     .sessions(sessions -> sessions.listen(7000).codec(LineCodec.utf8()).bindTo("player"))
 *     .start();
 * SpotRef room = node.spots().getOrCreate("room:lobby", "room").await();
 * HistoryReply h = node.toSpot(room).request(new History(20), HistoryReply.class)
 *     .timeout(Duration.ofSeconds(2)).await();
 * node.close();   // OnClosing(HostShutdown) on every spot
 * }</pre>
 *
 * <p>A mesh of nodes: give every node the same Location Store (and Relocation Store) and
 * {@code mesh(m -> m.listen("127.0.0.1", 0).clusterSecret(secret))}; creation places objects on any Serving node
 * and messages reach the owner wherever it lives (spec 002 sections 4-7, {@link MeshOptions}). A JoinSpot to a User
 * Spot on another node moves the Actor there live (spec 000 section 4.2, spec 001); {@link #relocate(NodeRid)}
 * moves this node's Entry Spot actors and {@link #relocateSpot(SpotId, NodeRid)} one room (SpotWide or PerActor)
 * with its members, or one Instance Spot.
 */
public final class MeshNode implements AutoCloseable {
  /** The smallest {@link Builder#closeTimeout(Duration)} accepted: 100 ms. */
  public static final Duration MIN_CLOSE_TIMEOUT = Duration.ofMillis(100);

  /**
   * How much longer than its close timeout {@link #close()} may take: 250 ms for the bookkeeping after the
   * last bounded wait.
   */
  public static final Duration CLOSE_MARGIN = NodeRuntime.CLOSE_MARGIN;

  private final NodeRuntime rt;
  private final ObjectRole role;
  private final LocationQueries locations;
  /** What {@link #close()} drains first ({@link Builder#drainOnClose}), or null: close does not drain. */
  private final RelocateOptions drainOnClose;
  /** Set by the first {@link #close()} call when it drains first; later calls wait for the node's end. */
  private final java.util.concurrent.atomic.AtomicBoolean closeCalled = new java.util.concurrent.atomic.AtomicBoolean();

  private MeshNode(final NodeRuntime rt, final ObjectRole role, final LocationStore store,
      final Duration storeTimeout, final RelocateOptions drainOnClose) {
    this.rt = rt;
    this.role = role;
    this.drainOnClose = drainOnClose;
    this.locations = new LocationQueriesImpl(role == ObjectRole.NONE || store == null ? null
        : new LocationQuery(store, storeTimeout), rt::isClosing, rt.meshName() + "/" + rt.nodeRid());
    dev.spotkit.core.internal.relocation.DrainRequests.watch(rt); // MeshOptions.acceptAdminDrains, else nothing
    dev.spotkit.core.internal.creation.DeadOwnerSweeper.start(rt); // recreateAfterOwnerLoss on an object server
  }

  /**
   * A new builder: mesh "spotkit", role NONE, request timeout 5 s, close timeout 10 s, Application Job Queue
   * limit {@value Builder#DEFAULT_APPLICATION_JOB_LIMIT}.
   *
   * @return the builder.
   */
  public static Builder builder() {
    return new Builder();
  }

  /** @return this node's MeshName. */
  public MeshName meshName() {
    return rt.meshName();
  }

  /** @return this node's RoutingId, random per start. */
  public NodeRid nodeRid() {
    return rt.nodeRid();
  }

  /**
   * Messages this node accepted (the sender got no error) and then could not run, counted by reason, e.g. a one-way
   * message whose target was gone when it arrived from another node. Each is also logged at WARN, at most one line
   * per reason per 10 s. A message refused to its sender with a typed error is not counted here.
   *
   * @return a snapshot, reason to count; empty when nothing was dropped. Any thread.
   */
  public java.util.Map<String, Long> deadLetters() {
    return rt.deadLetters().counts();
  }

  /**
   * This node's event feed: relocation start / commit / fail, the spec's relocation warnings
   * ({@code cutover_timeout}, {@code late_cutover}, {@code location_update_failed},
   * {@code late_session_route_update}), owner lease loss and admission stops, state changes, each also logged as one
   * key=value line.
   * Listeners run on the node's event thread, never inside a handler turn (see {@link NodeEvents}). Any thread.
   *
   * @return the feed; the same instance on every call.
   */
  public NodeEvents events() {
    return rt.events();
  }

  /** @return the object role. */
  public ObjectRole role() {
    return role;
  }

  /**
   * The User Spot manager (SPOT-02).
   *
   * @return the manager; its calls fail with NotConfigured unless this is an object server.
   */
  public SpotManager spots() {
    return new SpotManagerImpl(rt);
  }

  /**
   * The actor manager.
   *
   * @return the manager; its calls fail with NotConfigured unless this is an object server.
   */
  public ActorManager actors() {
    return new ActorManagerImpl(rt);
  }

  /**
   * The operator query (spec 002 section 7.4): where an object is by global id, and the objects of one kind in
   * pages, read from this node's Location Store. For operational status only: never a message target list or a
   * placement condition. Any thread; its calls block on the store (see {@link LocationQueries}).
   *
   * @return the query; its calls fail with {@link SpotkitException.NotConfigured} unless this node has an object
   *     role (and so a Location Store).
   */
  public LocationQueries locations() {
    return locations;
  }

  /**
   * Messages to an actor incarnation (see {@link Target}).
   *
   * @param actor the ref.
   * @return the target.
   */
  public Target toActor(final ActorRef actor) {
    return Targets.actor(rt, actor);
  }

  /**
   * Messages to the live actor with this id.
   *
   * @param actorId the id.
   * @return the target.
   */
  public Target toActor(final String actorId) {
    return Targets.actor(rt, actorId);
  }

  /**
   * Messages to a spot incarnation.
   *
   * @param spot the ref.
   * @return the target.
   */
  public Target toSpot(final SpotRef spot) {
    return Targets.spot(rt, spot);
  }

  /**
   * Messages to the live spot with this id; never creates one (SPOT-03).
   *
   * @param spotId the id.
   * @return the target.
   */
  public Target toSpot(final String spotId) {
    return Targets.spot(rt, spotId);
  }

  /**
   * Messages with Instance intent: the first one activates a missing Instance Spot (spec 003 section 6).
   *
   * @param spotId the id.
   * @param stableType a registered Instance Spot type.
   * @return the target.
   */
  public Target toInstanceSpot(final String spotId, final String stableType) {
    return Targets.instance(rt, spotId, stableType);
  }

  /**
   * The Entry Spot, published once initialized (SPOT-01).
   *
   * @return its ref.
   * @throws SpotkitException.NotConfigured unless this is an object server.
   */
  public SpotRef entrySpot() {
    final SpotCell entry = rt.entry();
    return entry.ref();
  }

  /**
   * Where the session listener is bound.
   *
   * @return host and actual port, or empty without sessions.
   */
  public Optional<InetSocketAddress> sessionAddress() {
    return rt.sessionAddress();
  }

  /**
   * Where every session listener is bound: the first ({@link #sessionAddress()}), then the second one of
   * {@link SessionOptions#alsoListen}, if any.
   *
   * @return host and actual port of each, in that order; empty without sessions.
   */
  public java.util.List<InetSocketAddress> sessionAddresses() {
    final java.util.List<InetSocketAddress> addresses = new java.util.ArrayList<>(2);
    rt.sessionAddress().ifPresent(addresses::add);
    rt.alsoSessionAddress().ifPresent(addresses::add);
    return java.util.List.copyOf(addresses);
  }

  /**
   * Host relocation of this node's Entry Spot actors (spec 000 section 4.2, last paragraphs; spec 001): every
   * Actor that is a member of this node's Entry Spot moves to the Entry Spot of node {@code target}, each as its
   * own relocation unit, with its state (by its relocation policy), not-yet-run queue, timers and the messages
   * arriving meanwhile, in order; messages reaching this node afterwards follow it (Message Follow, 30 s). No
   * membership callback runs (no OnJoinedActor, OnLeaveActor or completion callback) and chunks are 32 KiB (no
   * approval round trip). The actors are those of the Entry Spot at this call. An actor running a join is
   * moved once that join ended (MEM-16), unless the join took it elsewhere. An actor registered with
   * DisableRelocation, or one whose move fails before the target's relay-ready reply stays here and keeps serving;
   * the result names it. An actor counts as moved only once the Location Store names the target (the target's CAS
   * committed; this node learns it by reading the actor's row, it never writes the owner); one whose move passed
   * the relay-ready reply but did not commit is named in the result with {@link SpotkitException.Unavailable} and
   * runs nowhere (spec 001 section 9). An actor bound to a client session moves too while the session stays on
   * this node: its frames follow it and its pushes come back here (see {@link ActorContext#session()}). Actors of
   * User Spots do not move. Returns at once; the work runs on the node's threads.
   *
   * @param target the NodeRid of another Serving node of this mesh with the actors' types registered.
   * @return completes with the result once every actor's move committed or failed (a move that passed the
   *     relay-ready reply is known at most the target's Restore validity, 10 s, plus one store call, 2 s, after
   *     it, while the store answers); fails with
   *     {@link SpotkitException.InvalidOperation} when {@code target} is this node,
   *     {@link SpotkitException.NotConfigured} without a mesh, {@link SpotkitException.Unavailable} when the
   *     target published no descriptor or cannot be reached, {@link SpotkitException.ShuttingDown} while closing,
   *     or when this node is halted or stops itself before the call ended (the message names why).
   */
  public java.util.concurrent.CompletableFuture<HostRelocationResult> relocate(final NodeRid target) {
    return rt.userFuture(rt.failOnHalt(dev.spotkit.core.internal.relocation.HostRelocations.relocate(rt,
        target)));
  }

  /**
   * Host drain (FACTS.md "Host relocation"; spec 000 sections 4.2, 6 and 7; spec 001): moves everything this node
   * can move to other nodes in one call, for maintenance or a rolling restart. In order:
   * <ol>
   *   <li>the node publishes state Relocating, so placement creates nothing new here (it picks Serving nodes only);
   *       then it reads the live nodes once: a target is a Serving node other than this one that registered the
   *       unit's types and passes {@code options} (names, filter, placement weight above 0 for drainAnywhere);</li>
   *   <li>first every PerActor User Spot's shell moves as in {@link #relocateSpot} (at most parallelism at once),
   *       then its members one by one, while the Entry actors move; these rooms are listed in {@code rooms};</li>
   *   <li>every Entry Spot actor moves as in {@link #relocate(NodeRid)}, each to a target chosen by smooth
   *       weighted round-robin on the targets' placement weights (all at once, one batch per target);</li>
   *   <li>then every SpotWide User Spot moves with every member it has at its seal as one aggregate, and every
   *       Instance Spot as one Actor-less unit (to a node that registered its stable type as an Instance Spot), as
   *       in {@link #relocateSpot}, in SpotId order, at most {@link RelocateOptions#parallelism(int)} at once,
   *       spread the same way; each is started only before {@link RelocateOptions#deadline(Duration)} (30 s by
   *       default); moved Instance Spots are listed in {@link RelocateResult#instanceSpots()};</li>
   *   <li>the node publishes Relocated when every unit moved ({@link RelocateResult.Outcome#RELOCATED}), otherwise
   *       Serving again ({@link RelocateResult.Outcome#BLOCKED}, it serves what it kept). A Relocated node takes no
   *       new placements until it restarts (a new client session there is closed); stop or restart the process.</li>
   * </ol>
   * Each unit keeps the guarantees of its move: nothing lost, duplicated or reordered per sender, no membership
   * callback, one owner at all times; messages reaching this node afterwards follow each unit for 30 s (Message
   * Follow). With {@link RelocateOptions#awaitSafeToShutdown(boolean)} the result waits until the last window
   * ended (SafeToShutdown). Returns at once; the work runs on the node's threads. Any thread.
   *
   * @param options e.g. {@code RelocateOptions.drainAnywhere()} or {@code RelocateOptions.drainTo(b, c)}.
   * @return completes with the result once every started move committed or failed (bounded: the deadline plus a
   *     started room's two 30 s steps; plus up to 30 s with awaitSafeToShutdown); fails with
   *     {@link SpotkitException.InvalidOperation} when {@code options} is null or another drain of this node runs,
   *     {@link SpotkitException.NotConfigured} without a mesh or on a node that is not an object server,
   *     {@link SpotkitException.Unavailable} when the node state cannot be published or the mesh cannot be read
   *     (nothing moved), {@link SpotkitException.ShuttingDown} while closing, or when this node is halted or stops
   *     itself before the drain ended (the message names why).
   */
  public java.util.concurrent.CompletableFuture<RelocateResult> relocate(final RelocateOptions options) {
    return rt.userFuture(rt.failOnHalt(dev.spotkit.core.internal.relocation.HostDrains.drain(rt, options)));
  }

  /**
   * Moves one SpotWide User Spot that this node owns, with every member Actor it has at the seal, or one Instance Spot
   * it owns (see below), to node {@code target} as one aggregate (spec 000 section 7; spec 002 sections 8.1-8.2). At
   * the room's next turn boundary (an intent on the Spot's control lane, ahead of queued messages; while a member is in
   * a join, leave or move of its own the room keeps running and the intent comes back every 20 ms, for up to 10 s)
   * joins and leaves are refused with {@link SpotkitException.Unavailable} and no participant runs a handler; each
   * participant's not-yet-run queue and timers are captured, and its state by its own policy (the Spot's
   * {@link SpotRelocationAdapter} and each member's {@link ActorRelocationAdapter}, called separately;
   * RecreateOnRelocation carries none); the participant inventory is stored as immutable chunks in the Location Store;
   * the room travels as one CRC-32C-checked payload and is restored on the target with admission closed; messages that
   * reach this node meanwhile, for the Spot or a member, are held and relayed in arrival order; then the target's one
   * Location Store CAS makes it the owner of the Spot and of every member together, and it opens each mailbox with the
   * saved work first. No membership callback runs for members. Messages reaching this node afterwards follow the room
   * to the target on the same ordered connection for 30 s (Message Follow); after that the old address routes by the
   * Location Store. Before the target reports it restored the room (relay-ready) a failure keeps the whole room here,
   * serving, with nothing lost; after it, the room is not restored here (spec 000 section 8).
   *
   * <p>A member bound to a client session keeps its socket on its node: its binding is sealed at the Session owner
   * before the capture (its frames wait there) and switched to the target by command 44 after the CAS and the queue
   * opening, or released by a command 44 abort when the move fails before relay-ready (spec 000 section 4.2 step 8).
   *
   * <p>A Spot registered with {@link UserSpotOptions#applicationSignaledRelocation()} is sealed only at the end of a
   * turn that called {@code relocationReady().defer()} (waiting at most 20 s for it), and its
   * {@link UserSpot#onRelocationReadyCompleted(RelocationReadyOutcome)} runs on the target before its dispatch opens
   * (spec 003 section 5.1).
   *
   * <p>An Instance Spot (spec 003 section 6; spec 001 sections 3 and 8) moves the same way as one Actor-less unit:
   * at its next turn boundary its mailbox closes (the ingress hold), its not-yet-run queue, timers and pending
   * ticks are captured, and its state by its policy ({@link SpotRelocationAdapter}, or none for
   * RecreateOnRelocation); the target builds it with its Instance Spot factory for the same stable type and
   * restores it with dispatch closed; the target alone moves its Location Store row with one CAS (owner and
   * capacity; no aggregate record or inventory is written); then its mailbox opens with the saved work first, and
   * this node runs {@link Spot#onClosing(ClosingContext)} with {@link ClosingReason#RELOCATION_OUT} on the source
   * instance and follows later messages, Instance intent included, to the target (never a second activation).
   * {@link SpotRelocationResult#members()} is then 0.
   *
   * <p>A PerActor User Spot (spec 000 section 7) moves its runtime-private shell first, on the one-row path of an
   * Instance Spot (its turn and its members' Create/Join end first; the target builds it with the Spot's factory,
   * RecreateOnRelocation, with its unrun queue and timers; one CAS of the Spot's row, same SpotId and
   * ObjectGeneration); from then on ToSpot, Create and Join go to the target. Then each member moves as its own unit
   * (as in {@link #relocate(NodeRid)}: seal at its turn boundary, no membership callback) and stays a member; work
   * for a member still here runs here, for a moved one it follows it. After the last member this node runs the
   * Spot's {@link Spot#onClosing(ClosingContext)} with {@link ClosingReason#RELOCATION_OUT}. A member the target
   * refuses (tried 3 times) stays here, owned here alone, in {@link SpotRelocationResult#keptMembers()}; calling
   * this method again here with the Spot's new owner as target moves such members. Not yet: the target's capacity
   * advertisement beyond its node capacity record (checked before relay-ready, not reserved).
   *
   * @param spotId the SpotWide or PerActor User Spot or Instance Spot, owned by this node.
   * @param target the NodeRid of another node of this mesh with the Spot's and members' types registered (for an
   *     Instance Spot: its stable type registered as an Instance Spot).
   * @return completes with the moved Spot's ref on the target, the member count and the pause (seal to commit, on
   *     this node's clock); fails with {@link SpotkitException.NotFound} when no such Spot exists in the mesh,
   *     {@link SpotkitException.InvalidOperation} when it is neither a User Spot nor an Instance Spot,
   *     another node owns it, or
   *     {@code target} is this node, {@link SpotkitException.Rejected} when the Spot or a member is registered with
   *     DisableRelocation, {@link SpotkitException.Unavailable} when the target published no descriptor, cannot be
   *     reached, refused the room before relay-ready, or passed relay-ready with no commit seen (the Spot then
   *     answers Unavailable here at once, spec 001 section 9 reopens no source after relay-ready; a commit landing
   *     within the 30 s Message Follow duration is reconciled: the Spot here then follows it to its target),
   *     {@link SpotkitException.CapacityExceeded} when the target has no room for the whole
   *     aggregate, {@link SpotkitException.NotConfigured} without a mesh or when the target lacks a type,
   *     {@link SpotkitException.ShuttingDown} while this node closes, or when it is halted or stops itself before
   *     the move ended (the message names why; where the move got to is not known here).
   */
  public java.util.concurrent.CompletableFuture<SpotRelocationResult> relocateSpot(final SpotId spotId,
      final NodeRid target) {
    if (spotId == null || target == null) {
      return java.util.concurrent.CompletableFuture.failedFuture(new SpotkitException.InvalidOperation(
          "relocateSpot needs a SpotId and a target NodeRid, not " + spotId + " and " + target));
    }
    if (rt.relocations() == null) {
      return java.util.concurrent.CompletableFuture.failedFuture(new SpotkitException.NotConfigured("relocateSpot"
          + " needs a mesh: configure MeshNode.builder().mesh(...)"));
    }
    return rt.userFuture(rt.failOnHalt(rt.relocations().aggregates().relocate(spotId.value(), target)));
  }

  /**
   * The node's end (spec 002 section 5). Completes normally once {@link #close()} finished. Completes
   * exceptionally with {@link SpotkitException.Unavailable} when the node stopped itself because its owner
   * lease was lost for good (the Location Store no longer holds it: restarted empty, or unreachable longer than
   * the lease TTL). A lost lease is never revived, so by default such a node fail-stops: it logs one ERROR
   * line, runs its close path (sessions closed, objects released, nothing written to the store under the dead
   * lease) and completes this future; the application should then exit or build a new MeshNode (a supervisor
   * restarting the process is the simple choice). Any thread.
   *
   * <pre>{@code
   * node.terminated().whenComplete((ok, failure) -> { if (failure != null) System.exit(3); });
   * }</pre>
   *
   * @return a future completed after the close finished; completing it yourself changes nothing.
   */
  public java.util.concurrent.CompletableFuture<Void> terminated() {
    return rt.terminated();
  }

  /** @return true once {@link #close()} started. */
  public boolean isClosed() {
    return rt.isClosing();
  }

  /**
   * Graceful close (spec 003 section 3.4, spec 000 section 5). New work gets ShuttingDown at once; then, each
   * step bounded by its own checkpoint of the close timeout (counted from the start of close, so time one step
   * leaves unused goes to the next):
   * <ol>
   *   <li>the session listener stops (by 15 %);</li>
   *   <li>accepted handler and timer turns finish (by 45 %);</li>
   *   <li>OnClosing(HostShutdown) runs on every spot, with a ClosingContext whose absolute deadline is the 75 %
   *       checkpoint (by 75 %);</li>
   *   <li>relocations this node started ({@link #relocate}, cross-node joins) reach their result: committed on
   *       the target, or failed (by 85 %), so the records their target's CAS depends on are still there;</li>
   *   <li>actors and spots are released: mailboxes, timers, store records; requests they had not started fail
   *       with {@link SpotkitException.ShuttingDown} (by 95 %);</li>
   *   <li>every request and manager-call future still pending (including one whose handler is stuck) fails
   *       with {@link SpotkitException.ShuttingDown}, and the worker threads stop.</li>
   * </ol>
   * A handler stuck past its step's checkpoint holds only its own execution gate: every other spot still
   * gets OnClosing. The stuck handler's thread is abandoned, not interrupted.
   *
   * <p>Blocks the caller until done: at most the close timeout plus {@link #CLOSE_MARGIN}
   * (250 ms). From inside a handler turn it starts the close on another thread and returns at once. A call
   * made while another thread's close is running blocks until that close finished (same bound; from inside a
   * handler turn it returns at once); after that, close is a no-op. Any thread.
   */
  @Override
  public void close() {
    final RelocateOptions drain = drainOnClose;
    if (drain == null || rt.isClosing()) {
      rt.close();
      return;
    }
    if (!closeCalled.compareAndSet(false, true)) {
      DrainingClose.awaitClose(rt, drain);
      return;
    }
    if (NodeRuntime.inTurn()) { // a handler turn cannot wait for its own node's moves
      Thread.ofVirtual().name("spotkit-drain-close").start(() -> DrainingClose.drainThenClose(rt, drain));
      return;
    }
    DrainingClose.drainThenClose(rt, drain);
  }

  @Override
  public String toString() {
    return "MeshNode[" + rt.meshName() + "/" + rt.nodeRid() + ", role=" + role + "]";
  }

  /** Node settings. Not thread-safe; build once. */
  public static final class Builder {
    private String meshName = "spotkit";
    private LocationStore store;
    private ObjectRole role = ObjectRole.NONE;
    private ObjectServerBuilder server;
    private SessionOptions sessions;
    private int workers = Math.max(2, Runtime.getRuntime().availableProcessors());
    private Duration requestTimeout = Duration.ofSeconds(5);
    private Duration closeTimeout = Duration.ofSeconds(10);
    private int applicationJobLimit = DEFAULT_APPLICATION_JOB_LIMIT;
    private MeshOptions mesh;
    private LeaseSettings lease = LeaseSettings.DEFAULTS;
    private RelocationStore relocationStore;
    /** How many times {@link #relocationStore} was called: more than one is a startup error (spec 002 section 2). */
    private int relocationStores;
    private boolean closeStores;
    private boolean recreateAfterOwnerLoss = true;
    private Duration deadOwnerSweep = DEFAULT_DEAD_OWNER_SWEEP;
    private RelocateOptions drainOnClose;
    private io.micrometer.core.instrument.MeterRegistry meterRegistry;
    private java.util.List<io.micrometer.core.instrument.Tag> meterTags = java.util.List.of();
    private final java.util.List<NodeEventListener> eventListeners = new java.util.ArrayList<>();

    /** Default Application Job Queue limit: handler turns running at once across the node. */
    public static final int DEFAULT_APPLICATION_JOB_LIMIT = 10_000;
    /** Default period of {@link #deadOwnerSweep(Duration)}: 60 s. */
    public static final Duration DEFAULT_DEAD_OWNER_SWEEP = Duration.ofSeconds(60);
    /** Shortest period {@link #deadOwnerSweep(Duration)} accepts: 1 s. */
    public static final Duration MIN_DEAD_OWNER_SWEEP = Duration.ofSeconds(1);
    /** Longest period {@link #deadOwnerSweep(Duration)} accepts: 1 h. */
    public static final Duration MAX_DEAD_OWNER_SWEEP = Duration.ofHours(1);

    private Builder() {
    }

    /**
     * The MeshName; also the prefix of the Entry Spot id.
     *
     * @param name 1..255 UTF-8 bytes; default "spotkit".
     * @return this builder.
     */
    public Builder meshName(final String name) {
      this.meshName = new MeshName(name).value();
      return this;
    }

    /**
     * The Location Store; required for the object roles (MEM-01).
     *
     * @param locationStore e.g. {@code new InMemoryLocationStore()}.
     * @return this builder.
     */
    public Builder locationStore(final LocationStore locationStore) {
      this.store = locationStore;
      return this;
    }

    /**
     * The Relocation Store: Instance Spot cold activation keeps the first message there until its handler
     * completed (spec 002 section 7.1). Required, exactly once, when the object server registers a
     * RecreateOnRelocation or PreserveStateWith factory or an Instance Spot factory (spec 002 section 2; checked
     * by {@link #start()} before any socket is bound); unneeded when every factory is DisableRelocation and there
     * is no Instance Spot factory. Share one store between the nodes of a mesh.
     *
     * @param relocationStoreProvider e.g. {@code new InMemoryRelocationStore()}.
     * @return this builder.
     * @throws SpotkitException.InvalidOperation when null.
     */
    public Builder relocationStore(final RelocationStore relocationStoreProvider) {
      if (relocationStoreProvider == null) {
        throw new SpotkitException.InvalidOperation("relocationStore(null): pass a Relocation Store, e.g. new"
            + " InMemoryRelocationStore()");
      }
      this.relocationStore = relocationStoreProvider;
      this.relocationStores++;
      return this;
    }

    /**
     * Hands the Location Store and the Relocation Store given to this builder to the node: at the end of
     * {@link MeshNode#close()} (after its last store write) the node closes each once ({@code close()} of the
     * SPI; an exception there is logged, not thrown). Without this call the node never closes them, which is
     * right for a store shared by several nodes of one process: the application closes it after the last node.
     * Use it when the store belongs to this node alone, e.g. a {@code RedisLocationStore} per process.
     *
     * @return this builder.
     */
    public Builder closeStoresOnClose() {
      this.closeStores = true;
      return this;
    }

    /**
     * Makes {@link MeshNode#close()} drain first: it runs {@link MeshNode#relocate(RelocateOptions)} with
     * {@code options}, waits for the result (logged at INFO with what was kept), and then closes as without this
     * option, whatever the outcome (a unit that could not move gets OnClosing(HostShutdown) here as before). So a
     * rolling restart of a mesh ends no room that another node can take. The close may then take up to the drain's
     * deadline plus 75 s (a started room's two steps; plus 30 s with awaitSafeToShutdown) longer than the close
     * timeout. A close called from a handler turn starts both on another thread and returns; a second close call
     * waits for the first. Without this call close does not drain (the default).
     *
     * @param options e.g. {@code RelocateOptions.drainAnywhere().deadline(Duration.ofSeconds(20))}.
     * @return this builder.
     * @throws SpotkitException.InvalidOperation when null.
     */
    public Builder drainOnClose(final RelocateOptions options) {
      if (options == null) {
        throw new SpotkitException.InvalidOperation("drainOnClose(null): pass options, e.g."
            + " RelocateOptions.drainAnywhere()");
      }
      this.drainOnClose = options;
      return this;
    }

    /**
     * {@link #drainOnClose(RelocateOptions)} with {@code RelocateOptions.drainAnywhere().deadline(deadline)
     * .awaitSafeToShutdown(true)}: close moves everything it can to any Serving node, waits until the moved units'
     * Message Follow windows ended (30 s after the last commit), then closes.
     *
     * @param deadline how long the drain may start moves; positive, at most {@link Deadline#MAX_TIMEOUT}.
     * @return this builder.
     * @throws SpotkitException.InvalidOperation when null, not positive or too long.
     */
    public Builder drainOnClose(final Duration deadline) {
      return drainOnClose(RelocateOptions.drainAnywhere().deadline(deadline).awaitSafeToShutdown(true));
    }

    /**
     * Joins this node to a mesh of peers sharing the same Location Store (spec 002 sections 4 and 7).
     *
     * @param configure e.g. {@code m -> m.listen("127.0.0.1", 0).clusterSecret(secret)}.
     * @return this builder.
     */
    public Builder mesh(final Consumer<MeshOptions> configure) {
      final MeshOptions options = new MeshOptions();
      configure.accept(options);
      this.mesh = options;
      return this;
    }

    /**
     * Owner lease timing (spec 002 section 5): renewed every {@code renewInterval}, each renewal abandoned
     * after {@code renewTimeout}, kept by the store for {@code ttl}; the node stops admitting new work
     * {@code fencingMargin} before the lease could lapse.
     *
     * @param renewInterval positive; default 5 s.
     * @param ttl positive; default 15 s.
     * @param renewTimeout positive; default 3 s.
     * @param fencingMargin positive; default 5 s.
     * @return this builder.
     * @throws SpotkitException.NotConfigured when a value is not positive or
     *     {@code renewInterval + renewTimeout < ttl - fencingMargin} does not hold (LOC-03).
     */
    public Builder ownerLease(final Duration renewInterval, final Duration ttl, final Duration renewTimeout,
        final Duration fencingMargin) {
      this.lease = new LeaseSettings(renewInterval, ttl, renewTimeout, fencingMargin);
      return this;
    }

    /**
     * Crash recovery of objects whose owner node died (issue 15). On (the default): when {@code getOrCreate} on this
     * node finds the Ready row of an actor or User Spot whose owner run's lease is gone for good (the process was
     * killed, or paused past its lease TTL), it sweeps that row (and the dead node's capacity slots) in one Location
     * Store batch conditioned on the row's StoreVersion and on the dead lease still being gone, then creates the
     * object again as for a missing id: a new incarnation with a higher ObjectGeneration on a live node, built by
     * its factory from the creation request of this call. The dead node's MeshNode descriptor and capacity record
     * are swept too when placement reads the mesh.
     *
     * <p><b>Note:</b> this is re-creation, not relocation takeover (spec 002 section 1 keeps automatic failover of a
     * move out of scope): the dead incarnation's memory (state, queued messages, timers) is gone, as with an Orleans
     * grain without storage; keep what must survive in your own storage. Refs of the dead incarnation answer
     * {@link SpotkitException.StaleGeneration} or {@link SpotkitException.Unavailable}; call {@code getOrCreate}
     * again for a ref of the new one. A dead owner that comes back (SIGSTOP then SIGCONT) is fenced out: its lease
     * record expired in the store at least one fencing margin after its own local admission deadline (spec 002
     * section 5), so it had stopped admitting new work; its store writes fail on its lease version or the row's
     * StoreVersion; and its next renewal finds the lease gone and stops the node ({@link MeshNode#terminated()}).
     *
     * <p>Off: the row of a dead owner stays, {@code getOrCreate} returns its ref and messages to it answer
     * {@link SpotkitException.Unavailable}, the contract's plain behaviour (spec 002 section 7.4 "current owner
     * unavailable after commit"; spec 000 section 8). Turn it off on every node of a mesh shared with runtimes of
     * the contract in other languages that do not sweep.
     *
     * <p>On, an object server also sweeps in the background what nobody asks for again: see
     * {@link #deadOwnerSweep(Duration)}. Off, nothing is swept, in the background or on access.
     *
     * @param enabled true (default) to re-create, false for plain Unavailable.
     * @return this builder.
     */
    public Builder recreateAfterOwnerLoss(final boolean enabled) {
      this.recreateAfterOwnerLoss = enabled;
      return this;
    }

    /**
     * Period of the background sweep of dead owners' rows (crash recovery, issue 15: rows and capacity of dead owners
     * are swept), on an object server with {@link #recreateAfterOwnerLoss(boolean)} on (off: no sweep, this value is
     * unused). Once per period, jittered by 0.75..1.25 times it, a Serving node whose owner lease admits work reads the
     * live nodes of its mesh; the live Serving node with the lowest RoutingId then reads up to 10,000 authority rows of
     * its mesh page by page (200 a page; the next period goes on from there) and removes each row whose owner run's
     * lease is gone for good and was seen gone 15 s before (by store time: a move's target so finishes its CAS first;
     * the next pass comes once that passed), with its capacity slots, in one Location Store batch conditioned on the
     * row's StoreVersion and on the dead lease: the rule and batch of the on-access recovery (spec 002 sections 3.3 and
     * 5; a dead owner's Creating row is aborted, spec 000 section 2). Then it sweeps the gone nodes' descriptors and
     * capacity records. Rows of live owners are never written; a Conflict means another node swept or re-created the
     * row. So a killed node's objects that nobody asks for again leave the store (and {@link MeshAdmin#locations()})
     * about one lease TTL plus one period and 16 s after the kill. A sweep that removed rows logs one INFO line
     * {@code event=dead_rows_swept count=N ...} and adds N to {@code spotkit.recovery.swept} (with {@link #metrics}); a
     * store failure ends that sweep (WARN once) and the next period tries again. The sweep runs on its own virtual
     * thread and stops when the node closes, which never waits for it. Give every node of a mesh the same period: the
     * elected node's applies.
     *
     * @param period 1 s..1 h; default 60 s ({@link #DEFAULT_DEAD_OWNER_SWEEP}).
     * @return this builder.
     * @throws SpotkitException.InvalidOperation when null or outside 1 s..1 h.
     */
    public Builder deadOwnerSweep(final Duration period) {
      if (period == null || period.compareTo(MIN_DEAD_OWNER_SWEEP) < 0
          || period.compareTo(MAX_DEAD_OWNER_SWEEP) > 0) {
        throw new SpotkitException.InvalidOperation("deadOwnerSweep " + period + " is outside " + MIN_DEAD_OWNER_SWEEP
            + ".." + MAX_DEAD_OWNER_SWEEP + "; pass e.g. Duration.ofSeconds(60)");
      }
      this.deadOwnerSweep = period;
      return this;
    }

    /**
     * Makes this node an object server and registers its factories.
     *
     * @param configure registers the Entry Spot and the factories.
     * @return this builder.
     */
    public Builder objectServer(final Consumer<ObjectServerBuilder> configure) {
      final ObjectServerBuilder b = new ObjectServerBuilder();
      configure.accept(b);
      this.server = b;
      this.role = ObjectRole.SERVER;
      return this;
    }

    /**
     * Makes this node an object client (needs a Location Store; hosts nothing).
     *
     * @return this builder.
     */
    public Builder objectClient() {
      this.server = null;
      this.role = ObjectRole.CLIENT;
      return this;
    }

    /**
     * A client-session listener whose connections are bound to actors.
     *
     * @param configure e.g. {@code s -> s.listen(7000).codec(LineCodec.utf8()).bindTo("player")}.
     * @return this builder.
     */
    public Builder sessions(final Consumer<SessionOptions> configure) {
      final SessionOptions options = new SessionOptions();
      configure.accept(options);
      this.sessions = options;
      return this;
    }

    /**
     * Core dispatcher workers (virtual threads).
     *
     * @param n 1..4096; default max(2, CPUs).
     * @return this builder.
     */
    public Builder workers(final int n) {
      if (n < 1 || n > 4096) {
        throw new SpotkitException.InvalidOperation("workers " + n + " must be 1..4096");
      }
      this.workers = n;
      return this;
    }

    /**
     * Default timeout of requests and manager calls.
     *
     * @param timeout positive; default 5 s.
     * @return this builder.
     */
    public Builder requestTimeout(final Duration timeout) {
      Deadline.after(timeout);
      this.requestTimeout = timeout;
      return this;
    }

    /**
     * Bound of {@link MeshNode#close()} (which may take up to {@link MeshNode#CLOSE_MARGIN} longer); the
     * OnClosing deadline is 75 % of it after close started.
     *
     * @param timeout 100 ms..{@link Deadline#MAX_TIMEOUT}; default 10 s.
     * @return this builder.
     * @throws SpotkitException.InvalidOperation when null or outside that range.
     */
    public Builder closeTimeout(final Duration timeout) {
      Deadline.after(timeout);
      if (timeout.compareTo(MIN_CLOSE_TIMEOUT) < 0) {
        throw new SpotkitException.InvalidOperation("closeTimeout " + timeout + " is below " + MIN_CLOSE_TIMEOUT
            + ": close runs four bounded steps (sessions, turns, OnClosing, release) within it");
      }
      this.closeTimeout = timeout;
      return this;
    }

    /**
     * The Application Job Queue limit (DESIGN.md "Execution model", spec 001 section 6): how many handler
     * turns may run at once across the node; a ready actor or spot beyond it waits, holding no permit, and
     * runs in order when one frees up. A turn that blocks (awaits a request, sleeps, does I/O) keeps its permit and
     * its virtual worker thread while it waits, and the dispatcher starts another worker for the rest, up to one
     * worker per permit (at most 65,536): so up to this many handlers may block at once without stalling the
     * node. <b>Note:</b> handlers that await each other need permits for all of them; a limit below that (for
     * example 1 with a handler awaiting a request to another actor) waits until the request's deadline.
     *
     * @param limit 1..{@link Integer#MAX_VALUE} ({@link Integer#MAX_VALUE} = unlimited); default
     *     {@value #DEFAULT_APPLICATION_JOB_LIMIT}.
     * @return this builder.
     * @throws SpotkitException.InvalidOperation when not positive.
     */
    public Builder applicationJobLimit(final int limit) {
      if (limit < 1) {
        throw new SpotkitException.InvalidOperation("applicationJobLimit " + limit + " must be 1.."
            + Integer.MAX_VALUE + " (" + Integer.MAX_VALUE + " = unlimited)");
      }
      this.applicationJobLimit = limit;
      return this;
    }

    /**
     * Publishes this node's metrics to {@code registry} (Micrometer). Without this call no meter exists and the
     * runtime pays one null check per message. Meters (names dotted, base units in seconds and bytes; a Prometheus
     * registry renders {@code spotkit.turn.duration} as {@code spotkit_turn_duration_seconds_*}):
     * <ul>
     *   <li>{@code spotkit.mailbox.depth} gauge, tags kind ({@code actor}/{@code spot}), type: messages queued and
     *       not yet run in the mailboxes of that type on this node (at scrape time); {@code spotkit.mailbox.depth.max}
     *       gauge, same tags: the most seen queued behind a starting turn in one mailbox since the previous read
     *       (each read starts a new period: one scraper per registry); {@code spotkit.turn.duration} function timer
     *       (count and total time, no max), tags kind, type: one handler turn, handler start to end;</li>
     *   <li>{@code spotkit.messages.handled} counter, tags kind, type, outcome ({@code ok}, {@code failed}: threw,
     *       {@code unhandled}: no handler);</li>
     *   <li>{@code spotkit.permits.live} and {@code spotkit.permits.limit} gauges: Application Job Queue permits
     *       held by running turns, and the limit; {@code spotkit.permits.live.max} gauge: the most held at once
     *       since the previous read (0 with an unlimited pool); {@code spotkit.dispatcher.workers} gauge;</li>
     *   <li>{@code spotkit.relocations.started} counter, tags kind ({@code join}/{@code host}), role
     *       ({@code source}/{@code target}); {@code spotkit.relocations} counter, tags kind, role, outcome
     *       ({@code committed}/{@code failed});</li>
     *   <li>{@code spotkit.relocation.pause} timer with buckets 5 ms..10 s and a percentile histogram, tag role: a
     *       committed move's pause seen from this side (source: seal until the commit was read, an upper bound; target:
     *       Restore arrival until the queue opened);</li>
     *   <li>{@code spotkit.relocation.bytes} counter (bytes), tag direction=sent: state chunks (52) written;</li>
     *   <li>{@code spotkit.relocation.follow.forwards} counter: messages Message Follow forwarded to a new owner
     *       (spec 001 section 10);</li>
     *   <li>{@code spotkit.store.duration} timer, tags store ({@code location}/{@code relocation}), operation
     *       ({@code read}, {@code write}, {@code scan}; {@code put}, {@code get}, {@code renew}, {@code delete}),
     *       outcome ({@code ok}, the operation's negative answer such as {@code conflict} or {@code missing}, or
     *       {@code error}); {@code spotkit.store.errors} counter, tags store, operation, error (exception class;
     *       {@code Unavailable} and {@code Indeterminate} at 0 from the start);</li>
     *   <li>{@code spotkit.lease.renewals} counter, tag outcome ({@code ok}/{@code failed});</li>
     *   <li>{@code spotkit.mesh.connections} gauge; {@code spotkit.mesh.bytes} counter (bytes), tag direction
     *       ({@code sent}/{@code received});</li>
     *   <li>{@code spotkit.sessions.open} gauge, {@code spotkit.sessions.opened} and {@code spotkit.sessions.closed}
     *       counters;</li>
     *   <li>{@code spotkit.dead.letters} counter, tag reason: what {@link MeshNode#deadLetters()} counts;</li>
     *   <li>{@code spotkit.recovery.swept} counter: dead owners' rows removed by {@link #deadOwnerSweep};</li>
     *   <li>{@code spotkit.events.listener.failures} and {@code spotkit.events.dropped} counters
     *       ({@link NodeEvents}).</li>
     * </ul>
     * The node removes its meters from the registry when it closes. Meters carry no node tag: two nodes running at
     * once in one process need a registry each, or distinct {@code tags} (a second node's gauges with the same
     * name and tags would not be registered).
     *
     * @param registry e.g. a {@code PrometheusMeterRegistry} or {@code SimpleMeterRegistry}.
     * @param tags added to every meter of this node, e.g. {@code Tag.of("node", "a")}; may be empty.
     * @return this builder.
     * @throws SpotkitException.InvalidOperation when {@code registry} or a tag is null.
     */
    public Builder metrics(final io.micrometer.core.instrument.MeterRegistry registry,
        final io.micrometer.core.instrument.Tag... tags) {
      if (registry == null || tags == null || java.util.Arrays.asList(tags).contains(null)) {
        throw new SpotkitException.InvalidOperation("metrics(registry, tags...) needs a MeterRegistry and non-null"
            + " tags, e.g. metrics(new SimpleMeterRegistry())");
      }
      this.meterRegistry = registry;
      this.meterTags = java.util.List.of(tags);
      return this;
    }

    /**
     * Registers an event listener before the node starts, so it also sees the start ({@link NodeEvent.NodeStateChanged}
     * to RUNNING); the same as {@code node.events().addListener(listener)} afterwards (see {@link NodeEvents} for
     * the thread it runs on).
     *
     * @param listener the listener.
     * @return this builder.
     * @throws SpotkitException.InvalidOperation when null.
     */
    public Builder eventListener(final NodeEventListener listener) {
      if (listener == null) {
        throw new SpotkitException.InvalidOperation("eventListener(null): pass a NodeEventListener");
      }
      eventListeners.add(listener);
      return this;
    }

    /**
     * Validates and starts the node: refuses an object role without a Location Store (MEM-01), a factory
     * with zero or several relocation policies, a PerActor spot with another policy than
     * recreateOnRelocation; then initializes and publishes the Entry Spot and binds the session listener.
     *
     * @return the running node.
     * @throws SpotkitException.NotConfigured missing store, Entry Spot, policy or session actor type; no Relocation
     *     Store while a factory needs one, or more than one (spec 002 section 2).
     * @throws SpotkitException.InvalidOperation contradictory registrations.
     * @throws SpotkitException.InternalFailure the Entry Spot's factory or OnInitialize threw.
     */
    public MeshNode start() {
      if (relocationStores > 1) {
        throw new SpotkitException.NotConfigured("relocationStore(...) was called " + relocationStores + " times; a"
            + " node registers exactly one Relocation Store (spec 002 section 2)");
      }
      final dev.spotkit.core.internal.observe.NodeMetrics metrics = meterRegistry == null
          ? dev.spotkit.core.internal.observe.NodeMetrics.OFF
          : new dev.spotkit.core.internal.observe.NodeMetrics(meterRegistry, meterTags);
      final LocationStore timedStore = store == null || !metrics.enabled() ? store
          : new dev.spotkit.core.internal.observe.TimedLocationStore(store, metrics);
      final RelocationStore timedRelocationStore = relocationStore == null || !metrics.enabled() ? relocationStore
          : new dev.spotkit.core.internal.observe.TimedRelocationStore(relocationStore, metrics);
      final NodeConfig config = new NodeConfig(new MeshName(meshName), role, timedStore,
          server == null ? null : server.entryType(),
          server == null ? Map.of() : server.actorTypes(),
          server == null ? Map.of() : server.spotTypes(),
          sessions == null ? null : sessions.toSpec(), workers, requestTimeout, closeTimeout, applicationJobLimit,
          mesh == null ? null : mesh.toSpec(), lease, timedRelocationStore, closeStores, metrics,
          java.util.List.copyOf(eventListeners), recreateAfterOwnerLoss, deadOwnerSweep);
      try {
        return new MeshNode(NodeRuntime.start(config, new CoreFacades()), role, timedStore, requestTimeout,
            drainOnClose);
      } catch (RuntimeException e) {
        metrics.close();
        throw e;
      }
    }
  }
}
