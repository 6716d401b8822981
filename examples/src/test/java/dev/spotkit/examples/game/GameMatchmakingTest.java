package dev.spotkit.examples.game;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.spotkit.core.MeshNode;
import dev.spotkit.core.ObjectKind;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Matchmaking races: many players queue at once from clients on all three nodes of a mesh; the one matchmaker
 * (an Instance Spot on the gateway) must put each in exactly one match of exactly the configured size.
 */
class GameMatchmakingTest {

  @Test
  void twentyFourPlayersQueueingAtOnceOnThreeNodesEachEndInExactlyOneMatchOfFour() throws Exception {
    try (GameServer server = GameServer.start("127.0.0.1", 0, 3, new GameRules(4, 2, Duration.ofMillis(50)))) {
      final GameBots.Run run = GameBots.play(new GameBots.Settings("127.0.0.1", server.ports(), 6, 4,
          Duration.ofSeconds(60)), Map.of(), () -> GameBots.Step.NONE);
      assertThat(run.report().failure()).isNull();
      assertThat(run.report().passed()).isTrue();
      assertThat(run.report().completed()).isEqualTo(6);
      final Map<String, List<GameBot>> byMatch = run.bots().stream().collect(Collectors.groupingBy(b -> b.matchId));
      assertThat(byMatch).hasSize(6);
      byMatch.values().forEach(players -> assertThat(players).hasSize(4));
      for (GameBot bot : run.bots()) {
        assertThat(bot.matchLines).as("match lines of bot%d", bot.index).isEqualTo(1);
        assertThat(bot.finals).as("final lines of bot%d", bot.index).isEqualTo(1);
        assertThat(bot.results).isEqualTo(2);
      }
      final Map<String, Set<Integer>> portsByMatch = new HashMap<>();
      run.bots().forEach(bot -> portsByMatch.computeIfAbsent(bot.matchId, id -> new java.util.HashSet<>())
          .add(bot.index % 3));
      assertThat(portsByMatch.values().stream().flatMap(Set::stream).distinct()).hasSize(3); // all three queued
      assertThat(run.report().line()).matches("game-bots: matches=6 completed=6 rounds=12 moves=0 lost=0"
          + " duplicated=0 reordered=0 missed_moves=0 round_p50_ms=\\d+\\.\\d\\d round_p99_ms=\\d+\\.\\d\\d"
          + " move_pause_p99_ms=0\\.00");
    }
  }

  /**
   * Issue 14: with nobody waiting the matchmaker closes itself after its idle time (an Instance Spot idle timeout),
   * and the next player activates a new incarnation, which still makes a match, under an id no earlier incarnation
   * used (it carries the new incarnation's higher ObjectGeneration). Three cycles.
   */
  @Test
  void theMatchmakerClosesWhenIdleAndALaterPlayerActivatesItAgainAndGetsAMatch() throws Exception {
    final GameRules rules = new GameRules(2, 1, Duration.ofMillis(50), Duration.ofMillis(200));
    try (GameServer server = GameServer.start("127.0.0.1", 0, 3, rules)) {
      final MeshNode gateway = server.nodes().get(0);
      final List<String> matchIds = new java.util.ArrayList<>();
      for (int cycle = 0; cycle < 3; cycle++) {
        final GameBots.Run run = GameBots.play(new GameBots.Settings("127.0.0.1", server.ports(), 1, 2,
            Duration.ofSeconds(60)), Map.of(), () -> GameBots.Step.NONE);
        assertThat(run.report().passed()).as(run.report().line()).isTrue();
        assertThat(run.report().completed()).isEqualTo(1);
        matchIds.add(run.bots().get(0).matchId);
        await().atMost(Duration.ofSeconds(20)).until(() -> gateway.spots().find(Matchmaker.ID).isEmpty()
            && gateway.locations().locate(ObjectKind.SPOT, Matchmaker.ID).isEmpty()); // closed, record removed
      }
      assertThat(matchIds).doesNotHaveDuplicates().allMatch(id -> id.matches("match-\\d+-1"));
      assertThat(generationOf(matchIds.get(1))).isGreaterThan(generationOf(matchIds.get(0)));
      assertThat(generationOf(matchIds.get(2))).isGreaterThan(generationOf(matchIds.get(1)));
    }
  }

  /**
   * Many players queue one after another at a matchmaker whose idle time is 10 ms (it may close between two groups,
   * also while a player's Enqueue is on its way): each still ends in exactly one match of two, and no match id
   * repeats.
   */
  @Test
  void playersQueueingAtAMatchmakerWithATenMillisecondIdleTimeEachEndInExactlyOneMatch() throws Exception {
    final GameRules rules = new GameRules(2, 1, Duration.ofMillis(50), Duration.ofMillis(10));
    try (GameServer server = GameServer.start("127.0.0.1", 0, 3, rules)) {
      final GameBots.Run run = GameBots.play(new GameBots.Settings("127.0.0.1", server.ports(), 8, 2,
          Duration.ofSeconds(90)), Map.of(), () -> GameBots.Step.NONE);
      assertThat(run.report().failure()).isNull();
      assertThat(run.report().passed()).as(run.report().line()).isTrue();
      assertThat(run.report().completed()).isEqualTo(8);
      final Map<String, List<GameBot>> byMatch = run.bots().stream().collect(Collectors.groupingBy(b -> b.matchId));
      assertThat(byMatch).hasSize(8);
      byMatch.values().forEach(players -> assertThat(players).hasSize(2));
      for (GameBot bot : run.bots()) {
        assertThat(bot.matchLines).as("match lines of bot%d", bot.index).isEqualTo(1);
      }
    }
  }

  private static long generationOf(final String matchId) {
    return Long.parseLong(matchId.split("-")[1]);
  }

  @Test
  void onOneNodeTheMatchesPlayThereToo() throws Exception {
    try (GameServer server = GameServer.start("127.0.0.1", 0, 1, new GameRules(2, 2, Duration.ofMillis(50)))) {
      final GameReport report = GameBots.run(new GameBots.Settings("127.0.0.1", server.ports(), 2, 2,
          Duration.ofSeconds(60)));
      assertThat(report.failure()).isNull();
      assertThat(report.passed()).isTrue();
      assertThat(report.rounds()).isEqualTo(4);
    }
  }

  @Test
  void uniqueBidScoresAMoveOnlyWhenNobodyElsePickedIt() {
    final Map<String, Integer> moves = new java.util.LinkedHashMap<>();
    moves.put("a", 3);
    moves.put("b", 3);
    moves.put("c", 5);
    moves.put("d", null);
    assertThat(GameProtocol.points(moves)).containsExactly(Map.entry("a", 0), Map.entry("b", 0), Map.entry("c", 5),
        Map.entry("d", 0));
    assertThat(GameProtocol.parsePairs("result m 1 moves=a:3,b:- scores=a:3,b:0", "moves"))
        .containsExactly(Map.entry("a", "3"), Map.entry("b", "-"));
  }
}
