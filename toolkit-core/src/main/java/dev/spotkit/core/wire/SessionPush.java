package dev.spotkit.core.wire;

import dev.spotkit.relocation.wire.ApplicationPayload;
import dev.spotkit.relocation.wire.FrameHead;
import dev.spotkit.relocation.wire.WireFormatException;
import dev.spotkit.relocation.wire.WireIn;
import dev.spotkit.relocation.wire.WireOut;

/**
 * Command 62 (Spotkit-defined, one-way): a push to a client session from its bound Actor after the Actor moved
 * to another node, sent to the node that holds the session (the session never moves in this release; spec 003's
 * session route switch, commands 42/43/44, is not implemented). The spec's files name no command for this.
 *
 * <p>The sequence orders pushes of one binding across the nodes the Actor passed through: the session's node
 * writes them to the client in sequence order, whatever connection each came on.
 *
 * @param sessionId the session's node-unique id, greater than zero.
 * @param sequence the push's place in the binding's push order, 0 and up.
 * @param close true for a close request ({@code Session.close()} on the moved Actor; {@code payload} is then
 *     empty), false for a push.
 * @param payload the pushed message, encoded by the node's message codec (JSON, class name as packet name).
 */
public record SessionPush(long sessionId, long sequence, boolean close, ApplicationPayload payload) {

  /**
   * Checks the fields.
   *
   * @throws dev.spotkit.core.SpotkitException.InvalidOperation naming the bad field.
   */
  public SessionPush {
    Checks.RULES.positive("sessionId", sessionId);
    Checks.RULES.present("payload", payload);
  }

  /**
   * Encodes: head {@code 5A 4D 01 3E 00}, sessionId u64, sequence u64, close u8 (0 or 1), then the payload
   * (version u8 1, bodyLength u32, packetName text8, contentType text8, payload length u32 and bytes).
   *
   * @return the complete frame.
   */
  public byte[] encode() {
    final WireOut out = new WireOut(64 + payload.payload().length);
    new FrameHead(Commands.SESSION_PUSH, 0).writeTo(out);
    out.u64(sessionId);
    out.u64(sequence);
    out.u8(close ? 1 : 0);
    Payloads.write(payload, out);
    return out.toByteArray();
  }

  /**
   * Decodes command 62.
   *
   * @param frame the complete frame; only read.
   * @return the push.
   * @throws WireFormatException when malformed, truncated or followed by trailing bytes.
   */
  public static SessionPush decode(final byte[] frame) {
    final WireIn in = WireIn.frame(frame, "sessionPush");
    FrameHead.expect(in, Commands.SESSION_PUSH);
    final long sessionId = in.nonZeroU64("sessionId");
    final long sequence = in.u64("sequence");
    final boolean close = in.bool8("close");
    final ApplicationPayload payload = Payloads.read(in, "payload");
    in.expectEnd();
    return new SessionPush(sessionId, sequence, close, payload);
  }
}
