package dev.spotkit.core.location;

import dev.spotkit.core.SpotkitException;
import java.time.Duration;
import java.util.Objects;

/**
 * The per-host owner-lease timing settings (spec 002 section 5), checked at construction (LOC-03): every value is
 * positive and {@code renew interval + renew timeout < owner lease TTL - owner lease fencing margin}.
 *
 * <p>A violation is {@link SpotkitException.NotConfigured}: it is a startup error of the host's configuration,
 * not a call made in the wrong state ({@code InvalidOperation}); retrying cannot help, only other settings can.
 *
 * @param renewInterval how often the lease is renewed (default 5 s).
 * @param ttl the owner lease TTL, the store retention of the lease record (default 15 s).
 * @param renewTimeout the longest wait for one renewal answer (default 3 s).
 * @param fencingMargin how long before the store-side expiry admission stops (default 5 s).
 */
public record LeaseSettings(Duration renewInterval, Duration ttl, Duration renewTimeout, Duration fencingMargin) {
  /** The spec defaults: 5 s, 15 s, 3 s, 5 s. */
  public static final LeaseSettings DEFAULTS = new LeaseSettings(Duration.ofSeconds(5), Duration.ofSeconds(15),
      Duration.ofSeconds(3), Duration.ofSeconds(5));

  /**
   * Checks the values.
   *
   * @throws NullPointerException when a value is null.
   * @throws SpotkitException.NotConfigured when a value is not positive or the relationship does not hold; the
   *     message gives the values in milliseconds.
   */
  public LeaseSettings {
    positive("renew interval", renewInterval);
    positive("owner lease TTL", ttl);
    positive("renew timeout", renewTimeout);
    positive("owner lease fencing margin", fencingMargin);
    final Duration left = renewInterval.plus(renewTimeout);
    final Duration right = ttl.minus(fencingMargin);
    if (left.compareTo(right) >= 0) {
      throw new SpotkitException.NotConfigured("owner lease settings violate renew interval + renew timeout"
          + " < owner lease TTL - owner lease fencing margin (spec 002 section 5): " + renewInterval.toMillis()
          + " ms + " + renewTimeout.toMillis() + " ms = " + left.toMillis() + " ms is not below "
          + ttl.toMillis() + " ms - " + fencingMargin.toMillis() + " ms = " + right.toMillis() + " ms");
    }
  }

  private static void positive(final String name, final Duration value) {
    Objects.requireNonNull(value, name);
    if (value.isZero() || value.isNegative()) {
      throw new SpotkitException.NotConfigured(name + " must be positive, was " + value.toMillis()
          + " ms (spec 002 section 5)");
    }
  }
}
