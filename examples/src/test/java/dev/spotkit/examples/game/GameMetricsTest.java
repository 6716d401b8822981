package dev.spotkit.examples.game;

import static dev.spotkit.examples.chat.PrometheusScrape.scrape;
import static dev.spotkit.examples.chat.PrometheusScrape.sum;
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
  private static GameServerCommand command(final ByteArrayOutputStream err, final String... args) {
    final GameServerCommand command = new GameServerCommand();
    command.err = new PrintStream(err, true, StandardCharsets.UTF_8);
    command.env = Map.of();
    new CommandLine(command).parseArgs(args);
    return command;
  }

  @Test
  void aScrapeShowsTheGameNodesMeters() throws Exception {
    final GameServerCommand command = command(new ByteArrayOutputStream(), "--port", "0", "--nodes", "2",
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
    final ByteArrayOutputStream err = new ByteArrayOutputStream();
    final GameServerCommand command = command(err, "--port", "0", "--metrics-port", "70000");
    assertThat(command.call()).isEqualTo(CommandLine.ExitCode.USAGE);
    assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo("game-server: --metrics-port 70000 must be between 0"
        + " and 65535 (0 = a free port)" + System.lineSeparator());
    assertThat(command.metrics.endpoint()).isNull();
  }

  /** {@code --metrics-host} alone used to be ignored silently: no endpoint, and no word of it. */
  @Test
  @Timeout(value = 30, unit = TimeUnit.SECONDS) // without the check the server would start and run until stopped
  void aMetricsHostWithoutAMetricsPortIsAUsageError() throws Exception {
    final ByteArrayOutputStream err = new ByteArrayOutputStream();
    assertThat(command(err, "--port", "0", "--metrics-host", "0.0.0.0").call()).isEqualTo(CommandLine.ExitCode.USAGE);
    assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo("game-server: --metrics-host 0.0.0.0 needs"
        + " --metrics-port: add --metrics-port N (0 for a free port) to serve metrics, or drop --metrics-host"
        + System.lineSeparator());
  }

  @Test
  void aMetricsPortInUseIsAUsageErrorWithoutAStackTrace() throws Exception {
    try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1,
        java.net.InetAddress.getByName("127.0.0.1"))) {
      final ByteArrayOutputStream err = new ByteArrayOutputStream();
      final GameServerCommand command = command(err, "--port", "0", "--metrics-port",
          Integer.toString(taken.getLocalPort()));
      assertThat(command.call()).isEqualTo(CommandLine.ExitCode.USAGE);
      assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("game-server: --metrics-port "
          + taken.getLocalPort() + " on 127.0.0.1 cannot be bound: ")
          .endsWith("; choose another port, or 0 for a free one" + System.lineSeparator())
          .doesNotContain("\tat ");
    }
  }
}
