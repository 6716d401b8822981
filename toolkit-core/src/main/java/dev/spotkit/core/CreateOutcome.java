package dev.spotkit.core;

import java.util.Objects;
import java.util.Optional;

/**
 * Outcome of a manager Create / GetOrCreate (spec 000 section 2): Created by this call, Existing (found Ready;
 * no factory, no callback), or Rejected by the creation callback. Failures are typed errors instead.
 *
 * @param <R> {@link ActorRef} or {@link SpotRef}.
 */
public sealed interface CreateOutcome<R> {

  /**
   * This call created the object.
   *
   * @param ref the new object's ref.
   * @param reply the creation callback's optional reply.
   * @param <R> ref type.
   */
  record Created<R>(R ref, Optional<Object> reply) implements CreateOutcome<R> {
    /** Checks for null. */
    public Created {
      Objects.requireNonNull(ref, "ref");
      Objects.requireNonNull(reply, "reply");
    }
  }

  /**
   * The object already existed and is Ready.
   *
   * @param ref its ref.
   * @param <R> ref type.
   */
  record Existing<R>(R ref) implements CreateOutcome<R> {
    /** Checks for null. */
    public Existing {
      Objects.requireNonNull(ref, "ref");
    }
  }

  /**
   * The creation callback declined; nothing was created.
   *
   * @param reply the callback's optional reply.
   * @param <R> ref type.
   */
  record Rejected<R>(Optional<Object> reply) implements CreateOutcome<R> {
    /** Checks for null. */
    public Rejected {
      Objects.requireNonNull(reply, "reply");
    }
  }
}
