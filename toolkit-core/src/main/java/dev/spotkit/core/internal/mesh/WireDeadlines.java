package dev.spotkit.core.internal.mesh;

import dev.spotkit.core.Deadline;
import java.time.Duration;

/**
 * Deadlines on the wire: command 60's millisecond budget and the Unix ms deadlines of the relocation and creation
 * commands, to and from this process's monotonic {@link Deadline}. A peer's value never throws here and never
 * yields a deadline more than {@link Deadline#MAX_TIMEOUT} away (a peer's clock may be far off).
 */
public final class WireDeadlines {
  private WireDeadlines() {
  }

  /**
   * Command 60's deadline budget: the milliseconds left until {@code deadline} (rounded up, at least 1), read when
   * the frame is encoded (see {@link dev.spotkit.core.wire.ApplicationMessage}).
   *
   * @param deadline the request's deadline.
   * @return 1..(ms left), rounded up.
   */
  public static long budgetMs(final Deadline deadline) {
    final long nanos = deadline.remaining().toNanos();
    return Math.max(1, (nanos + 999_999) / 1_000_000);
  }

  /**
   * The monotonic deadline of a command 60 budget that arrived now: at most {@link Deadline#MAX_TIMEOUT} away,
   * whatever the peer sent.
   *
   * @param budgetMs the budget the peer sent, ms (any value).
   * @return a deadline 1 ms..{@link Deadline#MAX_TIMEOUT} from now.
   */
  public static Deadline budgetDeadline(final long budgetMs) {
    return Deadline.after(Duration.ofMillis(Math.max(1, Math.min(budgetMs, Deadline.MAX_TIMEOUT.toMillis()))));
  }

  /**
   * Unix ms of a monotonic deadline, for the wire.
   *
   * @param deadline the deadline.
   * @return Unix epoch ms, at least 1 ms from now.
   */
  public static long unixMs(final Deadline deadline) {
    return System.currentTimeMillis() + Math.max(1, deadline.remaining().toMillis());
  }

  /**
   * The monotonic deadline of a wire Unix ms deadline: at least 1 ms and at most {@link Deadline#MAX_TIMEOUT}
   * from now, whatever the peer sent (a peer's clock may be far off; its value never throws here).
   *
   * @param unixMs the peer's Unix epoch ms deadline (any value).
   * @return a deadline 1 ms..{@link Deadline#MAX_TIMEOUT} from now.
   */
  public static Deadline deadlineOf(final long unixMs) {
    final long left = Math.max(1, Math.min(unixMs - System.currentTimeMillis(), Deadline.MAX_TIMEOUT.toMillis()));
    return Deadline.after(Duration.ofMillis(left));
  }
}
