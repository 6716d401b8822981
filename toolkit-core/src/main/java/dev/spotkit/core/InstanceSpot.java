package dev.spotkit.core;

/**
 * A Spot with no Actor membership that processes direct messages and timers (spec 003 section 6). It is
 * activated by the first message that carries Instance intent ({@code toInstanceSpot(id, type)}), and that
 * message is processed first; a plain message to a missing Instance Spot is NotFound, and Find never creates
 * one (SPOT-03). It can be closed only from its own context, and, when registered with
 * {@link InstanceSpotOptions#idleTimeout}, it is cleaned up by the framework once idle (spec 003 section 6.2,
 * {@link ClosingReason#IDLE_EVICTED}).
 */
public non-sealed interface InstanceSpot extends Spot {

  @Override
  InstanceSpotContext context();

  /**
   * This spot's timers; same as {@code context().timers()}.
   *
   * @return the timers.
   */
  default Timers timers() {
    return context().timers();
  }
}
