package dev.spotkit.store;

import java.util.Objects;

/**
 * The provider-issued version of one stored key (spec 002 section 3.2, "StoreVersion"). Opaque: the framework
 * only keeps it and hands it back in {@link Condition.ExpectVersion}; it never orders, parses or builds one.
 *
 * @param value UTF-8 1..4096 bytes ({@link StoreLimits#MAX_VERSION_BYTES}).
 */
public record StoreVersion(String value) {

  /**
   * Checks the length.
   *
   * @throws StoreLimitException when the value is empty, longer than 4096 UTF-8 bytes or not valid UTF-16.
   */
  public StoreVersion {
    Objects.requireNonNull(value, "value");
    StoreLimits.checkText("store version", value, StoreLimits.MAX_VERSION_BYTES);
  }

  @Override
  public String toString() {
    return value;
  }
}
