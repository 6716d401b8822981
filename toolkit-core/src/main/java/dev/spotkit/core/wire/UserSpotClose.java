package dev.spotkit.core.wire;

import dev.spotkit.relocation.wire.Rid;

import dev.spotkit.relocation.wire.OperationId;

/**
 * Command 48, {@code userSpotClose}: close exactly the Spot generation in {@link #target()} on the node run it
 * names (spec 002 section 7.2). Encode and decode with {@link UserSpotCloseCodec}. The reply is a command 20
 * whose tail is {@link ReplyTail.UserSpotClosed}, sent exactly once.
 *
 * @param correlation request correlation, 1..2^63-1.
 * @param operation the idempotency id.
 * @param sourceNodeRid the caller's node rid.
 * @param sourceNodeGeneration the caller's lifecycle generation, non-zero.
 * @param target what to close, fenced by generation and StoreVersion.
 * @param deadlineUnixMs absolute deadline, Unix milliseconds, non-zero.
 */
public record UserSpotClose(long correlation, OperationId operation, Rid sourceNodeRid, long sourceNodeGeneration,
    UserSpotCloseFence target, long deadlineUnixMs) {

  /**
   * Validates the values.
   *
   * @throws dev.spotkit.core.SpotkitException.InvalidOperation naming the bad field.
   */
  public UserSpotClose {
    Checks.RULES.positive("correlation", correlation);
    Checks.RULES.present("operation", operation);
    Checks.RULES.present("sourceNodeRid", sourceNodeRid);
    Checks.RULES.positive("sourceNodeGeneration", sourceNodeGeneration);
    Checks.RULES.present("target", target);
    Checks.RULES.positive("deadlineUnixMs", deadlineUnixMs);
  }
}
