package dev.spotkit.core;

import java.util.List;

/**
 * A Spot the application creates through {@link SpotManager} and that Actors join and leave, such as a room
 * (spec 003 section 5). SpotWide by default: the spot and its member actors take turns on one execution gate;
 * a PerActor registration gives every member its own gate instead.
 *
 * <pre>{@code
 * final class Room implements UserSpot<Player> {
 *   private final UserSpotContext ctx;
 *   Room(UserSpotContext ctx) { this.ctx = ctx; }
 *   public UserSpotContext context() { return ctx; }
 *   public void configure(SpotHandlers on) {
 *     on.message(Said.class, said -> members().forEach(m -> m.send(new Heard(said.text()))));
 *     timers().every("flush", Duration.ofSeconds(1), this::flush);
 *   }
 *   public JoinDecision onActorJoin(ActorId actor, Object request) {
 *     return members().size() < 100 ? JoinDecision.accept() : JoinDecision.reject(new RoomFull());
 *   }
 * }
 * }</pre>
 *
 * <p>Every callback runs on the spot's lifecycle lane, serialized with its turns and (SpotWide) with its
 * members' turns.
 *
 * @param <A> the member actor type; documents what joins this spot.
 */
public non-sealed interface UserSpot<A extends Actor> extends Spot {

  @Override
  UserSpotContext context();

  /**
   * Checks a creation request (spec 003 section 5.2); not called when GetOrCreate finds an existing spot.
   * Default: approve with no reply.
   *
   * @param request the creator's request, or {@link EmptyRequest} when none was given.
   * @return approve or decline, each with an optional reply.
   */
  default CreateDecision onCreate(Object request) {
    return CreateDecision.approve();
  }

  /**
   * Admission of an existing Actor that asked to join (spec 000 section 4). Not called for an actor that is
   * already a member (MEM-17). Default: accept.
   *
   * @param actor the joining actor.
   * @param request an immutable copy of the join request, or {@link EmptyRequest} when none was given.
   * @return accept or reject, each with an optional reply delivered in the actor's {@link JoinResult}.
   */
  default JoinDecision onActorJoin(ActorId actor, Object request) {
    return JoinDecision.accept();
  }

  /**
   * A join committed: {@code actor} is a member now. Runs before the source's OnLeaveActor and the actor's
   * join completion (MEM-34).
   *
   * @param actor the new member.
   */
  default void onJoinedActor(ActorRef actor) {
  }

  /**
   * A member left (joined another spot); after that join committed. Not a destroy.
   *
   * @param actor the former member.
   */
  default void onLeaveActor(ActorRef actor) {
  }

  /**
   * The client session bound to a member disconnected; at most once per binding. Not a leave.
   *
   * @param actor the member.
   */
  default void onDisconnectActor(ActorRef actor) {
  }

  /**
   * An application-signaled relocation boundary ({@link RelocationReady#defer()}) ended (spec 003 section 5.1, spec
   * 000 section 7): {@link RelocationReadyOutcome#RELOCATED} on the new owner after the move's Location Store CAS and
   * queue merge, before its dispatch opens; {@link RelocationReadyOutcome#CONTINUED} on this node before the next job
   * when no move used the boundary or the move failed before relay-ready. Not a membership callback; members get
   * none. A game starts its next round here (the Spot's own timers do not travel with a move: arm them again). Runs
   * on the Spot's lifecycle lane; the default does nothing. Must be retry-safe: a crash while it runs may repeat it.
   *
   * @param outcome where the Spot goes on.
   */
  default void onRelocationReadyCompleted(RelocationReadyOutcome outcome) {
  }

  /**
   * The current members; same as {@code context().members()}.
   *
   * @return a snapshot in join order.
   */
  default List<Member> members() {
    return context().members();
  }

  /**
   * This spot's timers; same as {@code context().timers()}.
   *
   * @return the timers.
   */
  default Timers timers() {
    return context().timers();
  }
}
