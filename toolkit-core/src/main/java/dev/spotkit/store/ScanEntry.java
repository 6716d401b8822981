package dev.spotkit.store;

import java.util.Objects;
import java.util.OptionalLong;

/**
 * One key of a scan page, as it was at the scan's point in time. It is only a candidate: the framework re-reads
 * the key and changes it only if the version is unchanged (spec 002 section 6.2).
 *
 * @param key the key.
 * @param value the value.
 * @param version the version.
 * @param expiresAtMillis store time of expiry, or empty for never.
 */
public record ScanEntry(String key, StoreBytes value, StoreVersion version, OptionalLong expiresAtMillis) {

  /**
   * Checks for null.
   *
   * @throws NullPointerException when a part is null.
   */
  public ScanEntry {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    Objects.requireNonNull(version, "version");
    Objects.requireNonNull(expiresAtMillis, "expiresAtMillis");
  }

  /**
   * The bytes this entry counts against the 4 MiB page limit: key, version and value.
   *
   * @return the size.
   */
  public long pageBytes() {
    return StoreLimits.utf8Length("store key", key) + StoreLimits.utf8Length("store version", version.value())
        + (long) value.size();
  }
}
