package dev.spotkit.core.internal.runtime;

import dev.spotkit.core.Actor;
import dev.spotkit.core.ActorContext;
import dev.spotkit.core.ActorId;
import dev.spotkit.core.ActorRef;
import dev.spotkit.core.CreateOutcome;
import dev.spotkit.core.ObjectGeneration;
import dev.spotkit.core.SpotRef;
import dev.spotkit.core.internal.join.PendingJoin;
import dev.spotkit.core.internal.session.BoundSession;
import dev.spotkit.core.internal.session.SessionBinder;
import dev.spotkit.core.session.Session;
import dev.spotkit.core.location.ObjectKey;
import java.util.ArrayDeque;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * One actor at run time. Its mailbox starts on a private gate (or, bounded, on a gate of its own), moves onto
 * a SpotWide room's gate when it joins one and back to a private gate when it leaves (at the join's safe
 * boundary: the mailbox is closed by the barrier).
 */
public final class ActorCell extends Cell {

  public final NodeConfig.ActorType type;
  public final ActorId actorId;
  public final CompletableFuture<CreateOutcome<ActorRef>> creation = new CompletableFuture<>();
  /** Set by creation before Ready. */
  public volatile Actor actor;
  public ActorContext context;
  /** The Entry or User Spot this actor belongs to. Written by creation and the join chain. */
  public volatile SpotCell membership;
  /** Joins waiting to run, in registration order. Owned by the join chain (one step at a time). */
  public final ArrayDeque<PendingJoin> barrier = new ArrayDeque<>();
  /** True from a handler's end with joins until the last completion callback ran. */
  public volatile boolean barrierActive;
  /**
   * Lifecycle work that must wait for the running join barrier (a session disconnect that could not be queued
   * in a full mailbox). Written and read on the actor's gate only; run and cleared when the barrier ends.
   */
  public Runnable afterBarrier;
  /** True while the mailbox sits on a SpotWide spot's gate. Owned by the join chain. */
  public volatile boolean onSpotGate;
  /** The bound client session, if any (the actor created for a connection, on the session's node). */
  public volatile SessionBinder.Link session;
  /** The bound client session of an actor that relocated (restored from the payload), else null. */
  public volatile BoundSession binding;
  /**
   * The AuthorityOwnerGeneration its Session owner's binding names for this actor when it is not the one of
   * {@link #storeRecord}, else 0: a room's aggregate seal points the member's row at the aggregate (its effective
   * AuthorityOwnerGeneration becomes the aggregate's) and, when that move is reversed before relay-ready, the 44
   * abort leaves the binding on the route the seal named (spec 000 section 4.2 step 8). The next seal names this
   * one. Written on the actor's gate by the reversal; read by the next seal.
   */
  public volatile long sessionRouteAog;

  public ActorCell(final NodeRuntime rt, final String id, final NodeConfig.ActorType type) {
    super(rt, id, ObjectKey.actor(id), type.stableType(), "actor");
    this.type = type;
    this.actorId = new ActorId(id);
    this.mailbox = type.mailboxCapacity() == 0 ? rt.dispatcher().newMailbox(this::onEnvelope)
        : rt.dispatcher().newMailbox(rt.dispatcher().newGate(), this::onEnvelope, type.mailboxCapacity());
    this.mailbox.close(); // opened when Ready; messages offered before are kept
  }

  /**
   * This actor's current ref (any thread).
   *
   * @return the ref.
   */
  public ActorRef ref() {
    return new ActorRef(actorId, new ObjectGeneration(generation), rt.meshName(), rt.nodeRid());
  }

  /**
   * The spot this actor belongs to (any thread).
   *
   * @return its ref.
   * @throws SpotkitException.InvalidOperation while the actor is being created (its constructor and the Entry Spot's
   *     onCreateActor run before it belongs to a spot).
   */
  public SpotRef membershipRef() {
    final SpotCell spot = membership;
    if (spot == null) {
      throw new dev.spotkit.core.SpotkitException.InvalidOperation(describe() + " belongs to no spot yet: it is"
          + " being created (membership is known once onCreateActor accepted it)");
    }
    return spot.ref();
  }

  /**
   * The bound session while connected (any thread).
   *
   * @return the session or empty.
   */
  public Optional<Session> session() {
    final BoundSession bound = binding;
    if (bound != null) {
      return bound.isOpen() ? Optional.of(bound) : Optional.empty();
    }
    final SessionBinder.Link link = session;
    return link == null || link.isClosed() ? Optional.empty() : Optional.of(link.session());
  }

  @Override
  public String describe() {
    return "actor '" + id + "' (generation " + generation + ")";
  }

  @Override
  public void control(final Runnable task) {
    // The mailbox may move between gates; a task that lands on the old gate follows it (bounded by moves).
    mailbox.gate().execute(() -> {
      if (mailbox.gate().isCurrentThreadInTurn()) {
        task.run();
      } else {
        control(task);
      }
    });
  }

  @Override
  void afterTurn(final Turn turn) {
    if (turn.joins != null) {
      rt.joins().startBarrier(this, turn.joins);
    }
  }
}
