package dev.spotkit.core;

import java.util.Optional;

/**
 * What every spot kind's context shares (spec 003 section 7: identity, outbound calls, timers). The factory
 * receives it and the spot returns it as-is from {@link Spot#context()}. Thread-safety is stated per method.
 */
public sealed interface SpotContext permits EntrySpotContext, UserSpotContext, InstanceSpotContext {

  /**
   * This spot's ref. Any thread.
   *
   * @return (SpotId, ObjectGeneration, MeshName, NodeRid).
   */
  SpotRef self();

  /**
   * Messages to an actor incarnation. Any thread.
   *
   * @param actor the ref.
   * @return the target.
   */
  Target toActor(ActorRef actor);

  /**
   * Messages to the live actor with this id. Any thread.
   *
   * @param actorId the id.
   * @return the target.
   */
  Target toActor(String actorId);

  /**
   * Messages to a spot incarnation. Any thread.
   *
   * @param spot the ref.
   * @return the target.
   */
  Target toSpot(SpotRef spot);

  /**
   * Messages to the live spot with this id; never creates one. Any thread.
   *
   * @param spotId the id.
   * @return the target.
   */
  Target toSpot(String spotId);

  /**
   * Messages with Instance intent (see {@link ActorContext#toInstanceSpot}). Any thread.
   *
   * @param spotId the id.
   * @param stableType a registered Instance Spot type.
   * @return the target.
   */
  Target toInstanceSpot(String spotId, String stableType);

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
   * <p>Only inside a handler turn of this spot, on the handler's own thread (threads it starts inherit nothing).
   * Use {@link Deadline#remaining()} for the time left (nanosecond resolution, monotonic clock).
   *
   * @return the deadline, on {@link System#nanoTime()}; empty in a one-way message or timer handler, or outside
   *     a handler turn of this spot.
   */
  Optional<Deadline> deadline();

  /**
   * This spot's timers. Any thread.
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
