package dev.spotkit.core;

import java.util.Objects;

/**
 * What {@link Spot#onClosing(ClosingContext)} receives: the reason and the operation's absolute deadline
 * (spec 000 section 5). The framework stops waiting for the callback at the deadline. Do not keep it after
 * the callback.
 *
 * @param reason why the instance terminates.
 * @param deadline when the framework stops waiting.
 */
public record ClosingContext(ClosingReason reason, Deadline deadline) {
  /** Checks for null. */
  public ClosingContext {
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(deadline, "deadline");
  }
}
