package dev.spotkit.examples.game;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

import java.io.File;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * The browser client in a real headless browser (Debian's {@code chromium} and {@code chromedriver}, driven by
 * Selenium): a {@link GameServer} of two nodes (the gateway with a WebSocket port, which serves the page, and a
 * worker, which hosts the match), the page queues with auto-play on, three
 * {@link GameBot}s fill the match over the line protocol, and the page shows every round and the final line, the
 * same line the bots got. Without the browser the test fails with how to install it; it never skips. Every wait is
 * bounded (Awaitility polling the page, latches).
 */
class GameBrowserTest {

  /** The browser; {@code -Dspotkit.test.chromium=PATH} to use another one. */
  private static final Path CHROMIUM = Path.of(System.getProperty("spotkit.test.chromium", "/usr/bin/chromium"));
  /** Its driver; {@code -Dspotkit.test.chromedriver=PATH} to use another one. */
  private static final Path CHROMEDRIVER = Path.of(System.getProperty("spotkit.test.chromedriver",
      "/usr/bin/chromedriver"));
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final int ROUNDS = 3;
  private static final int BOTS = 3;

  @Test
  void aPlayerInThePagePlaysAMatchAgainstThreeBots() throws Exception {
    final List<Path> missing = List.of(CHROMIUM, CHROMEDRIVER).stream().filter(p -> !Files.isExecutable(p)).toList();
    if (!missing.isEmpty()) {
      fail("the browser test needs Debian's headless chromium and chromedriver; missing (not executable): " + missing
          + "; install them with: apt-get install -y chromium chromium-driver (.ci/run does)");
    }
    final List<GameBot> bots = new ArrayList<>();
    try (GameServer server = GameServer.start("127.0.0.1", 0, 2,
        new GameRules(BOTS + 1, ROUNDS, Duration.ofMillis(100)), 0)) {
      final WebDriver browser = startBrowser();
      try {
        browser.get("http://127.0.0.1:" + server.webSocketPort() + "/");
        await().atMost(WAIT).until(() -> text(browser, "status").startsWith("connected"));
        browser.findElement(By.id("autoplay")).click();
        browser.findElement(By.id("queue")).click();
        await().atMost(WAIT).until(() -> text(browser, "name").startsWith("p"));
        final String player = text(browser, "name");

        for (int i = 0; i < BOTS; i++) {
          final GameBot bot = new GameBot(i, 0);
          bots.add(bot);
          bot.connectAndQueue(new InetSocketAddress("127.0.0.1", server.gatewayPort()));
        }
        for (GameBot bot : bots) {
          assertThat(bot.awaitFinal(TimeUnit.SECONDS.toNanos(WAIT.toSeconds())))
              .as("bot%d got its final line", bot.index).isTrue();
        }
        await().atMost(WAIT).until(() -> !text(browser, "final").isEmpty());

        final String finalLine = text(browser, "final");
        assertThat(finalLine).as("the page shows the match's final line, the one every bot got")
            .isEqualTo(bots.get(0).finalLine).startsWith("final ").contains(player + ":");
        assertThat(GameProtocol.parsePairs(finalLine, "scores")).containsKey(player).hasSize(BOTS + 1);
        assertThat(browser.findElements(By.cssSelector("#results li"))).hasSize(ROUNDS);
        assertThat(text(browser, "status")).isEqualTo("match over");
        assertThat(text(browser, "winner")).isNotEmpty();
        assertThat(text(browser, "match")).isEqualTo(bots.get(0).matchId);
      } finally {
        browser.quit();
      }
    } finally {
      for (GameBot bot : bots) {
        bot.close();
      }
      for (GameBot bot : bots) {
        bot.join();
      }
    }
  }

  private static WebDriver startBrowser() {
    final ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
        "--no-first-run", "--disable-extensions");
    final ChromeDriverService service = new ChromeDriverService.Builder()
        .usingDriverExecutable(new File(CHROMEDRIVER.toString())).usingAnyFreePort().build();
    return new ChromeDriver(service, options);
  }

  private static String text(final WebDriver browser, final String id) {
    return browser.findElement(By.id(id)).getText().trim();
  }
}
