package dev.spotkit.core.internal.observe;

import io.micrometer.core.instrument.Counter;
import java.util.concurrent.atomic.LongAdder;

/**
 * The counts behind the meters of one actor or spot type on one node, cached by every cell of the type so a message
 * costs no lookup: two {@link LongAdder} adds per handled message (turns, nanoseconds), read at scrape time by the
 * {@code spotkit.turn.duration} function timer and the {@code spotkit.messages.handled} function counters. A
 * Micrometer {@code Timer} per message measured about twice the per-hop cost of ping-pong (its window max reads the
 * wall clock and CASes), so the turn timer has count and total, no max. Any thread.
 */
public final class TypeMeters {
  final LongAdder turns = new LongAdder();
  final LongAdder nanos = new LongAdder();
  final LongAdder failed = new LongAdder();
  private Counter unhandled;

  TypeMeters() {
  }

  void unhandledCounter(final Counter counter) {
    this.unhandled = counter;
  }

  /**
   * One handler turn ran.
   *
   * @param turnNanos its duration, handler start to end.
   * @param threw whether the handler threw.
   */
  public void handled(final long turnNanos, final boolean threw) {
    turns.increment();
    nanos.add(turnNanos);
    if (threw) {
      failed.increment();
    }
  }

  /** A message found no handler (dropped, or its request failed with TypeMismatch). */
  public void unhandled() {
    unhandled.increment();
  }
}
