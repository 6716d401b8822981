package dev.spotkit.core.internal.join;

import dev.spotkit.core.Deadline;
import dev.spotkit.core.EntrySpot;
import dev.spotkit.core.JoinDecision;
import dev.spotkit.core.JoinResult;
import dev.spotkit.core.OperationId;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.core.UserSpot;
import dev.spotkit.core.internal.relocation.Relocations;
import dev.spotkit.core.internal.runtime.ActorCell;
import dev.spotkit.core.internal.runtime.CellState;
import dev.spotkit.core.internal.runtime.Envelope;
import dev.spotkit.core.internal.runtime.JsonCopier;
import dev.spotkit.core.internal.runtime.NodeConfig;
import dev.spotkit.core.internal.runtime.NodeRuntime;
import dev.spotkit.core.internal.runtime.SpotCell;
import dev.spotkit.core.internal.runtime.Turn;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * JoinSpot / JoinEntrySpot with Defer() (spec 000 section 4). A JoinSpot whose target User Spot is not on this
 * node is handed to {@link Relocations#join} (spec 000 section 4.2: approval, relocation, one target CAS); the
 * rest of this class is the same-node chain.
 *
 * <p>Registration ({@link #register}) only records the join on the current turn: no lookup, no store I/O
 * (MEM-9). When the handler ends normally the actor's mailbox is closed (the barrier: later messages wait)
 * and the joins run one after another as a chain of control tasks, each on the gate that owns the state it
 * touches:
 * <ol>
 *   <li>actor's gate: find the target; same target: Accepted with no callback and no store write (MEM-17);</li>
 *   <li>target's gate: OnActorJoin (User Spot), store commit of the membership, members += actor,
 *       OnJoinedActor;</li>
 *   <li>source's queue: a marker behind the messages the actor sent the source: members -= actor,
 *       OnLeaveActor ({@link #leaveInOrder});</li>
 *   <li>actor's old gate: move the mailbox onto a SpotWide target's gate, or back to a private gate;</li>
 *   <li>actor's new gate: onJoinCompleted, then the next join, or reopen the mailbox.</li>
 * </ol>
 * That fixes OnJoinedActor, then OnLeaveActor, then the completion callback, then regular messages (MEM-34).
 * Lifecycle work that must not overlap a barrier ({@code ActorCell.afterBarrier}: a session disconnect that
 * found the mailbox full) runs when the barrier ends.
 * Same-node joins never relocate, so DisableRelocation does not block them (MEM-19).
 */
public final class Joins {

  /** At most this many joins per handler (MEM-11). */
  public static final int MAX_JOINS_PER_HANDLER = 64;
  /** Encoded size limit of one join request: 1 MiB (MEM-11). */
  public static final int MAX_REQUEST_BYTES = 1 << 20;
  /** Encoded size limit of all join requests of one handler: 8 MiB (MEM-11). */
  public static final int MAX_TOTAL_BYTES = 8 << 20;

  private final NodeRuntime rt;

  public Joins(final NodeRuntime rt) {
    this.rt = rt;
  }

  /**
   * Registers a join on the current handler turn of {@code cell} (JoinCall.defer()).
   *
   * @param cell the actor.
   * @param createdIn the turn in which joinSpot()/joinEntrySpot() was called (null outside any): a join call
   *     belongs to the handler that made it.
   * @param spotId target User Spot, or null for JoinEntrySpot.
   * @param request the request (copied here).
   * @param timeout the whole join's timeout; the deadline is fixed now (MEM-12).
   * @return the join's OperationId.
   */
  public OperationId register(final ActorCell cell, final Turn createdIn, final String spotId,
      final Object request, final Duration timeout) {
    final Turn turn = Turn.current();
    if (turn == null || turn != createdIn || !turn.isOpenFor(cell, true)) {
      throw new SpotkitException.InvalidOperation("defer() was called outside a handler turn of " + cell.describe()
          + " (the handler already ended, or this is another thread, a factory, configure() or a completion"
          + " callback): call joinSpot(...).defer() inside the message handler, before it returns (spec 000"
          + " section 4)");
    }
    rt.ensureRunning("join of " + cell.describe());
    if (turn.joinCount() >= MAX_JOINS_PER_HANDLER) {
      throw new SpotkitException.CapacityExceeded(cell.describe() + " already registered "
          + turn.joinCount() + " joins in this handler; the limit is " + MAX_JOINS_PER_HANDLER + " per handler");
    }
    final JsonCopier.Copy copy = rt.copier().copy("join request", request, MAX_REQUEST_BYTES);
    if (turn.joinBytes + copy.bytes() > MAX_TOTAL_BYTES) {
      throw new SpotkitException.CapacityExceeded("join requests of this handler would total "
          + (turn.joinBytes + copy.bytes()) + " bytes, over the " + MAX_TOTAL_BYTES + "-byte (8 MiB) limit per"
          + " handler");
    }
    final Deadline deadline = Deadline.after(timeout);
    final OperationId operationId = OperationId.random();
    turn.addJoin(new PendingJoin(operationId, spotId, copy.value(), deadline));
    turn.joinBytes += copy.bytes();
    return operationId;
  }

  /** At the normal end of a handler turn that registered joins: close the mailbox, then run them. */
  public void startBarrier(final ActorCell actor, final List<PendingJoin> joins) {
    actor.mailbox.close();
    actor.barrierActive = true;
    actor.barrier.addAll(joins);
    next(actor);
  }

  /** On the actor's gate: starts the next join, or ends the barrier. */
  private void next(final ActorCell actor) {
    final PendingJoin join = actor.barrier.poll();
    if (join == null) {
      actor.barrierActive = false;
      if (actor.state == CellState.READY) {
        actor.mailbox.open();
      }
      final Runnable after = actor.afterBarrier;
      if (after != null) {
        actor.afterBarrier = null;
        after.run();
      }
      return;
    }
    if (join.spotId() != null && rt.mesh() != null && actor.state == CellState.READY && !rt.isClosing()
        && !join.deadline().isExpired() && rt.spots.get(join.spotId()) == null) {
      rt.relocations().join(actor, join); // the target spot is not here: a cross-node join (spec 000 section 4.2)
      return;
    }
    final SpotCell target;
    try {
      target = findTarget(actor, join);
    } catch (SpotkitException e) {
      finish(actor, new JoinResult.Failed(join.operationId(), e));
      return;
    }
    if (target == actor.membership) {
      finish(actor, new JoinResult.Accepted(join.operationId(), actor.ref(), target.ref(), Optional.empty()));
      return;
    }
    target.admitAfterQueuedLeave(actor.id, () -> admit(actor, join, target)); // after its own leave, if queued
  }

  private SpotCell findTarget(final ActorCell actor, final PendingJoin join) {
    rt.ensureRunning("join of " + actor.describe());
    if (actor.state != CellState.READY) {
      throw new SpotkitException.NotFound(actor.describe() + " was destroyed before its join ran");
    }
    if (join.deadline().isExpired()) {
      throw expired(actor, join);
    }
    if (join.spotId() == null) {
      return rt.entry();
    }
    final SpotCell target = rt.spots.get(join.spotId());
    if (target == null || target.state != CellState.READY) {
      throw new SpotkitException.NotFound("join target spot '" + join.spotId() + "' not found; create it first"
          + " with spots().getOrCreate(\"" + join.spotId() + "\", type)");
    }
    if (target.kind == NodeConfig.SpotKind.INSTANCE) {
      throw new SpotkitException.InvalidOperation("spot '" + join.spotId() + "' is an Instance Spot, which has"
          + " no actor membership (spec 003 section 6); join a User Spot instead");
    }
    if (target.kind == NodeConfig.SpotKind.ENTRY) {
      throw new SpotkitException.InvalidOperation("spot '" + join.spotId() + "' is an Entry Spot; use"
          + " joinEntrySpot() to return to this node's Entry Spot");
    }
    return target;
  }

  /** On the target's gate: admission, commit, OnJoinedActor; then the source's gate. */
  private void admit(final ActorCell actor, final PendingJoin join, final SpotCell target) {
    final OperationId op = join.operationId();
    if (target.state != CellState.READY) {
      finish(actor, new JoinResult.Failed(op, new SpotkitException.Unavailable("join target "
          + target.describe() + " is closing")));
      return;
    }
    if (target.aggregateSealed) { // spec 000 section 7 step 1: join/leave sealed during an aggregate move
      finish(actor, new JoinResult.Failed(op, new SpotkitException.Unavailable("join target " + target.describe()
          + " is sealed for a move to another node; retry")));
      return;
    }
    if (rt.isClosing() || join.deadline().isExpired()) {
      finish(actor, new JoinResult.Failed(op, rt.isClosing() ? new SpotkitException.ShuttingDown("the node"
          + " started closing before the join of " + actor.describe() + " committed") : expired(actor, join)));
      return;
    }
    if (target.spot instanceof UserSpot<?> userSpot) {
      final Throwable[] failed = new Throwable[1];
      final JoinDecision decision = target.runCallback("onActorJoin of " + target.describe(), false,
          () -> userSpot.onActorJoin(actor.actorId, join.request()), failed);
      if (decision == null) {
        finish(actor, new JoinResult.Failed(op, new SpotkitException.InternalFailure("onActorJoin of "
            + target.describe() + (failed[0] == null ? " returned null" : " threw " + failed[0]), failed[0])));
        return;
      }
      if (decision instanceof JoinDecision.Reject reject) {
        finish(actor, new JoinResult.Rejected(op, target.ref(), reject.reply()));
        return;
      }
      commit(actor, target, new JoinResult.Accepted(op, actor.ref(), target.ref(), decision.reply()));
    } else {
      commit(actor, target, new JoinResult.Accepted(op, actor.ref(), target.ref(), Optional.empty()));
    }
  }

  private void commit(final ActorCell actor, final SpotCell target, final JoinResult.Accepted accepted) {
    try {
      rt.store().update(actor, actor.storeRecord.withMembership(target.id));
    } catch (SpotkitException e) {
      finish(actor, new JoinResult.Failed(accepted.operationId(), e));
      return;
    }
    final SpotCell source = actor.membership;
    target.members.add(actor);
    actor.membership = target;
    target.runCallback("onJoinedActor of " + target.describe(), false, () -> {
      joined(target, actor);
      return null;
    });
    leaveInOrder(source, actor, () -> moveAndFinish(actor, target, accepted));
  }

  /**
   * Takes {@code actor} out of {@code source} and runs its OnLeaveActor in the Spot's queue order: a marker in
   * the Spot's mailbox, behind every message accepted before it, and so behind every message the actor sent the
   * Spot before it left (its handler turns ended before the join's barrier), which a control task would overtake
   * (spec 000 sections 4.1 and 4.2 step 7). Then {@code then} runs, on the Spot's gate. A Spot released meanwhile
   * gets no callback; {@code then} still runs, at once when the mailbox is already released. Any thread.
   *
   * @param source the Spot the actor leaves.
   * @param actor the actor.
   * @param then what follows the leave (the rest of a same-node join), or null.
   */
  public static void leaveInOrder(final SpotCell source, final ActorCell actor, final Runnable then) {
    final Runnable leave = () -> {
      if (source.members.remove(actor) && source.state != CellState.GONE) {
        source.runCallback("onLeaveActor of " + source.describe(), false, () -> {
          left(source, actor);
          return null;
        });
      }
      source.leaveRan(actor.id);
      if (then != null) {
        then.run();
      }
    };
    source.leaveQueued(actor.id); // a join of the same actor back into source waits for this leave
    if (source.mailbox.offer(new Envelope.Marker(leave)) == dev.spotkit.mailbox.OfferResult.RELEASED) {
      leave.run(); // a Spot's mailbox is unbounded: RELEASED is the only other result
    }
  }

  public static void joined(final SpotCell spot, final ActorCell actor) {
    if (spot.spot instanceof UserSpot<?> user) {
      user.onJoinedActor(actor.ref());
    } else if (spot.spot instanceof EntrySpot entry) {
      entry.onJoinedActor(actor.ref());
    }
  }

  public static void left(final SpotCell spot, final ActorCell actor) {
    if (spot.spot instanceof UserSpot<?> user) {
      user.onLeaveActor(actor.ref());
    } else if (spot.spot instanceof EntrySpot entry) {
      entry.onLeaveActor(actor.ref());
    }
  }

  /** On the actor's old gate: move the (closed) mailbox at this safe boundary, then finish on the new gate. */
  private void moveAndFinish(final ActorCell actor, final SpotCell target, final JoinResult result) {
    actor.control(() -> {
      if (actor.mailbox.dispatchState() != dev.spotkit.mailbox.DispatchState.RELEASED) {
        if (target.spotWide) {
          actor.mailbox.moveTo(target.gate);
          actor.onSpotGate = true;
        } else if (actor.onSpotGate) {
          actor.mailbox.moveToOwnGate();
          actor.onSpotGate = false;
        }
      }
      finish(actor, result);
    });
  }

  /** On the actor's (current) gate: the completion callback, then the next join. */
  public void finish(final ActorCell actor, final JoinResult result) {
    actor.control(() -> {
      if (actor.actor != null && actor.state == CellState.READY) {
        actor.runCallback("onJoinCompleted of " + actor.describe(), false, () -> {
          actor.actor.onJoinCompleted(result);
          return null;
        });
      }
      next(actor);
    });
  }

  private static SpotkitException expired(final ActorCell actor, final PendingJoin join) {
    return new SpotkitException.DeadlineExceeded("join of " + actor.describe() + " to "
        + (join.spotId() == null ? "the Entry Spot" : "spot '" + join.spotId() + "'")
        + " was not committed by its deadline (fixed at defer(); set it with timeout(...))");
  }
}
