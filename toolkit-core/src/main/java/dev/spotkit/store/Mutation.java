package dev.spotkit.store;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/** A change of a {@link WriteBatch}: applied only when every condition of the batch holds. */
public sealed interface Mutation {

  /**
   * The key the mutation changes.
   *
   * @return the key, UTF-8 1..1024 bytes.
   */
  String key();

  /**
   * Stores {@code value} under {@code key}, replacing any earlier value; the store issues a new version.
   *
   * @param key the key.
   * @param value at most 1 MiB.
   * @param retention empty: the value never expires; present: it expires at the batch's StoreNow plus this,
   *     after which reads see the key as absent.
   */
  record Put(String key, StoreBytes value, Optional<Duration> retention) implements Mutation {
    /**
     * Checks key, value and retention.
     *
     * @throws StoreLimitException when the key or value is out of range.
     * @throws IllegalArgumentException when the retention is shorter than 1 ms.
     */
    public Put {
      StoreLimits.checkKey(key);
      StoreLimits.checkValue(value);
      Objects.requireNonNull(retention, "retention");
      retention.ifPresent(r -> {
        if (r.toMillis() < 1) {
          throw new IllegalArgumentException("retention " + r + " of key '" + StoreLimits.printable(key)
              + "' must be at least 1 ms; omit it for a value that never expires");
        }
      });
    }

    /**
     * A value that never expires.
     *
     * @param key the key.
     * @param value the value.
     * @return the mutation.
     */
    public static Put of(final String key, final StoreBytes value) {
      return new Put(key, value, Optional.empty());
    }

    /**
     * A value that expires {@code retention} after the batch's StoreNow.
     *
     * @param key the key.
     * @param value the value.
     * @param retention at least 1 ms.
     * @return the mutation.
     */
    public static Put expiring(final String key, final StoreBytes value, final Duration retention) {
      return new Put(key, value, Optional.of(retention));
    }
  }

  /**
   * Removes the key's value; deleting an absent key is not an error.
   *
   * @param key the key.
   */
  record Delete(String key) implements Mutation {
    /**
     * Checks the key.
     *
     * @throws StoreLimitException when the key is out of range.
     */
    public Delete {
      StoreLimits.checkKey(key);
    }
  }
}
