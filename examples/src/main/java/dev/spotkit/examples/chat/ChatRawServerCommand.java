package dev.spotkit.examples.chat;

import java.io.PrintStream;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code chat-raw-server}: the benchmark baseline, a plain Netty chat server without actors ({@link RawChatServer}),
 * serving the {@link ChatProtocol} until the process is stopped (Ctrl-C). {@code chat-bots} drives it exactly like
 * {@code chat-server}. It prints {@code chat-raw-server: listening on HOST:PORT (Ctrl-C stops)}. A port out of range,
 * a host that is no address of this machine or a port that cannot be bound prints one {@code chat-raw-server: ...}
 * line on stderr and exits with code 2.
 */
@Command(name = "chat-raw-server", mixinStandardHelpOptions = true,
    description = "Baseline chat server: plain Netty, no actors, same line protocol and rooms as chat-server.")
public final class ChatRawServerCommand implements Callable<Integer> {

  @Option(names = "--host", defaultValue = "127.0.0.1",
      description = "Address to listen on (default: ${DEFAULT-VALUE}).")
  String host;

  @Option(names = "--port", defaultValue = "7100",
      description = "Port to listen on; 0 for a free port (default: ${DEFAULT-VALUE}).")
  int port;

  @Option(names = "--consolidate-flushes",
      description = "Coalesce each connection's flushes (Netty's FlushConsolidationHandler): several lines per TCP"
          + " segment under load.")
  boolean consolidateFlushes;

  /** Where the error line goes; stderr unless a test replaces it. */
  PrintStream err = System.err;

  @Override
  public Integer call() throws InterruptedException {
    final String badHost = ChatServerCommand.hostProblem("--host", host);
    if (badHost != null || port < 0 || port > 65535) {
      err.println("chat-raw-server: " + (badHost != null ? badHost
          : "--port " + port + " must be between 0 and 65535 (0 = a free port)"));
      return CommandLine.ExitCode.USAGE;
    }
    final RawChatServer server;
    try {
      server = RawChatServer.start(host, port, consolidateFlushes);
    } catch (java.io.UncheckedIOException e) {
      err.println("chat-raw-server: " + e.getCause().getMessage() + "; choose another port, or 0 for a free one");
      return CommandLine.ExitCode.USAGE;
    }
    final CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      server.close();
      stopped.countDown();
    }, "chat-raw-server-shutdown"));
    System.out.println("chat-raw-server: listening on " + host + ":" + server.port() + " (Ctrl-C stops)");
    stopped.await();
    return CommandLine.ExitCode.OK;
  }
}
