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
}
