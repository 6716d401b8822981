package dev.spotkit.core.internal;

import dev.spotkit.core.Deadline;
import dev.spotkit.core.MeshName;
import dev.spotkit.core.NodeRid;
import dev.spotkit.core.ObjectRole;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.core.session.SessionServer;
import dev.spotkit.core.session.SessionServerConfig;
import dev.spotkit.mailbox.Dispatcher;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
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
 */
public final class NodeRuntime {
  static final Logger LOG = LoggerFactory.getLogger("dev.spotkit.core");

  private static final int RUNNING = 0;
  private static final int CLOSING = 1;
  private static final int CLOSED = 2;

  final ConcurrentHashMap<String, ActorCell> actors = new ConcurrentHashMap<>();
  final ConcurrentHashMap<String, SpotCell> spots = new ConcurrentHashMap<>();

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
  private volatile SpotCell entry;
  private volatile SessionServer sessionServer;

  private NodeRuntime(final NodeConfig config, final Facades facades) {
    this.config = config;
    this.facades = facades;
    long rid;
    do {
      rid = ThreadLocalRandom.current().nextLong();
    } while (rid == 0);
    this.nodeRid = new NodeRid(rid);
    this.store = config.store() == null ? null : new StoreOps(config.store(), config.meshName() + "/" + nodeRid.hex());
    this.dispatcher = Dispatcher.builder().workers(config.workers()).name("spotkit-" + config.meshName())
        .uncaughtHandler((mailbox, failure) -> LOG.error("uncaught failure in a mailbox turn", failure)).build();
    this.scheduler = new ScheduledThreadPoolExecutor(1, r -> Thread.ofPlatform().daemon()
        .name("spotkit-timers-" + config.meshName()).unstarted(r));
    this.scheduler.setRemoveOnCancelPolicy(true);
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
    validate(config);
    final NodeRuntime rt = new NodeRuntime(config, facades);
    try {
      if (config.role() == ObjectRole.SERVER) {
        rt.entry = rt.creations.startEntry();
      }
      if (config.sessions() != null) {
        rt.startSessions();
      }
      return rt;
    } catch (RuntimeException e) {
      rt.close();
      throw e;
    }
  }

  private static void validate(final NodeConfig config) {
    if (config.role() != ObjectRole.NONE && config.store() == null) {
      throw new SpotkitException.NotConfigured("object role " + config.role() + " needs a Location Store and none"
          + " is configured; nothing creates a hidden one (spec 000 section 1). Call"
          + " locationStore(new InMemoryLocationStore()) or pass a shared store");
    }
    if (config.role() == ObjectRole.SERVER && config.entry() == null) {
      throw new SpotkitException.NotConfigured("an object server needs an Entry Spot; register one with"
          + " objectServer(s -> s.entrySpot(Lobby::new))");
    }
    if (config.sessions() != null && (config.role() != ObjectRole.SERVER
        || !config.actorTypes().containsKey(config.sessions().actorType()))) {
      throw new SpotkitException.NotConfigured("sessions are bound to actor type '" + config.sessions().actorType()
          + "', which is not registered on an object server here; register it with objectServer(s ->"
          + " s.actor(\"" + config.sessions().actorType() + "\", ...))");
    }
  }

  private void startSessions() {
    final NodeConfig.SessionSpec spec = config.sessions();
    final SessionServerConfig serverConfig = SessionServerConfig.builder().host(spec.host()).port(spec.port())
        .codec(spec.codec()).maxOutboundBytes(spec.maxOutboundBytes()).build();
    try {
      sessionServer = SessionServer.start(serverConfig,
          new SessionBinder(this, config.actorTypes().get(spec.actorType())));
    } catch (IOException e) {
      throw new SpotkitException.Unavailable("session listener could not start: " + e.getMessage(), e);
    }
  }

  /**
   * Closes the node (HostShutdown); a second call is a no-op. Called from a handler turn of this node, it
   * starts the close on another thread and returns (it cannot wait for its own turn).
   */
  public void close() {
    if (!state.compareAndSet(RUNNING, CLOSING)) {
      return;
    }
    if (Turn.current() != null) {
      virtualThreads.execute(this::closeSteps);
      return;
    }
    closeSteps();
  }

  private void closeSteps() {
    try {
      if (store != null) {
        lifecycle.closeNode();
      } else {
        stopSessions();
      }
    } catch (RuntimeException e) {
      LOG.warn("node close failed part-way", e);
    } finally {
      scheduler.shutdownNow();
      dispatcher.close();
      virtualThreads.shutdown();
      state.set(CLOSED);
    }
  }

  void stopSessions() {
    final SessionServer server = sessionServer;
    if (server != null) {
      server.close();
    }
  }

  /** Throws ShuttingDown once close started. */
  void ensureRunning(final String what) {
    if (state.get() != RUNNING) {
      throw new SpotkitException.ShuttingDown(what + ": the node " + config.meshName() + "/" + nodeRid.hex()
          + " is closing; no new work is accepted");
    }
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

  void requireServer(final String what) {
    if (config.role() != ObjectRole.SERVER) {
      throw new SpotkitException.NotConfigured(what + " needs the object server role; this node's role is "
          + config.role() + ". Configure MeshNode.builder().objectServer(...) with a Location Store");
    }
  }

  /**
   * Completes {@code future} with DeadlineExceeded at the deadline unless it completes first.
   *
   * @param future the future.
   * @param deadline when.
   * @param what the error message.
   */
  public void attachDeadline(final CompletableFuture<?> future, final Deadline deadline, final Supplier<String> what) {
    if (future.isDone()) {
      return;
    }
    try {
      final ScheduledFuture<?> timeout = scheduler.schedule(() -> future.completeExceptionally(
          new SpotkitException.DeadlineExceeded(what.get())), deadline.remaining().toNanos(), TimeUnit.NANOSECONDS);
      future.whenComplete((v, e) -> timeout.cancel(false));
    } catch (java.util.concurrent.RejectedExecutionException e) {
      future.completeExceptionally(new SpotkitException.ShuttingDown(what.get() + ": the node closed"));
    }
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
   * The bound session listener address.
   *
   * @return the address, or empty without sessions.
   */
  public Optional<InetSocketAddress> sessionAddress() {
    final SessionServer server = sessionServer;
    return server == null ? Optional.empty() : Optional.of(server.localAddress());
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

  ScheduledThreadPoolExecutor scheduler() {
    return scheduler;
  }

  StoreOps store() {
    return store;
  }

  JsonCopier copier() {
    return copier;
  }

  Facades facades() {
    return facades;
  }
}
