package dev.spotkit.core.internal.observe;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.TimeUnit;

/**
 * The meters of one actor or spot type on one node, cached by every cell of the type so a message costs no lookup:
 * {@code spotkit.turn.duration} and {@code spotkit.messages.handled} by outcome. Any thread.
 */
public final class TypeMeters {
  private final Timer turn;
  private final Counter ok;
  private final Counter failed;
  private final Counter unhandled;

  TypeMeters(final Timer turn, final Counter ok, final Counter failed, final Counter unhandled) {
    this.turn = turn;
    this.ok = ok;
    this.failed = failed;
    this.unhandled = unhandled;
  }

  /**
   * One handler turn ran.
   *
   * @param nanos its duration, handler start to end.
   * @param threw whether the handler threw.
   */
  public void handled(final long nanos, final boolean threw) {
    turn.record(nanos, TimeUnit.NANOSECONDS);
    (threw ? failed : ok).increment();
  }

  /** A message found no handler (dropped, or its request failed with TypeMismatch). */
  public void unhandled() {
    unhandled.increment();
  }
}
