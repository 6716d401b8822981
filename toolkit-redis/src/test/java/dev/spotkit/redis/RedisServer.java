package dev.spotkit.redis;

import static org.awaitility.Awaitility.await;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real {@code redis-server} child process on a free loopback port, without persistence ({@code --save ""
 * --appendonly no}). Started and stopped by {@link RedisServerExtension}; fault tests kill and restart it on the
 * same port. There is no Docker and no mock: when {@code redis-server} is not installed, starting fails loudly
 * (CI installs it with apt-get; the tests never skip).
 */
public final class RedisServer {
  private static final Duration START_TIMEOUT = Duration.ofSeconds(15);
  private final String executable;
  private final int port;
  private Process process;

  private final List<String> extraArguments;

  private RedisServer(final String executable, final int port, final List<String> extraArguments) {
    this.executable = executable;
    this.port = port;
    this.extraArguments = List.copyOf(extraArguments);
  }

  /**
   * Starts a server on a free loopback port and waits (at most 15 s) until it answers PING.
   *
   * @return the running server.
   * @throws AssertionError when redis-server is not installed or does not answer.
   */
  public static RedisServer start() {
    return start(new String[0]);
  }

  /**
   * Starts a server with extra configuration, e.g. {@code "--rename-command", "PEXPIRETIME", ""} to stand in
   * for an older Redis.
   *
   * @param extraArguments appended to the command line.
   * @return the running server.
   * @throws AssertionError when redis-server is not installed or does not answer.
   */
  public static RedisServer start(final String... extraArguments) {
    final String executable = findExecutable();
    for (int attempt = 1; ; attempt++) {
      final RedisServer server = new RedisServer(executable, freePort(), List.of(extraArguments));
      try {
        server.launch();
        return server;
      } catch (AssertionError e) {
        // the free port was taken between the check and redis-server's bind (a busy machine): another port
        if (attempt >= START_ATTEMPTS || server.process == null || server.process.isAlive()) {
          throw e;
        }
      }
    }
  }

  /** Ports tried when redis-server exits at start (its port taken meanwhile). */
  private static final int START_ATTEMPTS = 5;

  private static String findExecutable() {
    final String path = System.getenv().getOrDefault("PATH", "") + File.pathSeparator + "/usr/bin"
        + File.pathSeparator + "/usr/local/bin";
    for (String dir : path.split(File.pathSeparator)) {
      final Path candidate = Path.of(dir.isEmpty() ? "." : dir, "redis-server");
      if (Files.isExecutable(candidate)) {
        return candidate.toString();
      }
    }
    throw new AssertionError("redis-server is not installed (not on PATH, /usr/bin or /usr/local/bin): the Redis"
        + " tests need a real server and never skip; install it with `apt-get install -y redis-server`"
        + " (.ci/run does this)");
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void launch() {
    final File log = new File("target/redis-" + port + ".log");
    log.getParentFile().mkdirs();
    try {
      final List<String> command = new java.util.ArrayList<>(List.of(executable, "--port", Integer.toString(port),
          "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--protected-mode", "no",
          "--enable-debug-command", "local", "--dir", log.getParentFile().getPath()));
      command.addAll(extraArguments);
      process = new ProcessBuilder(command)
          .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log)).start();
    } catch (IOException e) {
      throw new AssertionError("cannot start " + executable + ": " + e, e);
    }
    await("redis-server on port " + port + " answers PING").atMost(START_TIMEOUT).pollInterval(Duration.ofMillis(20))
        .until(() -> {
          if (!process.isAlive()) {
            throw new AssertionError("redis-server exited with " + process.exitValue() + "; see " + log);
          }
          return ping();
        });
  }

  private boolean ping() {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
      socket.setSoTimeout(500);
      final OutputStream out = socket.getOutputStream();
      out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      final InputStream in = socket.getInputStream();
      final byte[] reply = in.readNBytes(7);
      return new String(reply, StandardCharsets.US_ASCII).equals("+PONG\r\n");
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * Sends one command on a fresh connection and returns the first line of the answer, e.g. {@code +OK}, or
   * the content of a bulk string answer (e.g. of {@code INFO}).
   * For fault injection ({@code CLIENT PAUSE}, {@code DEBUG SLEEP}); bounded by a 10 s socket timeout.
   *
   * @param args the command and its arguments.
   * @return the first reply line without CRLF.
   */
  public String command(final String... args) {
    final String resp = resp(args);
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 2000);
      socket.setSoTimeout(10_000);
      socket.getOutputStream().write(resp.getBytes(StandardCharsets.UTF_8));
      final InputStream in = socket.getInputStream();
      final StringBuilder line = new StringBuilder();
      for (int b = in.read(); b != -1 && b != '\n' && line.length() < 4096; b = in.read()) {
        if (b != '\r') {
          line.append((char) b);
        }
      }
      if (line.length() > 1 && line.charAt(0) == '$' && !line.toString().equals("$-1")) {
        final byte[] bulk = in.readNBytes(Integer.parseInt(line.substring(1)));
        return new String(bulk, StandardCharsets.UTF_8);
      }
      return line.toString();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String resp(final String... args) {
    final StringBuilder resp = new StringBuilder("*" + args.length + "\r\n");
    for (String arg : args) {
      resp.append('$').append(arg.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(arg)
          .append("\r\n");
    }
    return resp.toString();
  }

  /**
   * Sends one command without waiting for its answer (e.g. {@code DEBUG SLEEP}); the connection stays open
   * until the returned socket is closed.
   *
   * @param args the command and its arguments.
   * @return the open socket; close it.
   */
  public Socket send(final String... args) {
    final String resp = resp(args);
    final Socket socket = new Socket();
    try {
      socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 2000);
      socket.getOutputStream().write(resp.getBytes(StandardCharsets.UTF_8));
      return socket;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The Redis URI of this server.
   *
   * @return {@code redis://127.0.0.1:PORT}.
   */
  public String uri() {
    return "redis://127.0.0.1:" + port;
  }

  /**
   * The port.
   *
   * @return the loopback port, fixed for this server's life (a restart keeps it).
   */
  public int port() {
    return port;
  }

  /** Kills the server with SIGKILL (data is lost: no persistence) and waits until it is gone (at most 10 s). */
  public void kill() {
    process.destroyForcibly();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        throw new AssertionError("redis-server on port " + port + " did not die in 10 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** Starts the server again on the same port, empty, and waits until it answers PING. */
  public void restart() {
    launch();
  }

  /** Stops the server (SIGTERM, then SIGKILL after 5 s). Idempotent. */
  public void stop() {
    if (process == null || !process.isAlive()) {
      return;
    }
    process.destroy();
    try {
      if (!process.waitFor(5, TimeUnit.SECONDS)) {
        kill();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}
