package dev.spotkit.core.wire;

import dev.spotkit.relocation.wire.FrameHead;
import dev.spotkit.relocation.wire.Rid;

import dev.spotkit.relocation.wire.OperationId;
import dev.spotkit.relocation.wire.WireFormatException;
import dev.spotkit.relocation.wire.WireIn;
import dev.spotkit.relocation.wire.WireOut;

/**
 * Encoder and decoder of command 48 ({@link UserSpotClose}); the layout is the one of the golden vector
 * {@code user-spot-close-v1.json}:
 *
 * <pre>
 *   0..4    head 5A 4D 01 30 00
 *   5..12   correlation u64             13..28  operation high u64, low u64
 *   29..    sourceNodeRid rid           ..      sourceNodeGeneration u64
 *   target: version u8 = 1, bodyLength u16, spot (spotId text8, objectGeneration u64), targetNodeRid rid,
 *           targetNodeGeneration u64, expectedAuthorityOwnerGeneration u64, expectedStoreVersion u16 + UTF-8
 *   deadlineUnixMs u64                  (no flags, no payload, nothing after)
 * </pre>
 *
 * Pure functions, any thread.
 */
public final class UserSpotCloseCodec {

  private UserSpotCloseCodec() {
  }

  /**
   * Encodes command 48.
   *
   * @param m the request.
   * @return the complete frame.
   */
  public static byte[] encode(final UserSpotClose m) {
    final WireOut out = new WireOut(128);
    new FrameHead(Commands.USER_SPOT_CLOSE, 0).writeTo(out);
    out.u64(m.correlation());
    out.u64(m.operation().high());
    out.u64(m.operation().low());
    out.rid(m.sourceNodeRid());
    out.u64(m.sourceNodeGeneration());
    m.target().writeTo(out);
    out.u64(m.deadlineUnixMs());
    return out.toByteArray();
  }

  /**
   * Decodes command 48.
   *
   * @param frame the complete frame; only read.
   * @return the request.
   * @throws WireFormatException when the frame is malformed, truncated or has trailing bytes.
   */
  public static UserSpotClose decode(final byte[] frame) {
    final WireIn in = WireIn.frame(frame, "userSpotClose");
    FrameHead.expect(in, Commands.USER_SPOT_CLOSE);
    final long correlation = in.nonZeroU64("correlation");
    final OperationId operation = OperationId.read(in, "operation");
    final Rid source = in.rid("sourceNodeRid");
    final long sourceGeneration = in.nonZeroU64("sourceNodeGeneration");
    final UserSpotCloseFence target = UserSpotCloseFence.read(in, "target");
    final long deadline = in.nonZeroU64("deadlineUnixMs");
    in.expectEnd();
    return new UserSpotClose(correlation, operation, source, sourceGeneration, target, deadline);
  }
}
