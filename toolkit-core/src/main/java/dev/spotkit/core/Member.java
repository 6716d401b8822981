package dev.spotkit.core;

/**
 * A member actor of a Spot, as {@code members()} lists it: its ref plus the {@link Target} methods.
 * Any thread.
 */
public sealed interface Member extends Target permits MemberImpl {
  /**
   * The member's ref at listing time.
   *
   * @return the ref.
   */
  ActorRef ref();
}
