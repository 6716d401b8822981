package dev.spotkit.examples.chat;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spotkit.redis.RedisServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/** chat-server on Redis exits non-zero with one line when its node stops itself (owner lease lost for good). */
class ChatServerLeaseLostTest {

  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void redisRestartedEmptyMakesChatServerExitWithStatus75AndOneLine() throws Exception {
    final RedisServer redis = RedisServer.start();
    try {
      final ByteArrayOutputStream out = new ByteArrayOutputStream();
      final ByteArrayOutputStream err = new ByteArrayOutputStream();
      final ChatServerCommand command = new ChatServerCommand();
      command.out = new PrintStream(out, true, StandardCharsets.UTF_8);
      command.err = new PrintStream(err, true, StandardCharsets.UTF_8);
      command.env = Map.of(ChatServerCommand.SECRET_ENV, "a-test-secret-of-32-bytes-length");
      final CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> new CommandLine(command)
          .execute("--store", redis.uri(), "--node-index", "0", "--port", "0", "--store-prefix", "lease-lost"));
      Awaitility.await().atMost(30, TimeUnit.SECONDS).until(() -> exit.isDone()
          || out.toString(StandardCharsets.UTF_8).contains("listening on"));
      assertThat(exit).isNotDone();

      redis.command("FLUSHALL"); // Redis restarted empty: the node's owner lease is gone for good

      assertThat(exit.get(60, TimeUnit.SECONDS)).isEqualTo(ChatServerCommand.EXIT_NODE_STOPPED);
      final String line = err.toString(StandardCharsets.UTF_8).strip();
      assertThat(line).startsWith("chat-server: ").contains("owner lease").contains("lost for good")
          .doesNotContain("\n");
    } finally {
      redis.stop();
    }
  }
}
