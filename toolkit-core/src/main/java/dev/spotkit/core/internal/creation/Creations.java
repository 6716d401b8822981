package dev.spotkit.core.internal.creation;

import dev.spotkit.core.Actor;
import dev.spotkit.core.ActorCreation;
import dev.spotkit.core.ActorFactory;
import dev.spotkit.core.ActorRef;
import dev.spotkit.core.CreateDecision;
import dev.spotkit.core.CreateOutcome;
import dev.spotkit.core.Deadline;
import dev.spotkit.core.EntrySpot;
import dev.spotkit.core.Spot;
import dev.spotkit.core.SpotContext;
import dev.spotkit.core.SpotFactory;
import dev.spotkit.core.SpotRef;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.core.UserSpot;
import dev.spotkit.core.internal.runtime.ActorCell;
import dev.spotkit.core.internal.runtime.Cell;
import dev.spotkit.core.internal.runtime.CellState;
import dev.spotkit.core.internal.runtime.Ids;
import dev.spotkit.core.internal.runtime.NodeConfig;
import dev.spotkit.core.internal.runtime.NodeRuntime;
import dev.spotkit.core.internal.runtime.SpotCell;
import dev.spotkit.core.internal.runtime.Turn;
import dev.spotkit.core.location.ObjectKey;
import dev.spotkit.core.location.PlacementKind;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Creation of actors, User Spots, Instance Spots and the Entry Spot (spec 000 section 2, spec 003 sections
 * 4-6). One creator per id: a staged cell is put into the registry with putIfAbsent (and the Location Store
 * record goes Missing to CREATING); the factory, configure and the creation callbacks run as a control task
 * (actors: on the Entry Spot's gate; spots: on their own gate); only then the cell turns Ready and its mailbox
 * opens. Other callers wait for that outcome and get Existing, or compete again after a decline.
 */
public final class Creations {

  /** Limit of an encoded creation request (spec 000 section 2). */
  static final int MAX_CREATION_REQUEST_BYTES = 1 << 20;
  private static final int MAX_ATTEMPTS = 1000;
  /** How long a reserved creation waits for a local staged attempt of the same id to step aside: 5 s. */
  private static final Duration STEP_ASIDE_BOUND = Duration.ofSeconds(5);

  private final NodeRuntime rt;
  private final InstanceActivations instances;

  public Creations(final NodeRuntime rt) {
    this.rt = rt;
    this.instances = new InstanceActivations(rt, this);
  }

  /**
   * GetOrCreate (or Create when {@code id} is null) of an actor; runs on a virtual thread.
   *
   * @return the outcome future.
   */
  public CompletableFuture<CreateOutcome<ActorRef>> actor(final String id, final String stableType,
      final Object request, final Deadline deadline) {
    rt.requireServer("actor creation");
    rt.ensureRunning("create actor of type '" + stableType + "'");
    rt.admit("an actor creation");
    final NodeConfig.ActorType type = rt.config().actorTypes().get(Ids.requireValid("stable type", stableType));
    if (type == null) {
      throw new SpotkitException.NotConfigured("no actor factory is registered for stable type '" + stableType
          + "'; register it with objectServer(s -> s.actor(\"" + stableType + "\", ...))");
    }
    final String actorId = id == null ? Ids.newUuid() : Ids.requireValid("ActorId", id);
    final Object copy = rt.copier().copy("creation request", request, MAX_CREATION_REQUEST_BYTES).value();
    final Supplier<CreateOutcome<ActorRef>> local = () -> getOrCreate(rt.actors, actorId, "actor",
        () -> new ActorCell(rt, actorId, type), cell -> cell.type == type, cell -> startActor(cell, copy),
        cell -> cell.creation, ActorCell::ref, deadline);
    final RemoteCreations mesh = remote;
    if (mesh == null || localReady(rt.actors.get(actorId))) {
      return rt.async(local::get);
    }
    return rt.async(() -> mesh.getOrCreate(new RemoteCreations.Spec<>(ObjectKey.actor(actorId), PlacementKind.ACTOR,
        stableType, copy, id == null, (generation, owner) -> new ActorRef(new dev.spotkit.core.ActorId(actorId),
        new dev.spotkit.core.ObjectGeneration(generation), rt.meshName(), owner)), deadline, local));
  }

  /**
   * GetOrCreate (or Create when {@code id} is null) of a User Spot; runs on a virtual thread.
   *
   * @return the outcome future.
   */
  public CompletableFuture<CreateOutcome<SpotRef>> userSpot(final String id, final String stableType,
      final Object request, final Deadline deadline) {
    rt.requireServer("User Spot creation");
    rt.ensureRunning("create spot of type '" + stableType + "'");
    rt.admit("a spot creation");
    final NodeConfig.SpotType type = spotType(stableType, NodeConfig.SpotKind.USER);
    final String spotId = id == null ? Ids.newUuid() : Ids.requireCallerSpotId(id);
    final Object copy = rt.copier().copy("creation request", request, MAX_CREATION_REQUEST_BYTES).value();
    final Supplier<CreateOutcome<SpotRef>> local = () -> getOrCreate(rt.spots, spotId, "spot",
        () -> new SpotCell(rt, spotId, type), cell -> cell.type == type,
        cell -> cell.control(() -> completeSpot(cell, copy)), cell -> cell.creation, SpotCell::ref, deadline);
    final RemoteCreations mesh = remote;
    if (mesh == null || localReady(rt.spots.get(spotId))) {
      return rt.async(() -> {
        awaitClosed(spotId, deadline);
        return local.get();
      });
    }
    return rt.async(() -> {
      awaitClosed(spotId, deadline);
      return mesh.getOrCreate(new RemoteCreations.Spec<>(ObjectKey.spot(spotId), PlacementKind.USER_SPOT, stableType,
          copy, id == null, (generation, owner) -> new SpotRef(new dev.spotkit.core.SpotId(spotId),
          new dev.spotkit.core.ObjectGeneration(generation), rt.meshName(), owner)), deadline, local);
    });
  }

  /**
   * Waits (bounded by {@code deadline}) while a spot of this id that closed itself is still being released here:
   * until then its Location Store row names it, and a GetOrCreate would find the closing incarnation (Existing, whose
   * joins then fail) or its row (AlreadyExists) instead of creating the id again.
   *
   * @throws SpotkitException.DeadlineExceeded when the release did not finish by the deadline.
   */
  private void awaitClosed(final String spotId, final Deadline deadline) {
    final SpotCell closing = rt.closingSpots.get(spotId);
    if (closing != null) {
      try {
        closing.released.get(deadline.remaining().toNanos(), TimeUnit.NANOSECONDS);
      } catch (TimeoutException e) {
        throw new SpotkitException.DeadlineExceeded("spot '" + spotId + "' is still closing on this node; its"
            + " close did not finish by the creation's deadline");
      } catch (ExecutionException e) {
        throw Cell.typed(e.getCause(), "close of spot '" + spotId + "'");
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new SpotkitException.ShuttingDown("interrupted while spot '" + spotId + "' closes");
      }
    }
  }

  private static boolean localReady(final Cell cell) {
    return cell != null && cell.state == CellState.READY;
  }

  /** The mesh part of creation; null on a node without a mesh. Set once by the runtime after the mesh started. */
  private volatile RemoteCreations remote;

  public void enableMesh() {
    remote = new RemoteCreations(rt);
  }

  public RemoteCreations remote() {
    return remote;
  }

  /** Instance Spot activation (spec 003 section 6, spec 002 section 7.1). */
  public InstanceActivations instances() {
    return instances;
  }

  /**
   * Target side of command 49: creates an actor on a row a coordinator reserved for this node (the cell adopts
   * the row; factory, configure and OnCreateActor run on the Entry Spot's gate as for a local creation).
   *
   * @return the outcome future.
   */
  CompletableFuture<CreateOutcome<ActorRef>> createReservedActor(final String id, final String stableType,
      final dev.spotkit.core.location.AuthorityRecord row, final dev.spotkit.store.StoreVersion version,
      final Object request, final CreationTerminal terminal) {
    rt.ensureRunning("create actor '" + id + "'");
    final NodeConfig.ActorType type = rt.config().actorTypes().get(stableType);
    if (type == null) {
      throw new SpotkitException.NotConfigured("no actor factory for stable type '" + stableType + "' here");
    }
    final ActorCell cell = new ActorCell(rt, id, type);
    rt.store().adopt(cell, row, version);
    cell.terminal = terminal;
    registerReserved(rt.actors, id, cell, "actor", c -> c.creation);
    startActor(cell, request);
    return cell.creation;
  }

  /**
   * Target side of command 47 (see {@link #createReservedActor}); OnCreate and OnInitialize on the spot's gate.
   *
   * @return the outcome future.
   */
  CompletableFuture<CreateOutcome<SpotRef>> createReservedSpot(final String id, final String stableType,
      final dev.spotkit.core.location.AuthorityRecord row, final dev.spotkit.store.StoreVersion version,
      final Object request, final CreationTerminal terminal) {
    rt.ensureRunning("create spot '" + id + "'");
    final NodeConfig.SpotType type = spotType(stableType, NodeConfig.SpotKind.USER);
    final SpotCell cell = new SpotCell(rt, id, type);
    rt.store().adopt(cell, row, version);
    cell.terminal = terminal;
    registerReserved(rt.spots, id, cell, "spot", c -> c.creation);
    cell.control(() -> completeSpot(cell, request));
    return cell.creation;
  }

  /**
   * Registers the cell of a creation a coordinator reserved for this node (command 49 / 47). A local
   * GetOrCreate of the same id may have staged a cell just before: it has no reservation, and its own reserve
   * finds the coordinator's Creating row and steps aside (AlreadyExists, then it waits for this creation). Wait
   * for that, bounded, instead of refusing the reservation: a refused reservation would stay Creating with no
   * creator until every caller's deadline passed. A cell holding a reservation (a duplicate command) is refused.
   *
   * @throws SpotkitException.Unavailable when another reserved or live incarnation is registered, or the staged
   *     one did not step aside within {@link #STEP_ASIDE_BOUND}.
   */
  private static <C extends Cell> void registerReserved(final Map<String, C> registry, final String id,
      final C cell, final String label, final Function<C, CompletableFuture<?>> creationOf) {
    final long until = System.nanoTime() + STEP_ASIDE_BOUND.toNanos();
    for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      final C existing = registry.putIfAbsent(id, cell);
      if (existing == null) {
        return;
      }
      if (existing.state == CellState.GONE) {
        // the staged attempt stepped aside between our look and its own removal: its entry is on its way out
        registry.remove(id, existing);
        continue;
      }
      final long left = until - System.nanoTime();
      if (existing.state != CellState.STAGING || existing.storeRecord != null || left <= 0) {
        break;
      }
      try {
        creationOf.apply(existing).get(left, TimeUnit.NANOSECONDS); // the local attempt ends, either way
      } catch (ExecutionException | TimeoutException e) {
        // it failed (AlreadyExists: the row is ours; its abort left the registry first) or still runs: look again
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    throw new SpotkitException.Unavailable(label + " '" + id + "' already has a local incarnation here");
  }

  private <C extends Cell, R> CreateOutcome<R> getOrCreate(final Map<String, C> registry, final String id,
      final String label, final Supplier<C> stage, final Function<C, Boolean> sameType,
      final java.util.function.Consumer<C> start, final Function<C, CompletableFuture<CreateOutcome<R>>> creation,
      final Function<C, R> refOf, final Deadline deadline) {
    for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      final C staged = stage.get();
      final C existing = registry.putIfAbsent(id, staged);
      if (existing == null) {
        start.accept(staged);
        return await(creation.apply(staged), deadline, label, id);
      }
      if (!sameType.apply(existing)) {
        throw new SpotkitException.TypeMismatch(label + " '" + id + "' exists with stable type '"
            + existing.stableType + "'; ask for that type or use another id");
      }
      if (existing.state == CellState.READY) {
        return new CreateOutcome.Existing<>(refOf.apply(existing));
      }
      if (existing.state == CellState.STAGING) {
        try {
          final CreateOutcome<R> other = await(creation.apply(existing), deadline, label, id);
          if (!(other instanceof CreateOutcome.Rejected<R>)) {
            return new CreateOutcome.Existing<>(refOf.apply(existing));
          }
        } catch (SpotkitException.DeadlineExceeded e) {
          throw e;
        } catch (SpotkitException e) {
          // that attempt failed and cleaned up: compete again with our own request
        }
      } else {
        registry.remove(id, existing); // closing or gone: its registry entry is on its way out
      }
      rt.ensureRunning("create " + label + " '" + id + "'");
      if (deadline.isExpired()) {
        break;
      }
    }
    throw new SpotkitException.DeadlineExceeded("creation of " + label + " '" + id + "' did not finish by its"
        + " deadline (the attempt in progress may still complete)");
  }

  private static <T> T await(final CompletableFuture<T> future, final Deadline deadline, final String label,
      final String id) {
    try {
      return future.get(deadline.remaining().toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      throw new SpotkitException.DeadlineExceeded("creation of " + label + " '" + id + "' did not finish by its"
          + " deadline (the attempt in progress may still complete)");
    } catch (ExecutionException e) {
      throw Cell.typed(e.getCause(), "creation of " + label + " '" + id + "'");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SpotkitException.InternalFailure("interrupted while creating " + label + " '" + id + "'", e);
    }
  }

  /**
   * Stages an actor with a framework id for a session (no blocking; creation continues on the Entry Spot).
   *
   * @param type the stable type.
   * @return the staged cell, already registered.
   */
  public ActorCell stageFrameworkActor(final NodeConfig.ActorType type) {
    final String id = Ids.newUuid();
    final ActorCell cell = new ActorCell(rt, id, type);
    rt.actors.put(id, cell);
    return cell;
  }

  public void startActor(final ActorCell cell, final Object request) {
    rt.entry().control(() -> completeActor(cell, request));
  }

  /** On the Entry Spot's gate: store reserve, factory, configure, OnCreateActor, then Ready or abort. */
  private void completeActor(final ActorCell cell, final Object request) {
    final SpotCell entry = rt.entry();
    try {
      rt.ensureRunning("create " + cell.describe());
      if (cell.storeRecord == null) {
        rt.store().reserve(cell, entry.id); // else reserved for this node by a coordinator (command 49)
      }
      cell.context = rt.facades().actorContext(cell);
      @SuppressWarnings("unchecked")
      final ActorFactory<Actor> factory = (ActorFactory<Actor>) cell.type.factory();
      final Actor actor = build(cell, () -> factory.create(cell.context), "actor factory of type '"
          + cell.stableType + "'");
      build(cell, () -> {
        actor.configure(rt.facades().actorHandlers(cell.handlers));
        return actor;
      }, "configure() of " + cell.describe());
      cell.handlers.freeze();
      final ActorCreation creation = new ActorCreation(cell.ref(), cell.stableType, actor, request);
      final CreateDecision decision = callback(entry, () -> ((EntrySpot) entry.spot).onCreateActor(creation),
          "onCreateActor of " + entry.describe());
      if (decision instanceof CreateDecision.Decline decline) {
        cell.terminal.rejected(decline.reply());
        rt.lifecycle().abortActor(cell, null);
        cell.creation.complete(new CreateOutcome.Rejected<>(decline.reply()));
        return;
      }
      cell.actor = actor;
      rt.store().commit(cell, entry.id, cell.terminal.created(cell.generation, decision.reply()));
      cell.membership = entry;
      entry.members.add(cell);
      cell.state = CellState.READY;
      cell.mailbox.open();
      cell.creation.complete(new CreateOutcome.Created<>(cell.ref(), decision.reply()));
    } catch (VirtualMachineError e) {
      throw e;
    } catch (Throwable t) {
      final SpotkitException error = Cell.typed(t, "creation of " + cell.describe());
      cell.terminal.failed(error);
      rt.lifecycle().abortActor(cell, error);
      cell.creation.completeExceptionally(error);
    }
  }

  /** On the spot's own gate: reserve, factory, configure, OnCreate, OnInitialize, then Ready or abort. */
  private void completeSpot(final SpotCell cell, final Object request) {
    try {
      rt.ensureRunning("create " + cell.describe());
      if (cell.storeRecord == null) {
        rt.store().reserve(cell, null); // else reserved for this node by a coordinator (command 47)
      }
      final Spot spot = buildSpot(cell);
      final CreateDecision decision = callback(cell, () -> ((UserSpot<?>) spot).onCreate(request),
          "onCreate of " + cell.describe());
      if (decision instanceof CreateDecision.Decline decline) {
        cell.terminal.rejected(decline.reply());
        rt.lifecycle().abortSpot(cell, null);
        cell.creation.complete(new CreateOutcome.Rejected<>(decline.reply()));
        return;
      }
      callback(cell, () -> {
        spot.onInitialize();
        return Boolean.TRUE;
      }, "onInitialize of " + cell.describe());
      makeReady(cell, decision.reply());
      cell.creation.complete(new CreateOutcome.Created<>(cell.ref(), decision.reply()));
    } catch (VirtualMachineError e) {
      throw e;
    } catch (Throwable t) {
      final SpotkitException error = Cell.typed(t, "creation of " + cell.describe());
      cell.terminal.failed(error);
      rt.lifecycle().abortSpot(cell, error);
      cell.creation.completeExceptionally(error);
    }
  }

  /**
   * Starts the Entry Spot: factory, configure, OnInitialize, and only then the READY store record and the
   * registry entry (SPOT-01: not published before initialization).
   *
   * @return the Ready Entry Spot.
   */
  public SpotCell startEntry() {
    final String id = Ids.newEntryId(rt.meshName().value());
    final SpotCell cell = new SpotCell(rt, id, rt.config().entry());
    cell.control(() -> {
      try {
        cell.generation = rt.store().issueGeneration();
        final Spot spot = buildSpot(cell);
        callback(cell, () -> {
          spot.onInitialize();
          return Boolean.TRUE;
        }, "onInitialize of " + cell.describe());
        rt.ensureRunning("create " + cell.describe());
        rt.store().update(cell, rt.store().readyRecord(cell, null));
        open(cell);
        cell.creation.complete(new CreateOutcome.Created<>(cell.ref(), java.util.Optional.empty()));
      } catch (VirtualMachineError e) {
        throw e;
      } catch (Throwable t) {
        final SpotkitException error = Cell.typed(t, "start of " + cell.describe());
        rt.lifecycle().abortSpot(cell, error);
        cell.creation.completeExceptionally(error);
      }
    });
    // Start is bounded like a request (the Entry Spot's OnInitialize is application code), at least 5 s.
    final Duration startBound = rt.config().requestTimeout().compareTo(Duration.ofSeconds(5)) < 0
        ? Duration.ofSeconds(5) : rt.config().requestTimeout();
    await(cell.creation, Deadline.after(startBound), "entry spot", id);
    return cell;
  }

  public Spot buildSpot(final SpotCell cell) throws Exception {
    final SpotContext context = rt.facades().spotContext(cell);
    cell.context = context;
    @SuppressWarnings("unchecked")
    final SpotFactory<SpotContext, Spot> factory = (SpotFactory<SpotContext, Spot>) cell.type.factory();
    final Spot spot = build(cell, () -> factory.create(context), "spot factory of type '" + cell.stableType + "'");
    if (spot.context() != context) {
      throw new SpotkitException.InternalFailure("the spot built by the factory of type '" + cell.stableType
          + "' returns another context from context() than the one it was given; return the factory's context"
          + " as-is (spec 003 section 7)");
    }
    build(cell, () -> {
      spot.configure(rt.facades().spotHandlers(cell.handlers));
      return spot;
    }, "configure() of " + cell.describe());
    cell.handlers.freeze();
    cell.spot = spot;
    return spot;
  }

  /** Commits the reservation (with the terminal record of a remote creation) and opens the spot. */
  void makeReady(final SpotCell cell, final java.util.Optional<Object> reply) {
    rt.ensureRunning("create " + cell.describe());
    rt.store().commit(cell, null, cell.terminal.created(cell.generation, reply));
    open(cell);
  }

  private void open(final SpotCell cell) {
    cell.state = CellState.READY;
    rt.spots.put(cell.id, cell); // no-op for registered cells; publishes the Entry Spot
    cell.mailbox.open();
    if (cell.idle != null) {
      cell.idle.start(); // spec 003 section 6.2: idle cleanup of an Instance Spot
    }
  }

  NodeConfig.SpotType spotType(final String stableType, final NodeConfig.SpotKind kind) {
    final NodeConfig.SpotType type = rt.config().spotTypes().get(Ids.requireValid("stable type", stableType));
    if (type == null || type.kind() != kind) {
      final String how = kind == NodeConfig.SpotKind.USER ? "userSpot" : "instanceSpot";
      throw new SpotkitException.NotConfigured("no " + kind.name().toLowerCase() + " spot factory is"
          + " registered for stable type '" + stableType + "'; register it with objectServer(s -> s." + how
          + "(\"" + stableType + "\", ...))");
    }
    return type;
  }

  /** Runs factory/configure code inside a non-handler turn of the cell; failures propagate. */
  private static <T> T build(final Cell cell, final java.util.concurrent.Callable<T> code, final String what)
      throws Exception {
    final Turn turn = Turn.enter(cell, false);
    try {
      final T result = code.call();
      if (result == null) {
        throw new SpotkitException.InternalFailure(what + " returned null");
      }
      return result;
    } finally {
      turn.exit();
    }
  }

  /** Runs a creation callback inside a turn of {@code cell}; a throw or a null result propagates. */
  static <T> T callback(final Cell cell, final java.util.concurrent.Callable<T> code, final String what)
      throws Exception {
    final Throwable[] failed = new Throwable[1];
    final T result = cell.runCallback(what, false, code, failed);
    if (failed[0] != null) {
      throw new SpotkitException.InternalFailure(what + " threw " + failed[0], failed[0]);
    }
    if (result == null) {
      throw new SpotkitException.InternalFailure(what + " returned null; return a decision");
    }
    return result;
  }

}
