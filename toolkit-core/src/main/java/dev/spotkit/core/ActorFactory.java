package dev.spotkit.core;

/**
 * Builds an actor for its stable type; usually a constructor reference ({@code Player::new}). Called on the
 * runtime's worker, once per creation attempt; it may be called again for the same id after a failed attempt,
 * so it must not assume exactly-once side effects (spec 000 section 2).
 *
 * @param <A> the actor type.
 */
@FunctionalInterface
public interface ActorFactory<A extends Actor> {
  /**
   * Builds the actor.
   *
   * @param context the actor's context; keep it for the actor's life.
   * @return a new actor, never null.
   */
  A create(ActorContext context);
}
