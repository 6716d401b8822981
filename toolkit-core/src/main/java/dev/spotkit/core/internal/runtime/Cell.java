package dev.spotkit.core.internal.runtime;

import dev.spotkit.core.SpotkitException;
import dev.spotkit.core.internal.creation.CreationTerminal;
import dev.spotkit.core.internal.relocation.RelocationSource;
import dev.spotkit.core.internal.session.SessionBinder;
import dev.spotkit.core.location.LocationRecord;
import dev.spotkit.core.location.ObjectKey;
import dev.spotkit.mailbox.Mailbox;
import dev.spotkit.store.StoreVersion;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * What actors and spots share at run time: identity, a mailbox, handlers, timers and the turn loop. Its
 * mailbox handler runs every turn: a message or request (reply, then barriers), a timer tick, or a framework
 * marker. Lifecycle callbacks run as control tasks of the cell's gate, serialized with its turns.
 */
public abstract sealed class Cell permits ActorCell, SpotCell {

  final NodeRuntime rt;
  public final String id;
  public final ObjectKey key;
  public final String stableType;
  public final HandlerTable handlers;
  public final CellTimers timers;
  /** Set once by creation, before the cell is Ready; published by the mailbox open. */
  public volatile long generation;
  /** Written by creation, close and destroy steps; read by routing on any thread. */
  public volatile CellState state = CellState.STAGING;
  /**
   * The node this cell's object moved here from with its aggregate (the source of the move that restored it here),
   * or null: that node follows what reached it after the move to here, in order, so its followed messages are
   * earlier work of their senders (see {@code RouteMesh}'s inbound path).
   */
  public volatile dev.spotkit.core.NodeRid arrivedFrom;
  public Mailbox<Envelope> mailbox;
  /** Store version of this cell's record; written only by the cell's serialized lifecycle steps. */
  public StoreVersion storeVersion;
  public LocationRecord storeRecord;
  /**
   * Guards the switch of this cell's ingress to a relocation (spec 001 section 4.2): every offer goes through
   * {@link #offerEnvelope} under this lock, so nothing lands in the mailbox after a capture drained it.
   */
  public final Object ingressLock = new Object();
  /** Set while this cell is relocating away (source side): offers go to the relocation's ingress hold. */
  public RelocationSource relocating;
  /** The meters of this cell's type, shared by its cells; null when metrics are off (one null check a message). */
  public final dev.spotkit.core.internal.observe.TypeMeters meters;

  /**
   * Set once this cell's incarnation moved away as part of a SpotWide aggregate (spec 000 section 7, section 9
   * Message Follow): every later offer is handed to it, in order, instead of the mailbox. Written and read under
   * {@link #ingressLock}.
   */
  public java.util.function.Consumer<Envelope> followAggregate;
  /** The terminal record of a remote creation (set before the creation starts), else NONE. */
  public CreationTerminal terminal = CreationTerminal.NONE;

  Cell(final NodeRuntime rt, final String id, final ObjectKey key, final String stableType, final String label) {
    this.rt = rt;
    this.id = id;
    this.key = key;
    this.stableType = stableType;
    this.handlers = new HandlerTable(label + " '" + id + "'");
    this.timers = new CellTimers(this, rt.scheduler());
    this.meters = typeMeters(rt, "actor".equals(label), stableType);
  }

  /**
   * The meters of a cell's type (made with its first cell), or null when metrics are off.
   *
   * @param actor true for an actor type, false for a spot type.
   * @param type the stable type.
   * @return the shared meters, or null.
   */
  private static dev.spotkit.core.internal.observe.TypeMeters typeMeters(final NodeRuntime rt, final boolean actor,
      final String type) {
    if (!rt.metrics().enabled()) {
      return null;
    }
    return rt.metrics().typeMeters(actor ? "actor" : "spot", type, () -> queued(actor ? rt.actors.values()
        : rt.spots.values(), type));
  }

  /** Messages queued in the mailboxes of the cells of {@code type}; walks them (scrape time only). */
  private static double queued(final java.util.Collection<? extends Cell> cells, final String type) {
    long sum = 0;
    for (Cell cell : cells) { // bounded by the registry's size at the scrape
      final dev.spotkit.mailbox.Mailbox<Envelope> mailbox = cell.mailbox;
      if (mailbox != null && cell.stableType.equals(type)) {
        sum += mailbox.queuedEstimate();
      }
    }
    return sum;
  }

  /**
   * Human-readable name for messages, e.g. {@code actor 'alice' (generation 3)}.
   *
   * @return the description.
   */
  public abstract String describe();

  /** Runs {@code task} exclusively on this cell's current gate, serialized with its turns. */
  abstract void control(Runnable task);

  /** After a handler or callback turn that ended normally. */
  abstract void afterTurn(Turn turn);

  /**
   * This cell's timers (any thread).
   *
   * @return the timers.
   */
  public CellTimers timers() {
    return timers;
  }

  /**
   * The node runtime.
   *
   * @return the runtime.
   */
  public NodeRuntime runtime() {
    return rt;
  }

  /**
   * Offers an envelope to this cell: to its mailbox, or to the ingress hold while it relocates away (then
   * ACCEPTED). Any thread.
   */
  public final dev.spotkit.mailbox.OfferResult offerEnvelope(final Envelope envelope) {
    synchronized (ingressLock) {
      return movedAway(envelope) ? dev.spotkit.mailbox.OfferResult.ACCEPTED : mailbox.offer(envelope);
    }
  }

  /**
   * Hands {@code envelope} to the relocation this cell is in: the ingress hold of its own move, or the Message
   * Follow of the SpotWide aggregate it moved away with. Under {@link #ingressLock}.
   *
   * @return true when taken; false when the mailbox should get it.
   */
  private boolean movedAway(final Envelope envelope) {
    final RelocationSource source = relocating;
    if (source != null) {
      source.ingress(envelope);
      return true;
    }
    final java.util.function.Consumer<Envelope> follow = followAggregate;
    if (follow != null) {
      follow.accept(envelope);
      return true;
    }
    return this instanceof SpotCell spot && spot.idle != null && spot.idle.divert(envelope); // idle eviction runs
  }

  /**
   * Admits an envelope to this cell whatever its mailbox capacity ({@link dev.spotkit.mailbox.Mailbox#admit}): a
   * relocation backlog (late relay, work diverted to a relocation unit, a queue restored after a failed move) never
   * fails for capacity (REL-23). While the cell relocates away it goes to the ingress hold like any offer. Any thread.
   *
   * @return ACCEPTED, or RELEASED when the mailbox is gone (the caller reports the dead letter).
   */
  public final dev.spotkit.mailbox.OfferResult admitEnvelope(final Envelope envelope) {
    synchronized (ingressLock) {
      return movedAway(envelope) ? dev.spotkit.mailbox.OfferResult.ACCEPTED : mailbox.admit(envelope);
    }
  }

  final void onEnvelope(final Envelope envelope) {
    try {
      if (!(envelope instanceof Envelope.Marker) && !rt.admits() && !admittedAfterWait(envelope)) {
        return;
      }
      dispatch(envelope);
    } finally {
      if (this instanceof SpotCell spot && spot.idle != null) {
        spot.idle.workEnded(); // the idle time counts from here (spec 003 section 6.2)
      }
    }
  }

  /**
   * The owner lease admits no work now (LOC-04: past its local admission deadline no object message or timer
   * starts, whenever it was queued: a process paused with work in its mailboxes runs none of it once resumed late).
   * A tick is skipped (the timer's next period fires again once admission is back). A message or frame waits here,
   * in order, until a renewal answers in time; it fails (request: Unavailable) when the lease is lost for good or the
   * node stops first.
   *
   * @return true when the envelope may run now.
   */
  private boolean admittedAfterWait(final Envelope envelope) {
    if (envelope instanceof Envelope.Tick tick) {
      tick.timer().queued.set(false);
      return false;
    }
    if (rt.store().ownerLease().awaitAdmission(() -> !rt.isClosing())) {
      return true;
    }
    SpotkitException refused;
    try {
      rt.admit("a message queued for " + describe()); // throws the lease's own reason when it admits no work
      refused = new SpotkitException.Unavailable("node " + rt.meshName() + "/" + rt.nodeRid().hex() + " is closing;"
          + " a message queued for " + describe() + " did not start: its owner lease admitted no work");
    } catch (SpotkitException.Unavailable e) {
      refused = e;
    }
    if (envelope instanceof Envelope.Frame frame) {
      frame.link().frameHandled();
    }
    failOne(envelope, refused);
    return false;
  }

  private void dispatch(final Envelope envelope) {
    switch (envelope) {
      case Envelope.Msg msg -> {
        if (msg.sessionWork() != 0) {
          runSessionWork(msg);
        } else {
          runMessage(msg.payload(), msg.reply());
        }
      }
      case Envelope.Frame frame -> {
        try {
          runMessage(frame.payload(), null);
        } finally {
          frame.link().frameHandled();
        }
      }
      case Envelope.Tick tick -> runTick(tick.timer());
      case Envelope.Marker marker -> marker.task().run();
    }
  }

  /**
   * A client frame of a bound session delivered away from the session's own node (handled like a frame: a one-way
   * message of the frame's payload) or that session's disconnect. One-way: nothing is answered (spec 001 section
   * 11); the order is kept by the Session owner's route switch (spec 000 section 4.2 step 8).
   */
  private void runSessionWork(final Envelope.Msg msg) {
    if (msg.sessionWork() == SessionBinder.FRAME) {
      runMessage(msg.payload(), null);
    } else if (msg.sessionWork() == SessionBinder.ROUTE_FLUSH) {
      rt.messaging().routeSwitches().markerArrived(this, msg.payload(), msg.reply());
    } else if (msg.sessionWork() == SessionBinder.BAD_FRAME_REPLY) {
      if (this instanceof ActorCell actor) { // after the replies to the frames before it
        actor.session().ifPresent(session -> session.push(msg.payload()));
      }
    } else if (this instanceof ActorCell actor) {
      SessionBinder.closedHere(actor);
    }
  }

  private void runMessage(final Object payload, final ReplySink reply) {
    if (reply != null && (reply.future.isDone() || reply.deadline.isExpired())) {
      reply.fail(new SpotkitException.DeadlineExceeded(reply.description + ": the deadline passed before "
          + describe() + " started the request"));
      return;
    }
    final HandlerTable.Entry handler = handlers.find(payload.getClass());
    if (handler == null || (reply != null && handler.request() == null)) {
      if (meters != null) {
        meters.unhandled();
      }
      unhandled(payload, reply, handler);
      return;
    }
    final Turn turn = Turn.enter(this, true);
    turn.deadline = reply == null ? null : reply.deadline;
    Object result = null;
    Throwable failure = null;
    final long started;
    if (meters == null) {
      started = 0;
    } else {
      meters.queuedAtTurn(mailbox == null ? 0 : mailbox.queuedEstimate());
      started = System.nanoTime();
    }
    try {
      result = handler.invoke(payload);
    } catch (VirtualMachineError e) {
      throw e;
    } catch (Throwable t) {
      failure = t;
    } finally {
      turn.exit();
    }
    if (meters != null) {
      meters.handled(System.nanoTime() - started, failure != null);
    }
    if (failure == null) {
      if (reply != null && !reply.complete(result) && turn.joinCount() > 0) {
        // spec 000 section 4 (MEM-18): the reply could not be given (null, wrong type, not encodable for the wire)
        NodeRuntime.LOG.warn("{}: the reply of a request handler failed; {} join barrier(s) of this turn discarded",
            describe(), turn.joinCount());
        turn.joins = null;
      }
      afterTurn(turn);
    } else {
      final SpotkitException typed = typed(failure, "handler of " + payload.getClass().getName() + " on "
          + describe());
      if (reply != null) {
        reply.fail(typed);
      }
      if (typed instanceof SpotkitException.ShuttingDown) {
        // expected while the node closes (a send from a finishing turn); one debug line, no stack per message
        NodeRuntime.LOG.debug("{} failed while the node closes: {}", describe(), typed.getMessage());
      } else if (typed instanceof SpotkitException.DeadlineExceeded && reply != null) {
        // the request's own deadline passed in a nested call: its caller gets the error; no stack per request
        NodeRuntime.LOG.debug("{} ended with its request's deadline: {}", describe(), typed.getMessage());
      } else {
        NodeRuntime.LOG.warn("{} failed; {} join barrier(s) of this turn discarded", typed.getMessage(),
            turn.joinCount(), failure);
      }
    }
  }

  private void unhandled(final Object payload, final ReplySink reply, final HandlerTable.Entry handler) {
    final String type = payload.getClass().getName();
    final String text = handler == null
        ? describe() + " has no handler for " + type + "; register one in configure(on) with on.message or"
            + " on.request"
        : describe() + " handles " + type + " one-way; a request needs on.request(" + type + ".class, ...)";
    if (reply != null) {
      reply.fail(new SpotkitException.TypeMismatch(text));
    } else {
      NodeRuntime.LOG.warn("message dropped: {}", text);
    }
  }

  private void runTick(final CellTimers.Entry timer) {
    if (!timers.accept(timer)) {
      return;
    }
    runCallback("timer '" + timer.name + "' of " + describe(), true, () -> {
      timer.tick.tick();
      return null;
    });
  }

  /**
   * Runs an application callback as a turn of this cell; logs a failure.
   *
   * @return the callback's result, or null when it threw (then {@code failed[0]} is set if given).
   */
  public final <T> T runCallback(final String what, final boolean handlerTurn, final Callable<T> callback) {
    return runCallback(what, handlerTurn, callback, null);
  }

  public final <T> T runCallback(final String what, final boolean handlerTurn, final Callable<T> callback,
      final Throwable[] failed) {
    final Turn turn = Turn.enter(this, handlerTurn);
    try {
      final T result = callback.call();
      turn.exit();
      afterTurn(turn);
      return result;
    } catch (VirtualMachineError e) {
      throw e;
    } catch (Throwable t) {
      turn.exit();
      NodeRuntime.LOG.warn("{} threw", what, t);
      if (failed != null) {
        failed[0] = t;
      }
      return null;
    }
  }

  /** Fails every request among {@code unrun} with {@code error}; runs markers. */
  static void failUnrun(final List<Envelope> unrun, final SpotkitException error) {
    for (Envelope envelope : unrun) {
      failOne(envelope, error);
    }
  }

  static void failOne(final Envelope envelope, final SpotkitException error) {
    if (envelope instanceof Envelope.Msg msg && msg.reply() != null) {
      msg.reply().fail(error);
    } else if (envelope instanceof Envelope.Marker marker) {
      marker.task().run();
    }
  }

  /**
   * A typed error for a failure: a SpotkitException as-is (also inside the CompletionException or ExecutionException
   * of a future that failed with it), anything else as InternalFailure.
   */
  public static SpotkitException typed(final Throwable failure, final String what) {
    Throwable cause = failure;
    for (int depth = 0; depth < 8 && (cause instanceof java.util.concurrent.CompletionException
        || cause instanceof java.util.concurrent.ExecutionException) && cause.getCause() != null; depth++) {
      cause = cause.getCause();
    }
    if (cause instanceof SpotkitException typed) {
      return typed;
    }
    if (cause instanceof dev.spotkit.core.mesh.MeshConnectionException lost) { // the peer went away: Unavailable
      return new SpotkitException.Unavailable(what + ": " + lost.getMessage(), lost);
    }
    return new SpotkitException.InternalFailure(what + " threw " + failure, failure);
  }
}
