package dev.spotkit.examples.game;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spotkit.core.MeshNode;
import dev.spotkit.core.ObjectKind;
import dev.spotkit.core.ObjectLocation;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A match keeps playing through a rolling restart: the worker under it is drained in the middle of the match; the
 * move waits for the match's boundary between two rounds, the match goes on on the other worker, and every round
 * result reaches every player exactly once and in order, with every move counted; the clients stay connected to
 * the gateway throughout.
 */
class GameDrainTest {

  @Test
  void aMatchDrainedMidGameMovesAtItsRoundBoundaryAndCompletesOnTheOtherWorker() throws Exception {
    try (GameServer server = GameServer.start("127.0.0.1", 0, 3, new GameRules(4, 8, Duration.ofMillis(50)))) {
      final List<MeshNode> before = server.nodes();
      final AtomicReference<GameServer.Restart> restarted = new AtomicReference<>();
      final AtomicReference<ObjectLocation> where = new AtomicReference<>();
      final GameReport report = GameBots.run(new GameBots.Settings("127.0.0.1", List.of(server.gatewayPort()), 1,
          4, Duration.ofSeconds(60)), Map.of(), () -> {
            final ObjectLocation at = before.get(0).locations().list(ObjectKind.SPOT, Match.TYPE, 100, null).entries()
                .stream().reduce((a, b) -> { // the one match playing (its id carries the matchmaker's generation)
                  throw new IllegalStateException("more than one match: " + a.id() + ", " + b.id());
                }).orElseThrow();
            where.set(at);
            final int worker = before.indexOf(before.stream().filter(n -> n.nodeRid().equals(at.owner()))
                .findFirst().orElseThrow());
            final GameServer.Restart restart = server.restartWorker(worker, Duration.ofSeconds(20));
            restarted.set(restart);
            return new GameBots.Step(restart.rooms().size(), List.of(), null);
          });
      assertThat(report.failure()).isNull();
      assertThat(report.passed()).isTrue();
      assertThat(report.moves()).isEqualTo(1);
      assertThat(report.rounds()).isEqualTo(8);
      assertThat(report.lost()).isZero();
      assertThat(report.missedMoves()).isZero();
      final GameServer.Restart restart = restarted.get();
      assertThat(restart.kept()).isEmpty();
      assertThat(where.get().owner()).isNotEqualTo(before.get(0).nodeRid()); // it played on a worker
      final MeshNode otherWorker = before.get(3 - restart.index());
      assertThat(restart.rooms()).singleElement().satisfies(room -> {
        assertThat(room.members()).isEqualTo(4);
        assertThat(room.spot().nodeRid()).isEqualTo(otherWorker.nodeRid());
      });
      assertThat(server.nodes().get(restart.index())).isNotSameAs(before.get(restart.index())); // a fresh node
      assertThat(before.get(restart.index()).isClosed()).isTrue();
    }
  }

  @Test
  void theDemoWithDrainRestartsBothWorkersAndPrintsACleanSummary() throws Exception {
    final GameDemoCommand demo = new GameDemoCommand();
    demo.drain = true;
    demo.matches = 2;
    demo.rounds = 8;
    demo.roundMillis = 50;
    demo.timeoutSeconds = 60;
    final ByteArrayOutputStream captured = new ByteArrayOutputStream();
    final PrintStream stdout = System.out;
    final int exit;
    System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      exit = demo.call();
    } finally {
      System.setOut(stdout);
    }
    final String out = captured.toString(StandardCharsets.UTF_8);
    assertThat(out).containsPattern("game-bots: matches=2 completed=2 rounds=16 moves=[1-9]\\d* lost=0 duplicated=0"
        + " reordered=0 missed_moves=0 round_p50_ms=\\d+\\.\\d\\d round_p99_ms=\\d+\\.\\d\\d"
        + " move_pause_p99_ms=\\d+\\.\\d\\d");
    assertThat(exit).isZero();
  }
}
