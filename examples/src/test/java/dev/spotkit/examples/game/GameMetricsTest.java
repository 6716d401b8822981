package dev.spotkit.examples.game;

import static dev.spotkit.examples.chat.MetricsTestSupport.assertHostWithoutPortIsAUsageError;
import static dev.spotkit.examples.chat.MetricsTestSupport.assertPortInUseIsAUsageError;
import static dev.spotkit.examples.chat.MetricsTestSupport.assertPortOutOfRangeIsAUsageError;
import static dev.spotkit.examples.chat.MetricsTestSupport.scrape;
import static dev.spotkit.examples.chat.MetricsTestSupport.sum;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/**
 * {@code game-server --nodes 2 --metrics-port 0}: a Prometheus scrape of the endpoint shows the node meters, tagged
 * by node (a player's handled commands, the open session, the mesh); a bad {@code --metrics-port}, or
 * {@code --metrics-host} without it, is a usage error, as for {@code chat-server} (the same {@code MetricsOptions}).
 */
class GameMetricsTest {

  /** A parsed {@code game-server} command whose stderr goes to {@code err} and whose environment is empty. */
  private static GameServerCommand command(final PrintStream err, final String... args) {
    final GameServerCommand command = new GameServerCommand();
    command.err = err;
    command.env = Map.of();
    new CommandLine(command).parseArgs(args);
    return command;
  }

  /** Runs {@code game-server args} to its exit code (it returns only when it did not start). */
  private static int run(final PrintStream err, final String... args) throws Exception {
    return command(err, args).call();
  }

  @Test
  void aScrapeShowsTheGameNodesMeters() throws Exception {
    final GameServerCommand command = command(System.err, "--port", "0", "--nodes", "2",
        "--metrics-port", "0");
    final ByteArrayOutputStream printed = new ByteArrayOutputStream();
    command.out = new PrintStream(printed, true, StandardCharsets.UTF_8);
    final GameServer server = command.start();
    try (server; Socket client = new Socket()) {
      final String url = "http://127.0.0.1:" + command.metrics.endpoint().port() + "/metrics";
      command.metrics.printUrl(command.out, "game-server");
      assertThat(printed.toString(StandardCharsets.UTF_8)).isEqualTo("game-server: metrics on " + url
          + System.lineSeparator());
      client.connect(new InetSocketAddress("127.0.0.1", server.gatewayPort()), 10_000);
      client.setSoTimeout(10_000);
      final BufferedReader in = new BufferedReader(new InputStreamReader(client.getInputStream(),
          StandardCharsets.UTF_8));
      final OutputStream out = client.getOutputStream();
      for (int i = 0; i < 3; i++) {
        out.write("/where\n".getBytes(StandardCharsets.UTF_8));
        out.flush();
        assertThat(in.readLine()).isEqualTo("where: in no match");
      }
      final String text = scrape(url);
      assertThat(sum(text, "spotkit_messages_handled_total", "type=\"" + GamePlayer.TYPE + "\"", "outcome=\"ok\"",
          "node=\"0\"")).as("the player's turns on the gateway").isGreaterThanOrEqualTo(3);
      assertThat(sum(text, "spotkit_sessions_open", "node=\"0\"")).isEqualTo(1);
      assertThat(sum(text, "spotkit_sessions_open", "node=\"1\"")).isZero();
      assertThat(text).contains("spotkit_sessions_open{node=\"1\"").contains("spotkit_mailbox_depth{")
          .contains("spotkit_lease_renewals_total{").contains("spotkit_mesh_connections{node=\"1\"");
    } finally {
      command.metrics.close();
    }
  }

  @Test
  void aMetricsPortOutOfRangeIsAUsageError() throws Exception {
    assertPortOutOfRangeIsAUsageError("game-server", GameMetricsTest::run);
  }

  /** {@code --metrics-host} alone used to be ignored silently: no endpoint, and no word of it. */
  @Test
  @Timeout(value = 30, unit = TimeUnit.SECONDS) // without the check the server would start and run until stopped
  void aMetricsHostWithoutAMetricsPortIsAUsageError() throws Exception {
    assertHostWithoutPortIsAUsageError("game-server", GameMetricsTest::run);
  }

  @Test
  void aMetricsPortInUseIsAUsageErrorWithoutAStackTrace() throws Exception {
    assertPortInUseIsAUsageError("game-server", GameMetricsTest::run);
  }
}
