package dev.spotkit.core.internal.runtime;

import dev.spotkit.core.ClosingReason;
import dev.spotkit.core.CreateOutcome;
import dev.spotkit.core.ObjectGeneration;
import dev.spotkit.core.Spot;
import dev.spotkit.core.SpotContext;
import dev.spotkit.core.SpotId;
import dev.spotkit.core.SpotRef;
import dev.spotkit.core.internal.relocation.Relocations;
import dev.spotkit.mailbox.ExecutionGate;
import dev.spotkit.core.location.ObjectKey;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * One spot at run time. A SpotWide User Spot owns a shared gate that its members' mailboxes join; every other
 * spot has a private gate. Its lifecycle callbacks (creation, join admission, joined/leave/disconnect, close)
 * run as control tasks of that gate, serialized with its turns.
 */
public final class SpotCell extends Cell {

  public final NodeConfig.SpotType type;
  public final NodeConfig.SpotKind kind;
  public final boolean spotWide;
  /** ApplicationSignaled relocation coordination (spec 003 section 5.1): a move waits for the app's boundary. */
  public final boolean applicationSignaled;
  /**
   * A move waiting for this Spot's next application-signaled boundary, or null: run on the gate when a turn that
   * called {@code relocationReady().defer()} ends. Read and written on the Spot's gate only.
   */
  public Runnable atRelocationBoundary;
  public final ExecutionGate gate;
  final SpotId spotId;
  public final CompletableFuture<CreateOutcome<SpotRef>> creation = new CompletableFuture<>();
  /**
   * The idle cleanup of an Instance Spot registered with an idle timeout (spec 003 section 6.2), else null. Started
   * when the spot becomes Ready.
   */
  public final IdleEviction idle;
  /** Completed once the spot was released (mailbox, timers and Location Store row gone). */
  public final CompletableFuture<Void> released = new CompletableFuture<>();
  /** Set by creation before Ready. */
  public volatile Spot spot;
  public SpotContext context;
  /** Members in join order; changed by the join chain, destroy and close. */
  public final CopyOnWriteArrayList<ActorCell> members = new CopyOnWriteArrayList<>();
  /**
   * Set while a SpotWide aggregate move has sealed this room (spec 000 section 7 step 1): join admission answers
   * Unavailable until the move restores the room or ends. Written on the Spot's gate; read by join admission on it.
   */
  public volatile boolean aggregateSealed;
  /**
   * Set on the Spot's gate once a PerActor User Spot's shell that moved away ended here with RELOCATION_OUT (its
   * last member moved after it; spec 000 section 7), so its onClosing runs once.
   */
  public boolean relocatedOut;
  /**
   * Cross-node joins this User Spot admitted (OnActorJoin accepted) that have not committed, failed or expired yet,
   * by ActorId. Its close is refused while any remains (spec 000: close "checks active Actor membership and
   * relocation state before admission"). Added on the Spot's gate, removed from any thread.
   */
  public final ConcurrentHashMap<String, Relocations.Prepared> admittedJoins = new ConcurrentHashMap<>();
  /**
   * Leaves queued in this Spot's mailbox that have not run yet (their OnLeaveActor waits behind the lines the actor
   * sent before it left), by ActorId, each with the join admissions of the same actor that came meanwhile. Such an
   * admission runs after that leave, never before it: an actor that leaves a room and joins it again at once (its
   * join's approval is a control task, ahead of the queue) would otherwise see OnActorJoin, then the old
   * OnLeaveActor, then OnJoinedActor, and the room would forget the member it just admitted.
   */
  private final ConcurrentHashMap<String, List<Runnable>> leavesQueued = new ConcurrentHashMap<>();

  public SpotCell(final NodeRuntime rt, final String id, final NodeConfig.SpotType type) {
    super(rt, id, ObjectKey.spot(id), type.stableType(), type.kind().name().toLowerCase() + " spot");
    this.type = type;
    this.kind = type.kind();
    this.spotId = new SpotId(id);
    this.spotWide = kind == NodeConfig.SpotKind.USER && !type.perActor();
    this.applicationSignaled = spotWide && type.applicationSignaled();
    this.idle = kind == NodeConfig.SpotKind.INSTANCE && type.idleTimeout() != null && !type.idleTimeout().isZero()
        ? new IdleEviction(this, type.idleTimeout()) : null;
    if (spotWide) {
      this.gate = rt.dispatcher().newGate();
      this.mailbox = rt.dispatcher().newMailbox(gate, this::onEnvelope, 0);
    } else {
      this.mailbox = rt.dispatcher().newMailbox(this::onEnvelope);
      this.gate = mailbox.gate();
    }
    this.mailbox.close(); // opened when Ready
  }

  /**
   * This spot's ref (any thread).
   *
   * @return the ref.
   */
  public SpotRef ref() {
    return new SpotRef(spotId, new ObjectGeneration(generation), rt.meshName(), rt.nodeRid());
  }

  /**
   * The members now (any thread).
   *
   * @return a snapshot in join order.
   */
  public List<ActorCell> members() {
    return List.copyOf(members);
  }

  /**
   * The spot's kind (any thread).
   *
   * @return Entry, User or Instance.
   */
  public NodeConfig.SpotKind kind() {
    return kind;
  }

  @Override
  public String describe() {
    return kind.name().toLowerCase() + " spot '" + id + "' (generation " + generation + ")";
  }

  @Override
  public void control(final Runnable task) {
    gate.execute(task);
  }

  /**
   * Records that the leave of {@code actorId} was queued in this Spot's mailbox (before the offer). Any thread.
   *
   * @param actorId the leaving actor.
   */
  public void leaveQueued(final String actorId) {
    leavesQueued.putIfAbsent(actorId, new ArrayList<>());
  }

  /**
   * The queued leave of {@code actorId} ran (or was dropped): the admissions of that actor waiting behind it run as
   * control tasks now. Any thread.
   *
   * @param actorId the actor that left.
   */
  public void leaveRan(final String actorId) {
    final List<Runnable> waiting = leavesQueued.remove(actorId);
    if (waiting != null) {
      waiting.forEach(this::control);
    }
  }

  /**
   * Runs a join admission of {@code actorId} as a control task: at once, or after this Spot's queued leave of the
   * same actor ran. Any thread.
   *
   * @param actorId the joining actor.
   * @param admission the admission (OnActorJoin and what follows it).
   */
  public void admitAfterQueuedLeave(final String actorId, final Runnable admission) {
    final boolean[] behindLeave = new boolean[1];
    leavesQueued.computeIfPresent(actorId, (id, waiting) -> {
      waiting.add(admission);
      behindLeave[0] = true;
      return waiting;
    });
    if (!behindLeave[0]) {
      control(admission);
    }
  }

  /**
   * {@code relocationReady().defer()}: registers the application-signaled boundary after the current turn (spec 003
   * section 5.1). On the Spot's gate, in its turn.
   *
   * @throws SpotkitException.InvalidOperation outside a turn of this Spot, or not an ApplicationSignaled SpotWide
   *     User Spot.
   */
  public void deferRelocationReady() {
    if (!applicationSignaled) {
      throw new dev.spotkit.core.SpotkitException.InvalidOperation("relocationReady().defer() of " + describe()
          + ": only a SpotWide User Spot registered with applicationSignaledRelocation() has an application-signaled"
          + " relocation boundary (spec 003 section 5.1)");
    }
    final Turn turn = Turn.current();
    if (turn == null || !turn.isOpenFor(this, false)) {
      throw new dev.spotkit.core.SpotkitException.InvalidOperation("relocationReady().defer() of " + describe()
          + " was called outside a turn of that spot; call it from the spot's own handler, timer or callback");
    }
    turn.relocationReadyDeferred = true;
  }

  /**
   * The application-signaled boundary was reached (after the turn that deferred it): a waiting move takes it, else
   * {@code onRelocationReadyCompleted(CONTINUED)} runs now, before the next job. On the Spot's gate.
   */
  private void relocationBoundary() {
    final Runnable move = atRelocationBoundary;
    atRelocationBoundary = null;
    if (move != null && state == CellState.READY) {
      move.run();
    } else if (state == CellState.READY) {
      relocationReadyCompleted(dev.spotkit.core.RelocationReadyOutcome.CONTINUED);
    }
  }

  /**
   * Runs {@code onRelocationReadyCompleted(outcome)} of this Spot (a throwing callback is logged). On the Spot's gate.
   *
   * @param outcome where the Spot goes on.
   */
  public void relocationReadyCompleted(final dev.spotkit.core.RelocationReadyOutcome outcome) {
    if (spot instanceof dev.spotkit.core.UserSpot<?> user) {
      runCallback("onRelocationReadyCompleted(" + outcome + ") of " + describe(), false, () -> {
        user.onRelocationReadyCompleted(outcome);
        return null;
      });
    }
  }

  @Override
  void afterTurn(final Turn turn) {
    if (turn.relocationReadyDeferred) {
      turn.relocationReadyDeferred = false;
      control(this::relocationBoundary); // ahead of the next job: the seal, or the CONTINUED callback
    }
    if (turn.closeRequested) {
      turn.closeRequested = false;
      control(() -> rt.lifecycle().finishClose(this, ClosingReason.EXPLICIT_CLOSE));
    }
  }
}
