package dev.spotkit.core;

/**
 * Captures and restores a SpotWide User Spot's or an Instance Spot's application state when it moves between
 * nodes (PreserveStateWith, spec 000 section 6). A PerActor spot may not register one (startup error).
 * Registered now; called by cross-node moves in a later release.
 *
 * @param <S> the spot type.
 */
public interface SpotRelocationAdapter<S extends Spot> {
  /**
   * Captures state at a turn boundary.
   *
   * @param spot the source instance.
   * @return opaque bytes; empty is valid, null is a contract violation.
   */
  byte[] capture(S spot);

  /**
   * Applies captured state to the instance the target factory built.
   *
   * @param spot the new instance.
   * @param state valid only during this call: copy it to keep it.
   */
  void restore(S spot, byte[] state);
}
