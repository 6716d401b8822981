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

  /**
   * Applies captured state to the instance the target factory built, from a view of the received payload: what
   * the framework calls on the target (once per move, in the restore turn, on the thread running that turn, before
   * the instance takes a message). The default copies the bytes into a new array of exactly
   * {@code state.remaining()} bytes and calls {@link #restore(Actor, byte[])}. Override it to read the state
   * straight from the buffer (decode it in place) and save that copy: with it, a move copies the state bytes
   * three times between {@link #capture} and here (into the payload stream, into the socket's buffer, into the
   * target's assembly buffer; spec 001 sections 4.2 and 4.3), not four.
   *
   * <p>Note: the buffer is read-only, positioned at the state's first byte with the state's length remaining, and
   * valid only during this call (the framework may reuse its memory afterwards): copy what you keep. Reading it
   * moves only this buffer's position.
   *
   * @param actor the new instance.
   * @param state the captured bytes, {@code state.remaining()} of them (0 is valid); read-only.
   */
  default void restore(final A actor, final java.nio.ByteBuffer state) {
    final byte[] bytes = new byte[state.remaining()];
    state.get(bytes);
    restore(actor, bytes);
  }
}
