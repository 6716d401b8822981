package dev.spotkit.relocation;

/**
 * The timing and size settings a unit uses (spec 001 sections 4.2, 4.4, 5.3; spec 002 section 7.3).
 *
 * @param chunkLimitBytes RelocationPayloadChunkLimit, encoded size of one chunk, 1..; default 256 KiB.
 * @param advertisedReceiveLimitBytes the target's effective receive chunk limit from a reply before the seal,
 *     or 0 when no such reply exists (then the conservative 32 KiB applies).
 * @param cutoverWaitMs RelocationCutoverWaitTimeout in ms, also the source's retransmission window; default 1,000.
 * @param followDurationMs MessageFollowDuration in ms; default 30,000; 0 disables Message Follow.
 * @param storeRetryBackoffMs wait in ms before re-reading the store after a transient or missing answer; 0..
 *     (a Spotkit choice; the spec fixes only the deadline).
 */
public record RelocationSettings(int chunkLimitBytes, int advertisedReceiveLimitBytes, long cutoverWaitMs,
    long followDurationMs, long storeRetryBackoffMs) {
  /** Default chunk limit: 256 KiB. */
  public static final int DEFAULT_CHUNK_LIMIT = 256 * 1024;
  /** Conservative chunk size when no negotiation reply exists: 32 KiB (section 4.2). */
  public static final int CONSERVATIVE_CHUNK = 32 * 1024;
  /** Default cutover wait: 1,000 ms. */
  public static final long DEFAULT_CUTOVER_WAIT_MS = 1_000;
  /** Default Message Follow duration: 30,000 ms. */
  public static final long DEFAULT_FOLLOW_MS = 30_000;

  /**
   * Validates the settings.
   *
   * @throws IllegalArgumentException on a non-positive chunk limit, a negative value, or a zero cutover wait.
   */
  public RelocationSettings {
    if (chunkLimitBytes <= 0 || advertisedReceiveLimitBytes < 0 || cutoverWaitMs <= 0 || followDurationMs < 0
        || storeRetryBackoffMs < 0) {
      throw new IllegalArgumentException("invalid relocation settings: chunkLimitBytes=" + chunkLimitBytes
          + " advertisedReceiveLimitBytes=" + advertisedReceiveLimitBytes + " cutoverWaitMs=" + cutoverWaitMs
          + " followDurationMs=" + followDurationMs + " storeRetryBackoffMs=" + storeRetryBackoffMs);
    }
  }

  /**
   * The defaults: 256 KiB chunk limit, no negotiated limit (32 KiB), 1,000 ms cutover wait, 30 s follow, 50 ms
   * store retry backoff.
   *
   * @return the defaults.
   */
  public static RelocationSettings defaults() {
    return new RelocationSettings(DEFAULT_CHUNK_LIMIT, 0, DEFAULT_CUTOVER_WAIT_MS, DEFAULT_FOLLOW_MS, 50);
  }

  /**
   * The effective chunk size: the smallest of the chunk limit, the advertised receive limit (or 32 KiB when none)
   * and the in-flight budget (when enabled) (section 4.2).
   *
   * @param budgetBytes the effective in-flight budget in bytes, 0 when disabled.
   * @return the chunk size in bytes, at least 1.
   */
  public int effectiveChunkBytes(final long budgetBytes) {
    long size = Math.min(chunkLimitBytes,
        advertisedReceiveLimitBytes == 0 ? CONSERVATIVE_CHUNK : advertisedReceiveLimitBytes);
    if (budgetBytes > 0) {
      size = Math.min(size, budgetBytes);
    }
    return (int) Math.max(1, size);
  }
}
