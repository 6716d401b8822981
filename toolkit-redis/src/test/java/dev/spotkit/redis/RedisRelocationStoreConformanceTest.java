package dev.spotkit.redis;

import dev.spotkit.store.RelocationStore;
import dev.spotkit.store.RelocationStoreConformance;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Relocation Store conformance suite of toolkit-core, unchanged, on a real Redis. Moving the store's clock
 * moves StoreNow forward and every stored payload's Redis expiry of the test backward by the same amount, so a
 * payload whose retention has passed in store time is really gone.
 */
class RedisRelocationStoreConformanceTest extends RelocationStoreConformance {
  @RegisterExtension
  static final RedisServerExtension REDIS = new RedisServerExtension();
  private static RedisRelocationStore shared;

  @Override
  protected RelocationStore newStore() {
    if (shared == null) {
      shared = RedisRelocationStore.connect(REDIS.uri(), "conformance");
    }
    return shared;
  }

  @Override
  protected boolean advanceStoreTime(final Duration by) {
    shared.advanceClock(by);
    final RedisClient client = RedisClient.create(REDIS.uri());
    try (StatefulRedisConnection<String, String> connection = client.connect()) {
      final RedisCommands<String, String> redis = connection.sync();
      final ScanIterator<String> keys = ScanIterator.scan(redis,
          ScanArgs.Builder.matches(shared.keys().relocationBlob(ns) + "*").limit(1000));
      while (keys.hasNext()) {
        final String key = keys.next();
        final long at = redis.pexpiretime(key);
        if (at > 0) {
          redis.pexpireat(key, at - by.toMillis());
        }
      }
    } finally {
      client.shutdown();
    }
    return true;
  }

  @AfterAll
  static void closeStore() {
    if (shared != null) {
      shared.close();
    }
  }
}
