package dev.spotkit.core;

/** An Instance Spot's context: no members; close only from its own context (spec 003 section 6). */
public sealed interface InstanceSpotContext extends SpotContext permits InstanceSpotContextImpl {

  /**
   * Closes this spot after the current turn: OnClosing(ExplicitClose), then release. A later message with
   * Instance intent activates a new incarnation with a new generation. Only inside a handler turn of this spot.
   *
   * @return true.
   * @throws SpotkitException.InvalidOperation outside a handler turn of this spot.
   */
  boolean close();
}
