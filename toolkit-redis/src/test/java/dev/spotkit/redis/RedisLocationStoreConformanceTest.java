package dev.spotkit.redis;

import dev.spotkit.store.LocationStore;
import dev.spotkit.store.LocationStoreConformance;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The Location Store conformance suite of toolkit-core, unchanged, on a real Redis. */
class RedisLocationStoreConformanceTest extends LocationStoreConformance {
  @RegisterExtension
  static final RedisServerExtension REDIS = new RedisServerExtension();
  private static RedisLocationStore shared;

  @Override
  protected LocationStore newStore() {
    if (shared == null) {
      shared = RedisLocationStore.connect(REDIS.uri(), "conformance");
    }
    return shared;
  }

  @Override
  protected boolean advanceStoreTime(final Duration by) {
    shared.advanceClock(by);
    return true;
  }

  @AfterAll
  static void closeStore() {
    if (shared != null) {
      shared.close();
    }
  }
}
