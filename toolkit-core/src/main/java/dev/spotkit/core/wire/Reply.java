package dev.spotkit.core.wire;

import dev.spotkit.relocation.wire.ApplicationPayload;

/**
 * Command 20, {@code reply}: the one answer to a request, matched to it by {@link #correlation()}. Encode and
 * decode with {@link ReplyCodec}.
 *
 * @param correlation the request's correlation, 1..2^63-1.
 * @param terminalResult how the request ended.
 * @param failureCode the framework's reason, {@link FailureCode#NONE} when none.
 * @param tail the request-specific tail; {@link ReplyTail.Empty} unless {@code terminalResult} is OK and the
 *     request kind has one.
 * @param payload the optional application reply, or null.
 */
public record Reply(long correlation, TerminalResult terminalResult, FailureCode failureCode, ReplyTail tail,
    ApplicationPayload payload) {

  /**
   * Validates the values.
   *
   * @throws dev.spotkit.core.SpotkitException.InvalidOperation when a value is missing, or a failed reply
   *     carries a non-empty tail.
   */
  public Reply {
    Checks.RULES.positive("correlation", correlation);
    Checks.RULES.present("terminalResult", terminalResult);
    Checks.RULES.present("failureCode", failureCode);
    Checks.RULES.present("tail", tail);
    if (terminalResult != TerminalResult.OK && !(tail instanceof ReplyTail.Empty)) {
      throw new dev.spotkit.core.SpotkitException.InvalidOperation("a " + terminalResult
          + " reply has no tail; use ReplyTail.Empty.INSTANCE instead of " + tail);
    }
  }

  /**
   * A reply without tail or payload.
   *
   * @param correlation the request's correlation.
   * @param terminalResult how it ended.
   * @param failureCode the framework's reason.
   * @return the reply.
   */
  public static Reply of(final long correlation, final TerminalResult terminalResult,
      final FailureCode failureCode) {
    return new Reply(correlation, terminalResult, failureCode, ReplyTail.Empty.INSTANCE, null);
  }

  /**
   * An OK reply with a tail and no payload.
   *
   * @param correlation the request's correlation.
   * @param tail the tail.
   * @return the reply.
   */
  public static Reply ok(final long correlation, final ReplyTail tail) {
    return new Reply(correlation, TerminalResult.OK, FailureCode.NONE, tail, null);
  }
}
