package dev.spotkit.core;

import dev.spotkit.core.session.Session;
import java.util.Optional;

/**
 * An actor's view of the runtime, given to its {@link ActorFactory}. Thread-safety is stated per method:
 * "any thread", or "only inside a handler turn" of this actor (a message, request or timer handler).
 */
public sealed interface ActorContext permits ActorContextImpl {

  /**
   * This actor's ref. Any thread.
   *
   * @return (ActorId, ObjectGeneration, MeshName, NodeRid); the generation stays the same across joins.
   */
  ActorRef self();

  /**
   * The Entry or User Spot this actor belongs to now. Any thread; a snapshot.
   *
   * @return the spot's ref.
   * @throws SpotkitException.InvalidOperation when called while the actor is being created (from its constructor,
   *     or from another thread before the Entry Spot's onCreateActor accepted it): it belongs to no spot yet.
   */
  SpotRef membership();

  /**
   * Messages to an actor incarnation. Any thread.
   *
   * @param actor the ref; a stale generation is refused at send time.
   * @return the target.
   */
  Target toActor(ActorRef actor);

  /**
   * Messages to the live actor with this id. Any thread.
   *
   * @param actorId 1..255 UTF-8 bytes.
   * @return the target.
   * @throws SpotkitException.InvalidOperation on a bad id.
   */
  Target toActor(String actorId);

  /**
   * Messages to a spot incarnation. Any thread.
   *
   * @param spot the ref; a stale generation is refused at send time.
   * @return the target.
   */
  Target toSpot(SpotRef spot);

  /**
   * Messages to the live spot with this id; never creates one (SPOT-03). Any thread.
   *
   * @param spotId 1..255 UTF-8 bytes.
   * @return the target.
   * @throws SpotkitException.InvalidOperation on a bad id.
   */
  Target toSpot(String spotId);

  /**
   * Messages with Instance intent (spec 003 section 6): when no Instance Spot {@code spotId} runs, the first
   * message activates one of {@code stableType}, and that message is processed first. Any thread.
   *
   * @param spotId 1..255 UTF-8 bytes, not shaped like an Entry Spot id.
   * @param stableType a registered Instance Spot type.
   * @return the target.
   * @throws SpotkitException.InvalidOperation on a bad id or type.
   */
  Target toInstanceSpot(String spotId, String stableType);

  /**
   * Starts a JoinSpot to a User Spot with no request (OnActorJoin gets {@link EmptyRequest}). Only inside a
   * handler turn; call {@link JoinCall#defer()} on the result.
   *
   * @param spotId the User Spot's id.
   * @return the join call.
   */
  JoinCall joinSpot(String spotId);

  /**
   * Starts a JoinSpot to a User Spot (spec 000 section 4). Only inside a handler turn; call
   * {@link JoinCall#defer()} on the result. A same-node join is allowed under DisableRelocation (MEM-19).
   *
   * @param spotId the User Spot's id.
   * @param request passed (as an immutable copy) to the target's OnActorJoin; at most 1 MiB encoded.
   * @return the join call.
   */
  JoinCall joinSpot(String spotId, Object request);

  /**
   * Starts a JoinEntrySpot back to this node's Entry Spot (no admission callback). Only inside a handler
   * turn; call {@link JoinCall#defer()} on the result.
   *
   * @return the join call.
   */
  JoinCall joinEntrySpot();

  /**
   * Like {@link #joinEntrySpot()} with a request (kept for symmetry; the Entry Spot has no admission).
   *
   * @param request at most 1 MiB encoded.
   * @return the join call.
   */
  JoinCall joinEntrySpot(Object request);

  /**
   * The client session bound to this actor, if it was created for a connection. Any thread.
   *
   * <p>The session stays on the node that accepted the connection when the actor relocates (a cross-node
   * JoinSpot or JoinEntrySpot, or {@code MeshNode.relocate}). On another node the returned Session sends each
   * push to the session's node (Spotkit-defined mesh command 62); the client receives pushes in push order
   * across every node the actor passed through. A pushed message then crosses nodes like any message: one
   * that cannot (not a record, enum, String or boxed primitive of plain values) is refused by
   * {@link Session#push(Object)} with {@link SpotkitException.InvalidOperation}, and one over the mesh frame
   * limit with {@link SpotkitException.CapacityExceeded}; nothing is sent then. The client's frames keep
   * reaching the actor in order, each once, and the session's disconnect reaches it once, wherever it is.
   * On another node {@link Session#remoteAddress()} is an unresolved {@code spotkit-node-<rid hex>:0} and the
   * inbound counters there stay 0 (the session's node keeps the flow control).
   *
   * @return the session until it disconnects; empty afterwards or when none is bound. Push with
   *     {@link Session#push(Object)}.
   */
  Optional<Session> session();

  /**
   * The absolute deadline of the request the current handler turn serves (spec 001 section 11 and REL-24: a
   * request keeps its deadline on every hop; spec 000 section 2: an operation's deadline is fixed once, never
   * extended). It is the caller's deadline: set by its {@code timeout(...)} (default 5 s) when it started, or
   * inherited from the request its own handler served. Every request and manager call this handler starts
   * inherits it: its deadline is the earlier of its own {@code timeout(...)} and this one, so a nested call never
   * outlives the caller's wait, and one started after this deadline passed fails at once with
   * {@link SpotkitException.DeadlineExceeded} without being sent. A request whose deadline passed before its
   * handler started is answered DeadlineExceeded and its handler never runs. Across nodes the deadline travels
   * as the time left (see {@code dev.spotkit.core.wire.ApplicationMessage}), re-fixed on the receiver's
   * monotonic clock.
   *
   * <p>Only inside a handler turn of this actor, on the handler's own thread (threads it starts inherit nothing).
   * Use {@link Deadline#remaining()} for the time left (nanosecond resolution, monotonic clock).
   *
   * @return the deadline, on {@link System#nanoTime()}; empty in a one-way message or timer handler, or outside
   *     a handler turn of this actor.
   */
  Optional<Deadline> deadline();

  /**
   * This actor's timers. Any thread.
   *
   * @return the timers.
   */
  Timers timers();

  /**
   * The node's spot manager. Any thread.
   *
   * @return the manager.
   */
  SpotManager spots();

  /**
   * The node's actor manager. Any thread.
   *
   * @return the manager.
   */
  ActorManager actors();
}
