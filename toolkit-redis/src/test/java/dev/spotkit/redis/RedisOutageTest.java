package dev.spotkit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spotkit.store.Mutation;
import dev.spotkit.store.ReadResult;
import dev.spotkit.store.StoreBytes;
import dev.spotkit.store.StoreException;
import dev.spotkit.store.WriteBatch;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Connecting to a Redis that is too old, and a Redis outage longer than a lease renewal interval (spec 002
 * section 5): every call during the outage fails at once with {@code StoreException.Unavailable}, and the store
 * serves again about a second after Redis is back, not after a reconnect backoff grown to many seconds
 * (Lettuce's default grows to 30 s, longer than the 15 s owner lease TTL).
 */
class RedisOutageTest {
  @RegisterExtension
  static final RedisServerExtension REDIS = new RedisServerExtension();

  private static <T> T get(final CompletionStage<T> stage) throws Exception {
    return stage.toCompletableFuture().get(5, TimeUnit.SECONDS);
  }

  private static boolean unavailable(final CompletionStage<?> stage) throws Exception {
    try {
      stage.toCompletableFuture().get(1, TimeUnit.SECONDS);
      return false;
    } catch (ExecutionException e) {
      return e.getCause() instanceof StoreException.Unavailable;
    }
  }

  @Test
  void afterATenSecondOutageTheStoreServesWithinAboutASecondOfRedisComingBack() throws Exception {
    try (RedisLocationStore store = RedisLocationStore.connect(REDIS.uri(), "outage");
        RedisRelocationStore payloads = RedisRelocationStore.connect(REDIS.uri(), "outage")) {
      get(store.write(WriteBatch.unconditional(Mutation.Put.of("k", StoreBytes.utf8("v")))));
      REDIS.server().kill();
      // the outage: every call fails fast and typed, for 10 s (the client's reconnect attempts back off meanwhile)
      Awaitility.await().during(Duration.ofSeconds(10)).atMost(Duration.ofSeconds(15))
          .pollInterval(Duration.ofMillis(250)).until(() -> unavailable(store.read("k"))
              && unavailable(payloads.get(new dev.spotkit.store.RelocationReference("r"))));
      REDIS.server().restart();
      Awaitility.await("both stores serve again").atMost(Duration.ofMillis(2500)).pollInterval(Duration.ofMillis(20))
          .ignoreException(ExecutionException.class)
          .until(() -> get(store.read("k")) instanceof ReadResult.Missing
              && get(payloads.get(new dev.spotkit.store.RelocationReference("r")))
              instanceof dev.spotkit.store.RelocationStore.GetResult.Missing);
      assertThat(get(store.write(WriteBatch.unconditional(Mutation.Put.of("k", StoreBytes.utf8("w"))))))
          .isInstanceOf(dev.spotkit.store.WriteResult.Applied.class);
    }
  }

  @Test
  void aServerOlderThanRedis7IsRefusedAtConnectWithAClearMessage() {
    // a Redis 7 without PEXPIRETIME stands in for Redis 6.x, where every relocation read failed in its script
    final RedisServer old = RedisServer.start("--rename-command", "PEXPIRETIME", "");
    try {
      assertThatThrownBy(() -> RedisRelocationStore.connect(old.uri(), "old"))
          .isInstanceOf(StoreException.Unavailable.class).hasMessageContaining("Redis 7.0 or later");
      assertThatThrownBy(() -> RedisLocationStore.connect(old.uri(), "old"))
          .isInstanceOf(StoreException.Unavailable.class).hasMessageContaining("Redis 7.0 or later");
    } finally {
      old.stop();
    }
  }
}
