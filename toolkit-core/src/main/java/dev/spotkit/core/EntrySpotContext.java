package dev.spotkit.core;

import java.util.List;

/**
 * The Entry Spot's context: no close operation, but Actor destroy (spec 003 section 7).
 */
public sealed interface EntrySpotContext extends SpotContext permits EntrySpotContextImpl {

  /**
   * The actors whose membership is this Entry Spot. Any thread.
   *
   * @return a snapshot in join order.
   */
  List<Member> members();

  /**
   * Destroys an actor incarnation (see {@link ActorManager#destroy(ActorRef)}). Any thread; do not await it
   * inside this spot's turn when the actor is a member (it waits for the actor's gate, not this one, so it is
   * safe, but it blocks the Entry Spot meanwhile).
   *
   * @param actor the ref.
   * @return true when destroyed, false when that generation is already gone.
   */
  Call<Boolean> destroyActor(ActorRef actor);
}
