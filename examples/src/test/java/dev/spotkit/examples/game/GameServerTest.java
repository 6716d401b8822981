package dev.spotkit.examples.game;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spotkit.core.NodeRid;
import dev.spotkit.core.ObjectKind;
import dev.spotkit.core.ObjectLocation;
import dev.spotkit.core.RelocateOptions;
import dev.spotkit.core.RelocateResult;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The game server's roles and its command line. */
class GameServerTest {

  private static final String DRAINED = "error: this server node is being drained; connect to another node";

  @Test
  void aDrainedWorkerRefusesNewClientsAndTheMatchesArePlacedOnTheOtherWorker() throws Exception {
    try (GameServer server = GameServer.start("127.0.0.1", 0, 3, new GameRules(4, 1, Duration.ofMillis(50)))) {
      final RelocateResult drained = server.nodes().get(1).relocate(RelocateOptions.drainAnywhere())
          .get(30, TimeUnit.SECONDS);
      assertThat(drained.outcome()).isEqualTo(RelocateResult.Outcome.RELOCATED);
      assertThat(firstLineOrEnd(server.ports().get(1))).isIn(DRAINED, null); // the session ends at once
      final List<NodeRid> owners = new ArrayList<>();
      final GameReport report = GameBots.run(new GameBots.Settings("127.0.0.1", server.ports().subList(0, 1), 2,
          4, Duration.ofSeconds(30)), Map.of(), () -> {
            // every match is playing now (its id carries the matchmaker's generation: listed by type)
            for (ObjectLocation match : server.nodes().get(0).locations().list(ObjectKind.SPOT, Match.TYPE, 100, null)
                .entries()) {
              owners.add(match.owner());
            }
            return GameBots.Step.NONE;
          });
      assertThat(report.passed()).as(report.line()).isTrue();
      assertThat(owners).containsOnly(server.nodes().get(2).nodeRid()); // not the drained worker, not the gateway
    }
  }

  /**
   * A client that connects to a drained node is told why its session ends (the reason line, then the close), not
   * just the end of the stream: the failed creation of its actor closes the session with the reason
   * ({@code Lifecycle.abortActor}, found with this example: it used to close it plainly first).
   */
  @Test
  void aDrainedWorkerTellsANewClientToConnectToAnotherNode() throws Exception {
    try (GameServer server = GameServer.start("127.0.0.1", 0, 3, new GameRules(4, 1, Duration.ofMillis(50)))) {
      assertThat(server.nodes().get(1).relocate(RelocateOptions.drainAnywhere()).get(30, TimeUnit.SECONDS)
          .outcome()).isEqualTo(RelocateResult.Outcome.RELOCATED);
      assertThat(firstLineOrEnd(server.ports().get(1))).isEqualTo(DRAINED);
    }
  }

  /** The first line a new client of {@code port} reads, or null when the server ends the stream first. */
  private static String firstLineOrEnd(final int port) throws Exception {
    try (Socket client = new Socket("127.0.0.1", port)) {
      client.setSoTimeout(10_000);
      return new BufferedReader(new InputStreamReader(client.getInputStream(), StandardCharsets.UTF_8)).readLine();
    }
  }

  @Test
  void nodeIndexWithoutAStoreIsAUsageError() throws Exception {
    final GameServerCommand command = new GameServerCommand();
    final ByteArrayOutputStream err = new ByteArrayOutputStream();
    command.err = new PrintStream(err, true, StandardCharsets.UTF_8);
    command.host = "127.0.0.1";
    command.nodes = 3;
    command.players = 4;
    command.rounds = 5;
    command.roundMillis = 2000;
    new picocli.CommandLine(command).parseArgs("--node-index", "1");
    command.env = Map.of();
    assertThat(command.call()).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("game-server: --node-index runs one node of a mesh"
        + " whose nodes are separate processes: it needs the store they share, --store redis://HOST:PORT");
  }

  @Test
  void gameDemoWithNoMatchesIsAUsageErrorBeforeAnyNodeStarts() {
    for (String matches : new String[] {"0", "-1"}) {
      final java.io.StringWriter err = new java.io.StringWriter();
      final picocli.CommandLine cli = new picocli.CommandLine(new GameDemoCommand());
      cli.setErr(new java.io.PrintWriter(err));
      assertThat(cli.execute("--matches", matches)).as("--matches %s", matches).isEqualTo(2);
      assertThat(err.toString()).contains("matches " + matches + " must be between 1 and 1000")
          .doesNotContain("Exception");
    }
  }

  @Test
  void aWebSocketMessageOfSeveralLinesRunsEachLineAsACommandInOrder() throws Exception {
    try (GameServer server = GameServer.start("127.0.0.1", 0, 1, new GameRules(4, 1, Duration.ofMillis(50)), 0)) {
      final java.util.concurrent.BlockingQueue<String> got = new java.util.concurrent.LinkedBlockingQueue<>();
      final java.net.http.WebSocket.Listener listener = new java.net.http.WebSocket.Listener() {
        private final StringBuilder part = new StringBuilder();

        @Override
        public java.util.concurrent.CompletionStage<?> onText(final java.net.http.WebSocket ws,
            final CharSequence data, final boolean last) {
          part.append(data);
          if (last) {
            got.add(part.toString());
            part.setLength(0);
          }
          ws.request(1);
          return null;
        }
      };
      try (java.net.http.HttpClient client = java.net.http.HttpClient.newHttpClient()) {
        final java.net.http.WebSocket ws = client.newWebSocketBuilder().buildAsync(java.net.URI.create(
            "ws://127.0.0.1:" + server.webSocketPort() + GameServer.WEBSOCKET_PATH), listener).get(10, TimeUnit.SECONDS);
        ws.sendText("/where\n/move 3\r\n\n/where", true).get(10, TimeUnit.SECONDS);
        final List<String> answers = new ArrayList<>();
        for (int i = 0; i < 3; i++) { // bounded: three commands, three answers
          final String line = got.poll(10, TimeUnit.SECONDS);
          assertThat(line).as("answer %s of 3 (so far %s)", i + 1, answers).isNotNull();
          answers.add(line);
        }
        assertThat(answers).containsExactly("where: in no match", GameProtocol.ERROR + "you are in no match; /queue"
            + " first", "where: in no match");
        ws.abort();
      }
    }
  }
}
