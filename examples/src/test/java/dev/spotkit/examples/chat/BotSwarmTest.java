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
      // 3 members x 3 senders x 5 lines, none delivered: outstanding at the timeout, not known lost
      assertThat(report.timedOut()).isEqualTo(45);
      assertThat(report.lost()).isZero();
      assertThat(report.reset()).isZero();
      assertThat(report.line()).contains(" delivered=0 lost=0 duplicated=0 reordered=0 timed_out=45 reset=0 ");
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
  @Timeout(value = 30, unit = TimeUnit.SECONDS)
  void deliveriesOutstandingAtTheTimeoutAreTimedOutAndThoseOfAResetBotAreLost() throws Exception {
    // bot0's connection is reset once the server has all its 5 lines (none echoed); bot1 gets 2 of its 5 echoes,
    // then the server stays silent until the timeout. Each bot is alone in its room.
    try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      final Thread serving = Thread.ofVirtual().start(() -> {
        for (int i = 0; i < 2; i++) {
          try {
            final Socket client = server.accept();
            Thread.ofVirtual().start(() -> halfAnswering(client));
          } catch (IOException e) {
            return; // the test closed the listener
          }
        }
      });
      final BotReport report = BotSwarm.run(
          new BotSwarm.Settings("127.0.0.1", server.getLocalPort(), 2, 2, 5, Duration.ofSeconds(3)));
      assertThat(report.expected()).isEqualTo(10);
      assertThat(report.delivered()).isEqualTo(2);
      assertThat(report.lost()).as(report.line()).isEqualTo(5); // bot0's: its connection is gone
      assertThat(report.timedOut()).as(report.line()).isEqualTo(3); // bot1's: still outstanding
      assertThat(report.reset()).isEqualTo(1);
      assertThat(report.passed()).isFalse();
      assertThat(report.failure()).startsWith("timed out after 3000 ms waiting for deliveries (3 deliveries"
          + " outstanding); 1 bot connection(s) reset or closed by the server: bot0 (");
      assertThat(report.line()).doesNotContain("\n")
          .contains(" expected=10 delivered=2 lost=5 duplicated=0 reordered=0 timed_out=3 reset=1 ");
      serving.join(10_000);
    }
  }

  /** Fake chat server of one connection: acks nick and join; resets bot0 after its 5th line; echoes 2 of bot1. */
  private static void halfAnswering(final Socket client) {
    try (client;
        BufferedReader in = new BufferedReader(new InputStreamReader(client.getInputStream(), StandardCharsets.UTF_8));
        Writer out = new OutputStreamWriter(client.getOutputStream(), StandardCharsets.UTF_8)) {
      String nick = "";
      int said = 0;
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        if (line.startsWith("/nick ")) {
          nick = line.substring(6);
          out.write(ChatProtocol.OK_NICK + nick + "\n");
        } else if (line.startsWith("/join ")) {
          out.write(ChatProtocol.OK_JOIN + line.substring(6) + "\n");
        } else if (nick.equals("bot0") && ++said == 5) {
          client.setSoLinger(true, 0); // close() now sends RST: the bot's reader gets "Connection reset"
          return;
        } else if (nick.equals("bot1") && ++said <= 2) {
          out.write("[room1] bot1: " + line + "\n");
        }
        out.flush();
      }
    } catch (IOException e) {
      // the swarm closed the connection
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
