package dev.spotkit.core.wire;

import dev.spotkit.relocation.wire.WireError;
import dev.spotkit.relocation.wire.WireIn;

/** {@code request-terminal-result}: how a request ended, a u32 in command 20. */
public enum TerminalResult {
  /** The request completed; the reply's tail carries the result. */
  OK(0),
  /** The deadline passed. */
  TIMED_OUT(101),
  /** The target does not exist. */
  NOT_FOUND(102),
  /** The target terminated while handling. */
  TERMINATED(103),
  /** The request broke the protocol. */
  PROTOCOL_ERROR(104),
  /** The target failed internally. */
  INTERNAL_ERROR(105),
  /** The application rejected the request. */
  REJECTED(106),
  /** A fence (generation, StoreVersion) did not match. */
  CONFLICT(107),
  /** The target is busy. */
  BUSY(108),
  /** No route to the target. */
  NOT_CONNECTED(109),
  /** An argument is invalid. */
  INVALID_ARGUMENT(110),
  /** The target is in a state that refuses the request. */
  INVALID_STATE(111),
  /** The target does not support the request. */
  NOT_SUPPORTED(112),
  /** The target refused for backpressure. */
  BACKPRESSURED(113);

  private final int wire;

  TerminalResult(final int wire) {
    this.wire = wire;
  }

  /**
   * The wire value.
   *
   * @return the u32 value.
   */
  public int wireValue() {
    return wire;
  }

  static TerminalResult read(final WireIn in, final String field) {
    final int at = in.position();
    final long v = in.u32(field);
    for (TerminalResult r : values()) {
      if (r.wire == v) {
        return r;
      }
    }
    throw in.error(WireError.INVALID_FIELD, field, at, "value " + v, "0 or 101..113");
  }
}
