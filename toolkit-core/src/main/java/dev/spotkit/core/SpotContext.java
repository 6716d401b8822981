package dev.spotkit.core;

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
