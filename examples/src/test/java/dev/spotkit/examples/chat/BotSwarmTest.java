package dev.spotkit.examples.chat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
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
        } else if (line.equals("/where")) {
          continue; // unanswered: the report's rooms then name node "?"
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

  /**
   * As {@code kill -9} of the chat-server node the bots use: the server acks every bot's join, takes a few of its
   * lines, then resets every connection and stops listening while the bots still have thousands of lines to say.
   * chat-bots must end at once, not at its timeout, name the bots the server dropped, count what they will not get
   * as lost, and exit 1.
   */
  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aServerKilledMidRunEndsTheRunAtOnceNamingTheDroppedBotsAndExitsOne() throws Exception {
    final int clients = 4;
    final Queue<Socket> accepted = new ConcurrentLinkedQueue<>();
    final CountDownLatch talking = new CountDownLatch(clients); // each bot said 3 lines
    try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      Thread.ofVirtual().start(() -> acceptAll(server, accepted, client -> ackThenCount(client, 3, talking)));
      final Thread killer = Thread.ofVirtual().start(() -> killOnce(talking, server, accepted));
      final long start = System.nanoTime();
      final String[] printed = new String[2];
      final int exit = runAndPrint(new BotSwarm.Settings("127.0.0.1", List.of(server.getLocalPort()), clients, 2,
          10_000, Duration.ofSeconds(45), 50), printed); // 200 s of lines at 50/s: only the server's death ends it
      assertThat(Duration.ofNanos(System.nanoTime() - start)).as(printed[1]).isLessThan(Duration.ofSeconds(15));
      killer.join(10_000);
      assertThat(exit).isEqualTo(1);
      final String[] lines = printed[0].split("\n");
      assertThat(lines[0]).startsWith("chat-bots: clients=4 rooms=2 ").contains(" reset=4 ")
          .contains(" timed_out=0 ").doesNotContain(" lost=0 ");
      assertThat(lines).hasSize(3); // with a room's line each, as after any drop: no member left, so not clean
      assertThat(lines[1]).startsWith("chat-bots: room=room0 node=? members=2 dropped=2 expected=0 ")
          .endsWith(" clean=false");
      assertThat(printed[1]).contains("4 bot connection(s) reset or closed by the server: bot0 (")
          .contains("bot1 (").contains("bot2 (").contains("bot3 (");
    }
  }

  /**
   * Two nodes of one fake mesh relaying each room's lines to its members on both; node B dies (its listener closes, its
   * connections are reset) once its bots' lines flow. The bots of node A go on and finish without waiting for the
   * timeout; each room's survivors got every line of each other and, of the dropped member, every line the room had
   * relayed before the death, so each room is clean, and its part of the report says so on its own line.
   */
  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aNodeThatDiesMidRunDropsItsBotsAndTheOthersFinishWithEveryRoomClean() throws Exception {
    final int messages = 400;
    final FakeMesh mesh = new FakeMesh(2, 10); // B's two bots, one per room: each has 10 lines relayed first
    try (mesh) {
      final Thread killer = Thread.ofVirtual().start(mesh::killNodeBOnceItsLinesFlow);
      final long start = System.nanoTime();
      final String[] printed = new String[2];
      // bot i connects to ports[i % 3] (A, B, A) and joins room i % 2: each room has two members on A, one on B
      final int exit = runAndPrint(new BotSwarm.Settings("127.0.0.1", List.of(mesh.portA(), mesh.portB(),
          mesh.portA()), 6, 2, messages, Duration.ofSeconds(30), 200), printed);
      assertThat(Duration.ofNanos(System.nanoTime() - start)).as(printed[0]).isLessThan(Duration.ofSeconds(25));
      killer.join(10_000);
      assertThat(exit).as("a drop fails the run").isEqualTo(1);
      final String[] lines = printed[0].split("\n");
      assertThat(lines).hasSize(3);
      assertThat(lines[0]).contains(" reset=2 ").contains(" duplicated=0 reordered=0 timed_out=0 ");
      for (int room = 0; room < 2; room++) {
        final java.util.regex.Matcher m = java.util.regex.Pattern.compile("chat-bots: room=room" + room
            + " node=a members=3 dropped=1 expected=(\\d+) delivered=(\\d+) lost=0 duplicated=0 reordered=0"
            + " timed_out=0 clean=true").matcher(lines[1 + room]);
        assertThat(m.matches()).as(lines[1 + room]).isTrue();
        final long expected = Long.parseLong(m.group(1));
        assertThat(Long.parseLong(m.group(2))).isEqualTo(expected);
        // two survivors, each due both survivors' lines and the dropped member's relayed prefix (not empty: its
        // lines flowed before the death, not all: it died before its schedule ended)
        assertThat(expected).as(lines[1 + room]).isGreaterThan(2L * 2 * messages).isLessThan(2L * 3 * messages);
      }
      assertThat(printed[1]).contains("2 bot connection(s) reset or closed by the server: bot1 (").contains("bot4 (");
    }
  }

  /**
   * Two listeners, A and B, relaying each room's lines to its members on both, in one order per room (as one chat
   * mesh with the room on A); {@code /where} answers {@code node=a}. {@link #killNodeBOnceItsLinesFlow} resets B.
   */
  private static final class FakeMesh implements AutoCloseable {
    private final ServerSocket a = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    private final ServerSocket b = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    private final Queue<Socket> onB = new ConcurrentLinkedQueue<>();
    private final java.util.Map<String, java.util.List<Writer>> rooms = new java.util.HashMap<>();
    private final CountDownLatch flowing;
    private final int linesEach;
    private final java.util.Map<String, java.util.concurrent.atomic.AtomicInteger> relayedFromB =
        new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * @param botsOnB the bots that connect to B.
     * @param linesEach lines of each of them relayed before B may die.
     */
    FakeMesh(final int botsOnB, final int linesEach) throws IOException {
      flowing = new CountDownLatch(botsOnB);
      this.linesEach = linesEach;
      Thread.ofVirtual().start(() -> acceptAll(a, new ConcurrentLinkedQueue<>(), client -> relay(client, false)));
      Thread.ofVirtual().start(() -> acceptAll(b, onB, client -> relay(client, true)));
    }

    int portA() {
      return a.getLocalPort();
    }

    int portB() {
      return b.getLocalPort();
    }

    void killNodeBOnceItsLinesFlow() {
      killOnce(flowing, b, onB);
    }

    private void relay(final Socket client, final boolean nodeB) {
      try {
        final BufferedReader in = new BufferedReader(new InputStreamReader(client.getInputStream(),
            StandardCharsets.UTF_8));
        final Writer out = new OutputStreamWriter(client.getOutputStream(), StandardCharsets.UTF_8);
        String nick = "";
        String room = null;
        for (String line = in.readLine(); line != null; line = in.readLine()) {
          if (line.startsWith("/nick ")) {
            nick = line.substring(6);
            write(out, ChatProtocol.OK_NICK + nick);
          } else if (line.startsWith("/join ")) {
            room = line.substring(6);
            synchronized (rooms) {
              rooms.computeIfAbsent(room, r -> new java.util.ArrayList<>()).add(out);
            }
            write(out, ChatProtocol.OK_JOIN + room);
          } else if (line.equals("/where")) {
            write(out, ChatProtocol.WHERE + room + " node=a");
          } else if (room != null) {
            synchronized (rooms) { // one order per room, as a room Spot relays
              if (client.isClosed()) {
                return; // B died while this line was read: never relayed
              }
              for (java.util.Iterator<Writer> it = rooms.get(room).iterator(); it.hasNext(); ) {
                final Writer member = it.next();
                try {
                  write(member, ChatProtocol.roomLine(room, nick, line));
                } catch (IOException gone) {
                  it.remove(); // a member on the dead node, or one the swarm closed
                }
              }
            }
            if (nodeB && relayedFromB.computeIfAbsent(nick, k -> new java.util.concurrent.atomic.AtomicInteger())
                .incrementAndGet() == linesEach) {
              flowing.countDown();
            }
          }
        }
      } catch (IOException e) {
        // reset by the kill, or closed by the swarm
      }
    }

    private static void write(final Writer out, final String line) throws IOException {
      synchronized (out) {
        out.write(line + "\n");
        out.flush();
      }
    }

    @Override
    public void close() throws IOException {
      a.close();
      b.close();
    }
  }

  /**
   * As a server node that froze (SIGSTOP, a partition): it acks every join, then reads and drops every line and never
   * answers or closes. The run ends at its timeout plus a small margin, with the outstanding deliveries timed out.
   */
  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aServerThatGoesSilentMidRunEndsTheRunAtItsTimeout() throws Exception {
    final Queue<Socket> accepted = new ConcurrentLinkedQueue<>();
    try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      Thread.ofVirtual().start(() -> acceptAll(server, accepted, client -> ackThenCount(client, Integer.MAX_VALUE,
          new CountDownLatch(1))));
      final long start = System.nanoTime();
      final BotReport report = BotSwarm.run(new BotSwarm.Settings("127.0.0.1", List.of(server.getLocalPort()), 3, 1,
          100_000, Duration.ofSeconds(3), 50));
      assertThat(Duration.ofNanos(System.nanoTime() - start)).as(report.line())
          .isLessThan(Duration.ofSeconds(3).plusMillis(BotSwarm.THREADS_GRACE_MILLIS).plusSeconds(3));
      assertThat(report.passed()).isFalse();
      assertThat(report.failure()).as(report.line()).startsWith("send timed out (bot");
      assertThat(report.reset()).isZero();
      assertThat(report.timedOut()).isEqualTo(report.expected());
    } finally {
      for (Socket client : accepted) {
        client.close();
      }
    }
  }

  /**
   * The swarm closes its bots when the run ends, also a bot whose connect task has not run yet (a late virtual
   * thread): that bot must not connect afterwards, or its reader would block on a socket nobody closes.
   */
  @Test
  void aBotClosedBeforeItConnectsOpensNothing() throws Exception {
    try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      final Bot bot = new Bot(0, "room0", new int[] {0}, 1, new AtomicLongArray(1), null);
      bot.close();
      assertThatThrownBy(() -> bot.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(),
          server.getLocalPort()), 1_000)).isInstanceOf(IOException.class)
          .hasMessage("bot0: closed before it connected (the run had ended)");
      bot.close(); // idempotent
    }
  }

  /**
   * As {@code kill -9} of a server process once {@code ready} is counted down (at most 30 s): the listener closes and
   * every accepted connection is reset.
   */
  private static void killOnce(final CountDownLatch ready, final ServerSocket listener, final Queue<Socket> accepted) {
    try {
      if (ready.await(30, TimeUnit.SECONDS)) {
        listener.close(); // the process is gone: nothing listens any more
        for (Socket client : accepted) {
          client.setSoLinger(true, 0); // close() sends RST, as the kernel does for a killed process's sockets
          client.close();
        }
      }
    } catch (IOException | InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Accepts until the listener closes; each connection is served on its own virtual thread. */
  private static void acceptAll(final ServerSocket server, final Queue<Socket> accepted,
      final java.util.function.Consumer<Socket> serve) {
    for (int i = 0; i < 1_000; i++) { // bounded: the tests connect a handful of bots
      try {
        final Socket client = server.accept();
        accepted.add(client);
        Thread.ofVirtual().start(() -> serve.accept(client));
      } catch (IOException e) {
        return; // the listener closed
      }
    }
  }

  /** Acks nick and join, echoes nothing, and counts {@code said} down once the bot said {@code lines} lines. */
  private static void ackThenCount(final Socket client, final int lines, final CountDownLatch said) {
    try {
      final BufferedReader in = new BufferedReader(new InputStreamReader(client.getInputStream(),
          StandardCharsets.UTF_8));
      final Writer out = new OutputStreamWriter(client.getOutputStream(), StandardCharsets.UTF_8);
      int count = 0;
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        if (line.startsWith("/nick ")) {
          out.write(ChatProtocol.OK_NICK + line.substring(6) + "\n");
          out.flush();
        } else if (line.startsWith("/join ")) {
          out.write(ChatProtocol.OK_JOIN + line.substring(6) + "\n");
          out.flush();
        } else if (++count == lines) {
          said.countDown();
        }
      }
    } catch (IOException e) {
      // reset by the test, or closed by the swarm
    }
  }

  /** {@link ChatBotsCommand#runAndPrint} with stdout and stderr captured into {@code printed[0]} and {@code [1]}. */
  private static int runAndPrint(final BotSwarm.Settings settings, final String[] printed) throws Exception {
    final ByteArrayOutputStream out = new ByteArrayOutputStream();
    final ByteArrayOutputStream err = new ByteArrayOutputStream();
    final PrintStream wasOut = System.out;
    final PrintStream wasErr = System.err;
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    try {
      return ChatBotsCommand.runAndPrint(settings, false);
    } finally {
      System.setOut(wasOut);
      System.setErr(wasErr);
      printed[0] = out.toString(StandardCharsets.UTF_8).strip();
      printed[1] = err.toString(StandardCharsets.UTF_8).strip();
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
