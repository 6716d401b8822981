package dev.spotkit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spotkit.store.Condition;
import dev.spotkit.store.Mutation;
import dev.spotkit.store.ReadResult;
import dev.spotkit.store.ScanRequest;
import dev.spotkit.store.ScanResult;
import dev.spotkit.store.StoreBytes;
import dev.spotkit.store.StoreException;
import dev.spotkit.store.StoreVersion;
import dev.spotkit.store.WriteBatch;
import dev.spotkit.store.WriteResult;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Redis killed and restarted between a write and its answer (spec 002 section 10): the provider reports
 * Indeterminate, never a guess; calls made while Redis is down are Unavailable at once; after the restart the
 * same store reconnects by itself and a re-read decides what to do next. Its own class: it kills the server.
 */
class RedisRestartTest {
  @RegisterExtension
  static final RedisServerExtension REDIS = new RedisServerExtension();

  private static <T> T get(final CompletionStage<T> stage) throws Exception {
    return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private static Throwable failure(final CompletionStage<?> stage) throws Exception {
    try {
      stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      return e.getCause();
    }
    throw new AssertionError("the call did not fail");
  }

  @Test
  void aWriteWhoseAnswerIsLostToARestartIsIndeterminateAndARereadConverges() throws Exception {
    try (RedisLocationStore store = RedisLocationStore.connect(REDIS.uri(), "restart")) {
      final String key = "authority\0actor\0user:7";
      final StoreVersion v0 = ((WriteResult.Applied) get(store.write(WriteBatch.unconditional(
          Mutation.Put.of(key, StoreBytes.utf8("owner-a")))))).version(key);
      get(store.write(WriteBatch.unconditional(Mutation.Put.of("listed/1", StoreBytes.utf8("1")),
          Mutation.Put.of("listed/2", StoreBytes.utf8("2")))));
      final ScanResult.Page first = (ScanResult.Page) get(store.scan(ScanRequest.first("listed/", 1)));
      assertThat(first.next()).isPresent();
      assertThat(REDIS.server().command("CLIENT", "PAUSE", "30000", "WRITE")).isEqualTo("+OK");
      final CompletionStage<WriteResult> cas = store.write(WriteBatch.of(List.of(new Condition.ExpectVersion(key, v0)),
          List.of(Mutation.Put.of(key, StoreBytes.utf8("owner-b")))));
      // the write reached Redis and waits there, unanswered
      Awaitility.await().atMost(5, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(10))
          .until(() -> REDIS.server().command("INFO", "clients").contains("blocked_clients:1"));
      REDIS.server().kill();
      assertThat(failure(cas)).as("the answer was lost: may or may not have applied")
          .isInstanceOf(StoreException.Indeterminate.class);
      assertThat(failure(store.read(key))).as("while Redis is down: not sent, Unavailable at once")
          .isInstanceOf(StoreException.Unavailable.class);
      REDIS.server().restart();
      // never guess: re-read until Redis answers; the restarted server (no persistence) holds nothing
      Awaitility.await().atMost(15, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(20))
          .ignoreException(StoreException.Unavailable.class).ignoreException(ExecutionException.class)
          .until(() -> get(store.read(key)) instanceof ReadResult.Missing);
      assertThat(get(store.write(WriteBatch.of(List.of(new Condition.ExpectVersion(key, v0)),
          List.of(Mutation.Put.of(key, StoreBytes.utf8("owner-b")))))))
          .as("the first-read version is gone: the old CAS can never apply").isEqualTo(new WriteResult.Conflict());
      final WriteResult.Applied applied = (WriteResult.Applied) get(store.write(WriteBatch.of(
          List.of(new Condition.ExpectAbsent(key)), List.of(Mutation.Put.of(key, StoreBytes.utf8("owner-b"))))));
      assertThat(applied.version(key)).as("the emptied Redis never issues a version of before the restart")
          .isNotEqualTo(v0);
      assertThat(get(store.write(WriteBatch.of(List.of(new Condition.ExpectVersion(key, v0)),
          List.of(Mutation.Put.of(key, StoreBytes.utf8("stale"))))))).as("no ABA: the stale CAS still conflicts")
          .isEqualTo(new WriteResult.Conflict());
      assertThat(((ReadResult.Found) get(store.read(key))).value().asUtf8()).isEqualTo("owner-b");
      assertThat(get(store.scan(ScanRequest.next("listed/", first.next().get(), 1))))
          .as("the snapshot of a scan did not survive the restart").isEqualTo(new ScanResult.Expired());
    }
  }
}
