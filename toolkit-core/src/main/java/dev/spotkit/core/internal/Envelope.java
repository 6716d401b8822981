package dev.spotkit.core.internal;

/** What a cell's mailbox carries. */
sealed interface Envelope {

  /**
   * An application message; {@code reply} is null for a one-way send.
   *
   * @param payload the message.
   * @param reply where the reply goes, or null.
   */
  record Msg(Object payload, ReplySink reply) implements Envelope {
  }

  /**
   * A timer tick.
   *
   * @param timer the timer.
   */
  record Tick(CellTimers.Entry timer) implements Envelope {
  }

  /**
   * A framework marker that runs in queue order (behind every message accepted before it), e.g. the
   * shutdown drain. Runs even when the mailbox is released (then from the release).
   *
   * @param task what to run.
   */
  record Marker(Runnable task) implements Envelope {
  }
}
