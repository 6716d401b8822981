package dev.spotkit.examples.game;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spotkit.core.NodeRid;
import dev.spotkit.core.RelocateOptions;
import dev.spotkit.core.RelocateResult;
import dev.spotkit.redis.RedisLocationStore;
import dev.spotkit.redis.RedisRelocationStore;
import dev.spotkit.redis.RedisServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The game servers of a one-node-per-process mesh ({@link GameServer#startMember}, what {@code game-server --store
 * redis://... --node-index I} runs), here three in one JVM on one real redis-server: the bots on the gateway play
 * their matches on the workers, while worker 1 is drained, closed and started again as a fresh member; every match
 * completes with every result delivered once and in order.
 */
class GameRedisMeshTest {

  private static final byte[] SECRET = "a-test-secret-of-32-bytes-length".getBytes(StandardCharsets.UTF_8);

  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void threeMembersOnOneRedisPlayTheirMatchesThroughARestartOfAWorker() throws Exception {
    final RedisServer redis = RedisServer.start();
    final GameRules rules = new GameRules(4, 8, Duration.ofMillis(50));
    final List<GameServer> members = new ArrayList<>();
    try {
      for (int i = 0; i < 3; i++) {
        members.add(member(redis, i, rules));
      }
      final NodeRid gateway = members.get(0).nodes().get(0).nodeRid();
      final GameReport report = GameBots.run(new GameBots.Settings("127.0.0.1", members.get(0).ports(), 2, 4,
          Duration.ofSeconds(60)), Map.of(), () -> {
            final RelocateResult drained = members.get(1).nodes().get(0).relocate(RelocateOptions.drainAnywhere()
                .filter(rid -> !rid.equals(gateway))).get(60, TimeUnit.SECONDS);
            members.get(1).close();
            members.set(1, member(redis, 1, rules));
            final List<RelocateResult.Kept> kept = drained.kept().stream()
                .filter(k -> !GameServer.NOT_BLOCKING.contains(k.reason())).toList();
            return new GameBots.Step(drained.rooms().size(), List.of(), kept.isEmpty() ? null : "kept " + kept);
          });
      assertThat(report.failure()).as(report.line()).isNull();
      assertThat(report.passed()).as(report.line()).isTrue();
      assertThat(report.line()).contains("matches=2 completed=2 rounds=16");
    } finally {
      members.forEach(GameServer::close);
      redis.stop();
    }
  }

  private static GameServer member(final RedisServer redis, final int index, final GameRules rules) {
    return GameServer.startMember("127.0.0.1", 0, "127.0.0.1", SECRET,
        RedisLocationStore.connect(redis.uri(), "game-test"), RedisRelocationStore.connect(redis.uri(), "game-test"),
        index, rules);
  }
}
