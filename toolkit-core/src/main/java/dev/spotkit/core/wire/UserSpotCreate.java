package dev.spotkit.core.wire;

import dev.spotkit.relocation.wire.Rid;

import dev.spotkit.relocation.wire.OperationId;

/**
 * Command 47, {@code userSpotCreate}: the coordinator asks the reserved target to run a User Spot's factory
 * and callbacks for a reservation it already recorded (spec 002 section 7). Encode and decode with
 * {@link CreationCodec}. The reply is a command 20 whose tail is {@link ReplyTail.UserSpotCreated}.
 *
 * @param correlation request correlation, 1..2^63-1; the reply carries the same value.
 * @param operation the idempotency id; with the source rid and generation it names the request.
 * @param sourceNodeRid the coordinator's rid.
 * @param sourceNodeGeneration the coordinator's lifecycle generation, non-zero.
 * @param spotId the Spot id to create, text8.
 * @param stableType the registered stable type, text8.
 * @param reservation the reservation the target must find in the Location Store.
 * @param deadlineUnixMs absolute deadline, Unix milliseconds, non-zero.
 */
public record UserSpotCreate(long correlation, OperationId operation, Rid sourceNodeRid, long sourceNodeGeneration,
    String spotId, String stableType, ReservationFence reservation, long deadlineUnixMs) {

  /**
   * Validates the values.
   *
   * @throws dev.spotkit.core.SpotkitException.InvalidOperation naming the bad field.
   */
  public UserSpotCreate {
    Checks.RULES.positive("correlation", correlation);
    Checks.RULES.present("operation", operation);
    Checks.RULES.present("sourceNodeRid", sourceNodeRid);
    Checks.RULES.positive("sourceNodeGeneration", sourceNodeGeneration);
    Checks.RULES.text8("spotId", spotId);
    Checks.RULES.text8("stableType", stableType);
    Checks.RULES.present("reservation", reservation);
    Checks.RULES.positive("deadlineUnixMs", deadlineUnixMs);
  }
}
