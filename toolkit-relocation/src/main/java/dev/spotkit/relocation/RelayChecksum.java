package dev.spotkit.relocation;

import java.util.List;
import java.util.zip.CRC32C;

/**
 * The cutover verification value: CRC-32C over the canonical encoding of the pre-boundary relay records, in relay
 * order (spec 001 section 4.4). Pure computation.
 *
 * <p>Canonical encoding of one record, all integers big-endian: {@code u8 kind} (1 send, 2 request),
 * {@code u64 operationId}, {@code u64 replyRouteId}, {@code u64 deadlineMs}, {@code u32 bodyLength}, body bytes.
 * The relay's encoding is the concatenation of its records; an empty relay has CRC-32C 0.
 */
public final class RelayChecksum {
  private RelayChecksum() {
  }

  /**
   * CRC-32C of a relay.
   *
   * @param records the relay records in relay order.
   * @return the CRC-32C as an unsigned 32-bit value in a long (0..0xFFFFFFFF).
   */
  public static long of(final List<Message> records) {
    final CRC32C crc = new CRC32C();
    final byte[] head = new byte[29];
    for (final Message m : records) {
      head[0] = (byte) (m.kind() == Message.Kind.SEND ? 1 : 2);
      putLong(head, 1, m.operationId());
      putLong(head, 9, m.replyRouteId());
      putLong(head, 17, m.deadlineMs());
      final int n = m.bodyLength();
      head[25] = (byte) (n >>> 24);
      head[26] = (byte) (n >>> 16);
      head[27] = (byte) (n >>> 8);
      head[28] = (byte) n;
      crc.update(head, 0, head.length);
      crc.update(m.bodyUnsafe(), 0, n);
    }
    return crc.getValue();
  }

  /**
   * CRC-32C of a byte array (the payload checksum of command 40).
   *
   * @param bytes the bytes.
   * @return the CRC-32C as an unsigned 32-bit value in a long.
   */
  public static long ofBytes(final byte[] bytes) {
    final CRC32C crc = new CRC32C();
    crc.update(bytes, 0, bytes.length);
    return crc.getValue();
  }

  private static void putLong(final byte[] b, final int at, final long v) {
    for (int i = 0; i < 8; i++) {
      b[at + i] = (byte) (v >>> (56 - 8 * i));
    }
  }
}
