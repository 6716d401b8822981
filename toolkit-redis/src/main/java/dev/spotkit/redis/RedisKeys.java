package dev.spotkit.redis;

import dev.spotkit.core.location.LogicalKey;
import java.nio.charset.StandardCharsets;

/**
 * The Redis key names of both stores (FACTS.md "Redis layout" and "Relocation Store"). The public ones are the
 * cross-language contract; the {@code spotkit:} ones are this provider's private bookkeeping (spec 002 section
 * 1.2 allows language-private secondary indexes), all in the same Redis Cluster hash slot as the records.
 *
 * <ul>
 *   <li>record: {@code {prefix}:{zlink-location-v3}:opaque:{sha256hex(logical key)}} (a sorted-set log);</li>
 *   <li>relocation payload: {@code {prefix}:{zlink-relocation-v1}:blob:{reference}} (a plain string);</li>
 *   <li>private: {@code {prefix}:{zlink-location-v3}:spotkit:seq} (the INCR sequence of versions and log
 *       scores), {@code ...:spotkit:seq-epoch} (the replication id the sequence was issued under),
 *       {@code ...:spotkit:index} (logical keys, for scans in UTF-8 byte order),
 *       {@code ...:spotkit:scans}, {@code ...:spotkit:scan-used}, {@code ...:spotkit:scan-start},
 *       {@code ...:spotkit:scan-id} (open scans).</li>
 * </ul>
 */
public final class RedisKeys {
  /** The location domain, a Redis Cluster hash tag. */
  public static final String LOCATION_TAG = "{zlink-location-v3}";
  /** The relocation domain, a Redis Cluster hash tag. */
  public static final String RELOCATION_TAG = "{zlink-relocation-v1}";

  private final String prefix;

  /**
   * Keys under one prefix.
   *
   * @param prefix e.g. {@code app1}; see {@link RedisStoreOptions#keyPrefix()}.
   */
  public RedisKeys(final String prefix) {
    this.prefix = prefix;
  }

  /**
   * The Redis key of one opaque record.
   *
   * @param logicalKey the logical key preimage (parts joined by NUL) or a counter's logical key.
   * @return {@code {prefix}:{zlink-location-v3}:opaque:{sha256hex(UTF-8 of logicalKey)}}.
   */
  public String record(final String logicalKey) {
    return prefix + ":" + LOCATION_TAG + ":opaque:" + new LogicalKey(logicalKey).sha256Hex();
  }

  /**
   * The Redis key of one Relocation Store payload.
   *
   * @param reference the reference, UTF-8 1..4096 bytes.
   * @return {@code {prefix}:{zlink-relocation-v1}:blob:{reference}}.
   */
  public String relocationBlob(final String reference) {
    return prefix + ":" + RELOCATION_TAG + ":blob:" + reference;
  }

  /**
   * One of this provider's private keys.
   *
   * @param name e.g. {@code seq}, {@code index}.
   * @return {@code {prefix}:{zlink-location-v3}:spotkit:{name}}.
   */
  public String internal(final String name) {
    return prefix + ":" + LOCATION_TAG + ":spotkit:" + name;
  }

  static byte[] utf8(final String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
