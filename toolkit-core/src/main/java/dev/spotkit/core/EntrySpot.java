package dev.spotkit.core;

/**
 * The Object Server's Entry Spot: default membership of every Actor created on this node (spec 003 section 4).
 * The framework issues its id ({@code <meshName>-entry-<uuid v4>}) and initializes it at node start; it is
 * published only after {@link #onInitialize()} returns (SPOT-01). It has no close operation and never moves.
 *
 * <p>Every callback runs serialized with the Entry Spot's own turns (its lifecycle lane).
 */
public non-sealed interface EntrySpot extends Spot {

  @Override
  EntrySpotContext context();

  /**
   * Approves or declines a new Actor's initial membership (spec 000 section 2). The staging actor has been
   * built and configured but is not Ready: a decline discards it and it never receives a message.
   * Default: approve with no reply.
   *
   * @param creation the staging actor, its ref, stable type and creation request.
   * @return approve or decline, each with an optional reply for the creator.
   */
  default CreateDecision onCreateActor(ActorCreation creation) {
    return CreateDecision.approve();
  }

  /**
   * An Actor returned here with JoinEntrySpot and its membership is committed. Not called on creation.
   *
   * @param actor the member.
   */
  default void onJoinedActor(ActorRef actor) {
  }

  /**
   * An Actor left for a User Spot; called after the membership commit. Not a destroy.
   *
   * @param actor the former member.
   */
  default void onLeaveActor(ActorRef actor) {
  }

  /**
   * The client session bound to a member Actor disconnected; at most once per binding. Not a destroy or a
   * leave: the actor stays until the application destroys it ({@link EntrySpotContext#destroyActor}).
   *
   * @param actor the member whose session ended.
   */
  default void onDisconnectActor(ActorRef actor) {
  }
}
