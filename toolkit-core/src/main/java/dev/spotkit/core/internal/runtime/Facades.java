package dev.spotkit.core.internal.runtime;

import dev.spotkit.core.ActorContext;
import dev.spotkit.core.ActorHandlers;
import dev.spotkit.core.SpotContext;
import dev.spotkit.core.SpotHandlers;

/**
 * Builds the sealed public facades (their implementations are package-private in {@code dev.spotkit.core},
 * which a sealed type in an unnamed module requires). Implemented by the core package and handed to
 * {@link NodeRuntime#start}.
 */
public interface Facades {
  /**
   * The context of an actor being created.
   *
   * @param cell the actor.
   * @return its context.
   */
  ActorContext actorContext(ActorCell cell);

  /**
   * The context of a spot being created, of the kind its registration says.
   *
   * @param cell the spot.
   * @return its context.
   */
  SpotContext spotContext(SpotCell cell);

  /**
   * The handler registry an actor's configure() receives.
   *
   * @param table the cell's table.
   * @return the registry.
   */
  ActorHandlers actorHandlers(HandlerTable table);

  /**
   * The handler registry a spot's configure() receives.
   *
   * @param table the cell's table.
   * @return the registry.
   */
  SpotHandlers spotHandlers(HandlerTable table);
}
