package dev.spotkit.core;

/**
 * What every Spot kind shares (spec 003 sections 2-3): an address, state, handlers for direct messages,
 * timers, and callbacks run one at a time with its turns. Implement one of the three kinds:
 * {@link EntrySpot}, {@link UserSpot} or {@link InstanceSpot}.
 *
 * <p>Lifecycle order (spec 003 section 3.2): factory, {@link #configure}, (User Spot: OnCreate),
 * {@link #onInitialize()}, Ready; at the end {@link #onClosing(ClosingContext)}.
 */
public sealed interface Spot permits EntrySpot, UserSpot, InstanceSpot {

  /**
   * The context the factory received, returned as-is (spec 003 section 7).
   *
   * @return the context.
   */
  SpotContext context();

  /**
   * Registers the spot's direct-message handlers (and may start timers). Called once after the factory. The
   * default registers nothing: a spot that only hosts actors (a lobby Entry Spot) needs no override.
   *
   * @param on the registry; valid only during this call.
   */
  default void configure(final SpotHandlers on) {
  }

  /**
   * Finishes application initialization; the spot becomes Ready (and, for the Entry Spot, is published)
   * only after it returns. Throwing fails the creation (for the Entry Spot: the node start). Default: nothing.
   */
  default void onInitialize() {
  }

  /**
   * Terminal callback of this spot instance (spec 003 section 3.4, spec 000 section 5): ExplicitClose or
   * HostShutdown today. Runs while membership is still valid; the framework stops waiting at the deadline.
   * Not called when a User Spot close returns false. Default: nothing.
   *
   * @param closing the reason and the absolute deadline.
   */
  default void onClosing(ClosingContext closing) {
  }
}
