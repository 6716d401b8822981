package dev.spotkit.core;

import java.util.Objects;
import java.util.Optional;

/**
 * Answer of a creation callback (OnCreateActor, OnCreate): approve or decline, each with an optional reply
 * for the creator (spec 000 section 2). A decline is not an error: the creator's outcome is
 * {@link CreateOutcome.Rejected}.
 */
public sealed interface CreateDecision {

  /**
   * The reply for the creator.
   *
   * @return the reply, if any.
   */
  Optional<Object> reply();

  /**
   * Approve with no reply.
   *
   * @return the decision.
   */
  static CreateDecision approve() {
    return new Approve(Optional.empty());
  }

  /**
   * Approve with a reply.
   *
   * @param reply not null.
   * @return the decision.
   */
  static CreateDecision approve(final Object reply) {
    return new Approve(Optional.of(reply));
  }

  /**
   * Decline with no reply.
   *
   * @return the decision.
   */
  static CreateDecision decline() {
    return new Decline(Optional.empty());
  }

  /**
   * Decline with a reply.
   *
   * @param reply not null.
   * @return the decision.
   */
  static CreateDecision decline(final Object reply) {
    return new Decline(Optional.of(reply));
  }

  /**
   * Creation approved.
   *
   * @param reply optional reply.
   */
  record Approve(Optional<Object> reply) implements CreateDecision {
    /** Checks for null. */
    public Approve {
      Objects.requireNonNull(reply, "reply");
    }
  }

  /**
   * Creation declined.
   *
   * @param reply optional reply.
   */
  record Decline(Optional<Object> reply) implements CreateDecision {
    /** Checks for null. */
    public Decline {
      Objects.requireNonNull(reply, "reply");
    }
  }
}
