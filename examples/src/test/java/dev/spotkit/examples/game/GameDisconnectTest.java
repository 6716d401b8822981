package dev.spotkit.examples.game;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A player who disconnects mid-match forfeits: the others get one {@code forfeit} line naming it, play the
 * remaining rounds without it (its moves show {@code -}), and the final line names it as forfeited; it cannot win.
 */
class GameDisconnectTest {

  @Test
  void aPlayerWhoDisconnectsAfterRoundOneForfeitsAndTheOthersFinishTheMatch() throws Exception {
    try (GameServer server = GameServer.start("127.0.0.1", 0, 3, new GameRules(4, 4, Duration.ofMillis(50)))) {
      final GameBots.Run run = GameBots.play(new GameBots.Settings("127.0.0.1", server.ports(), 1, 4,
          Duration.ofSeconds(60)), Map.of(2, 1), () -> GameBots.Step.NONE);
      assertThat(run.report().failure()).isNull();
      assertThat(run.report().passed()).isTrue();
      assertThat(run.report().completed()).isEqualTo(1);
      final GameBot quitter = run.bots().get(2);
      assertThat(quitter.results).isEqualTo(1);
      assertThat(quitter.finals).isZero();
      for (GameBot bot : run.bots()) {
        if (bot == quitter) {
          continue;
        }
        assertThat(bot.results).isEqualTo(4);
        assertThat(bot.forfeits).containsExactly(quitter.name);
        assertThat(bot.finalLine).contains(" forfeit=" + quitter.name + " ").doesNotContain("winner=" + quitter.name);
        assertThat(GameProtocol.parsePairs(bot.finalLine, "scores")).containsKey(quitter.name).hasSize(4);
      }
    }
  }
}
