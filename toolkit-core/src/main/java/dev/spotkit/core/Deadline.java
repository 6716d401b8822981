package dev.spotkit.core;

import java.time.Duration;

/**
 * An absolute deadline on the monotonic clock ({@link System#nanoTime()}), fixed when an operation starts
 * so retries and hops never extend it (spec 000 sections 2 and 4). Immutable; any thread.
 *
 * @param nanoTime the {@code System.nanoTime()} value at which the deadline passes.
 */
public record Deadline(long nanoTime) {

  /**
   * The deadline {@code timeout} from now.
   *
   * @param timeout positive.
   * @return the deadline.
   * @throws SpotkitException.InvalidOperation when not positive.
   */
  public static Deadline after(final Duration timeout) {
    if (timeout == null || timeout.isNegative() || timeout.isZero()) {
      throw new SpotkitException.InvalidOperation("timeout " + timeout
          + " must be positive, e.g. Duration.ofSeconds(5)");
    }
    return new Deadline(System.nanoTime() + timeout.toNanos());
  }

  /**
   * Time left.
   *
   * @return zero or positive.
   */
  public Duration remaining() {
    return Duration.ofNanos(Math.max(0, nanoTime - System.nanoTime()));
  }

  /**
   * Whether the deadline passed.
   *
   * @return true once {@code System.nanoTime()} reached it.
   */
  public boolean isExpired() {
    return System.nanoTime() - nanoTime >= 0;
  }
}
