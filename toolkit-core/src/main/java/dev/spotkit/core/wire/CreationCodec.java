package dev.spotkit.core.wire;

import dev.spotkit.relocation.wire.FrameHead;
import dev.spotkit.relocation.wire.Rid;

import dev.spotkit.relocation.wire.OperationId;
import dev.spotkit.relocation.wire.WireFormatException;
import dev.spotkit.relocation.wire.WireIn;
import dev.spotkit.relocation.wire.WireOut;

/**
 * Encoder and decoder of commands 47 ({@link UserSpotCreate}) and 49 ({@link ActorCreate}). Both bodies have
 * the same shape; only the id's meaning differs:
 *
 * <pre>
 *   head (5)  correlation u64  operation (u64 high, u64 low)  sourceNodeRid rid  sourceNodeGeneration u64
 *   id text8  stableType text8
 *   reservation: reservationId text8, expectedStoreVersion (u16 + UTF-8), objectGeneration u64,
 *                authorityOwnerGeneration u64, targetNodeRid rid, targetNodeGeneration u64,
 *                targetOwnerId text8, targetOwnerLeaseGeneration u64, pendingCapacityDelta u32
 *   deadlineUnixMs u64                                  (no flags, no payload, nothing after)
 * </pre>
 *
 * Pure functions, any thread.
 */
public final class CreationCodec {

  private CreationCodec() {
  }

  /**
   * Encodes command 47.
   *
   * @param m the request.
   * @return the complete frame (head included).
   */
  public static byte[] encode(final UserSpotCreate m) {
    return encode(Commands.USER_SPOT_CREATE, m.correlation(), m.operation(), m.sourceNodeRid(),
        m.sourceNodeGeneration(), m.spotId(), m.stableType(), m.reservation(), m.deadlineUnixMs());
  }

  /**
   * Encodes command 49.
   *
   * @param m the request.
   * @return the complete frame (head included).
   */
  public static byte[] encode(final ActorCreate m) {
    return encode(Commands.ACTOR_CREATE, m.correlation(), m.operation(), m.sourceNodeRid(),
        m.sourceNodeGeneration(), m.actorId(), m.stableType(), m.reservation(), m.deadlineUnixMs());
  }

  /**
   * Decodes command 47.
   *
   * @param frame the complete frame; only read.
   * @return the request.
   * @throws WireFormatException when the frame is malformed, truncated or has trailing bytes.
   */
  public static UserSpotCreate decodeUserSpotCreate(final byte[] frame) {
    final WireIn in = WireIn.frame(frame, "userSpotCreate");
    FrameHead.expect(in, Commands.USER_SPOT_CREATE);
    final long correlation = in.nonZeroU64("correlation");
    final OperationId operation = OperationId.read(in, "operation");
    final Rid source = in.rid("sourceNodeRid");
    final long sourceGeneration = in.nonZeroU64("sourceNodeGeneration");
    final String spotId = in.text8("spotId");
    final String stableType = in.text8("stableType");
    final ReservationFence reservation = ReservationFence.read(in, "reservation");
    final long deadline = in.nonZeroU64("deadlineUnixMs");
    in.expectEnd();
    return new UserSpotCreate(correlation, operation, source, sourceGeneration, spotId, stableType, reservation,
        deadline);
  }

  /**
   * Decodes command 49.
   *
   * @param frame the complete frame; only read.
   * @return the request.
   * @throws WireFormatException when the frame is malformed, truncated or has trailing bytes.
   */
  public static ActorCreate decodeActorCreate(final byte[] frame) {
    final WireIn in = WireIn.frame(frame, "actorCreate");
    FrameHead.expect(in, Commands.ACTOR_CREATE);
    final long correlation = in.nonZeroU64("correlation");
    final OperationId operation = OperationId.read(in, "operation");
    final Rid source = in.rid("sourceNodeRid");
    final long sourceGeneration = in.nonZeroU64("sourceNodeGeneration");
    final String actorId = in.text8("actorId");
    final String stableType = in.text8("stableType");
    final ReservationFence reservation = ReservationFence.read(in, "reservation");
    final long deadline = in.nonZeroU64("deadlineUnixMs");
    in.expectEnd();
    return new ActorCreate(correlation, operation, source, sourceGeneration, actorId, stableType, reservation,
        deadline);
  }

  private static byte[] encode(final int command, final long correlation, final OperationId operation,
      final Rid source, final long sourceGeneration, final String id, final String stableType,
      final ReservationFence reservation, final long deadline) {
    final WireOut out = new WireOut(256);
    new FrameHead(command, 0).writeTo(out);
    out.u64(correlation);
    out.u64(operation.high());
    out.u64(operation.low());
    out.rid(source);
    out.u64(sourceGeneration);
    out.text8(id);
    out.text8(stableType);
    reservation.writeTo(out);
    out.u64(deadline);
    return out.toByteArray();
  }
}
