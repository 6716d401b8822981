package dev.spotkit.examples.chat;

import dev.spotkit.core.ActorManager;
import dev.spotkit.core.ActorRef;
import dev.spotkit.core.EntrySpotContext;
import dev.spotkit.core.SpotkitException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Destroys the player of a closed connection (the player itself once it left its room, or the {@link Lobby}
 * when the player cannot be told) without waiting inside a turn and without failing silently: a destroy
 * refused with {@code Unavailable} (the actor is running a join barrier) is retried a few times, a little later
 * each time; any other failure is logged. A node that is closing takes its players with it, so
 * {@code ShuttingDown} is not an error. Shared with the game example ({@code dev.spotkit.examples.game}).
 */
public final class Departures {

  /** Destroy attempts in all. */
  static final int ATTEMPTS = 4;
  /** Pause before retry n is n times this. */
  static final long RETRY_STEP_MILLIS = 50;

  private static final Logger LOG = LoggerFactory.getLogger(Departures.class);

  private Departures() {
  }

  /**
   * Starts destroying {@code player}; returns at once. Any thread.
   *
   * @param actors the node's actor manager.
   * @param player the disconnected player.
   * @param then runs once the player is gone or given up on (on a runtime thread; must not block).
   */
  public static void destroy(final ActorManager actors, final ActorRef player, final Runnable then) {
    attempt(actors, player, 1, then);
  }

  /**
   * An Entry Spot's {@code onDisconnectActor}: tells the player of the closed connection ({@code disconnected}, which
   * makes it leave what it is in and then destroy itself), or, when it cannot be told, destroys it from here without
   * waiting inside the spot's turn. A node that is closing, or a player already gone, needs nothing. Any thread.
   *
   * @param ctx the Entry Spot's context.
   * @param player the player whose connection closed.
   * @param disconnected the message that tells it, e.g. {@code new Player.Disconnected()}.
   */
  public static void tellOrDestroy(final EntrySpotContext ctx, final ActorRef player, final Object disconnected) {
    try {
      ctx.toActor(player).send(disconnected); // the player leaves first, then goes
    } catch (SpotkitException.ShuttingDown | SpotkitException.NotFound gone) {
      // the node takes its players with it, or this one is gone already
    } catch (SpotkitException e) {
      destroy(ctx.actors(), player, () -> { }); // do not wait inside the lobby's turn
    }
  }

  private static void attempt(final ActorManager actors, final ActorRef player, final int attempt,
      final Runnable then) {
    actors.destroy(player).toFuture().whenComplete((destroyed, failure) -> {
      final Throwable cause = failure instanceof CompletionException && failure.getCause() != null
          ? failure.getCause() : failure;
      if (cause instanceof SpotkitException.Unavailable && attempt < ATTEMPTS) {
        CompletableFuture.delayedExecutor(RETRY_STEP_MILLIS * attempt, TimeUnit.MILLISECONDS)
            .execute(() -> attempt(actors, player, attempt + 1, then));
        return;
      }
      if (cause != null && !(cause instanceof SpotkitException.ShuttingDown)) {
        LOG.warn("could not destroy disconnected player {} (attempt {} of {}): {}", player.id().value(), attempt,
            ATTEMPTS, cause.toString());
      }
      then.run();
    });
  }
}
