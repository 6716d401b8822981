package dev.spotkit.core.internal.observe;

import io.micrometer.core.instrument.Counter;
import java.util.concurrent.atomic.LongAccumulator;
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
  /** The most messages seen queued behind a starting turn in one mailbox of the type, since the last read. */
  final LongAccumulator depthMax = new LongAccumulator(Math::max, 0);
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

  /**
   * A turn starts with {@code queued} messages behind it in its mailbox: feeds {@code spotkit.mailbox.depth.max}.
   * No write when it is not above the highest seen since the last read (a plain read of the accumulator's base).
   *
   * @param queued messages queued in the cell's mailbox at turn start, 0 or more.
   */
  public void queuedAtTurn(final int queued) {
    depthMax.accumulate(queued);
  }

  /** A message found no handler (dropped, or its request failed with TypeMismatch). */
  public void unhandled() {
    unhandled.increment();
  }
}
