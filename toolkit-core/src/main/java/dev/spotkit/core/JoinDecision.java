package dev.spotkit.core;

import java.util.Objects;
import java.util.Optional;

/**
 * Answer of {@link UserSpot#onActorJoin}: accept or reject, each with an optional reply
 * delivered in the actor's {@link JoinResult} (spec 000 section 4). A reject is not an error: the actor gets
 * {@link JoinResult.Rejected}.
 */
public sealed interface JoinDecision {

  /**
   * The reply for the joining actor.
   *
   * @return the reply, if any.
   */
  Optional<Object> reply();

  /**
   * Accept with no reply.
   *
   * @return the decision.
   */
  static JoinDecision accept() {
    return new Accept(Optional.empty());
  }

  /**
   * Accept with a reply.
   *
   * @param reply not null.
   * @return the decision.
   */
  static JoinDecision accept(final Object reply) {
    return new Accept(Optional.of(reply));
  }

  /**
   * Reject with no reply.
   *
   * @return the decision.
   */
  static JoinDecision reject() {
    return new Reject(Optional.empty());
  }

  /**
   * Reject with a reply.
   *
   * @param reply not null.
   * @return the decision.
   */
  static JoinDecision reject(final Object reply) {
    return new Reject(Optional.of(reply));
  }

  /**
   * Creation acceptd.
   *
   * @param reply optional reply.
   */
  record Accept(Optional<Object> reply) implements JoinDecision {
    /** Checks for null. */
    public Accept {
      Objects.requireNonNull(reply, "reply");
    }
  }

  /**
   * Creation rejectd.
   *
   * @param reply optional reply.
   */
  record Reject(Optional<Object> reply) implements JoinDecision {
    /** Checks for null. */
    public Reject {
      Objects.requireNonNull(reply, "reply");
    }
  }
}
