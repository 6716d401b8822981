package dev.spotkit.relocation;

/**
 * What moves a unit from one {@link Stage} to the next; the column index of the {@link Transitions} table.
 * A unit maps each event to at most one trigger; events that are late or duplicate map to none and only log.
 */
public enum Trigger {
  /** Source: budget room found, dispatch stops after the current turn, payload is captured (4.1, 5.3). */
  SEAL,
  /** Source: an explicit failure reply arrived before the relay-ready reply was accepted (the one reversal). */
  EXPLICIT_FAILURE,
  /** Source: the relay-ready reply was accepted; restoring the source is forbidden from here on (4.4). */
  RELAY_READY_ACCEPTED,
  /** Source: the pre-boundary relay and the one-way cutover were submitted (4.4). */
  CUTOVER_SUBMITTED,
  /** Target: payload assembled, checksum matched, Restore finished, relay-ready reply sent (4.3). */
  RESTORED,
  /** Target: cutover arrived and matched (4.4). */
  CUTOVER,
  /** Target: the cutover wait elapsed since the relay-ready reply (4.4). */
  CUTOVER_WAIT_ELAPSED,
  /** Target: the store answered with a retryable error, a conflict to confirm, or not at all (4.5, 6). */
  STORE_UNSURE,
  /** Target: the CAS applied, or a re-read shows this target as owner (4.5). */
  CAS_APPLIED,
  /** Target: backlog merged in order and dispatch opened (4.6). */
  BACKLOG_OPENED,
  /**
   * Target: preparation ends in failure: checksum or manifest conflict, Restore failure, superseded by a newer
   * identity, stale owner, or Restore validity expired (4.3, 4.5, 9).
   */
  STAGING_REMOVED
}
