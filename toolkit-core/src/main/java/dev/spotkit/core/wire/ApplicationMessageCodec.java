package dev.spotkit.core.wire;

import dev.spotkit.relocation.wire.ApplicationPayload;
import dev.spotkit.relocation.wire.FrameHead;
import dev.spotkit.relocation.wire.WireError;
import dev.spotkit.relocation.wire.WireFormatException;
import dev.spotkit.relocation.wire.WireIn;
import dev.spotkit.relocation.wire.WireOut;

/**
 * Encoder and decoder of command 60, {@link ApplicationMessage} (Spotkit-defined, in the framework frame
 * layout of FACTS.md "Wire"):
 *
 * <pre>
 *   head 5A 4D 01 3C 00 (no flags)
 *   correlation u64 (0 = one-way)     targetKind u8 (1 actor, 2 spot, 3 instance spot)
 *   targetId text8                    objectGeneration u64 (0 = by id)
 *   stableType text8 (instance spot only)
 *   deadlineBudgetMs u64 (ms left at encode; 0 = one-way)  hops u8
 *   payload application-payload-envelope-v1 (u8 version 1, u32 body length, packetName text8,
 *           contentType text8, u32 length + bytes)
 * </pre>
 *
 * Pure functions, any thread.
 */
public final class ApplicationMessageCodec {

  private ApplicationMessageCodec() {
  }

  /**
   * Encodes command 60.
   *
   * @param m the message.
   * @return the complete frame.
   */
  public static byte[] encode(final ApplicationMessage m) {
    final WireOut out = new WireOut(64 + m.payload().packetName().length() + 16);
    new FrameHead(Commands.APPLICATION_MESSAGE, 0).writeTo(out);
    out.u64(m.correlation());
    out.u8(m.targetKind().wireValue());
    out.text8(m.targetId());
    out.u64(m.objectGeneration());
    if (m.targetKind() == ApplicationMessage.TargetKind.INSTANCE_SPOT) {
      out.text8(m.stableType());
    }
    out.u64(m.deadlineBudgetMs());
    out.u8(m.hops());
    Payloads.write(m.payload(), out);
    return out.toByteArray();
  }

  /**
   * Decodes command 60.
   *
   * @param frame the complete frame; only read.
   * @return the message.
   * @throws WireFormatException when the frame is malformed, truncated, has an unknown target kind or payload
   *     version, inconsistent correlation and deadline, or trailing bytes.
   */
  public static ApplicationMessage decode(final byte[] frame) {
    final WireIn in = WireIn.frame(frame, "applicationMessage");
    FrameHead.expect(in, Commands.APPLICATION_MESSAGE);
    final long correlation = in.u64("correlation");
    final int kindAt = in.position();
    final int kindValue = in.u8("targetKind");
    ApplicationMessage.TargetKind kind = null;
    for (ApplicationMessage.TargetKind k : ApplicationMessage.TargetKind.values()) {
      if (k.wireValue() == kindValue) {
        kind = k;
      }
    }
    if (kind == null) {
      throw in.error(WireError.INVALID_FIELD, "targetKind", kindAt, "value " + kindValue, "1..3");
    }
    final String id = in.text8("targetId");
    final long generation = in.u64("objectGeneration");
    final String stableType = kind == ApplicationMessage.TargetKind.INSTANCE_SPOT ? in.text8("stableType") : null;
    final int deadlineAt = in.position();
    final long deadline = in.u64("deadlineBudgetMs");
    if ((correlation == 0) != (deadline == 0)) {
      throw in.error(WireError.INVALID_FIELD, "deadlineBudgetMs", deadlineAt, "correlation " + correlation
          + " with deadline budget " + deadline, "both zero (one-way) or both non-zero (request)");
    }
    final int hops = in.u8("hops");
    final int versionAt = in.position();
    final int version = in.remaining() > 0 ? frame[versionAt] & 0xFF : -1;
    if (version != ApplicationPayload.VERSION) {
      throw in.error(version < 0 ? WireError.TRUNCATED_FIELD : WireError.INVALID_FIELD, "payload.version",
          versionAt, "value " + version, "1");
    }
    final ApplicationPayload payload = Payloads.read(in, "payload");
    in.expectEnd();
    return new ApplicationMessage(correlation, kind, id, generation, stableType, deadline, hops, payload);
  }
}
