package dev.spotkit.redis;

import dev.spotkit.core.location.AggregateAuthorityContract;
import dev.spotkit.store.LocationStore;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The aggregate contract of toolkit-core, unchanged, on a real Redis (one key prefix per test). */
class RedisAggregateAuthorityTest extends AggregateAuthorityContract {
  @RegisterExtension
  static final RedisServerExtension REDIS = new RedisServerExtension();
  private static int tests;
  private final List<RedisLocationStore> opened = new ArrayList<>();

  @Override
  protected LocationStore newStore() {
    final RedisLocationStore store = RedisLocationStore.connect(REDIS.uri(), "aggregate-" + (++tests));
    opened.add(store);
    return store;
  }

  @AfterEach
  void closeStores() {
    opened.forEach(RedisLocationStore::close);
  }
}
