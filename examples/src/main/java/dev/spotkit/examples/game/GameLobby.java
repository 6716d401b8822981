package dev.spotkit.examples.game;

import dev.spotkit.core.ActorRef;
import dev.spotkit.core.EntrySpot;
import dev.spotkit.core.EntrySpotContext;
import dev.spotkit.examples.chat.Departures;

/**
 * The Entry Spot of every game node: a {@link GamePlayer} is a member of its client's node's Lobby until it joins
 * a {@link Match}, and of the Lobby of the match's node after the match. When the connection of a player in a Lobby
 * ends, the lobby tells the player ({@link GamePlayer.Disconnected}), which leaves the queue and destroys itself; a
 * player that cannot be told is destroyed from here ({@link Departures}).
 */
public final class GameLobby implements EntrySpot {

  private final EntrySpotContext ctx;

  /**
   * Built by the runtime at node start.
   *
   * @param ctx this spot's context.
   */
  public GameLobby(final EntrySpotContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public EntrySpotContext context() {
    return ctx;
  }

  @Override
  public void onDisconnectActor(final ActorRef actor) {
    Departures.tellOrDestroy(ctx, actor, new GamePlayer.Disconnected()); // it leaves the queue, then goes
  }
}
