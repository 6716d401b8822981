package dev.spotkit.relocation;

/**
 * The in-flight payload budget of spec 001 section 5.3: the sum of relocation chunk bytes a source node has in
 * flight at once on one peer connection ({@code RelocationInFlightPayloadBudget}, default 16 MiB, 0 disables), with
 * an optional node-wide parent ({@code RelocationNodeInFlightPayloadBudget}, 0 = not applied). It limits bytes in
 * flight, never the payload size: a payload larger than the budget starts and finishes chunk by chunk. It is not
 * a relocation-only correctness cap; a unit that finds it full waits before its seal while its object keeps serving.
 *
 * <p>Note: not thread-safe; one driver owns all units of a node and calls them serially.
 */
public final class InFlightBudget {
  /** Default per-peer-connection budget: 16 MiB. */
  public static final long DEFAULT_PEER_BYTES = 16L * 1024 * 1024;

  private final long limitBytes;
  private final InFlightBudget node;
  private long usedBytes;

  /**
   * Creates a budget.
   *
   * @param limitBytes the limit in bytes; 0 disables this level.
   * @param node the node-wide budget this one also charges, or null when none is applied.
   * @throws IllegalArgumentException when {@code limitBytes} is negative.
   */
  public InFlightBudget(final long limitBytes, final InFlightBudget node) {
    if (limitBytes < 0) {
      throw new IllegalArgumentException("budget limitBytes must be >= 0 (0 disables), was " + limitBytes);
    }
    this.limitBytes = limitBytes;
    this.node = node;
  }

  /**
   * A per-peer budget of 16 MiB with no node-wide budget.
   *
   * @return the budget.
   */
  public static InFlightBudget peerDefault() {
    return new InFlightBudget(DEFAULT_PEER_BYTES, null);
  }

  /**
   * The effective limit used for chunk sizing: the smaller enabled limit of this level and the node level.
   *
   * @return bytes, 0 when no level is enabled.
   */
  public long effectiveLimitBytes() {
    final long nodeLimit = node == null ? 0 : node.effectiveLimitBytes();
    if (limitBytes == 0) {
      return nodeLimit;
    }
    return nodeLimit == 0 ? limitBytes : Math.min(limitBytes, nodeLimit);
  }

  /**
   * Whether {@code bytes} more fit now at this level and the node level.
   *
   * @param bytes the charge in bytes, 0..
   * @return true when charging would stay within every enabled limit.
   */
  public boolean hasRoomFor(final long bytes) {
    final boolean here = limitBytes == 0 || usedBytes + bytes <= limitBytes;
    return here && (node == null || node.hasRoomFor(bytes));
  }

  /**
   * Charges bytes if they fit.
   *
   * @param bytes the charge in bytes, 0..
   * @return true when charged; false (nothing charged) when the budget is full.
   */
  public boolean tryCharge(final long bytes) {
    if (!hasRoomFor(bytes)) {
      return false;
    }
    usedBytes += bytes;
    if (node != null) {
      node.usedBytes += bytes;
    }
    return true;
  }

  /**
   * Releases a charge.
   *
   * @param bytes bytes previously charged.
   * @throws IllegalStateException when releasing more than is charged (a driver defect).
   */
  public void release(final long bytes) {
    if (bytes > usedBytes || node != null && bytes > node.usedBytes) {
      throw new IllegalStateException("release of " + bytes + " bytes exceeds the " + usedBytes + " charged");
    }
    usedBytes -= bytes;
    if (node != null) {
      node.usedBytes -= bytes;
    }
  }

  /**
   * Bytes in flight at this level.
   *
   * @return bytes, 0..
   */
  public long usedBytes() {
    return usedBytes;
  }
}
