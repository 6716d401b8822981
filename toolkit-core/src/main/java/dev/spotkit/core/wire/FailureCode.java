package dev.spotkit.core.wire;

import dev.spotkit.relocation.wire.RelocationFrame;
import dev.spotkit.relocation.wire.WireError;
import dev.spotkit.relocation.wire.WireIn;

/**
 * {@code framework-error-code}: the framework's reason for a failed request, a u32 in command 20. Not the same
 * table as toolkit-relocation's {@link dev.spotkit.relocation.FailureCode} (command 53's failureCode, 35..43 and
 * 1): the two fields share only 35, relocation data lost, which both take from
 * {@link RelocationFrame.Failed#RELOCATION_DATA_LOST}; a value valid in one is refused or means another thing in
 * the other, so they stay two enums.
 */
public enum FailureCode {
  /** No failure. */
  NONE(0),
  /** No route to the Actor. */
  ACTOR_ROUTE_NOT_FOUND(1),
  /** The Actor factory or callback failed. */
  ACTOR_CREATE_FAILED(2),
  /** The Actor exists already. */
  ACTOR_ALREADY_EXISTS(3),
  /** Another Actor type holds the id. */
  ACTOR_TYPE_MISMATCH(4),
  /** The Spot factory or callback failed. */
  SPOT_CREATE_FAILED(5),
  /** No route to the Spot. */
  SPOT_ROUTE_NOT_FOUND(6),
  /** Another Spot kind or type holds the id. */
  SPOT_TYPE_MISMATCH(7),
  /** The Actor has no bound session. */
  ACTOR_SESSION_NOT_BOUND(8),
  /** No handler for the message. */
  HANDLER_NOT_FOUND(9),
  /** No route handler. */
  ROUTE_HANDLER_NOT_FOUND(10),
  /** No Actor dispatch handler. */
  ACTOR_DISPATCH_HANDLER_NOT_FOUND(11),
  /** The payload could not be decoded. */
  PAYLOAD_DECODE_FAILED(12),
  /** The route is not connected. */
  ROUTE_NOT_CONNECTED(13),
  /** The request target was not found. */
  REQUEST_TARGET_NOT_FOUND(14),
  /** The request was rejected. */
  REQUEST_REJECTED(15),
  /** The request broke the protocol. */
  REQUEST_PROTOCOL_ERROR(16),
  /** The request failed. */
  REQUEST_FAILED(17),
  /** A worker queue was full. */
  WORKER_QUEUE_FULL(18),
  /** A worker timed out. */
  WORKER_TIMED_OUT(19),
  /** A worker failed. */
  WORKER_FAILED(20),
  /** The Actor's location is stale. */
  ACTOR_LOCATION_STALE(21),
  /** The Entry Spot rejected the Actor's creation. */
  ACTOR_CREATE_REJECTED(22),
  /** The Spot generation is stale. */
  SPOT_GENERATION_STALE(33),
  /** The Spot is moving. */
  SPOT_MOVING(34),
  /** Published relocation data was lost: the same 35 as command 53's (relocation's {@code FailureCode}). */
  RELOCATION_DATA_LOST((int) RelocationFrame.Failed.RELOCATION_DATA_LOST);

  private final int wire;

  FailureCode(final int wire) {
    this.wire = wire;
  }

  /**
   * The wire value.
   *
   * @return the u32 value.
   */
  public int wireValue() {
    return wire;
  }

  static FailureCode read(final WireIn in, final String field) {
    final int at = in.position();
    final long v = in.u32(field);
    for (FailureCode c : values()) {
      if (c.wire == v) {
        return c;
      }
    }
    throw in.error(WireError.INVALID_FIELD, field, at, "value " + v, "0..22 or 33..35");
  }
}
