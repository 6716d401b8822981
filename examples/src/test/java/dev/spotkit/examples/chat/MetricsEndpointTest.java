package dev.spotkit.examples.chat;

import static dev.spotkit.examples.chat.MetricsTestSupport.assertHostWithoutPortIsAUsageError;
import static dev.spotkit.examples.chat.MetricsTestSupport.assertPortInUseIsAUsageError;
import static dev.spotkit.examples.chat.MetricsTestSupport.assertPortOutOfRangeIsAUsageError;
import static dev.spotkit.examples.chat.MetricsTestSupport.scrape;
import static dev.spotkit.examples.chat.MetricsTestSupport.sum;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/**
 * {@code chat-server --nodes 2 --metrics-port 0}: a Prometheus scrape of the printed endpoint during chat traffic
 * shows the node meters, tagged by node, moving: messages handled and turn latency of players, the relocation of a
 * player to its room's node (committed counter, pause histogram buckets, bytes), store calls, mesh connections and
 * bytes, open sessions; and a bad {@code --metrics-port}, or {@code --metrics-host} without it, is a usage error.
 */
class MetricsEndpointTest {

  @Test
  void aScrapeDuringChatTrafficShowsTheNodeMetersMoving() throws Exception {
    final ChatServerCommand command = new ChatServerCommand();
    new CommandLine(command).parseArgs("--port", "0", "--nodes", "2", "--metrics-port", "0");
    final ChatServer server = command.start();
    assertThat(server).isNotNull();
    try (server;
        BadInputTest.LineClient ann = new BadInputTest.LineClient(server.ports().get(0));
        BadInputTest.LineClient bob = new BadInputTest.LineClient(server.ports().get(1))) {
      final String url = "http://127.0.0.1:" + command.metrics.endpoint().port() + "/metrics";
      ann.enter("ann", "r");
      bob.enter("bob", "r"); // the room lives on one of the two nodes: one of the players moved to it
      final double before = sum(scrape(url), "spotkit_messages_handled_total", "type=\"player\"", "outcome=\"ok\"");
      for (int i = 0; i < 20; i++) {
        ann.send("a" + i);
      }
      for (int i = 0; i < 20; i++) {
        assertThat(bob.readLine()).startsWith("[r] ann: ");
      }
      final String text = scrape(url);
      assertThat(sum(text, "spotkit_messages_handled_total", "type=\"player\"", "outcome=\"ok\""))
          .as("player turns handled between two scrapes").isGreaterThanOrEqualTo(before + 20);
      assertThat(sum(text, "spotkit_turn_duration_seconds_count", "kind=\"actor\"", "type=\"player\"")).isPositive();
      assertThat(sum(text, "spotkit_permits_live_max")).as("turns ran since the last scrape").isPositive();
      assertThat(text).contains("spotkit_mailbox_depth{").contains("spotkit_permits_live{")
          .contains("spotkit_mailbox_depth_max{kind=\"actor\"")
          .contains("spotkit_dispatcher_workers{").contains("spotkit_lease_renewals_total{")
          .contains("spotkit_relocation_follow_forwards_total{").contains("spotkit_events_listener_failures_total{");
      await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> { // the source learns the commit by a store read
        final String now = scrape(url);
        assertThat(sum(now, "spotkit_relocations_total", "kind=\"join\"", "role=\"source\"", "outcome=\"committed\""))
            .isEqualTo(1);
        assertThat(sum(now, "spotkit_relocations_total", "kind=\"join\"", "role=\"target\"", "outcome=\"committed\""))
            .isEqualTo(1);
        assertThat(sum(now, "spotkit_relocation_pause_seconds_bucket", "role=\"target\"", "le=\"+Inf\""))
            .isEqualTo(1);
        assertThat(sum(now, "spotkit_relocation_bytes_total", "direction=\"sent\"")).isPositive();
      });
      assertThat(sum(text, "spotkit_store_duration_seconds_count", "store=\"location\"", "operation=\"write\""))
          .isPositive();
      assertThat(sum(text, "spotkit_mesh_connections")).isGreaterThanOrEqualTo(2); // one per node, both ends
      assertThat(sum(text, "spotkit_mesh_bytes_total", "direction=\"received\"")).isPositive();
      assertThat(sum(text, "spotkit_sessions_open")).isEqualTo(2);
      assertThat(sum(text, "spotkit_sessions_open", "node=\"0\"")).isEqualTo(1);
    } finally {
      command.closeMetrics();
    }
  }

  @Test
  void aMetricsPortOutOfRangeIsAUsageError() throws Exception {
    assertPortOutOfRangeIsAUsageError("chat-server", ChatServerCommandAccess::run);
  }

  /** {@code --metrics-host} alone used to be ignored silently: no endpoint, and no word of it. */
  @Test
  @Timeout(value = 30, unit = TimeUnit.SECONDS) // without the check the server would start and run until stopped
  void aMetricsHostWithoutAMetricsPortIsAUsageError() throws Exception {
    assertHostWithoutPortIsAUsageError("chat-server", ChatServerCommandAccess::run);
  }

  @Test
  void aMetricsPortInUseIsAUsageErrorWithoutAStackTrace() throws Exception {
    assertPortInUseIsAUsageError("chat-server", ChatServerCommandAccess::run);
  }
}
