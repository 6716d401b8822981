package dev.spotkit.examples.chat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The bots end within their timeout and fail loudly when the server does not answer. */
class BotSwarmTest {

  @Test
  void aServerThatNeverAnswersFailsTheRunWithinItsTimeout() throws Exception {
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      final long start = System.nanoTime();
      final BotReport report = BotSwarm.run(
          new BotSwarm.Settings("127.0.0.1", silent.getLocalPort(), 3, 1, 5, Duration.ofSeconds(2)));
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
      assertThat(report.failure()).startsWith("join timed out");
      assertThat(report.passed()).isFalse();
      assertThat(report.lost()).isEqualTo(45); // 3 members x 3 senders x 5 lines, none delivered
    }
  }

  @Test
  void settingsNameTheBadValue() {
    assertThatThrownBy(() -> new BotSwarm.Settings("127.0.0.1", 7000, 2, 3, 1, Duration.ofSeconds(1)))
        .hasMessage("rooms 3 must be between 1 and clients (2)");
  }

  @Test
  void roomTextIsTheTextAfterTheNick() {
    assertThat(ChatProtocol.roomText("[room0] bot1: bot1 7")).isEqualTo("bot1 7");
    assertThat(ChatProtocol.roomText("ok join room0")).isNull();
  }
}
