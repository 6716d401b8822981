package dev.spotkit.core;

/**
 * How an application-signaled relocation boundary ended (spec 003 section 5.1): what
 * {@link UserSpot#onRelocationReadyCompleted(RelocationReadyOutcome)} is told.
 */
public enum RelocationReadyOutcome {
  /**
   * No move used the boundary, or a move was cancelled before the target's relay-ready: the Spot stays on this node
   * and the callback runs here before the Spot's next job.
   */
  CONTINUED,
  /**
   * The Spot moved with its members: the callback runs on the new owner after the Location Store CAS and the queue
   * merge, before its dispatch opens.
   */
  RELOCATED
}
