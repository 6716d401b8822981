package dev.spotkit.core;

/**
 * Captures and restores an Actor's application state when it moves between nodes (PreserveStateWith, spec 000
 * section 6). Validated at start; called by a cross-node JoinSpot and by {@link MeshNode#relocate} (capture on the
 * source at a handler-end boundary, restore on the instance the target factory built); a same-node join never
 * calls it.
 *
 * @param <A> the actor type.
 */
public interface ActorRelocationAdapter<A extends Actor> {
  /**
   * Captures state at a handler-end boundary.
   *
   * @param actor the source instance.
   * @return opaque bytes; empty is valid, null is a contract violation. The framework takes ownership.
   */
  byte[] capture(A actor);

  /**
   * Applies captured state to the instance the target factory built.
   *
   * @param actor the new instance.
   * @param state valid only during this call: copy it to keep it.
   */
  void restore(A actor, byte[] state);
}
