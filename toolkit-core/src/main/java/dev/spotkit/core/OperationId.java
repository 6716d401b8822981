package dev.spotkit.core;

import java.util.concurrent.ThreadLocalRandom;

/**
 * A non-zero 128-bit idempotency id of one operation, such as one Actor Join (spec 000 section 4). It is
 * never reused as a RelocationId, reservation id or aggregate commit id (MEM-23).
 *
 * @param high upper 64 bits.
 * @param low lower 64 bits.
 */
public record OperationId(long high, long low) {

  /**
   * Validates the value.
   *
   * @throws SpotkitException.InvalidOperation when both halves are zero.
   */
  public OperationId {
    if (high == 0 && low == 0) {
      throw new SpotkitException.InvalidOperation("OperationId must be non-zero");
    }
  }

  /**
   * A random non-zero id. Any thread.
   *
   * @return the id.
   */
  public static OperationId random() {
    final ThreadLocalRandom random = ThreadLocalRandom.current();
    long high;
    long low;
    do {
      high = random.nextLong();
      low = random.nextLong();
    } while (high == 0 && low == 0);
    return new OperationId(high, low);
  }

  @Override
  public String toString() {
    return String.format("%016x%016x", high, low);
  }
}
