package dev.spotkit.relocation.wire;

import java.util.Arrays;

/**
 * {@code application-payload-envelope-v1}, the application message inside a frozen record body:
 *
 * <pre>
 *   version      u8   1
 *   bodyLength   u32  bytes of the next three fields
 *   packetName   text8
 *   contentType  text8
 *   payload      u32 length, then bytes
 * </pre>
 *
 * A body length that differs from the fields is {@link WireError#INVALID_BODY_LENGTH}; another
 * version is {@link WireError#INVALID_FIELD}. Immutable: bytes are copied in and out.
 *
 * @param packetName 1..255 UTF-8 bytes, e.g. {@code ChatRequest}.
 * @param contentType 1..255 UTF-8 bytes, e.g. {@code application/json}.
 * @param payload the application bytes, 0..2^32-1 minus the other fields.
 */
public record ApplicationPayload(String packetName, String contentType, byte[] payload) {

  /** The only version. */
  public static final int VERSION = 1;

  /**
   * Validates and copies.
   *
   * @throws IllegalArgumentException naming the bad field.
   */
  public ApplicationPayload {
    Fields.text8("packetName", packetName);
    Fields.text8("contentType", contentType);
    payload = Fields.present("payload", payload).clone();
  }

  /**
   * The application bytes.
   *
   * @return a copy.
   */
  @Override
  public byte[] payload() {
    return payload.clone();
  }

  void writeTo(final WireOut out) {
    out.u8(VERSION);
    final int lengthAt = out.position();
    out.u32(0);
    final int start = out.position();
    out.text8(packetName);
    out.text8(contentType);
    out.u32(payload.length);
    out.bytes(payload);
    out.patchU32(lengthAt, out.position() - start);
  }

  static ApplicationPayload read(final WireIn in, final String f) {
    final int versionAt = in.position();
    final int version = in.u8(f + ".version");
    if (version != VERSION) {
      throw in.error(WireError.INVALID_FIELD, f + ".version", versionAt, "value " + version, "1");
    }
    final int lengthAt = in.position();
    final long declared = in.u32(f + ".bodyLength");
    final int start = in.position();
    final String name = in.text8(f + ".packetName");
    final String type = in.text8(f + ".contentType");
    final long length = in.u32(f + ".payload.length");
    final byte[] bytes = in.bytes(f + ".payload", length);
    in.endSection(f + ".bodyLength", lengthAt, start, declared, WireError.INVALID_BODY_LENGTH);
    return new ApplicationPayload(name, type, bytes);
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
