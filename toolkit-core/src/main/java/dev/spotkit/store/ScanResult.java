package dev.spotkit.store;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/** Outcome of {@link LocationStore#scan(ScanRequest)}. */
public sealed interface ScanResult {

  /**
   * One page: entries in key byte order, all from the point in time of the scan's first page.
   *
   * @param entries 0..limit entries, at most 4 MiB together ({@link ScanEntry#pageBytes()}).
   * @param next the cursor of the next page, or empty when this is the last page.
   * @param now the store's time of this page.
   */
  record Page(List<ScanEntry> entries, Optional<ScanCursor> next, StoreNow now) implements ScanResult {
    /**
     * Copies the list.
     *
     * @throws NullPointerException when a part is null.
     */
    public Page {
      entries = List.copyOf(entries);
      Objects.requireNonNull(next, "next");
      Objects.requireNonNull(now, "now");
    }
  }

  /**
   * ScanExpired: the cursor is stale, unknown, or belongs to another scan (another prefix); start over from
   * the first page.
   */
  record Expired() implements ScanResult {
  }
}
