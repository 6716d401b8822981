package dev.spotkit.relocation;

import dev.spotkit.relocation.wire.FrozenRecord;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The cutover verification value carried by command 34 as boundaryChecksumCrc32c, with the record count as
 * boundaryRecordCount (spec 001 section 4.4). Pure computation.
 *
 * <p>The exact byte range: the concatenation, in relay order, of each pre-boundary record's encoding as it appears
 * in its command 31 relocationData body, that is {@link FrozenRecord#encode()}: recordKind, source, metadata,
 * operationId, operationKind, replyRoute, body; the frame head, relocation identity, sender role and object of
 * command 31 are not included. An empty relay has CRC-32C 0.
 *
 * <p>A {@link Message}'s body is those record bytes (what the driver received in or will put into command 31), so
 * {@link #of} over messages and {@link #ofRecords} over the decoded records give the same value.
 */
public final class RelayChecksum {
  private RelayChecksum() {
  }

  /**
   * CRC-32C of a relay held as messages whose bodies are the command 31 record bytes.
   *
   * @param records the relay records in relay order.
   * @return the CRC-32C as an unsigned 32-bit value in a long (0..0xFFFFFFFF).
   */
  public static long of(final List<Message> records) {
    final CRC32C crc = new CRC32C();
    for (final Message m : records) {
      crc.update(m.bodyUnsafe(), 0, m.bodyLength());
    }
    return crc.getValue();
  }

  /**
   * CRC-32C of a relay of decoded frozen records: the same value as {@link #of} for messages carrying their
   * {@link FrozenRecord#encode()} bytes.
   *
   * @param records the relay records in relay order.
   * @return the CRC-32C as an unsigned 32-bit value in a long.
   */
  public static long ofRecords(final List<FrozenRecord> records) {
    final CRC32C crc = new CRC32C();
    for (final FrozenRecord r : records) {
      final byte[] bytes = r.encode();
      crc.update(bytes, 0, bytes.length);
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
}
