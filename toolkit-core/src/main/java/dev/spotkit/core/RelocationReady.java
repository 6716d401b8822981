package dev.spotkit.core;

/**
 * The application-signaled relocation boundary of a SpotWide User Spot registered with
 * {@link UserSpotOptions#applicationSignaledRelocation()} (spec 003 section 5.1, spec 000 section 7): get it from
 * {@link UserSpotContext#relocationReady()}. Such a Spot moves (by {@link MeshNode#relocateSpot(SpotId, NodeRid)} or
 * a host drain) only at a boundary the application registers with {@link #defer()}, for example between two rounds
 * of a game; the framework then calls {@link UserSpot#onRelocationReadyCompleted(RelocationReadyOutcome)} once per
 * boundary, on the node that runs the Spot next, before its next job.
 */
public final class RelocationReady {
  private final Runnable register;

  RelocationReady(final Runnable register) {
    this.register = register;
  }

  /**
   * Registers the boundary after the current turn: when the turn ends, a move waiting for this Spot seals it there
   * (the room and its members move; {@code onRelocationReadyCompleted(RELOCATED)} runs on the target before its
   * dispatch opens); without one, or when that move fails before the target's relay-ready,
   * {@code onRelocationReadyCompleted(CONTINUED)} runs here before the Spot's next job. Calling it twice in one turn
   * registers one boundary. Only inside a handler, timer or callback turn of this Spot.
   *
   * @throws SpotkitException.InvalidOperation outside a turn of this Spot, or when the Spot is not a SpotWide User
   *     Spot registered with {@link UserSpotOptions#applicationSignaledRelocation()} (spec 003 section 5.1: on
   *     FrameworkManaged, PerActor, Entry or Instance Spots it fails before any queue change, and no completion
   *     callback runs).
   */
  public void defer() {
    register.run();
  }
}
