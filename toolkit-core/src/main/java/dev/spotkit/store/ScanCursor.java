package dev.spotkit.store;

import java.util.Objects;

/**
 * The opaque continuation token of a paged scan (spec 002 section 6.2). The provider issues it; the framework
 * only hands it back unchanged with the same prefix.
 *
 * @param token 1..4096 bytes.
 */
public record ScanCursor(StoreBytes token) {

  /**
   * Checks the length.
   *
   * @throws StoreLimitException when empty or longer than 4096 bytes.
   */
  public ScanCursor {
    Objects.requireNonNull(token, "token");
    if (token.size() < 1 || token.size() > StoreLimits.MAX_CURSOR_BYTES) {
      throw new StoreLimitException("scan cursor", token.size(), token.size() < 1 ? 1 : StoreLimits.MAX_CURSOR_BYTES,
          "scan cursor of " + token.size() + " bytes is outside the limit 1.." + StoreLimits.MAX_CURSOR_BYTES
          + " bytes; pass back the cursor of the previous page unchanged");
    }
  }
}
