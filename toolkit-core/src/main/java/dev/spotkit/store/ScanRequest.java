package dev.spotkit.store;

import java.util.Objects;
import java.util.Optional;

/**
 * One page request of a paged scan (spec 002 section 6.2).
 *
 * @param prefix keys starting with these UTF-8 bytes (0..1024 bytes; empty: every key).
 * @param cursor empty for the first page; then the {@link ScanResult.Page#next()} of the previous page.
 * @param limit 1..1000 entries at most on this page.
 */
public record ScanRequest(String prefix, Optional<ScanCursor> cursor, int limit) {

  /**
   * Checks the limits.
   *
   * @throws StoreLimitException when the prefix or the limit is out of range.
   */
  public ScanRequest {
    Objects.requireNonNull(prefix, "prefix");
    Objects.requireNonNull(cursor, "cursor");
    final int prefixBytes = StoreLimits.utf8Length("scan prefix", prefix);
    if (prefixBytes > StoreLimits.MAX_KEY_BYTES) {
      throw new StoreLimitException("scan prefix", prefixBytes, StoreLimits.MAX_KEY_BYTES, "scan prefix of "
          + prefixBytes + " UTF-8 bytes is longer than the longest key (" + StoreLimits.MAX_KEY_BYTES
          + " bytes); use a shorter prefix");
    }
    if (limit < 1 || limit > StoreLimits.MAX_SCAN_ENTRIES) {
      throw new StoreLimitException("scan limit", limit, limit < 1 ? 1 : StoreLimits.MAX_SCAN_ENTRIES, "scan limit "
          + limit + " is outside 1.." + StoreLimits.MAX_SCAN_ENTRIES + " entries per page");
    }
  }

  /**
   * The first page of a scan.
   *
   * @param prefix the key prefix.
   * @param limit 1..1000.
   * @return the request.
   */
  public static ScanRequest first(final String prefix, final int limit) {
    return new ScanRequest(prefix, Optional.empty(), limit);
  }

  /**
   * The page after {@code cursor}, with the same prefix as the first page.
   *
   * @param prefix the prefix of the first page.
   * @param cursor the previous page's cursor.
   * @param limit 1..1000.
   * @return the request.
   */
  public static ScanRequest next(final String prefix, final ScanCursor cursor, final int limit) {
    return new ScanRequest(prefix, Optional.of(cursor), limit);
  }
}
