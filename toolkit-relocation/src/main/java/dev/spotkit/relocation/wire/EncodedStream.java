package dev.spotkit.relocation.wire;

import java.util.Objects;

/**
 * One encoded relocation-envelope-v1 stream and its CRC-32C, computed while it was written
 * ({@link RelocationEnvelopeCodec#encodeChecksummed(RelocationEnvelope)}): the payload a source keeps in memory and
 * the payloadTotalLength / payloadChecksumCrc32c of its command 40 (spec 001 section 4.2).
 *
 * <p>Ownership: {@code bytes} is a new array nobody else holds; whoever takes it from here owns it. It is not
 * copied by this record's accessor.
 *
 * @param bytes the stream, an array of exactly its size.
 * @param crc32c CRC-32C (Castagnoli) of {@code bytes}, 0..2^32-1.
 */
public record EncodedStream(byte[] bytes, long crc32c) {
  /**
   * Checks the parts.
   *
   * @throws NullPointerException when {@code bytes} is null.
   * @throws IllegalArgumentException when {@code crc32c} is outside 0..2^32-1.
   */
  public EncodedStream {
    Objects.requireNonNull(bytes, "bytes");
    if (crc32c < 0 || crc32c > Fields.U32_MAX) {
      throw new IllegalArgumentException("crc32c " + crc32c + " is outside 0..4294967295");
    }
  }

  @Override
  public boolean equals(final Object o) {
    return o instanceof EncodedStream x && x.crc32c == crc32c && java.util.Arrays.equals(x.bytes, bytes);
  }

  @Override
  public int hashCode() {
    return java.util.Arrays.hashCode(bytes);
  }

  @Override
  public String toString() {
    return "EncodedStream[" + bytes.length + " bytes, crc32c=" + crc32c + "]";
  }
}
