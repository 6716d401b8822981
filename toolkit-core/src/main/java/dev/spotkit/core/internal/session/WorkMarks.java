package dev.spotkit.core.internal.session;

import dev.spotkit.core.internal.runtime.JsonCopier;
import dev.spotkit.relocation.wire.ApplicationPayload;

/**
 * The Spotkit-defined content types that mark framework work in command 60 and in a frozen relocation record: a
 * client frame or disconnect of a bound session, a bad frame's error reply, a route flush marker (spec 000 section
 * 4.2 step 8; the message codec's own content type otherwise). Stateless.
 */
public final class WorkMarks {
  /** Content type marking a client frame in command 60 and in a frozen record (Spotkit-defined). */
  public static final String FRAME_CONTENT = "application/x-spotkit-session-frame+json";
  /** Content type marking a session disconnect in command 60 and in a frozen record (Spotkit-defined). */
  public static final String CLOSED_CONTENT = "application/x-spotkit-session-closed+json";
  /** Content type marking a route flush marker in command 60 and in a frozen record (Spotkit-defined). */
  public static final String ROUTE_FLUSH_CONTENT = "application/x-spotkit-route-flush+json";
  /** Content type marking a bad frame's error reply in command 60 and in a frozen record (Spotkit-defined). */
  public static final String BAD_FRAME_REPLY_CONTENT = "application/x-spotkit-session-bad-frame-reply+json";

  private WorkMarks() {
  }

  /**
   * The payload of a message, marked with its session work ({@link SessionBinder#FRAME}, {@link SessionBinder#CLOSED},
   * {@link SessionBinder#BAD_FRAME_REPLY}, {@link SessionBinder#ROUTE_FLUSH}, or 0: none).
   */
  public static ApplicationPayload mark(final ApplicationPayload payload, final int work) {
    if (work == 0) {
      return payload;
    }
    return new ApplicationPayload(payload.packetName(), switch (work) {
      case SessionBinder.FRAME -> FRAME_CONTENT;
      case SessionBinder.BAD_FRAME_REPLY -> BAD_FRAME_REPLY_CONTENT;
      case SessionBinder.ROUTE_FLUSH -> ROUTE_FLUSH_CONTENT;
      default -> CLOSED_CONTENT;
    }, payload.payload());
  }

  /** The payload without its session work mark (the message codec's own content type). */
  public static ApplicationPayload unmark(final ApplicationPayload payload) {
    return workOf(payload) == 0 ? payload : new ApplicationPayload(payload.packetName(), JsonCopier.JSON,
        payload.payload());
  }

  /** The session work a payload is marked with, 0 for none. */
  public static int workOf(final ApplicationPayload payload) {
    return switch (payload.contentType()) {
      case FRAME_CONTENT -> SessionBinder.FRAME;
      case CLOSED_CONTENT -> SessionBinder.CLOSED;
      case BAD_FRAME_REPLY_CONTENT -> SessionBinder.BAD_FRAME_REPLY;
      case ROUTE_FLUSH_CONTENT -> SessionBinder.ROUTE_FLUSH;
      default -> 0;
    };
  }
}
