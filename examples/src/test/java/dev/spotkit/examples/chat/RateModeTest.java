package dev.spotkit.examples.chat;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spotkit.examples.SpotkitExamples;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/**
 * {@code chat-bots --rate}: paced bots deliver everything, lose, duplicate and reorder nothing, keep their schedule
 * and report latency and sustained deliveries/s, against the Spotkit server and the raw Netty baseline alike; a
 * rate that is not above 0 is a usage error.
 */
class RateModeTest {

  /** 4 bots in 2 rooms: 2 rooms x 2 members x 2 senders x 25 lines. */
  private static final long EXPECTED = 2L * 2 * 2 * 25;

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aShortPacedRunAgainstTheChatServerDeliversEverythingOnSchedule() throws Exception {
    try (ChatServer server = ChatServer.start("127.0.0.1", 0)) {
      assertPacedRunPasses(server.port());
    }
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aShortPacedRunAgainstTheRawServerDeliversEverythingOnSchedule() throws Exception {
    try (RawChatServer server = RawChatServer.start("127.0.0.1", 0)) {
      assertPacedRunPasses(server.port());
    }
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aShortPacedRunAgainstTheRawServerWithConsolidatedFlushesDeliversEverythingOnSchedule() throws Exception {
    try (RawChatServer server = RawChatServer.start("127.0.0.1", 0, true)) {
      assertPacedRunPasses(server.port());
    }
  }

  private static void assertPacedRunPasses(final int port) throws InterruptedException {
    final BotSwarm.Settings settings =
        new BotSwarm.Settings("127.0.0.1", List.of(port), 4, 2, 25, Duration.ofSeconds(30), 50);
    assertThat(settings.paced()).isTrue();
    final long start = System.nanoTime();
    final BotReport report = BotSwarm.run(settings);
    final Duration took = Duration.ofNanos(System.nanoTime() - start);
    assertThat(report.failure()).isNull();
    assertThat(report.passed()).as(report.line()).isTrue();
    assertThat(report.sent()).isEqualTo(4 * 25);
    assertThat(report.delivered()).isEqualTo(EXPECTED);
    assertThat(report.lost()).isZero();
    assertThat(report.duplicated()).isZero();
    assertThat(report.reordered()).isZero();
    // 25 lines at 50 lines/s: the last one is due 24/50 s after the schedule starts, so the run cannot be shorter
    assertThat(took).isGreaterThanOrEqualTo(Duration.ofMillis(480));
    assertThat(report.p50Millis()).isPositive();
    assertThat(report.p999Millis()).isGreaterThanOrEqualTo(report.p99Millis());
    assertThat(report.p99Millis()).isGreaterThanOrEqualTo(report.p50Millis());
    assertThat(report.deliveriesPerSecond()).isPositive();
    assertThat(report.line()).matches("chat-bots: clients=4 rooms=2 sent=100 expected=200 delivered=200 lost=0"
        + " duplicated=0 reordered=0 timed_out=0 reset=0 p50_ms=\\d+\\.\\d\\d p99_ms=\\d+\\.\\d\\d"
        + " p999_ms=\\d+\\.\\d\\d deliveries_per_s=\\d+");
  }

  @Test
  void aRateThatIsNotAboveZeroIsAUsageErrorWithExitCodeTwo() {
    for (String rate : List.of("0", "-5", "NaN", "1000001", "Infinity")) {
      final CommandLine top = new CommandLine(new SpotkitExamples());
      final ByteArrayOutputStream err = new ByteArrayOutputStream();
      top.setErr(new java.io.PrintWriter(err, true, StandardCharsets.UTF_8));
      assertThat(top.execute("chat-bots", "--port", "7000", "--rate", rate)).as(rate).isEqualTo(2);
      assertThat(err.toString(StandardCharsets.UTF_8)).as(rate).contains("--rate ")
          .contains(" must be above 0 and at most 1000000.0 lines/s per bot");
    }
  }

  @Test
  void theSwarmRefusesARateOutOfRange() {
    for (double rate : new double[] {-1, Double.NaN, 2_000_000}) {
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> new BotSwarm.Settings("127.0.0.1", List.of(7000), 2,
          1, 5, Duration.ofSeconds(5), rate)).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("rate ");
    }
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void theBenchmarkPrintsATableForTheRawServer() throws Exception {
    final ByteArrayOutputStream out = new ByteArrayOutputStream();
    final PrintStream was = System.out;
    final int code;
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    try {
      code = new CommandLine(new SpotkitExamples()).execute("chat-bench", "--servers", "raw", "--in-process",
          "--clients", "4", "--rooms", "2", "--start-rate", "20", "--max-steps", "1", "--refine", "0",
          "--step-seconds", "1", "--measure-seconds", "1", "--settle-ms", "0", "--p50-limit-ms", "1000",
          "--keep-up", "0.5");
    } finally {
      System.setOut(was);
    }
    final String printed = out.toString(StandardCharsets.UTF_8);
    assertThat(code).as(printed).isZero();
    assertThat(printed).contains("| load | raw offered/s | raw deliveries/s | raw p50 ms | raw p99 ms | raw p999 ms |")
        .containsPattern("\\| saturation \\| [0-9,]+ \\| [0-9,]+ \\|")
        .containsPattern("\\| 25% \\| [0-9,]+ \\|").containsPattern("\\| 50% \\| [0-9,]+ \\|")
        .containsPattern("\\| 90% \\| [0-9,]+ \\|")
        .contains("targets: not measured (needs both servers)");
  }
}
