package dev.spotkit.examples.chat;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spotkit.core.MeshNode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A small chat-demo in-process on three nodes (bots round-robin over them, so every room has members on all
 * three): every line reaches every room member once, in order.
 */
class ChatDemoTest {

  @Test
  void tenClientsTwoRoomsTwentyMessagesOnThreeNodesLoseDuplicateAndReorderNothing() throws Exception {
    try (ChatServer server = ChatServer.start("127.0.0.1", 0, 3)) {
      assertThat(server.ports()).hasSize(3).doesNotHaveDuplicates();
      final BotReport report = BotSwarm.run(
          new BotSwarm.Settings("127.0.0.1", server.ports(), 10, 2, 20, Duration.ofSeconds(30)));
      assertThat(report.failure()).isNull();
      assertThat(report.sent()).isEqualTo(200);
      assertThat(report.expected()).isEqualTo(2L * 5 * 5 * 20); // 2 rooms x 5 members x 5 senders x 20 lines
      assertThat(report.lost()).isZero();
      assertThat(report.timedOut()).isZero();
      assertThat(report.reset()).isZero();
      assertThat(report.duplicated()).isZero();
      assertThat(report.reordered()).isZero();
      assertThat(report.passed()).isTrue();
      assertThat(report.line()).matches("chat-bots: clients=10 rooms=2 sent=200 expected=1000 delivered=1000"
          + " lost=0 duplicated=0 reordered=0 timed_out=0 reset=0 p50_ms=\\d+\\.\\d\\d p99_ms=\\d+\\.\\d\\d"
          + " p999_ms=\\d+\\.\\d\\d deliveries_per_s=\\d+");
    }
  }

  @Test
  void oneNodeStillLosesDuplicatesAndReordersNothing() throws Exception {
    try (ChatServer server = ChatServer.start("127.0.0.1", 0)) {
      final BotReport report = BotSwarm.run(
          new BotSwarm.Settings("127.0.0.1", server.port(), 6, 2, 20, Duration.ofSeconds(30)));
      assertThat(report.failure()).isNull();
      assertThat(report.passed()).isTrue();
      assertThat(report.delivered()).isEqualTo(2L * 3 * 3 * 20);
    }
  }

  /**
   * A clean run's shutdown is quiet: once the bots closed their connections the demo lets the nodes finish the
   * departures (players leave their rooms and go, rooms close) before the server closes, so no closing node drops a
   * departure. Each drop used to be a WARN line after the summary ({@code dead letter (shutting_down)} on a node
   * that was closing, {@code a disconnect for actor ... was not delivered} for one already closed).
   */
  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void afterTheBotsLeftTheServerClosesWithoutDroppingTheirDeparturesOrWarning() throws Exception {
    final ByteArrayOutputStream closing = new ByteArrayOutputStream();
    final ChatServer server = ChatServer.start("127.0.0.1", 0, 3);
    final List<MeshNode> nodes = server.nodes();
    try {
      final BotReport report = BotSwarm.run(
          new BotSwarm.Settings("127.0.0.1", server.ports(), 12, 3, 10, Duration.ofSeconds(30)));
      assertThat(report.passed()).as(report.line()).isTrue();
      assertThat(server.awaitDepartures(Duration.ofSeconds(30))).as("players and rooms left").isZero();
    } finally {
      final PrintStream was = System.err; // slf4j-simple writes to the System.err of the moment
      System.setErr(new PrintStream(closing, true, StandardCharsets.UTF_8));
      try {
        server.close();
      } finally {
        System.setErr(was);
      }
    }
    for (MeshNode node : nodes) {
      assertThat(node.deadLetters()).as("dead letters of " + node).isEmpty();
    }
    assertThat(closing.toString(StandardCharsets.UTF_8)).doesNotContain(" WARN ");
  }

  @Test
  void theDemoCommandExitsZero() throws Exception {
    final ChatDemoCommand demo = new ChatDemoCommand();
    demo.clients = 4;
    demo.rooms = 2;
    demo.messages = 5;
    demo.timeoutSeconds = 30;
    assertThat(demo.nodes).isEqualTo(3);
    assertThat(demo.call()).isZero();
  }

  @Test
  void relocationsMovesAWandererBetweenNodesWhileTheBotsChatLosingNothing() throws Exception {
    final ChatDemoCommand demo = new ChatDemoCommand();
    demo.clients = 6;
    demo.rooms = 3;
    demo.messages = 20;
    demo.timeoutSeconds = 30;
    demo.relocations = 4;
    final String[] printed = new String[1];
    final int exit = run(demo, printed);
    final String line = printed[0];
    assertThat(line).matches("chat-bots: clients=6 rooms=3 sent=\\d+ expected=\\d+ delivered=\\d+"
        + " lost=0 duplicated=0 reordered=0 timed_out=0 reset=0 p50_ms=\\S+ p99_ms=\\S+"
        + " p999_ms=\\S+ deliveries_per_s=\\d+ relocations=4");
    assertThat(exit).isZero();
  }

  @Test
  void drainMovesTheRoomsOfTheBusiestNodeWithTheirMembersWhileTheBotsChatLosingNothing() throws Exception {
    // 4 rooms on 3 nodes: the busiest node owns 2 or more, and each moved with its 3 members
    drainCleanly(3, 12, 4, 100, 2);
  }

  /**
   * Issue 13's drain of a node holding about 50 rooms during chat traffic: 100 rooms on 2 nodes, the busier node
   * drained while 200 bots chat; every room it owned moves with its members, nothing is lost, duplicated or
   * reordered and nothing is kept.
   */
  @Test
  void drainOfANodeHoldingAboutFiftyRoomsDuringChatTrafficLosesNothing() throws Exception {
    // the busier of 2 nodes owns 50 or more of the 100 rooms (all exist before the drain starts); the exit code says
    // it owns none afterwards and that the drain's report (drained_rooms) names every one of them.
    drainCleanly(2, 200, 100, 40, 50);
  }

  /**
   * Runs {@code chat-demo --drain} and asserts its line is clean, at least {@code minRooms} rooms were drained and each
   * moved with all its members ({@code clients / rooms} each).
   */
  private static void drainCleanly(final int nodes, final int clients, final int rooms, final int messages,
      final int minRooms) throws Exception {
    final ChatDemoCommand demo = new ChatDemoCommand();
    demo.nodes = nodes;
    demo.clients = clients;
    demo.rooms = rooms;
    demo.messages = messages;
    demo.timeoutSeconds = 120;
    demo.drain = true;
    final String[] printed = new String[1];
    final int exit = run(demo, printed);
    final String line = printed[0];
    final java.util.regex.Matcher m = java.util.regex.Pattern.compile("chat-bots: clients=" + clients + " rooms="
        + rooms + " sent=" + (clients * messages) + " expected=\\d+ delivered=\\d+ lost=0 duplicated=0 reordered=0"
        + " timed_out=0 reset=0 p50_ms=\\S+ p99_ms=\\S+ p999_ms=\\S+ deliveries_per_s=\\d+ drained_rooms=(\\d+)"
        + " drained_actors=(\\d+) kept=0").matcher(line);
    assertThat(m.matches()).as(line).isTrue();
    assertThat(Integer.parseInt(m.group(1))).as(line).isGreaterThanOrEqualTo(minRooms);
    assertThat(Integer.parseInt(m.group(2))).as(line).isEqualTo(clients / rooms * Integer.parseInt(m.group(1)));
    assertThat(exit).isZero();
  }

  /** Runs the demo with System.out captured: its exit code, and the line it printed in {@code printed[0]}. */
  private static int run(final ChatDemoCommand demo, final String[] printed) throws Exception {
    final java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    final java.io.PrintStream was = System.out;
    System.setOut(new java.io.PrintStream(out, true, java.nio.charset.StandardCharsets.UTF_8));
    try {
      return demo.call();
    } finally {
      System.setOut(was);
      printed[0] = out.toString(java.nio.charset.StandardCharsets.UTF_8).strip();
    }
  }
}
