package dev.spotkit.relocation;

/**
 * Why a target sends command 53 relocationFailed before its relay-ready reply (spec 001 sections 4.3, 9). Every
 * code is an explicit failure: the source restores itself from the payload in memory if it has not yet accepted
 * a relay-ready reply.
 */
public enum FailureCode {
  /** The assembled payload's CRC-32C differs from the Restore request's; never retried (section 4.3). */
  CHECKSUM_MISMATCH(1),
  /** Same identity, different length, chunk count or checksum; or a chunk outside the declared manifest. */
  MANIFEST_CONFLICT(2),
  /** The factory or the Restore of state, queue or timers failed. */
  RESTORE_FAILED(3),
  /** A newer relocation identity for the same object arrived before relay-ready; the later attempt wins. */
  SUPERSEDED(4),
  /** Restore validity expired before the relay-ready reply. */
  DEADLINE(5),
  /** Another relocation of the same object is already past its relay-ready reply on this target. */
  BUSY(6);

  private final int code;

  FailureCode(final int code) {
    this.code = code;
  }

  /**
   * The non-zero u32 failure code carried by command 53 (Spotkit's numbering until the wire codec fixes it).
   *
   * @return 1..6.
   */
  public int code() {
    return code;
  }
}
