package dev.spotkit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spotkit.store.Condition;
import dev.spotkit.store.Mutation;
import dev.spotkit.store.ReadResult;
import dev.spotkit.store.StoreBytes;
import dev.spotkit.store.StoreVersion;
import dev.spotkit.store.WriteBatch;
import dev.spotkit.store.WriteResult;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A failover to a replica that missed the primary's last write (Redis replication is asynchronous; spec 002
 * section 10, FACTS.md "Location Store provider contract": each put gets a version the key never had). The
 * replica's sequence is behind, so plain INCR would issue the lost write's version again, and a CAS made by
 * someone who read the lost value would apply to a different value (ABA).
 */
class RedisFailoverTest {
  @RegisterExtension
  static final RedisServerExtension PRIMARY = new RedisServerExtension();

  private static <T> T get(final CompletionStage<T> stage) throws Exception {
    return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private static StoreVersion put(final RedisLocationStore store, final String key, final String value)
      throws Exception {
    return ((WriteResult.Applied) get(store.write(WriteBatch.unconditional(Mutation.Put.of(key,
        StoreBytes.utf8(value)))))).version(key);
  }

  @Test
  void aReplicaPromotedWithoutThePrimarysLastWriteNeverIssuesThatWritesVersionAgain() throws Exception {
    assertThat(PRIMARY.server().command("CONFIG", "SET", "repl-diskless-sync-delay", "0")).isEqualTo("+OK");
    final RedisServer replica = RedisServer.start();
    try (RedisLocationStore primary = RedisLocationStore.connect(PRIMARY.uri(), "failover")) {
      final String key = "authority\0actor\0a";
      put(primary, key, "x0");
      final StoreVersion v1 = put(primary, key, "x1");
      final String seq = primary.keys().internal("seq");
      assertThat(replica.command("REPLICAOF", "127.0.0.1", Integer.toString(PRIMARY.server().port())))
          .isEqualTo("+OK");
      Awaitility.await("the replica has the primary's data").atMost(Duration.ofSeconds(10))
          .pollInterval(Duration.ofMillis(20))
          .until(() -> replica.command("GET", seq).equals(PRIMARY.server().command("GET", seq)));
      // the failover: the replica is promoted; the primary's next write never reaches it
      assertThat(replica.command("REPLICAOF", "NO", "ONE")).isEqualTo("+OK");
      final StoreVersion lost = put(primary, key, "lost");
      try (RedisLocationStore promoted = RedisLocationStore.connect(replica.uri(), "failover")) {
        final ReadResult.Found found = (ReadResult.Found) get(promoted.read(key));
        assertThat(found.value().asUtf8()).isEqualTo("x1");
        assertThat(found.version()).isEqualTo(v1);
        final StoreVersion next = put(promoted, key, "y");
        assertThat(next).as("the lost write's version is never issued again").isNotEqualTo(lost);
        // whoever read the lost value and CASes on its version gets Conflict, not an update of "y"
        assertThat(get(promoted.write(WriteBatch.of(List.of(new Condition.ExpectVersion(key, lost)),
            List.of(Mutation.Put.of(key, StoreBytes.utf8("aba"))))))).isEqualTo(new WriteResult.Conflict());
        assertThat(((ReadResult.Found) get(promoted.read(key))).value().asUtf8()).isEqualTo("y");
        // afterwards versions count on from there, one per batch
        final StoreVersion after = put(promoted, key, "z");
        assertThat(Long.parseLong(after.value())).isEqualTo(Long.parseLong(next.value()) + 1);
      }
    } finally {
      replica.stop();
    }
  }

  @Test
  void aUserWhoseAclDeniesInfoStillWrites() throws Exception {
    assertThat(PRIMARY.server().command("ACL", "SETUSER", "noinfo", "on", ">pw", "~*", "+@all", "-info"))
        .isEqualTo("+OK");
    final String uri = PRIMARY.uri().replace("redis://", "redis://noinfo:pw@");
    try (RedisLocationStore store = RedisLocationStore.connect(uri, "noinfo")) {
      final StoreVersion v1 = put(store, "k", "a");
      final StoreVersion v2 = put(store, "k", "b");
      assertThat(Long.parseLong(v2.value())).isEqualTo(Long.parseLong(v1.value()) + 1);
      assertThat(((ReadResult.Found) get(store.read("k"))).value().asUtf8()).isEqualTo("b");
    }
  }
}
