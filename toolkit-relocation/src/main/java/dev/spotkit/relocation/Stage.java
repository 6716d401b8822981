package dev.spotkit.relocation;

/**
 * The progress stages of one relocation unit, named as in spec 001 section 11. A {@link SourceUnit} walks
 * {@code SOURCE_RUNNING -> SOURCE_PAUSED -> RELAY_READY -> FOLLOW_ONLY}; a {@link TargetUnit} walks
 * {@code TARGET_RESTORING -> RELAY_READY -> CUTOVER_RECEIVED | CUTOVER_FALLBACK -> [STORE_RETRY] ->
 * OWNER_COMMITTED -> TARGET_OPEN}, or ends in {@code TARGET_REMOVED}. The allowed edges are the data of
 * {@link Transitions}.
 */
public enum Stage {
  /** Source: normal processing, application dispatch open (spec 001 section 4.1). */
  SOURCE_RUNNING("SourceRunning"),
  /** Source: dispatch stopped after the current turn, payload captured, ingress held (section 4.1, 4.2). */
  SOURCE_PAUSED("SourcePaused"),
  /** Target: temporary queue installed, chunks assembling, Restore running (section 4.3). */
  TARGET_RESTORING("TargetRestoring"),
  /** Target: relay-ready reply sent; source: relay-ready reply accepted (the irreversible boundary, 4.4). */
  RELAY_READY("RelayReady"),
  /** Target: cutover arrived and its record count and CRC-32C matched the pre-boundary span (section 4.4). */
  CUTOVER_RECEIVED("CutoverReceived"),
  /** Target: the cutover wait elapsed without cutover; proceeds with a cutover_timeout warning (4.4, FACTS). */
  CUTOVER_FALLBACK("CutoverFallback"),
  /** Target: the Location Store answered transiently or not at all; re-read and retry the same CAS (4.5). */
  STORE_RETRY("StoreRetry"),
  /** Target: the CAS made the target the owner (section 4.5, 6). */
  OWNER_COMMITTED("OwnerCommitted"),
  /** Target, terminal: prepared object, temporary queue and relocation state removed (4.3, 4.5, 9). */
  TARGET_REMOVED("TargetRemoved"),
  /** Target, terminal: backlog merged and application dispatch open (section 4.6). */
  TARGET_OPEN("TargetOpen"),
  /** Source, terminal: cutover submitted, only Message Follow remains (section 10). */
  FOLLOW_ONLY("FollowOnly");

  private final String specName;

  Stage(final String specName) {
    this.specName = specName;
  }

  /**
   * The stage name exactly as spec 001 section 11 spells it.
   *
   * @return e.g. {@code "CutoverFallback"}.
   */
  public String specName() {
    return specName;
  }
}
