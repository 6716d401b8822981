package dev.spotkit.core;

import java.util.Objects;
import java.util.Optional;

/**
 * Final result of a join registered with {@link JoinCall#defer()}, delivered to
 * {@link Actor#onJoinCompleted(JoinResult)} with the join's non-zero 128-bit OperationId (spec 000 section 4).
 */
public sealed interface JoinResult {

  /**
   * The join's idempotency id, the one {@link JoinCall#defer()} returned.
   *
   * @return the id.
   */
  OperationId operationId();

  /**
   * Membership changed (or, for a same-target join, already was: MEM-17).
   *
   * @param operationId the join's id.
   * @param actor the actor's current ref (same ObjectGeneration as before).
   * @param spot the spot the actor belongs to now.
   * @param reply the target's optional OnActorJoin reply.
   */
  record Accepted(OperationId operationId, ActorRef actor, SpotRef spot, Optional<Object> reply)
      implements JoinResult {
    /** Checks for null. */
    public Accepted {
      Objects.requireNonNull(operationId, "operationId");
      Objects.requireNonNull(actor, "actor");
      Objects.requireNonNull(spot, "spot");
      Objects.requireNonNull(reply, "reply");
    }
  }

  /**
   * The target's OnActorJoin declined; membership is unchanged.
   *
   * @param operationId the join's id.
   * @param spot the spot that declined.
   * @param reply its optional reply.
   */
  record Rejected(OperationId operationId, SpotRef spot, Optional<Object> reply) implements JoinResult {
    /** Checks for null. */
    public Rejected {
      Objects.requireNonNull(operationId, "operationId");
      Objects.requireNonNull(spot, "spot");
      Objects.requireNonNull(reply, "reply");
    }
  }

  /**
   * The join failed with a typed error (spec 000 section 4 table): NotFound (no such User Spot),
   * InvalidOperation (the target is an Instance Spot), Unavailable (target closing), DeadlineExceeded,
   * ShuttingDown, InternalFailure (OnActorJoin threw). Membership is unchanged.
   *
   * @param operationId the join's id.
   * @param error what failed.
   */
  record Failed(OperationId operationId, SpotkitException error) implements JoinResult {
    /** Checks for null. */
    public Failed {
      Objects.requireNonNull(operationId, "operationId");
      Objects.requireNonNull(error, "error");
    }
  }
}
