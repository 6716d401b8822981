package dev.spotkit.core.wire;

import dev.spotkit.relocation.wire.Rid;

import dev.spotkit.relocation.wire.OperationId;

/**
 * Command 49, {@code actorCreate}: the coordinator asks the reserved target to run an Actor's factory and its
 * Entry Spot's {@code OnCreateActor} for a reservation it already recorded (spec 002 section 7). Encode and
 * decode with {@link CreationCodec}. The reply is a command 20 whose tail is {@link ReplyTail.ActorCreated}.
 *
 * @param correlation request correlation, 1..2^63-1; the reply carries the same value.
 * @param operation the idempotency id; with the source rid and generation it names the request.
 * @param sourceNodeRid the coordinator's rid.
 * @param sourceNodeGeneration the coordinator's lifecycle generation, non-zero.
 * @param actorId the global ActorId, text8.
 * @param stableType the registered stable type, text8.
 * @param reservation the reservation the target must find in the Location Store.
 * @param deadlineUnixMs absolute deadline, Unix milliseconds, non-zero.
 */
public record ActorCreate(long correlation, OperationId operation, Rid sourceNodeRid, long sourceNodeGeneration,
    String actorId, String stableType, ReservationFence reservation, long deadlineUnixMs) {

  /**
   * Validates the values.
   *
   * @throws dev.spotkit.core.SpotkitException.InvalidOperation naming the bad field.
   */
  public ActorCreate {
    Checks.RULES.positive("correlation", correlation);
    Checks.RULES.present("operation", operation);
    Checks.RULES.present("sourceNodeRid", sourceNodeRid);
    Checks.RULES.positive("sourceNodeGeneration", sourceNodeGeneration);
    Checks.RULES.text8("actorId", actorId);
    Checks.RULES.text8("stableType", stableType);
    Checks.RULES.present("reservation", reservation);
    Checks.RULES.positive("deadlineUnixMs", deadlineUnixMs);
  }
}
