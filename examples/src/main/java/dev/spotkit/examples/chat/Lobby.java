package dev.spotkit.examples.chat;

import dev.spotkit.core.ActorRef;
import dev.spotkit.core.EntrySpot;
import dev.spotkit.core.EntrySpotContext;

/**
 * The Entry Spot: a {@link Player} is a member of its client's node's Lobby until it joins a room, and of
 * the Lobby of the node it is on after {@code /leave}. When the connection of a player in a Lobby ends, the
 * lobby tells the player ({@link Player.Disconnected}), which destroys itself ({@link Departures}: retried or
 * logged, never dropped silently; a {@link Room} does the same for its members). A player that cannot be told
 * is destroyed from here. The game example's nodes use it too, telling their players with their own message.
 */
public final class Lobby implements EntrySpot {

  private final EntrySpotContext ctx;
  /** What tells a player of this lobby that its connection closed. */
  private final Object disconnected;

  /**
   * Built by the runtime at node start (the chat's lobby: it tells a {@link Player}).
   *
   * @param ctx this spot's context.
   */
  public Lobby(final EntrySpotContext ctx) {
    this(ctx, new Player.Disconnected());
  }

  /**
   * A lobby whose players are told with {@code disconnected} (the game example's players, for example, with
   * {@code new GamePlayer.Disconnected()}).
   *
   * @param ctx this spot's context.
   * @param disconnected the message that makes a player of this lobby leave what it is in and then destroy itself;
   *     a record that can cross nodes.
   */
  public Lobby(final EntrySpotContext ctx, final Object disconnected) {
    this.ctx = ctx;
    this.disconnected = disconnected;
  }

  @Override
  public EntrySpotContext context() {
    return ctx;
  }

  @Override
  public void onDisconnectActor(final ActorRef actor) {
    Departures.tellOrDestroy(ctx, actor, disconnected); // it leaves its room first, then goes
  }
}
