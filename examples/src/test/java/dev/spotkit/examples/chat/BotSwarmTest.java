package dev.spotkit.examples.chat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

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
  @Timeout(value = 30, unit = TimeUnit.SECONDS)
  void aRefusedJoinIsReportedAsTheServersLineWithoutWrapperExceptions() throws Exception {
    try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      final Thread answering = Thread.ofVirtual().start(() -> {
        try (Socket client = server.accept();
            BufferedReader in = new BufferedReader(
                new InputStreamReader(client.getInputStream(), StandardCharsets.UTF_8));
            Writer out = new OutputStreamWriter(client.getOutputStream(), StandardCharsets.UTF_8)) {
          for (String line = in.readLine(); line != null; line = in.readLine()) {
            out.write(line.startsWith("/nick ") ? ChatProtocol.OK_NICK + "bot0\n"
                : ChatProtocol.ERROR + "could not join room0: the room is unavailable\n");
            out.flush();
          }
        } catch (IOException e) {
          // the swarm closed the connection
        }
      });
      final BotReport report = BotSwarm.run(
          new BotSwarm.Settings("127.0.0.1", server.getLocalPort(), 1, 1, 5, Duration.ofSeconds(10)));
      assertThat(report.failure())
          .isEqualTo("join failed (bot0): bot0 got: error: could not join room0: the room is unavailable");
      assertThat(report.passed()).isFalse();
      answering.join(10_000);
    }
  }

  @Test
  void aConnectionErrorKeepsItsKind() {
    assertThat(BotSwarm.reason(new ExecutionException(new ConnectException("Connection refused"))))
        .isEqualTo("Connection refused (ConnectException)");
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
