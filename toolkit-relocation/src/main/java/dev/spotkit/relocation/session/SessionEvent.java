package dev.spotkit.relocation.session;

import dev.spotkit.relocation.Message;
import dev.spotkit.relocation.wire.Fields;
import dev.spotkit.relocation.wire.SessionRelocationFrame;

/**
 * An input of a {@link SessionBarrier}. Every event carries the time it arrived, {@code atMs}, in milliseconds on
 * the driver's monotonic clock, stamped by the driver when it read the frame or when the timer fired, not when the
 * barrier processes it; the barrier decides the seal timeout from this stamp alone (spec 001 section 12: an event
 * stamped within the timeout counts as in time even if processed later). Records are immutable; any thread.
 */
public sealed interface SessionEvent {

  /**
   * When the event arrived.
   *
   * @return ms on the driver's monotonic clock, 0..2^63-1.
   */
  long atMs();

  /** Checks an event's stamp: caller misuse is {@link IllegalArgumentException}. */
  private static long stamp(final long atMs) {
    if (atMs < 0) {
      throw new IllegalArgumentException("atMs " + atMs + " must be in 0..9223372036854775807 (the driver's "
          + "monotonic clock, ms)");
    }
    return atMs;
  }

  /**
   * A command 42 sessionRelocationSeal arrived for this binding (spec 001 section 4.1).
   *
   * @param seal the decoded frame.
   * @param atMs when it was read, ms.
   */
  record SealArrived(SessionRelocationFrame.Seal seal, long atMs) implements SessionEvent {
    /**
     * Validates.
     *
     * @throws IllegalArgumentException when {@code seal} is null or {@code atMs} is negative.
     */
    public SealArrived {
      Fields.present("seal", seal);
      stamp(atMs);
    }
  }

  /**
   * A command 44 sessionRelocationRoute (commit or abort) arrived (spec 001 sections 7 and 9).
   *
   * @param route the decoded frame.
   * @param atMs when it was read, ms.
   */
  record RouteArrived(SessionRelocationFrame.Route route, long atMs) implements SessionEvent {
    /**
     * Validates.
     *
     * @throws IllegalArgumentException when {@code route} is null or {@code atMs} is negative.
     */
    public RouteArrived {
      Fields.present("route", route);
      stamp(atMs);
    }
  }

  /**
   * A request or push from the physical session to the bound Actor, in the order the session delivered it.
   *
   * @param message the work (operation id, reply route and deadline kept unchanged).
   * @param atMs when it was read, ms.
   */
  record ClientMessageArrived(Message message, long atMs) implements SessionEvent {
    /**
     * Validates.
     *
     * @throws IllegalArgumentException when {@code message} is null or {@code atMs} is negative.
     */
    public ClientMessageArrived {
      Fields.present("message", message);
      stamp(atMs);
    }
  }

  /**
   * The driver's timer fired; see {@link SessionBarrier#nextDeadlineMs()}. A spurious one changes nothing.
   *
   * @param atMs when it fired, ms.
   */
  record ClockAdvanced(long atMs) implements SessionEvent {
    /**
     * Validates.
     *
     * @throws IllegalArgumentException when {@code atMs} is negative.
     */
    public ClockAdvanced {
      stamp(atMs);
    }
  }
}

