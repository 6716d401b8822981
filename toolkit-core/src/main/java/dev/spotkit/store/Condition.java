package dev.spotkit.store;

import java.util.Objects;

/**
 * A precondition of a {@link WriteBatch}: every condition of a batch is checked before any mutation applies
 * (FACTS.md "Location Store provider contract").
 */
public sealed interface Condition {

  /**
   * The key the condition is about.
   *
   * @return the key, UTF-8 1..1024 bytes.
   */
  String key();

  /**
   * Holds when the key has no live value (never written, deleted, or expired).
   *
   * @param key the key.
   */
  record ExpectAbsent(String key) implements Condition {
    /**
     * Checks the key.
     *
     * @throws StoreLimitException when the key is out of range.
     */
    public ExpectAbsent {
      StoreLimits.checkKey(key);
    }
  }

  /**
   * Holds when the key's live value has exactly this version.
   *
   * @param key the key.
   * @param version the version read earlier.
   */
  record ExpectVersion(String key, StoreVersion version) implements Condition {
    /**
     * Checks the key.
     *
     * @throws StoreLimitException when the key is out of range.
     */
    public ExpectVersion {
      StoreLimits.checkKey(key);
      Objects.requireNonNull(version, "version");
    }
  }
}
