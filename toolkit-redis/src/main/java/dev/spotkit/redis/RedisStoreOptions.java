package dev.spotkit.redis;

import java.time.Duration;
import java.util.Objects;

/**
 * How a Redis store connects and where its keys live. Both stores take the same options, so a deployment
 * names one Redis and one prefix for its whole mesh (spec 002 section 3.4, FACTS.md "Redis layout").
 *
 * <pre>{@code
 * RedisStoreOptions options = RedisStoreOptions.of("redis://127.0.0.1:6379", "app1");
 * try (RedisLocationStore locations = RedisLocationStore.connect(options);
 *      RedisRelocationStore payloads = RedisRelocationStore.connect(options)) { ... }
 * }</pre>
 *
 * @param redisUri a Lettuce Redis URI, e.g. {@code redis://127.0.0.1:6379} or {@code redis://:secret@host:6379/0}.
 * @param keyPrefix the first segment of every key, e.g. {@code app1} gives
 *     {@code app1:{zlink-location-v3}:opaque:...}; 1..256 characters, without '{', '}' or a NUL (a brace would
 *     move the Redis Cluster hash tag).
 * @param commandTimeout how long one command may take before the caller gets a typed failure; 1 ms..10 min,
 *     default 5 s. A write that timed out fails with {@code StoreException.Indeterminate}.
 * @param scanIdleTimeout how long an unused scan cursor stays valid (store time); 1 s..1 h, default 60 s.
 */
public record RedisStoreOptions(String redisUri, String keyPrefix, Duration commandTimeout,
    Duration scanIdleTimeout) {

  /** Default {@link #commandTimeout()}: 5 s. */
  public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(5);
  /** Default {@link #scanIdleTimeout()}: 60 s. */
  public static final Duration DEFAULT_SCAN_IDLE_TIMEOUT = Duration.ofSeconds(60);

  /**
   * Checks every part.
   *
   * @throws IllegalArgumentException when the URI is not a Redis URI with a host and a port of 1..65535 (for the
   *     {@code redis} and {@code rediss} schemes), or the prefix or a duration is out of range.
   * @throws NullPointerException when a part is null.
   */
  public RedisStoreOptions {
    Objects.requireNonNull(redisUri, "redisUri");
    Objects.requireNonNull(keyPrefix, "keyPrefix");
    Objects.requireNonNull(commandTimeout, "commandTimeout");
    Objects.requireNonNull(scanIdleTimeout, "scanIdleTimeout");
    if (keyPrefix.isEmpty() || keyPrefix.length() > 256 || keyPrefix.indexOf('{') >= 0
        || keyPrefix.indexOf('}') >= 0 || keyPrefix.indexOf('\0') >= 0) {
      throw new IllegalArgumentException("key prefix '" + keyPrefix + "' must be 1..256 characters without '{', '}'"
          + " or NUL; e.g. \"app1\"");
    }
    checkUri(redisUri);
    if (commandTimeout.toMillis() < 1 || commandTimeout.compareTo(Duration.ofMinutes(10)) > 0) {
      throw new IllegalArgumentException("commandTimeout " + commandTimeout + " must be 1 ms..10 min");
    }
    if (scanIdleTimeout.compareTo(Duration.ofSeconds(1)) < 0 || scanIdleTimeout.compareTo(Duration.ofHours(1)) > 0) {
      throw new IllegalArgumentException("scanIdleTimeout " + scanIdleTimeout + " must be 1 s..1 h");
    }
  }

  /** Schemes Lettuce connects with; the first two are checked here for a host and a numeric port. */
  private static final java.util.Set<String> SCHEMES = java.util.Set.of("redis", "rediss", "redis-sentinel",
      "rediss-sentinel", "redis-socket");

  private static void checkUri(final String redisUri) {
    final java.net.URI uri;
    try {
      uri = new java.net.URI(redisUri);
    } catch (java.net.URISyntaxException e) {
      throw new IllegalArgumentException(badUri(redisUri, e.getReason()), e);
    }
    final String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(java.util.Locale.ROOT);
    if (!SCHEMES.contains(scheme)) {
      throw new IllegalArgumentException(badUri(redisUri, "the scheme must be one of " + new java.util.TreeSet<>(
          SCHEMES)));
    }
    if ((scheme.equals("redis") || scheme.equals("rediss")) && (uri.getHost() == null || uri.getHost().isEmpty()
        || uri.getPort() == 0 || uri.getPort() > 65535 || uri.getRawAuthority().endsWith(":"))) {
      throw new IllegalArgumentException(badUri(redisUri, "it needs a host and, if given, a port of 1..65535"));
    }
  }

  private static String badUri(final String redisUri, final String why) {
    return "Redis URI '" + redisUri + "' is not valid: " + why + "; use e.g. redis://127.0.0.1:6379";
  }

  /**
   * Options with the default timeouts.
   *
   * @param redisUri e.g. {@code redis://127.0.0.1:6379}.
   * @param keyPrefix e.g. {@code app1}.
   * @return the options.
   * @throws IllegalArgumentException when the URI or the prefix is not valid.
   */
  public static RedisStoreOptions of(final String redisUri, final String keyPrefix) {
    return new RedisStoreOptions(redisUri, keyPrefix, DEFAULT_COMMAND_TIMEOUT, DEFAULT_SCAN_IDLE_TIMEOUT);
  }

  /**
   * A copy with another command timeout.
   *
   * @param timeout 1 ms..10 min.
   * @return the new options.
   */
  public RedisStoreOptions withCommandTimeout(final Duration timeout) {
    return new RedisStoreOptions(redisUri, keyPrefix, timeout, scanIdleTimeout);
  }

  /**
   * A copy with another scan idle timeout.
   *
   * @param timeout 1 s..1 h.
   * @return the new options.
   */
  public RedisStoreOptions withScanIdleTimeout(final Duration timeout) {
    return new RedisStoreOptions(redisUri, keyPrefix, commandTimeout, timeout);
  }
}
