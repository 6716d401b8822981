package dev.spotkit.core.internal.runtime;

import dev.spotkit.core.ClosingContext;
import dev.spotkit.core.ClosingReason;
import dev.spotkit.core.Deadline;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.core.internal.session.SessionBinder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Idle cleanup of one Instance Spot (spec 003 section 6.2, {@code InstanceSpotIdleTimeout}): once the timeout has
 * passed since its last application work finished and nothing is in progress, {@code OnClosing(IDLE_EVICTED)} runs,
 * then the local instance and its Location Store owner record are removed. Not API.
 *
 * <p><b>Clock.</b> The last work is the end of the last envelope turn (message, request, timer tick, framework marker)
 * or the completion of the last call the spot started from a turn ({@link #track}); both read
 * {@link System#nanoTime()}. One check at a time per spot is scheduled on the node's timer thread
 * ({@link NodeRuntime#scheduler()}, no thread per spot): at the last work plus the timeout; it only compares times
 * there and moves to the spot's gate when the time has passed. On the gate (serialized with the spot's turns, its
 * close and the seal of a move, which also runs there) it checks again that nothing is in progress: the mailbox
 * empty, no timer registered, no started call waiting for its result, no move (sealed, relocating away, following an
 * aggregate). When something is, the next check comes one timeout later.
 *
 * <p><b>Decision and messages racing it.</b> The decision is taken under the cell's ingress lock, where every offer
 * to the cell is made: with the mailbox still empty there, the cell turns CLOSING and from then on keeps (parks)
 * every envelope offered to it, in arrival order. A delivery with Instance intent ({@link #offerInstance}) decides
 * under the same lock whether it is offered to the live instance or parked as Instance intent, so no such message can
 * fall between the two. After {@code OnClosing} and the record's removal, again under that lock and in one step, the
 * parked Instance-intent messages go, in their order, into the next incarnation staged here (a new ObjectGeneration,
 * {@link Messaging#stageInstance}: the first of them is its first message), that
 * incarnation takes the cell's place in the node's spot table, and parking ends. A send that comes later finds either
 * this cell, which refuses it now, or the next incarnation, and so always queues behind what its sender sent before
 * (spec 001 section 5.1): per sender order holds across the cleanup. Then the cell is released, the next incarnation's
 * activation starts, and the other parked envelopes are handed on in their order: a regular message ends NotFound, as
 * after the cleanup. A message is therefore run once, by the current instance or by the next one, or (regular)
 * answered NotFound; never dropped silently.
 *
 * <p>Thread-safety: {@link #workEnded} on the spot's turn thread, {@link #track} on any turn thread, the check on the
 * timer thread and the spot's gate; {@link #parked} only under the cell's ingress lock.
 */
public final class IdleEviction {
  private final SpotCell cell;
  private final NodeRuntime rt;
  private final long timeoutNanos;
  /**
   * When the last application work ended ({@link System#nanoTime()}). Written by: the spot's turn thread at the end
   * of each envelope, and by the completion of a tracked call. Read by: the check (timer thread, then the gate).
   * Ordering: volatile write / volatile read.
   */
  private volatile long lastWorkNanos;
  /** Calls started from a turn of the spot that have not completed yet. */
  private final AtomicInteger pendingCalls = new AtomicInteger();
  private final AtomicBoolean started = new AtomicBoolean();
  /** Set once no further check may be scheduled (evicting, released, node closing). */
  private volatile boolean stopped;
  /** The scheduled check, for {@link #stop}. */
  private volatile ScheduledFuture<?> next;
  /**
   * Envelopes kept from the decision to evict until the hand-over, in arrival order; null otherwise. Read and written
   * under the cell's ingress lock only.
   */
  private List<Parked> parked;

  /** One kept envelope, and whether it came with Instance intent. */
  private record Parked(Envelope envelope, boolean instanceIntent) {
  }

  IdleEviction(final SpotCell cell, final Duration timeout) {
    this.cell = cell;
    this.rt = cell.rt;
    this.timeoutNanos = timeout.toNanos();
    this.lastWorkNanos = System.nanoTime();
  }

  /**
   * Starts the checks once the spot is Ready (activated, or restored by a move); a second call is a no-op. Any thread.
   */
  public void start() {
    if (started.compareAndSet(false, true)) {
      lastWorkNanos = System.nanoTime();
      schedule(timeoutNanos);
    }
  }

  /** The spot's turn ended: records the time. On the spot's turn thread. */
  void workEnded() {
    lastWorkNanos = System.nanoTime();
  }

  /** No further check (the spot was released). Any thread. */
  void stop() {
    stopped = true;
    final ScheduledFuture<?> scheduled = next;
    if (scheduled != null) {
      scheduled.cancel(false);
    }
  }

  /**
   * Counts {@code call} as an operation waiting for completion of the Instance Spot whose turn runs on the calling
   * thread, if that spot has an idle timeout: no cleanup while it is pending, and its completion counts as the end
   * of application work. A no-op outside such a turn. Any thread.
   *
   * @param call the call's future (a request, a creation, a close...), not null.
   */
  public static void track(final CompletableFuture<?> call) {
    final Turn turn = Turn.current();
    if (turn == null || !(turn.owner instanceof SpotCell spot) || spot.idle == null
        || !turn.isOpenFor(spot, false)) {
      return;
    }
    final IdleEviction idle = spot.idle;
    idle.pendingCalls.incrementAndGet();
    call.whenComplete((result, failure) -> {
      idle.lastWorkNanos = System.nanoTime(); // before the count drops: a check that sees 0 sees this time
      idle.pendingCalls.decrementAndGet();
    });
  }

  /**
   * A delivery with Instance intent to this cell, decided under its ingress lock against the eviction. Any thread.
   *
   * @param envelope the message.
   * @param awaiting whether the caller blocks (own-gate check).
   * @return true when taken: offered to the live (or staging) instance, or kept for the next incarnation while the
   *     eviction runs; false when the cell is gone or closing otherwise (the caller activates anew).
   * @throws SpotkitException.CapacityExceeded when the mailbox is full.
   * @throws SpotkitException.InvalidOperation on an awaited request to itself from its own turn.
   */
  public boolean offerInstance(final Envelope.Msg envelope, final boolean awaiting) {
    synchronized (cell.ingressLock) {
      if (parked != null) {
        parked.add(new Parked(envelope, true));
        return true;
      }
      if (cell.state == CellState.STAGING || cell.state == CellState.READY) {
        Messaging.checkNotOwnGate(cell, awaiting);
        Messaging.offer(cell, envelope);
        return true;
      }
      return false;
    }
  }

  /**
   * Keeps an envelope offered to the cell (not with Instance intent) while it is being evicted. Under the cell's
   * ingress lock.
   *
   * @return true when kept; false when no eviction runs (the mailbox takes it).
   */
  boolean divert(final Envelope envelope) {
    if (parked == null) {
      return false;
    }
    parked.add(new Parked(envelope, false));
    return true;
  }

  private void schedule(final long delayNanos) {
    if (stopped) {
      return;
    }
    try {
      next = rt.scheduler().schedule(this::check, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      stopped = true; // the node is closing: HostShutdown ends the spot
    }
  }

  /** On the timer thread: compares times only; the rest runs on the spot's gate. */
  private void check() {
    if (stopped) {
      return;
    }
    final CellState state = cell.state;
    if (state == CellState.GONE || state == CellState.CLOSING) {
      stopped = true;
      return;
    }
    final long idleFor = System.nanoTime() - lastWorkNanos;
    if (state != CellState.READY || idleFor < timeoutNanos) {
      schedule(state != CellState.READY ? timeoutNanos : timeoutNanos - idleFor);
      return;
    }
    try {
      cell.control(this::onGate);
    } catch (RuntimeException e) {
      NodeRuntime.LOG.debug("idle check of {} not queued: {}", cell.describe(), e.toString());
      schedule(timeoutNanos);
    }
  }

  /** On the spot's gate, between turns: the conditions, then the decision under the ingress lock. */
  private void onGate() {
    if (stopped) {
      return;
    }
    if (cell.state != CellState.READY) {
      check(); // Staging: later; Closing or Gone: stop
      return;
    }
    if (rt.isClosing() || inProgress()) { // first: a call that completed before it saw 0 wrote its time already
      schedule(timeoutNanos);
      return;
    }
    final long idleFor = System.nanoTime() - lastWorkNanos;
    if (idleFor < timeoutNanos) {
      schedule(timeoutNanos - idleFor);
      return;
    }
    synchronized (cell.ingressLock) {
      if (cell.relocating != null || cell.followAggregate != null || !cell.mailbox.isEmpty()) {
        schedule(timeoutNanos); // a message (or a move's relay) came in since the check above
        return;
      }
      cell.state = CellState.CLOSING;
      parked = new ArrayList<>();
    }
    stopped = true;
    evict();
  }

  /**
   * Whether something is in progress (spec 003 section 6.2): queue, timers, started calls, a move (sealed here, or
   * restored here and not open yet: a closed mailbox). On the gate.
   */
  private boolean inProgress() {
    return !cell.mailbox.isEmpty() || !cell.timers.isEmpty() || pendingCalls.get() > 0 || cell.aggregateSealed
        || cell.atRelocationBoundary != null || cell.relocating != null || cell.followAggregate != null
        || cell.mailbox.dispatchState() != dev.spotkit.mailbox.DispatchState.OPEN
        || rt.messaging().stagingHere("spot:" + cell.id);
  }

  /** On the gate, CLOSING and parking: OnClosing, the record's removal, the release and the hand-over. */
  private void evict() {
    rt.closingSpots.put(cell.id, cell); // a GetOrCreate of the id waits for the release, as for a close
    final ClosingContext closing = new ClosingContext(ClosingReason.IDLE_EVICTED,
        Deadline.after(rt.config().closeTimeout()));
    cell.runCallback("onClosing(IDLE_EVICTED) of " + cell.describe(), false, () -> {
      cell.spot.onClosing(closing);
      return null;
    });
    cell.timers.cancelAll(); // none was registered at the decision, and CLOSING refuses new ones
    rt.store().remove(cell); // the owner record goes before a next incarnation reserves it again
    final SpotkitException gone = new SpotkitException.NotFound(cell.describe() + " was cleaned up when idle"
        + " (spec 003 section 6.2); a regular message does not activate it again: address it with Instance intent");
    final Address.Instance address = new Address.Instance(cell.id, cell.stableType);
    final List<Parked> rest = new ArrayList<>();
    final Messaging.StagedInstance next;
    final boolean registered;
    final int arrived;
    synchronized (cell.ingressLock) {
      arrived = parked.size();
      next = stageNext(address, rest);
      if (next == null) {
        registered = false;
        rt.spots.remove(cell.id, cell);
      } else { // in one step with the parked messages: a later send finds them ahead of it (spec 001 section 5.1)
        registered = rt.spots.replace(cell.id, cell, next.cell());
      }
      parked = null; // from here an Instance-intent offer to this cell is refused and finds the next incarnation
    }
    rt.lifecycle().release(cell, gone); // store calls: never under the ingress lock
    if (next != null) {
      if (registered) {
        next.activation().run();
      } else { // the node released the cell meanwhile (closing): the kept messages fail typed, none is run twice
        rt.lifecycle().abortSpot(next.cell(), new SpotkitException.Unavailable(cell.describe() + " was cleaned up"
            + " when idle while its node closed; the messages that arrived meanwhile were not handled"));
      }
    }
    for (Parked p : rest) {
      handOn(p, address, gone);
    }
    NodeRuntime.LOG.debug("{} was cleaned up when idle; {} message(s) that arrived meanwhile were handed on",
        cell.describe(), arrived);
  }

  /**
   * Under the ingress lock, parking: stages the next incarnation with the first parked Instance-intent message as its
   * first message and queues the later ones behind it, in arrival order, so the caller can put it in this cell's
   * place in the node's spot table in the same step. No send can come between the parked messages and the next
   * incarnation then: an Instance-intent offer that comes later either found this cell (parked, so in the list) or
   * finds the next incarnation behind them.
   *
   * @param address the Instance Spot.
   * @param rest receives the other parked envelopes, in order: regular messages, markers, late ticks, route flush
   *     markers that came before any Instance-intent message (nothing of theirs is on the way any more), and every
   *     Instance-intent message when no cell could be staged (the node is closing).
   * @return the staged next incarnation, not registered and not started; null when none was staged.
   */
  private Messaging.StagedInstance stageNext(final Address.Instance address, final List<Parked> rest) {
    Messaging.StagedInstance next = null;
    boolean failed = false;
    for (Parked p : parked) {
      if (failed || !p.instanceIntent() || !(p.envelope() instanceof Envelope.Msg msg)
          || next == null && msg.sessionWork() == SessionBinder.ROUTE_FLUSH) {
        rest.add(p);
      } else if (next == null) {
        try {
          next = rt.messaging().stageInstance(address, cell.type, msg);
        } catch (RuntimeException e) { // a new cell cannot be made (the node is closing): each is handed on alone
          NodeRuntime.LOG.debug("next incarnation of {} not staged: {}", cell.describe(), e.toString());
          failed = true;
          rest.add(p);
        }
      } else {
        // behind the first message, in the queue (not admit: admitted work would run ahead of it); a Spot's mailbox is
        // unbounded and this cell is fresh: ACCEPTED
        next.cell().offerEnvelope(msg);
      }
    }
    return next;
  }

  /** A parked envelope no next incarnation took (see {@link #stageNext}), after the release, in arrival order. */
  private void handOn(final Parked p, final Address.Instance address, final SpotkitException gone) {
    if (p.envelope() instanceof Envelope.Marker marker) {
      marker.task().run();
      return;
    }
    if (!(p.envelope() instanceof Envelope.Msg msg)) {
      return; // a late tick of a timer cancelled before the decision: nothing to run
    }
    if (!p.instanceIntent()) {
      failOrLog(msg, gone);
      return;
    }
    try {
      rt.messaging().deliverInstanceHere(address, msg); // a route flush marker ends there; else activates anew
    } catch (RuntimeException e) {
      failOrLog(msg, Cell.typed(e, "hand-on of a message that reached " + cell.describe() + " while cleaned up"));
    }
  }

  private void failOrLog(final Envelope.Msg msg, final SpotkitException error) {
    if (msg.reply() != null) {
      msg.reply().fail(error);
    } else {
      NodeRuntime.LOG.warn("message {} dropped: {}", msg.payload().getClass().getName(), error.getMessage());
    }
  }
}
