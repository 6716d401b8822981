package dev.spotkit.store;

import java.util.Objects;
import java.util.OptionalLong;

/** Outcome of {@link LocationStore#read(String)}. */
public sealed interface ReadResult {

  /**
   * The store's time of the read.
   *
   * @return StoreNow.
   */
  StoreNow now();

  /**
   * The key has no live value. Reading never creates anything: no value, no version, no generation.
   *
   * @param now the store's time of the read.
   */
  record Missing(StoreNow now) implements ReadResult {
    /**
     * Checks for null.
     *
     * @throws NullPointerException when {@code now} is null.
     */
    public Missing {
      Objects.requireNonNull(now, "now");
    }
  }

  /**
   * The key's live value.
   *
   * @param value the bytes as stored.
   * @param version the version to expect in a later conditional write.
   * @param expiresAtMillis the store time (epoch ms) at which the value expires, or empty for never.
   * @param now the store's time of the read.
   */
  record Found(StoreBytes value, StoreVersion version, OptionalLong expiresAtMillis, StoreNow now)
      implements ReadResult {
    /**
     * Checks for null.
     *
     * @throws NullPointerException when a part is null.
     */
    public Found {
      Objects.requireNonNull(value, "value");
      Objects.requireNonNull(version, "version");
      Objects.requireNonNull(expiresAtMillis, "expiresAtMillis");
      Objects.requireNonNull(now, "now");
    }
  }
}
