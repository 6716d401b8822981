package dev.spotkit.examples.chat;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spotkit.core.MeshNode;
import dev.spotkit.redis.RedisLocationStore;
import dev.spotkit.redis.RedisRelocationStore;
import dev.spotkit.redis.RedisServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The chat servers of a one-node-per-process mesh ({@link ChatServer#startMember}, what {@code chat-server
 * --store redis://... --node-index I} runs), here three in one JVM, each with its own connections to one real
 * redis-server: they find each other through their descriptors in the store, and the bots spread over their
 * three session ports lose, duplicate and reorder nothing. (bin/chat-mesh-redis runs the same as three
 * processes.)
 */
class RedisMeshChatTest {

  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void threeMembersOnOneRedisFormAMeshAndTheBotsLoseNothing() throws Exception {
    final RedisServer redis = RedisServer.start();
    final List<ChatServer> members = new ArrayList<>();
    try {
      final byte[] secret = "a-test-secret-of-32-bytes-length".getBytes(StandardCharsets.UTF_8);
      for (int i = 0; i < 3; i++) {
        members.add(ChatServer.startMember("127.0.0.1", 0, "127.0.0.1", secret,
            RedisLocationStore.connect(redis.uri(), "chat-test"), RedisRelocationStore.connect(redis.uri(),
                "chat-test"), i == 0));
      }
      final List<Integer> ports = members.stream().map(ChatServer::port).toList();
      final BotReport report = BotSwarm.run(new BotSwarm.Settings("127.0.0.1", ports, 12, 4, 30,
          Duration.ofSeconds(60)));
      assertThat(report.failure()).as(report.line()).isNull();
      assertThat(report.lost()).as(report.line()).isZero();
      assertThat(report.line()).contains("lost=0 duplicated=0 reordered=0");
      assertThat(report.passed()).isTrue();
      assertThat(members.stream().map(ChatServer::node).map(MeshNode::nodeRid).distinct()).hasSize(3);
    } finally {
      members.forEach(ChatServer::close);
      redis.stop();
    }
  }
}
