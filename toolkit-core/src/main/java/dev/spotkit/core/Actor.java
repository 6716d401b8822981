package dev.spotkit.core;

/**
 * An actor: state plus handlers. Implemented by the application; built by the {@link ActorFactory} registered
 * for its stable type, which receives the actor's {@link ActorContext}.
 *
 * <p>One turn at a time: a handler runs to completion before the next turn of the same actor starts, and
 * blocking inside a handler (a request's {@code await()}, I/O) keeps the turn (DESIGN.md "Execution model";
 * spec 000 section 3). Business messages go straight to the actor's own mailbox, never through a Spot
 * callback (SPOT-05).
 *
 * <pre>{@code
 * final class Player implements Actor {
 *   private final ActorContext ctx;
 *   Player(ActorContext ctx) { this.ctx = ctx; }
 *   public void configure(ActorHandlers on) {
 *     on.message(String.class, line -> ctx.session().ifPresent(s -> s.push("echo " + line)))
 *       .request(Nick.class, nick -> new NickSet(nick.name()))
 *       .message(JoinRoom.class, join -> ctx.joinSpot(join.roomId(), join).defer());
 *   }
 *   public void onJoinCompleted(JoinResult result) { ... }
 * }
 * }</pre>
 */
public interface Actor {

  /**
   * Registers this actor's handlers. Called once, right after the factory, before the actor is Ready; the
   * handler set is fixed afterwards.
   *
   * @param on the registry; valid only during this call.
   */
  void configure(ActorHandlers on);

  /**
   * The result of a join this actor registered with {@link JoinCall#defer()} (spec 000 section 4): Accepted
   * (after the target's OnJoinedActor and the source's OnLeaveActor), Rejected, or Failed with a typed error.
   * Runs as a turn of this actor before any message that arrived after the join was registered (MEM-34).
   * Default: does nothing.
   *
   * @param result the outcome with its non-zero OperationId.
   */
  default void onJoinCompleted(JoinResult result) {
  }
}
