package dev.spotkit.core.internal.runtime;

import dev.spotkit.core.internal.session.SessionBinder;

/** What a cell's mailbox carries. */
public sealed interface Envelope {

  /**
   * An application message; {@code reply} is null for a one-way send.
   *
   * @param payload the message.
   * @param reply where the reply goes, or null.
   * @param sessionWork 0 for an application message; {@link SessionBinder#FRAME} for a client frame of a bound
   *     session delivered away from the session's own node, {@link SessionBinder#CLOSED} for that session's
   *     disconnect. Session work is one-way ({@code reply} null): nothing answers it (spec 001 section 11, no
   *     per-message ACK).
   */
  record Msg(Object payload, ReplySink reply, int sessionWork) implements Envelope {
    /**
     * An application message (no session work).
     *
     * @param payload the message.
     * @param reply where the reply goes, or null.
     */
    Msg(final Object payload, final ReplySink reply) {
      this(payload, reply, 0);
    }
  }

  /**
   * A frame of the actor's bound client session: handled like a one-way message whose payload is the frame
   * (the actor receives the plain frame, e.g. a String); once its handler ran (or it was found unhandled),
   * the session's inbound count drops by one (inbound backpressure, see {@code SessionBinder}). A frame found
   * in the queue or the ingress hold when the actor is captured for a relocation leaves the count and becomes a
   * one-way {@link Msg} with {@link SessionBinder#FRAME} session work.
   *
   * @param payload the decoded frame.
   * @param link the binding whose count it holds.
   */
  record Frame(Object payload, SessionBinder.Link link) implements Envelope {
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
