package dev.spotkit.examples.chat;

import dev.spotkit.core.ActorRef;
import dev.spotkit.core.EntrySpot;
import dev.spotkit.core.EntrySpotContext;
import dev.spotkit.core.SpotHandlers;

/**
 * The Entry Spot: every player starts here when its connection opens, and comes back here on
 * {@code /leave}. When the connection of a player in the lobby ends, the player is destroyed
 * ({@link Departures}: retried or logged, never dropped silently).
 */
public final class Lobby implements EntrySpot {

  private final EntrySpotContext ctx;

  /**
   * Built by the runtime at node start.
   *
   * @param ctx this spot's context.
   */
  public Lobby(final EntrySpotContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public EntrySpotContext context() {
    return ctx;
  }

  @Override
  public void configure(final SpotHandlers on) {
    // The lobby has no messages of its own.
  }

  @Override
  public void onDisconnectActor(final ActorRef actor) {
    Departures.destroy(ctx.actors(), actor, () -> { }); // do not wait inside the lobby's turn
  }
}
