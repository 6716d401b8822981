package dev.spotkit.core.wire;

import java.util.Arrays;

/**
 * {@code application-payload-envelope-v1}: an application message with its packet name and content type.
 * On the wire: u8 version (1), u32 body length, packetName text8, contentType text8, payload (u32 length +
 * bytes). Immutable: the bytes are copied in and out.
 */
public final class ApplicationPayload {

  /** The only version. */
  public static final int VERSION = 1;

  private final String packetName;
  private final String contentType;
  private final byte[] payload;

  /**
   * Creates the envelope.
   *
   * @param packetName text8, e.g. {@code "actor.join"}.
   * @param contentType text8, e.g. {@code "application/json"}.
   * @param payload the bytes; copied.
   * @throws dev.spotkit.core.SpotkitException.InvalidOperation naming the bad field.
   */
  public ApplicationPayload(final String packetName, final String contentType, final byte[] payload) {
    this.packetName = Checks.text8("packetName", packetName);
    this.contentType = Checks.text8("contentType", contentType);
    this.payload = Checks.present("payload", payload).clone();
  }

  private ApplicationPayload(final String packetName, final String contentType, final byte[] owned,
      final boolean trusted) {
    this.packetName = packetName;
    this.contentType = contentType;
    this.payload = owned;
  }

  /**
   * The packet name.
   *
   * @return text8.
   */
  public String packetName() {
    return packetName;
  }

  /**
   * The content type.
   *
   * @return text8.
   */
  public String contentType() {
    return contentType;
  }

  /**
   * The payload bytes.
   *
   * @return a copy.
   */
  public byte[] payload() {
    return payload.clone();
  }

  /**
   * The envelope's bytes alone (version, body length, packetName, contentType, payload), as stored inline in
   * a creation record.
   *
   * @return the bytes.
   */
  public byte[] toBytes() {
    final WireWriter out = new WireWriter(16 + packetName.length() + contentType.length() + payload.length);
    writeTo(out);
    return out.toByteArray();
  }

  /**
   * Reads bytes written by {@link #toBytes()}.
   *
   * @param bytes the envelope, nothing before or after it.
   * @return the envelope.
   * @throws WireFormatException when malformed, of another version, truncated or followed by trailing bytes.
   */
  public static ApplicationPayload fromBytes(final byte[] bytes) {
    final WireReader in = new WireReader(bytes, "applicationPayload");
    if (bytes.length == 0 || (bytes[0] & 0xFF) != VERSION) {
      throw in.error(WireError.INVALID_FIELD, "version", 0, bytes.length == 0 ? "nothing" : "value "
          + (bytes[0] & 0xFF), "1");
    }
    final ApplicationPayload payload = read(in, "payload");
    in.expectEnd();
    return payload;
  }

  static ApplicationPayload read(final WireReader in, final String f) {
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
    return new ApplicationPayload(name, type, bytes, true);
  }

  void writeTo(final WireWriter out) {
    out.u8(VERSION);
    final int lengthAt = out.position();
    out.u32(0);
    final int bodyStart = out.position();
    out.text8(packetName);
    out.text8(contentType);
    out.u32(payload.length);
    out.bytes(payload);
    out.patchU32(lengthAt, out.position() - bodyStart);
  }

  @Override
  public boolean equals(final Object o) {
    return o instanceof ApplicationPayload p && packetName.equals(p.packetName) && contentType.equals(p.contentType)
        && Arrays.equals(payload, p.payload);
  }

  @Override
  public int hashCode() {
    return (packetName.hashCode() * 31 + contentType.hashCode()) * 31 + Arrays.hashCode(payload);
  }

  @Override
  public String toString() {
    return "ApplicationPayload[" + packetName + ", " + contentType + ", " + payload.length + " bytes]";
  }
}
