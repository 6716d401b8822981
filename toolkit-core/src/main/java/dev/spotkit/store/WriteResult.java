package dev.spotkit.store;

import java.util.Map;
import java.util.Objects;

/** Outcome of {@link LocationStore#write(WriteBatch)}. */
public sealed interface WriteResult {

  /**
   * Every condition held and every mutation applied.
   *
   * @param versions the new version of each put key (deleted keys have none).
   * @param now the store's time of the write; retentions count from it.
   */
  record Applied(Map<String, StoreVersion> versions, StoreNow now) implements WriteResult {
    /**
     * Copies the map.
     *
     * @throws NullPointerException when a part is null.
     */
    public Applied {
      versions = Map.copyOf(versions);
      Objects.requireNonNull(now, "now");
    }

    /**
     * The new version of one put key.
     *
     * @param key the key.
     * @return the version.
     * @throws IllegalArgumentException when the batch did not put the key.
     */
    public StoreVersion version(final String key) {
      final StoreVersion version = versions.get(key);
      if (version == null) {
        throw new IllegalArgumentException("the batch did not put key '" + StoreLimits.printable(key) + "'");
      }
      return version;
    }
  }

  /**
   * A condition did not hold; nothing changed. No detail on purpose: the framework re-reads what it needs.
   */
  record Conflict() implements WriteResult {
  }
}
