package dev.spotkit.examples.chat;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code bin/chat-mesh-redis} stopped by a signal while chat-bots is still running: it stops chat-bots, the three
 * chat-server processes and its redis-server at once and exits 130, leaving no process behind. (Before, chat-bots
 * ran in the foreground, and bash only runs a trap once the foreground command ends: a SIGTERM waited for the whole
 * bot run.) The script runs the examples from this test's class path ({@code SPOTKIT_EXAMPLES_CLASSPATH}), so it
 * needs no built jar; it starts its own redis-server, which must be on the PATH.
 */
class ChatMeshRedisScriptTest {

  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void sigtermWhileTheBotsRunStopsEverythingAtOnce() throws Exception {
    final Path script = Path.of("..", "bin", "chat-mesh-redis").toAbsolutePath().normalize();
    assertThat(script).isRegularFile();
    // far more lines than the bots can send before the signal: without the fix the script would wait ~120 s
    final ProcessBuilder builder = new ProcessBuilder("bash", script.toString(), "--clients", "4", "--rooms", "2",
        "--messages", "1000000", "--timeout-seconds", "120")
        .redirectErrorStream(true);
    builder.environment().put("SPOTKIT_EXAMPLES_CLASSPATH", System.getProperty("java.class.path"));
    builder.environment().remove("REDIS_URI");
    final Process process = builder.start();
    final CountDownLatch meshUp = new CountDownLatch(1);
    final StringBuilder output = new StringBuilder();
    final Thread reader = Thread.ofVirtual().start(() -> {
      try (BufferedReader lines = new BufferedReader(
          new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line = lines.readLine(); line != null; line = lines.readLine()) {
          synchronized (output) {
            output.append(line).append('\n');
          }
          if (line.contains("chat-server processes in mesh")) {
            meshUp.countDown();
          }
        }
      } catch (java.io.IOException e) {
        // the process ended; the assertions below report what it printed
      }
    });
    try {
      assertThat(meshUp.await(60, TimeUnit.SECONDS)).as("script output:\n%s", output).isTrue();
      final List<ProcessHandle> started = awaitBots(process);

      process.destroy(); // SIGTERM

      assertThat(process.waitFor(20, TimeUnit.SECONDS)).as("script exits soon after SIGTERM").isTrue();
      assertThat(process.exitValue()).isEqualTo(130);
      for (ProcessHandle child : started) {
        try {
          child.onExit().get(10, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
          // reported by the assertion below
        }
        assertThat(child.isAlive()).as("left behind: %s", child.info()).isFalse();
      }
      reader.join(10_000);
      synchronized (output) {
        assertThat(output.toString()).as("the bots were still running").doesNotContain("chat-bots: clients=");
      }
    } finally {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
    }
  }

  /** Every process the script started (redis-server, three servers, chat-bots), once chat-bots runs. */
  private static List<ProcessHandle> awaitBots(final Process process) throws InterruptedException {
    final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      final List<ProcessHandle> children = process.children().toList();
      if (children.size() >= 5) { // redis-server, three chat-server processes, chat-bots
        return children;
      }
      // a poll of the process table, bounded by the deadline; there is no event to wait on
      assertThat(process.waitFor(100, TimeUnit.MILLISECONDS)).as("the script ended before chat-bots started")
          .isFalse();
    }
    throw new AssertionError("chat-bots did not start within 30 s");
  }
}
