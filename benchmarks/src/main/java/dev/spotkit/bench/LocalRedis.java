package dev.spotkit.bench;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.File;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A {@code redis-server} of a benchmark's own on 127.0.0.1 (a free port, no persistence, its log in a temporary
 * directory), started by {@link #start()} once it answers a connection and stopped by {@link #close()}. Benchmark
 * setup and teardown only.
 */
final class LocalRedis implements AutoCloseable {
  private final Process process;
  private final String uri;

  private LocalRedis(final Process process, final String uri) {
    this.process = process;
    this.uri = uri;
  }

  /**
   * Starts redis-server and waits until a Lettuce connection is accepted.
   *
   * @return the running server.
   * @throws Exception when redis-server is missing or does not answer in 15 s (the message names its log).
   */
  static LocalRedis start() throws Exception {
    final int port;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = socket.getLocalPort();
    }
    final Path dir = Files.createTempDirectory("spotkit-bench-redis");
    final Process process = new ProcessBuilder(List.of(executable(), "--port", Integer.toString(port), "--bind",
        "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir.toString()))
        .redirectErrorStream(true).redirectOutput(dir.resolve("redis.log").toFile()).start();
    final LocalRedis redis = new LocalRedis(process, "redis://127.0.0.1:" + port);
    final RedisClient client = RedisClient.create(redis.uri);
    try {
      final long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
      while (true) {
        try (StatefulRedisConnection<String, String> c = client.connect()) {
          return redis;
        } catch (RuntimeException e) {
          if (System.nanoTime() - until > 0 || !process.isAlive()) {
            redis.close();
            throw new IllegalStateException("redis-server on port " + port + " did not answer; see "
                + dir.resolve("redis.log"), e);
          }
          Thread.sleep(20); // startup only: wait for the server to bind, bounded by 15 s
        }
      }
    } finally {
      client.shutdown();
    }
  }

  /** @return {@code redis://127.0.0.1:<port>}. */
  String uri() {
    return uri;
  }

  private static String executable() {
    for (String dir : (System.getenv().getOrDefault("PATH", "") + File.pathSeparator + "/usr/bin"
        + File.pathSeparator + "/usr/local/bin").split(File.pathSeparator)) {
      final Path candidate = Path.of(dir.isEmpty() ? "." : dir, "redis-server");
      if (Files.isExecutable(candidate)) {
        return candidate.toString();
      }
    }
    throw new IllegalStateException("redis-server is not installed (apt-get install -y redis-server)");
  }

  /** Stops redis-server: SIGTERM, SIGKILL after 5 s. */
  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(5, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
    }
  }
}
