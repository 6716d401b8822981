package dev.spotkit.core.wire;

import dev.spotkit.relocation.wire.ApplicationPayload;
import dev.spotkit.relocation.wire.WireError;
import dev.spotkit.relocation.wire.WireFormatException;
import dev.spotkit.relocation.wire.WireIn;
import dev.spotkit.relocation.wire.WireOut;

/**
 * Core's codec for {@code application-payload-envelope-v1} ({@link ApplicationPayload}, the one implementation in
 * toolkit-relocation): u8 version (1), u32 body length, packetName text8, contentType text8, payload (u32 length +
 * bytes), inside core's command bodies (60 application message, 20 reply) and alone as stored inline in a creation
 * record. Errors are core's {@link WireFormatException}.
 */
public final class Payloads {

  private Payloads() {
  }

  /**
   * The envelope's bytes alone (version, body length, packetName, contentType, payload), as stored inline in
   * a creation record.
   *
   * @param p the envelope.
   * @return the bytes.
   */
  public static byte[] toBytes(final ApplicationPayload p) {
    final WireOut out = new WireOut(16 + p.packetName().length() + p.contentType().length()
        + p.payload().length);
    write(p, out);
    return out.toByteArray();
  }

  /**
   * Reads bytes written by {@link #toBytes}.
   *
   * @param bytes the envelope, nothing before or after it.
   * @return the envelope.
   * @throws WireFormatException when malformed, of another version, truncated or followed by trailing bytes.
   */
  public static ApplicationPayload fromBytes(final byte[] bytes) {
    final WireIn in = WireIn.frame(bytes, "applicationPayload");
    if (bytes.length == 0 || (bytes[0] & 0xFF) != ApplicationPayload.VERSION) {
      throw in.error(WireError.INVALID_FIELD, "version", 0, bytes.length == 0 ? "nothing" : "value "
          + (bytes[0] & 0xFF), "1");
    }
    final ApplicationPayload payload = read(in, "payload");
    in.expectEnd();
    return payload;
  }

  static ApplicationPayload read(final WireIn in, final String f) {
    in.u8(f + ".version"); // the caller checked it is 1
    final int lengthAt = in.position();
    final long declared = in.u32(f + ".bodyLength");
    final int bodyStart = in.position();
    final String name = in.text8(f + ".packetName");
    final String type = in.text8(f + ".contentType");
    final int payloadAt = in.position();
    final long length = in.u32(f + ".payload.length");
    if (length > in.remaining()) {
      throw in.error(WireError.TRUNCATED_FIELD, f + ".payload", payloadAt, "declares " + length + " bytes, "
          + in.remaining() + " left", "");
    }
    final byte[] bytes = in.bytes(f + ".payload", (int) length);
    in.endSection(f + ".bodyLength", lengthAt, bodyStart, declared, WireError.INVALID_BODY_LENGTH);
    return new ApplicationPayload(name, type, bytes);
  }

  static void write(final ApplicationPayload p, final WireOut out) {
    out.u8(ApplicationPayload.VERSION);
    final int lengthAt = out.position();
    out.u32(0);
    final int bodyStart = out.position();
    out.text8(p.packetName());
    out.text8(p.contentType());
    final byte[] payload = p.payload();
    out.u32(payload.length);
    out.bytes(payload);
    out.patchU32(lengthAt, out.position() - bodyStart);
  }
}
