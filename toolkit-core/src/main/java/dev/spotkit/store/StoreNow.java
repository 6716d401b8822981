package dev.spotkit.store;

/**
 * The store's clock at the moment it answered (spec 002 section 5): every read, write and scan result carries
 * one, so a node computes lease expiry and its local admission deadline from the store's time, not its own.
 *
 * @param epochMillis milliseconds since the Unix epoch, as the store saw them (Redis: server {@code TIME}).
 */
public record StoreNow(long epochMillis) {

  /**
   * Checks the value.
   *
   * @throws IllegalArgumentException when negative.
   */
  public StoreNow {
    if (epochMillis < 0) {
      throw new IllegalArgumentException("StoreNow " + epochMillis + " ms must not be negative");
    }
  }
}
