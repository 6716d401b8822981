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
   * The longest timeout accepted anywhere a timeout is set: 365 days. Far beyond any real operation, and far
   * below the roughly 292 years a {@code long} of nanoseconds can hold, so deadline arithmetic never overflows.
   */
  public static final Duration MAX_TIMEOUT = Duration.ofDays(365);

  /**
   * The deadline {@code timeout} from now.
   *
   * @param timeout positive, at most {@link #MAX_TIMEOUT} (365 days).
   * @return the deadline.
   * @throws SpotkitException.InvalidOperation when null, not positive, or over {@link #MAX_TIMEOUT}; the
   *     message names the value and the allowed range.
   */
  public static Deadline after(final Duration timeout) {
    if (timeout == null || timeout.isNegative() || timeout.isZero() || timeout.compareTo(MAX_TIMEOUT) > 0) {
      throw new SpotkitException.InvalidOperation("timeout " + timeout + " is outside the allowed range: more"
          + " than 0 and at most " + MAX_TIMEOUT + " (365 days), e.g. Duration.ofSeconds(5)");
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
