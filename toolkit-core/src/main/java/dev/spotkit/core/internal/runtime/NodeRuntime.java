package dev.spotkit.core.internal.runtime;

import dev.spotkit.core.Deadline;
import dev.spotkit.core.MeshName;
import dev.spotkit.core.NodeRid;
import dev.spotkit.core.ObjectRole;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.core.internal.creation.Creations;
import dev.spotkit.core.internal.join.Joins;
import dev.spotkit.core.internal.mesh.RouteMesh;
import dev.spotkit.core.internal.relocation.Relocations;
import dev.spotkit.core.internal.session.SessionBinder;
import dev.spotkit.core.location.OwnerLease;
import dev.spotkit.core.session.SessionServer;
import dev.spotkit.core.session.SessionServerConfig;
import dev.spotkit.mailbox.Dispatcher;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One MeshNode's runtime: registries of cells, the dispatcher, the timer thread, the store, and the parts
 * (messaging, creations, joins, lifecycle, sessions). Start with {@link #start}; every public method may be
 * called from any thread.
 *
 * <p>Every future that got a deadline ({@link #attachDeadline}: requests and manager calls) is tracked until
 * it completes, so close can end the ones still pending when the deadline thread stops.
 */
public final class NodeRuntime {
  public static final Logger LOG = LoggerFactory.getLogger("dev.spotkit.core");

  /**
   * How much longer than the close timeout {@link #close()} may take: the bookkeeping after the last bounded
   * wait (failing pending futures, stopping threads without waiting for stuck ones).
   */
  public static final Duration CLOSE_MARGIN = Duration.ofMillis(250);

  private static final int RUNNING = 0;
  private static final int CLOSING = 1;
  private static final int CLOSED = 2;

  public final ConcurrentHashMap<String, ActorCell> actors = new ConcurrentHashMap<>();
  public final ConcurrentHashMap<String, SpotCell> spots = new ConcurrentHashMap<>();
  /**
   * Spots that closed themselves (no longer routable by id) whose release has not finished yet: their Location Store
   * row still names this node. A GetOrCreate of such an id waits for the release instead of finding the closing
   * incarnation (Existing) or its row (AlreadyExists).
   */
  public final ConcurrentHashMap<String, SpotCell> closingSpots = new ConcurrentHashMap<>();

  private final NodeConfig config;
  private final Facades facades;
  private final NodeRid nodeRid;
  private final Dispatcher dispatcher;
  private final ScheduledThreadPoolExecutor scheduler;
  private final ExecutorService virtualThreads = Executors.newVirtualThreadPerTaskExecutor();
  private final StoreOps store;
  private final JsonCopier copier = new JsonCopier();
  private final Messaging messaging = new Messaging(this);
  private final Creations creations = new Creations(this);
  private final Joins joins = new Joins(this);
  private final Lifecycle lifecycle = new Lifecycle(this);
  /** RUNNING, CLOSING, CLOSED; CAS from RUNNING to CLOSING starts the one close. */
  private final AtomicInteger state = new AtomicInteger(RUNNING);
  /** Set while a host drain runs ({@link #beginDrain}): one at a time. */
  private final java.util.concurrent.atomic.AtomicBoolean draining = new java.util.concurrent.atomic.AtomicBoolean();
  /** Counted down when the one close finished; later close() calls wait for it. */
  private final CountDownLatch closed = new CountDownLatch(1);
  /** Futures not completed yet ({@link #attachDeadline}, {@link #failOnHalt}); close fails them with ShuttingDown. */
  private final PendingFutures pending;
  private volatile SpotCell entry;
  private volatile SessionServer sessionServer;
  private volatile SessionServer alsoSessionServer; // SessionOptions#alsoListen, or null
  private volatile SessionBinder sessionBinder;
  /** This host run's owner lease (null without a store): OwnerId, LeaseGeneration, admission deadline. */
  private final OwnerLease ownerLease;
  private final ScheduledFuture<?> renewing;
  /**
   * System threads (spec 002 section 5: a user callback must never delay the owner lease): each a dedicated
   * platform thread that runs framework tasks only. User-visible futures are completed through
   * {@link #userFuture} on a virtual thread, so no application callback runs on any of them.
   *
   * <ul>
   *   <li>{@code leaseTimer}: owner-lease renewals (and the store answers that complete on the calling thread);
   *   <li>{@code deadlineTimer}: request and manager-call deadlines ({@link #attachDeadline});
   *   <li>{@code relocationTimer}: relocation control (Message Follow windows, cutover and confirm retries, the
   *       relocation clock, join approval timeouts);
   *   <li>{@code scheduler}: actor and spot timers (which only queue a tick) and session housekeeping.
   * </ul>
   */
  private final ScheduledThreadPoolExecutor leaseTimer;
  private final ScheduledThreadPoolExecutor deadlineTimer;
  private final ScheduledThreadPoolExecutor relocationTimer;
  /** The mesh (null without {@code mesh(...)}): set once in start, before the descriptor is published. */
  private volatile RouteMesh mesh;
  private volatile Relocations relocations;
  private volatile Descriptors descriptors;
  /** Completes when the node closed: normally after close(), exceptionally after a fail-stop. */
  private final CompletableFuture<Void> terminated = new CompletableFuture<>();
  /** Set once when the owner lease was lost for good and the node stops itself; null otherwise. */
  private volatile SpotkitException failStop;
  /** The node's meters ({@code NodeMetrics.OFF} without a registry). */
  private final dev.spotkit.core.internal.observe.NodeMetrics metrics;
  /** The node's event feed ({@code MeshNode.events()}). */
  private final dev.spotkit.core.internal.observe.EventBus events;

  private NodeRuntime(final NodeConfig config, final Facades facades) {
    this.config = config;
    this.facades = facades;
    long rid;
    do {
      rid = ThreadLocalRandom.current().nextLong();
    } while (rid == 0);
    this.nodeRid = new NodeRid(rid);
    this.pending = new PendingFutures(() -> new SpotkitException.ShuttingDown((failStop != null
        ? failStop.getMessage() : "the node " + config.meshName() + "/" + nodeRid.hex() + " closed")
        + " before this operation completed")); // names the halt or the fail-stop when that is why
    this.metrics = config.metrics();
    this.events = new dev.spotkit.core.internal.observe.EventBus(config.meshName().value(), metrics);
    config.listeners().forEach(events::addListener);
    if (metrics.enabled()) {
      deadLetters.onNewReason(metrics::deadLetters);
    }
    if (config.store() != null) {
      // LOC-03: the settings were checked when built; acquire issues the LeaseGeneration (blocks on the store)
      this.ownerLease = new OwnerLease(config.store(), "owner-" + Ids.newUuid(), config.lease(), System::nanoTime);
      this.ownerLease.acquire();
      this.ownerLease.onLost(this::ownerLeaseLost);
      final OwnerLease lease = this.ownerLease;
      lease.onAdmission(admitting -> events.emit(new dev.spotkit.core.NodeEvent.LeaseAdmissionChanged(
          java.time.Instant.now(), nodeRid, lease.record().ownerId(), admitting)));
      if (metrics.enabled()) {
        this.ownerLease.onRenewal(metrics::leaseRenewal);
      }
      this.store = new StoreOps(config.store(), ownerLease, config.meshName().value(), nodeRid.hex());
    } else {
      this.ownerLease = null;
      this.store = null;
    }
    this.dispatcher = Dispatcher.builder().workers(config.workers()).name("spotkit-" + config.meshName())
        .livePermits(config.applicationJobLimit())
        // A blocked turn keeps its worker: allow a worker per permit (virtual threads are cheap), so only the
        // Application Job Queue limit, not the worker count, bounds blocked handlers.
        .maxWorkers(maxWorkers(config))
        .uncaughtHandler((mailbox, failure) -> LOG.error("uncaught failure in a mailbox turn", failure)).build();
    metrics.bindRuntime(dispatcher, () -> {
      final RouteMesh m = mesh;
      return m == null ? 0 : m.connectionCount();
    }, () -> {
      final SessionServer server = sessionServer;
      final SessionServer also = alsoSessionServer;
      return (server == null ? 0 : server.sessionCount()) + (also == null ? 0 : also.sessionCount());
    });
    this.scheduler = systemTimer("spotkit-timers-" + config.meshName());
    this.leaseTimer = systemTimer("spotkit-lease-" + config.meshName());
    this.deadlineTimer = systemTimer("spotkit-deadlines-" + config.meshName());
    this.relocationTimer = systemTimer("spotkit-relocation-" + config.meshName());
    this.renewing = ownerLease == null ? null : ownerLease.startRenewing(leaseTimer);
  }

  /** One platform daemon thread for framework tasks; cancelled tasks leave its queue at once. */
  private static ScheduledThreadPoolExecutor systemTimer(final String name) {
    final ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, r -> Thread.ofPlatform().daemon()
        .name(name).unstarted(r));
    timer.setRemoveOnCancelPolicy(true);
    return timer;
  }

  /**
   * Validates the object role against the store (MEM-01), starts the dispatcher, initializes and publishes the
   * Entry Spot, and binds the session listener.
   *
   * @param config the settings.
   * @param facades builds the public facades.
   * @return the running runtime.
   * @throws SpotkitException.NotConfigured an object role without a Location Store, a server without an
   *     Entry Spot, sessions bound to an unknown actor type.
   * @throws SpotkitException.InternalFailure the Entry Spot's factory or OnInitialize threw.
   * @throws SpotkitException.Unavailable the session port cannot be bound.
   */
  public static NodeRuntime start(final NodeConfig config, final Facades facades) {
    StartChecks.validate(config);
    final NodeRuntime rt = new NodeRuntime(config, facades);
    try {
      if (config.role() == ObjectRole.SERVER) {
        rt.entry = rt.creations.startEntry();
      }
      if (config.mesh() != null) {
        rt.relocations = new Relocations(rt);
        rt.mesh = RouteMesh.start(rt, config.mesh(), rt.store.lifecycleGeneration());
      }
      if (rt.mesh != null && config.role() == ObjectRole.SERVER) {
        rt.creations.enableMesh(); // before the descriptor: once published, peers may send command 47/49
      }
      if (config.role() == ObjectRole.SERVER) {
        rt.descriptors = new Descriptors(rt); // capacity limits, then the descriptor: placement can pick us
        rt.descriptors.start();
      }
      if (config.sessions() != null) {
        rt.startSessions();
      }
      if (rt.mesh != null) {
        dev.spotkit.core.internal.session.SessionWatch.start(rt); // bindings whose far end died without a word
      }
      rt.stateChanged(null, dev.spotkit.core.NodeEvent.NodeLifecycle.RUNNING, "started");
      return rt;
    } catch (RuntimeException e) {
      rt.close();
      throw e;
    }
  }

  private void startSessions() {
    final NodeConfig.SessionSpec spec = config.sessions();
    try {
      final SessionBinder binder = new SessionBinder(this, config.actorTypes().get(spec.actorType()));
      sessionBinder = binder;
      sessionServer = SessionServer.start(listenerConfig(spec, spec.host(), spec.port(), spec.codec()), binder);
      if (spec.alsoCodec() != null) {
        alsoSessionServer = SessionServer.start(listenerConfig(spec, spec.alsoHost(), spec.alsoPort(),
            spec.alsoCodec()), binder);
      }
    } catch (IOException e) {
      throw new SpotkitException.Unavailable("session listener could not start: " + e.getMessage(), e);
    }
  }

  /**
   * Closes the node (HostShutdown, see {@link Lifecycle#closeNode}); returns within the close timeout plus
   * {@link #CLOSE_MARGIN}. Called from a handler turn of this node, it starts the close on another thread and
   * returns (it cannot wait for its own turn). A later call while the first runs blocks until the first
   * finished (bounded the same way; from a handler turn it returns at once); after it, a no-op.
   */
  public void close() {
    if (!state.compareAndSet(RUNNING, CLOSING)) {
      awaitClosed();
      return;
    }
    stateChanged(dev.spotkit.core.NodeEvent.NodeLifecycle.RUNNING, dev.spotkit.core.NodeEvent.NodeLifecycle.CLOSING,
        failStop != null ? "fail-stop" : "close");
    if (Turn.current() != null) {
      virtualThreads.execute(this::closeSteps);
      return;
    }
    closeSteps();
  }

  /**
   * The node's end: completes normally once a {@link #close()} finished, exceptionally with
   * {@link SpotkitException.Unavailable} once a fail-stop (owner lease lost for good) finished its close.
   *
   * @return the future (a copy: completing it changes nothing).
   */
  public CompletableFuture<Void> terminated() {
    return terminated.copy();
  }

  /**
   * The owner lease is gone for good (the store restarted empty, or no renewal applied within the TTL): like a
   * split-brain resolver downing its own side, the node stops itself (spec 002 section 5). One ERROR line; the
   * close path runs on its own thread (sessions closed, nothing written with the dead lease: admission refuses
   * every store write), and {@link #terminated()} completes exceptionally.
   */
  private void ownerLeaseLost() {
    if (state.get() != RUNNING) {
      return;
    }
    final SpotkitException why = new SpotkitException.Unavailable("node " + config.meshName() + "/"
        + nodeRid.hex() + " stopped itself: its owner lease " + ownerLease.record().ownerId() + " was lost for good"
        + " (the Location Store no longer holds it: restarted empty, or no renewal applied within the lease TTL)");
    failStop = why;
    LOG.error("{}; closing this node (fail-stop)", why.getMessage());
    events.emit(new dev.spotkit.core.NodeEvent.LeaseLost(java.time.Instant.now(), nodeRid,
        ownerLease.record().ownerId(), why.getMessage()));
    Thread.ofPlatform().daemon().name("spotkit-fail-stop-" + nodeRid.hex()).start(this::close);
  }

  /**
   * Stops this node the way a killed process stops (for tests of crash handling): the owner lease is no longer
   * renewed, the mesh connections and listener close first (so nothing this node would say on the way out
   * reaches a peer: no routed disconnect, no release), then the workers stop, then the client connections drop
   * and the timers stop.
   * Nothing is written to the Location Store: the objects' rows keep naming this node, its descriptor stays,
   * and its owner lease lapses after the lease TTL as a dead process's would (spec 002 section 5). A no-op once
   * a close started.
   */
  public void halt() {
    if (!state.compareAndSet(RUNNING, CLOSING)) {
      return;
    }
    failStop = new SpotkitException.Unavailable("node " + config.meshName() + "/" + nodeRid.hex()
        + " was halted");
    stateChanged(dev.spotkit.core.NodeEvent.NodeLifecycle.RUNNING, dev.spotkit.core.NodeEvent.NodeLifecycle.CLOSING,
        "halt");
    if (renewing != null) {
      renewing.cancel(false);
    }
    final Deadline deadline = Deadline.after(config.closeTimeout());
    final RouteMesh routeMesh = mesh;
    if (routeMesh != null) {
      routeMesh.close();
    }
    stopDispatcher(Deadline.after(Duration.ofMillis(500))); // no handler runs on: a dead process runs nothing
    try {
      stopSessions();
    } finally {
      stopEverything(deadline);
    }
  }

  /** True once the owner lease was lost for good and the node is stopping itself. */
  boolean failStopping() {
    return failStop != null;
  }

  private void awaitClosed() {
    if (Turn.current() != null) {
      return;
    }
    try {
      if (!closed.await(config.closeTimeout().plus(CLOSE_MARGIN).toNanos(), TimeUnit.NANOSECONDS)) {
        LOG.warn("node close: a concurrent close did not finish within {} plus {}", config.closeTimeout(),
            CLOSE_MARGIN);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void closeSteps() {
    final Deadline deadline = Deadline.after(config.closeTimeout());
    try {
      final Descriptors published = failStop == null ? descriptors : null; // a dead lease writes nothing
      if (published != null) {
        published.publishQuietly(dev.spotkit.core.location.NodeState.DRAINING);
      }
      if (store != null) {
        lifecycle.closeNode(deadline);
      } else {
        stopSessions();
      }
      if (published != null) {
        published.remove();
      }
    } catch (RuntimeException e) {
      LOG.warn("node close failed part-way", e);
    } finally {
      stopEverything(deadline);
    }
  }

  /** The end of every close: mesh, relocations, timers, pending futures, dispatcher, owned stores, state. */
  private void stopEverything(final Deadline deadline) {
    final RouteMesh routeMesh = mesh;
    if (routeMesh != null) {
      routeMesh.close();
    }
    final Relocations moves = relocations;
    if (moves != null) {
      moves.close();
    }
    if (renewing != null) {
      renewing.cancel(false);
    }
    scheduler.shutdownNow();
    relocationTimer.shutdownNow();
    leaseTimer.shutdownNow();
    deadlineTimer.shutdownNow(); // no deadline timer fires from here on; pending.failAll ends what they guarded
    pending.failAll(failStop != null); // requests behind a stuck turn, the stuck one, manager calls; moves if killed
    stopDispatcher(deadline);
    virtualThreads.shutdown();
    closeOwnedStores();
    state.set(CLOSED);
    events.close(new dev.spotkit.core.NodeEvent.NodeStateChanged(java.time.Instant.now(), nodeRid,
        dev.spotkit.core.NodeEvent.NodeLifecycle.CLOSING, dev.spotkit.core.NodeEvent.NodeLifecycle.CLOSED,
        failStop != null ? "fail-stop" : "close"));
    metrics.close();
    closed.countDown();
    final SpotkitException stopped = failStop;
    if (stopped != null) {
      terminated.completeExceptionally(stopped);
    } else {
      terminated.complete(null);
    }
  }

  /** Closes the stores the builder handed over ({@code closeStoresOnClose}); runs once, after the last write. */
  private void closeOwnedStores() {
    if (!config.closeStores()) {
      return;
    }
    for (AutoCloseable owned : new AutoCloseable[] {config.store(), config.relocationStore()}) {
      if (owned == null) {
        continue;
      }
      try {
        owned.close();
      } catch (Exception e) {
        LOG.warn("node close: closing store {} failed", owned, e);
      }
    }
  }

  /**
   * Tracks {@code future} with no deadline: a halt or fail-stop fails it with ShuttingDown naming why if it is
   * still pending then (a graceful close waits for the moves it guards, which complete it). Any thread.
   *
   * @param future the future (a move whose bounded steps may wait on a peer a halt cut off).
   * @param <T> result type.
   * @return {@code future}.
   */
  public <T> CompletableFuture<T> failOnHalt(final CompletableFuture<T> future) {
    pending.track(future, true);
    return future;
  }

  /** Workers the dispatcher may start: one per live permit plus the core workers, at most 65,536. */
  static int maxWorkers(final NodeConfig config) {
    return (int) Math.min(65_536L, (long) config.applicationJobLimit() + config.workers());
  }

  /**
   * Stops the dispatcher, waiting for its workers only until the close deadline. A worker stuck in a handler is
   * abandoned, not interrupted: its request already failed, and whatever it does later finds the node closed (new
   * work gets ShuttingDown, released mailboxes refuse offers).
   */
  private void stopDispatcher(final Deadline deadline) {
    if (!dispatcher.close(deadline.remaining())) {
      LOG.warn("node close: a dispatcher worker is still inside a handler at the close deadline; abandoned");
    }
  }

  /** One session listener's config: its address and codec, the limits every listener of the node shares. */
  private SessionServerConfig listenerConfig(final NodeConfig.SessionSpec spec, final String host, final int port,
      final dev.spotkit.core.session.FrameCodec codec) {
    return SessionServerConfig.builder().host(host).port(port).codec(codec).maxOutboundBytes(spec.maxOutboundBytes())
        .inboundWaterMarks(spec.inboundLowWaterFrames(), spec.inboundHighWaterFrames())
        .halfCloseDrain(spec.halfCloseDrain(), spec.halfCloseQuiet())
        .closeTimeout(Lifecycle.sessionCloseTimeout(config.closeTimeout())).build();
  }

  void stopSessions() {
    for (SessionServer server : new SessionServer[] {sessionServer, alsoSessionServer}) {
      if (server != null) {
        server.close();
      }
    }
  }

  /**
   * Admits new work under the owner lease (spec 002 section 5, LOC-04): lock-free while the local admission
   * deadline has not passed. Judged by time on every call (the monotonic clock against the deadline the last
   * successful renewal fixed), never by a flag some thread refreshes: a stalled thread cannot extend admission.
   *
   * @param what the work, for the error.
   * @throws SpotkitException.Unavailable once the deadline passed or the lease was lost.
   */
  public void admit(final String what) {
    if (ownerLease != null && !ownerLease.admitsNow()) {
      ownerLease.admit(what); // throws unless a renewal answered in between
    }
  }

  /** Whether new work is admitted now (see {@link #admit}). */
  boolean admits() {
    return ownerLease == null || ownerLease.admitsNow();
  }

  /** The session binder, or null without sessions. */
  public SessionBinder sessionBinder() {
    return sessionBinder;
  }

  /** The relocation driver, or null for a node without a mesh. */
  public Relocations relocations() {
    return relocations;
  }

  /**
   * The state this node last published in its MeshNode descriptor (Serving, or Relocating / Relocated during a host
   * drain), or null on a node that publishes none. Any thread.
   *
   * @return the state, or null.
   */
  public dev.spotkit.core.location.NodeState publishedState() {
    final Descriptors published = descriptors;
    return published == null ? null : published.state();
  }

  /**
   * Publishes this node's MeshNode descriptor in {@code state} with the next revision (a host drain: Relocating,
   * Relocated, Serving again when Blocked; FACTS.md "Host relocation"). Placement picks Serving nodes only.
   *
   * @param state the state to publish.
   * @throws SpotkitException.NotConfigured on a node that publishes no descriptor (not an object server).
   * @throws SpotkitException.Unavailable past the admission deadline, when the lease is not valid, or when the
   *     store fails.
   */
  public void publishState(final dev.spotkit.core.location.NodeState state) {
    final Descriptors published = descriptors;
    if (published == null) {
      throw new SpotkitException.NotConfigured("only an object server publishes a node state; this node is "
          + config.role());
    }
    published.publish(state);
  }

  /**
   * Claims the one host drain this node may run at a time.
   *
   * @return true when claimed (release with {@link #endDrain()}), false when a drain already runs.
   */
  public boolean beginDrain() {
    return draining.compareAndSet(false, true);
  }

  /** Releases the claim of {@link #beginDrain()}. */
  public void endDrain() {
    draining.set(false);
  }

  /** @return whether the calling thread runs a handler turn of some node. */
  public static boolean inTurn() {
    return Turn.current() != null;
  }

  /** Whether an actor with this id is Ready on this node. */
  public boolean hasReadyActor(final String id) {
    final ActorCell cell = actors.get(id);
    return cell != null && cell.state == CellState.READY;
  }

  private final DeadLetters deadLetters = new DeadLetters();

  /** Messages accepted and then dropped on this node, by reason (counted and logged with a rate limit). */
  public DeadLetters deadLetters() {
    return deadLetters;
  }

  /** The mesh, or null for a node without peers. */
  public RouteMesh mesh() {
    return mesh;
  }

  /**
   * A framework frame other than application messages and replies, from a peer; on its event loop.
   *
   * @param from the connection.
   * @param command the command number.
   * @param frame the frame.
   */
  public void onMeshFrame(final dev.spotkit.core.mesh.PeerConnection from, final int command, final byte[] frame) {
    try {
      switch (command) {
        case dev.spotkit.core.wire.Commands.ACTOR_DESTROY -> lifecycle.remote().onActorDestroy(from, frame);
        case dev.spotkit.core.wire.Commands.USER_SPOT_CLOSE -> lifecycle.remote().onUserSpotClose(from, frame);
        case dev.spotkit.core.wire.Commands.ACTOR_CREATE, dev.spotkit.core.wire.Commands.USER_SPOT_CREATE ->
            creations.remote().onCreate(from, command, frame);
        case dev.spotkit.core.wire.Commands.ACTOR_JOIN, dev.spotkit.core.wire.Commands.RELOCATION_READY,
            dev.spotkit.core.wire.Commands.RELOCATION_DATA, dev.spotkit.core.wire.Commands.RELOCATION_CUTOVER,
            dev.spotkit.core.wire.Commands.RELOCATION_PREPARE, dev.spotkit.core.wire.Commands.RELOCATION_STATE,
            dev.spotkit.core.wire.Commands.RELOCATION_FAILED -> relocations.onFrame(from, command, frame);
        case dev.spotkit.core.internal.relocation.AggregateMoves.PREPARE,
            dev.spotkit.core.internal.relocation.AggregateMoves.CHUNK,
            dev.spotkit.core.internal.relocation.AggregateMoves.RELAY,
            dev.spotkit.core.internal.relocation.AggregateMoves.ABORT ->
            relocations.aggregates().onFrame(from, command, frame);
        case dev.spotkit.core.wire.Commands.SESSION_RELOCATION_SEAL,
            dev.spotkit.core.wire.Commands.SESSION_RELOCATION_SEALED,
            dev.spotkit.core.wire.Commands.SESSION_RELOCATION_ROUTE -> relocations.onSessionFrame(from, frame);
        case dev.spotkit.core.wire.Commands.SESSION_PUSH -> {
          final SessionBinder binder = sessionBinder;
          if (binder != null) {
            binder.onPush(dev.spotkit.core.wire.SessionPush.decode(frame));
          } else {
            LOG.debug("session push from {} but this node has no sessions; dropped", from.peerRid());
          }
        }
        default -> LOG.warn("mesh command {} from {} is not handled by this node; frame dropped", command,
            from.peerRid());
      }
    } catch (dev.spotkit.relocation.wire.WireFormatException e) {
      LOG.warn("malformed command {} from {}: {}; closing the connection", command, from.peerRid(), e.getMessage());
      from.close();
    } catch (RuntimeException e) { // never out of the event loop
      LOG.warn("command {} from {} failed: {}", command, from.peerRid(), e.toString());
    }
  }

  /** Throws ShuttingDown once close started. */
  public void ensureRunning(final String what) {
    if (state.get() != RUNNING) {
      throw shuttingDown(what);
    }
  }

  /** The ShuttingDown error for new work named {@code what}; build it only once close started. */
  public SpotkitException.ShuttingDown shuttingDown(final String what) {
    return new SpotkitException.ShuttingDown(what + ": the node " + config.meshName() + "/" + nodeRid.hex()
        + " is closing; no new work is accepted");
  }

  /**
   * Throws InvalidOperation when the calling thread runs a turn on the Entry Spot's gate: an awaited actor
   * creation there would wait for itself.
   *
   * @param awaiting whether the caller will block.
   */
  public void checkAwaitableCreation(final boolean awaiting) {
    final SpotCell cell = entry;
    if (awaiting && cell != null && cell.gate.isCurrentThreadInTurn()) {
      throw new SpotkitException.InvalidOperation("awaiting an actor creation inside a turn of the Entry Spot"
          + " would wait for itself (creation runs OnCreateActor on that spot); use toOutcomeFuture()");
    }
  }

  public void requireServer(final String what) {
    if (config.role() != ObjectRole.SERVER) {
      throw new SpotkitException.NotConfigured(what + " needs the object server role; this node's role is "
          + config.role() + ". Configure MeshNode.builder().objectServer(...) with a Location Store");
    }
  }

  /**
   * Completes {@code future} with DeadlineExceeded at the deadline unless it completes first, and tracks it
   * until it completes: node close fails it with ShuttingDown if it is still pending then. A future that
   * already has a deadline keeps its first one. Once close stopped the timer thread, the future fails at once
   * with ShuttingDown.
   *
   * @param future the future.
   * @param deadline when.
   * @param what the DeadlineExceeded message.
   */
  public void attachDeadline(final CompletableFuture<?> future, final Deadline deadline, final Supplier<String> what) {
    if (!pending.track(future, false)) {
      return; // done, or already guarded by an earlier deadline
    }
    ScheduledFuture<?> timer = null;
    try {
      timer = deadlineTimer.schedule(() -> future.completeExceptionally(
          new SpotkitException.DeadlineExceeded(what.get())), deadline.remaining().toNanos(), TimeUnit.NANOSECONDS);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      future.completeExceptionally(new SpotkitException.ShuttingDown(what.get() + ": the node closed"));
    }
    final ScheduledFuture<?> timeout = timer;
    if (timeout != null) {
      future.whenComplete((v, e) -> timeout.cancel(false));
    }
  }

  /**
   * The future an application sees for {@code internal}: completed with the same outcome, but on a virtual
   * thread, so the application's callbacks ({@code whenComplete}, {@code thenApply}, ...) never run on a system
   * thread (the deadline timer, a mesh event loop, a store answer). Cancelling it cancels {@code internal}.
   *
   * @param internal the framework's future.
   * @param <T> result type.
   * @return {@code internal} when already done (callbacks then run on the attaching thread), else a new future.
   */
  public <T> CompletableFuture<T> userFuture(final CompletableFuture<T> internal) {
    if (internal.isDone()) {
      return internal;
    }
    final CompletableFuture<T> user = new CompletableFuture<>();
    internal.whenComplete((value, failure) -> {
      final Runnable complete = () -> {
        if (failure != null) {
          user.completeExceptionally(failure);
        } else {
          user.complete(value);
        }
      };
      try {
        virtualThreads.execute(complete);
      } catch (java.util.concurrent.RejectedExecutionException e) {
        complete.run(); // the node closed: no system thread is left to protect
      }
    });
    user.whenComplete((value, failure) -> {
      if (failure instanceof java.util.concurrent.CancellationException) {
        internal.cancel(false);
      }
    });
    return user;
  }

  /**
   * Runs blocking work on a virtual thread.
   *
   * @param work the work.
   * @param <T> result type.
   * @return its future; fails with the work's typed error.
   */
  public <T> CompletableFuture<T> async(final Callable<T> work) {
    final CompletableFuture<T> future = new CompletableFuture<>();
    try {
      virtualThreads.execute(() -> {
        try {
          future.complete(work.call());
        } catch (Throwable t) {
          future.completeExceptionally(Cell.typed(t, "operation"));
        }
      });
    } catch (java.util.concurrent.RejectedExecutionException e) {
      future.completeExceptionally(new SpotkitException.ShuttingDown("the node is closing"));
    }
    return future;
  }

  /**
   * Whether close started.
   *
   * @return true from the first close() on.
   */
  public boolean isClosing() {
    return state.get() != RUNNING;
  }

  /**
   * The Ready cell of a spot (any kind) with this id, if any.
   *
   * @param id the SpotId.
   * @return the cell.
   */
  public Optional<SpotCell> findSpot(final String id) {
    return Optional.ofNullable(spots.get(Ids.requireValid("SpotId", id))).filter(c -> c.state == CellState.READY);
  }

  /**
   * The Ready cell of an actor with this id, if any.
   *
   * @param id the ActorId.
   * @return the cell.
   */
  public Optional<ActorCell> findActor(final String id) {
    return Optional.ofNullable(actors.get(Ids.requireValid("ActorId", id))).filter(c -> c.state == CellState.READY);
  }

  /**
   * Find of an actor anywhere in the mesh: the local Ready cell, else (with a mesh) the Ready owner in the
   * Location Store.
   *
   * @param id the ActorId.
   * @return the ref, or empty when no Ready actor has that id.
   */
  public Optional<dev.spotkit.core.ActorRef> findActorRef(final String id) {
    final Optional<ActorCell> local = findActor(id);
    if (local.isPresent() || mesh == null) {
      return local.map(ActorCell::ref);
    }
    return mesh.locate(dev.spotkit.core.location.ObjectKey.actor(id)).map(at -> new dev.spotkit.core.ActorRef(
        new dev.spotkit.core.ActorId(id), new dev.spotkit.core.ObjectGeneration(at.generation()), at.meshName(),
        at.owner()));
  }

  /**
   * Find of a spot anywhere in the mesh (see {@link #findActorRef}).
   *
   * @param id the SpotId.
   * @return the ref, or empty when no Ready spot has that id.
   */
  public Optional<dev.spotkit.core.SpotRef> findSpotRef(final String id) {
    final Optional<SpotCell> local = findSpot(id);
    if (local.isPresent() || mesh == null) {
      return local.map(SpotCell::ref);
    }
    return mesh.locate(dev.spotkit.core.location.ObjectKey.spot(id)).map(at -> new dev.spotkit.core.SpotRef(
        new dev.spotkit.core.SpotId(id), new dev.spotkit.core.ObjectGeneration(at.generation()), at.meshName(),
        at.owner()));
  }

  /**
   * The bound session listener address.
   *
   * @return the address, or empty without sessions.
   */
  public Optional<InetSocketAddress> sessionAddress() {
    final SessionServer server = sessionServer;
    return server == null ? Optional.empty() : Optional.of(server.localAddress());
  }

  /** The second session listener's address (SessionOptions#alsoListen), or empty. */
  public Optional<InetSocketAddress> alsoSessionAddress() {
    final SessionServer also = alsoSessionServer;
    return also == null ? Optional.empty() : Optional.of(also.localAddress());
  }

  /**
   * The Entry Spot (object servers only).
   *
   * @return the cell.
   */
  public SpotCell entry() {
    final SpotCell cell = entry;
    if (cell == null) {
      throw new SpotkitException.NotConfigured("this node has no Entry Spot; only an object server has one");
    }
    return cell;
  }

  /** The Entry Spot's id, or null on a node without one. */
  String entryId() {
    final SpotCell cell = entry;
    return cell == null ? null : cell.id;
  }

  /** @return settings. */
  public NodeConfig config() {
    return config;
  }

  /** @return the MeshName. */
  public MeshName meshName() {
    return config.meshName();
  }

  /** @return the NodeRid. */
  public NodeRid nodeRid() {
    return nodeRid;
  }

  /** @return send and request. */
  public Messaging messaging() {
    return messaging;
  }

  /** @return creations. */
  public Creations creations() {
    return creations;
  }

  /** @return joins. */
  public Joins joins() {
    return joins;
  }

  /** @return closes and destroys. */
  public Lifecycle lifecycle() {
    return lifecycle;
  }

  Dispatcher dispatcher() {
    return dispatcher;
  }

  /** Actor and spot timers, session housekeeping: framework tasks only, never an application callback. */
  public ScheduledThreadPoolExecutor scheduler() {
    return scheduler;
  }

  /** Relocation control (see the field comment): a dedicated platform thread, framework tasks only. */
  public ScheduledThreadPoolExecutor relocationScheduler() {
    return relocationTimer;
  }

  public StoreOps store() {
    return store;
  }

  public JsonCopier copier() {
    return copier;
  }

  public Facades facades() {
    return facades;
  }

  /** @return the node's meters ({@code NodeMetrics.OFF} when metrics are off). */
  public dev.spotkit.core.internal.observe.NodeMetrics metrics() {
    return metrics;
  }

  /** @return the node's event feed. */
  public dev.spotkit.core.internal.observe.EventBus events() {
    return events;
  }

  /** Emits a state change of this node. */
  private void stateChanged(final dev.spotkit.core.NodeEvent.NodeLifecycle from,
      final dev.spotkit.core.NodeEvent.NodeLifecycle to, final String reason) {
    events.emit(new dev.spotkit.core.NodeEvent.NodeStateChanged(java.time.Instant.now(), nodeRid, from, to, reason));
  }
}
