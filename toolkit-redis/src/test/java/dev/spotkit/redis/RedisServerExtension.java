package dev.spotkit.redis;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * JUnit 5 extension: one {@link RedisServer} per test class, started before the class's first test and stopped
 * after its {@code @AfterAll} methods. Register it as a static field:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final RedisServerExtension REDIS = new RedisServerExtension();
 * ... RedisLocationStore.connect(REDIS.uri(), "test") ...
 * }</pre>
 */
public final class RedisServerExtension implements BeforeAllCallback, AfterAllCallback {
  private RedisServer server;

  @Override
  public void beforeAll(final ExtensionContext context) {
    server = RedisServer.start();
  }

  @Override
  public void afterAll(final ExtensionContext context) {
    if (server != null) {
      server.stop();
    }
  }

  /**
   * The running server.
   *
   * @return the server of this test class.
   */
  public RedisServer server() {
    if (server == null) {
      throw new IllegalStateException("the Redis server starts before the first test of the class");
    }
    return server;
  }

  /**
   * The server's URI.
   *
   * @return {@code redis://127.0.0.1:PORT}.
   */
  public String uri() {
    return server().uri();
  }
}
