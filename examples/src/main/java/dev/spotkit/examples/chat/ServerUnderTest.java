package dev.spotkit.examples.chat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A chat server that {@link ChatBenchCommand} measures: {@code spotkit} ({@code chat-server}, one node), {@code raw}
 * ({@code chat-raw-server}) or {@code raw-batched} ({@code chat-raw-server --consolidate-flushes}), in a child JVM
 * of its own ({@link #child}) or in this one ({@link #inProcess}), listening on a free loopback port.
 */
final class ServerUnderTest implements AutoCloseable {

  /** How long a child JVM may take to print its listening line. */
  private static final long START_SECONDS = 60;
  /** The listening line of both commands: {@code ... listening on HOST:PORT ...}. */
  private static final Pattern LISTENING = Pattern.compile("listening on [^ ]+:(\\d+)");
  /** Clock ticks per second of {@code /proc/PID/stat} times (USER_HZ, 100 on Linux). */
  private static final long TICKS_PER_SECOND = 100;

  private final int port;
  private final long pid;
  private final AutoCloseable stop;

  private ServerUnderTest(final int port, final long pid, final AutoCloseable stop) {
    this.port = port;
    this.pid = pid;
    this.stop = stop;
  }

  /**
   * Starts the server in this JVM.
   *
   * @param server {@code spotkit}, {@code raw} or {@code raw-batched}.
   * @return the running server; {@link #pid()} is -1 (its CPU cannot be told apart from the bots').
   */
  static ServerUnderTest inProcess(final String server) {
    if (server.startsWith("raw")) {
      final RawChatServer raw = RawChatServer.start("127.0.0.1", 0, server.equals("raw-batched"));
      return new ServerUnderTest(raw.port(), -1, raw);
    }
    final ChatServer ours = ChatServer.start("127.0.0.1", 0, 1);
    return new ServerUnderTest(ours.port(), -1, ours);
  }

  /**
   * Starts the server in a child JVM: this JVM's java binary, its flags (without flight recordings and logs
   * meant for this process) and class path, main class {@code SpotkitExamples}, then {@code chat-server --port 0}
   * or {@code chat-raw-server --port 0} (with {@code --consolidate-flushes} for {@code raw-batched}); its stderr goes
   * to this process's stderr.
   *
   * @param server {@code spotkit}, {@code raw} or {@code raw-batched}.
   * @return the running server.
   * @throws UncheckedIOException when the child cannot be started or did not print its port within 60 s (it is
   *     stopped then).
   */
  static ServerUnderTest child(final String server) {
    final List<String> command = examplesCommand();
    command.addAll(List.of(server.startsWith("raw") ? "chat-raw-server" : "chat-server", "--port", "0"));
    if (server.equals("raw-batched")) {
      command.add("--consolidate-flushes");
    }
    final Process process;
    try {
      process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + server + " server: " + command, e);
    }
    final CompletableFuture<Integer> port = new CompletableFuture<>();
    Thread.ofVirtual().name("bench-" + server + "-stdout").start(() -> readPort(process, port));
    try {
      return new ServerUnderTest(port.get(START_SECONDS, TimeUnit.SECONDS), process.pid(), () -> stop(process));
    } catch (InterruptedException | ExecutionException | TimeoutException e) {
      stop(process);
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      throw new UncheckedIOException(new IOException(server + " server did not print its port within "
          + START_SECONDS + " s: " + e, e));
    }
  }

  /**
   * The command line of a child JVM running the examples: this JVM's java binary, its flags (without flight
   * recordings, logs and agents meant for this process), its class path and main class {@code SpotkitExamples}; the
   * caller adds the subcommand and its options.
   *
   * @return a new mutable list.
   */
  static List<String> examplesCommand() {
    final List<String> command = new ArrayList<>();
    command.add(ProcessHandle.current().info().command().orElse("java"));
    for (String flag : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (!flag.startsWith("-XX:StartFlightRecording") && !flag.startsWith("-Xlog") && !flag.startsWith("-agent")) {
        command.add(flag);
      }
    }
    command.addAll(List.of("-cp", System.getProperty("java.class.path"),
        dev.spotkit.examples.SpotkitExamples.class.getName()));
    return command;
  }

  /** Reads the child's stdout to its end: completes {@code port} from the listening line. */
  private static void readPort(final Process process, final CompletableFuture<Integer> port) {
    try (BufferedReader out = new BufferedReader(
        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = out.readLine(); line != null; line = out.readLine()) {
        final Matcher m = LISTENING.matcher(line);
        if (m.find()) {
          port.complete(Integer.parseInt(m.group(1)));
        }
      }
      port.completeExceptionally(new IOException("the server's output ended without a listening line"));
    } catch (IOException e) {
      port.completeExceptionally(e);
    }
  }

  /** SIGTERM (the shutdown hook closes the server), then a kill after 15 s. */
  private static void stop(final Process process) {
    process.destroy();
    try {
      if (!process.waitFor(15, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  /**
   * The port clients connect to.
   *
   * @return the bound loopback port.
   */
  int port() {
    return port;
  }

  /**
   * The server's process.
   *
   * @return its pid, or -1 when it runs in this JVM.
   */
  long pid() {
    return pid;
  }

  /**
   * CPU time a process used so far (user + system), from {@code /proc/PID/stat}.
   *
   * @param pid a process id, or -1.
   * @return nanoseconds, at a resolution of 10 ms; -1 when {@code pid} is -1 or the file cannot be read (not Linux).
   */
  static long cpuNanos(final long pid) {
    if (pid < 0) {
      return -1;
    }
    try {
      final String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      final String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      final long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]); // utime, stime (fields 14, 15)
      return ticks * (TimeUnit.SECONDS.toNanos(1) / TICKS_PER_SECOND);
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  @Override
  public void close() throws Exception {
    stop.close();
  }
}
