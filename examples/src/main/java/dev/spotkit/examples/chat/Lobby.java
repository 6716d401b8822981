package dev.spotkit.examples.chat;

import dev.spotkit.core.ActorRef;
import dev.spotkit.core.EntrySpot;
import dev.spotkit.core.EntrySpotContext;

/**
 * The Entry Spot: a {@link Player} is a member of its client's node's Lobby until it joins a room, and of
 * the Lobby of the node it is on after {@code /leave}. When the connection of a player in a Lobby ends, the
 * lobby tells the player ({@link Player.Disconnected}), which destroys itself ({@link Departures}: retried or
 * logged, never dropped silently; a {@link Room} does the same for its members). A player that cannot be told
 * is destroyed from here.
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
  public void onDisconnectActor(final ActorRef actor) {
    Departures.tellOrDestroy(ctx, actor, new Player.Disconnected()); // it leaves its room first, then goes
  }
}
