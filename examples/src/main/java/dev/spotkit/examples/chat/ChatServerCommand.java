package dev.spotkit.examples.chat;

import dev.spotkit.core.SpotkitException;
import java.io.PrintStream;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code chat-server}: serves the {@link ChatProtocol} until the process is stopped (Ctrl-C). A port out of
 * range or one that cannot be bound (in use, no permission) prints one {@code chat-server: ...} line on stderr
 * and exits with code 2 (a usage error), without a stack trace.
 */
@Command(name = "chat-server", mixinStandardHelpOptions = true,
    description = "Chat rooms over a line protocol; try: nc 127.0.0.1 <port>, then /nick ann, /join lobby, hello.")
public final class ChatServerCommand implements Callable<Integer> {

  @Option(names = "--host", defaultValue = "127.0.0.1",
      description = "Address to listen on (default: ${DEFAULT-VALUE}; 0.0.0.0 for every interface).")
  String host;

  @Option(names = "--port", defaultValue = "7000", description = "Port, 0 for a free one (default: ${DEFAULT-VALUE}).")
  int port;

  /** Where the error line goes; stderr unless a test replaces it. */
  PrintStream err = System.err;

  @Override
  public Integer call() throws Exception {
    final ChatServer server = start();
    if (server == null) {
      return CommandLine.ExitCode.USAGE;
    }
    final CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      server.close();
      stopped.countDown();
    }, "chat-server-shutdown"));
    System.out.println("chat-server: listening on " + host + ":" + server.port() + " (Ctrl-C stops)");
    stopped.await();
    return CommandLine.ExitCode.OK;
  }

  /**
   * Starts the server, or prints why it cannot.
   *
   * @return the running server, or null after printing one error line.
   */
  ChatServer start() {
    if (port < 0 || port > 65535) {
      err.println("chat-server: --port " + port + " must be between 0 and 65535 (0 = a free port)");
      return null;
    }
    try {
      return ChatServer.start(host, port);
    } catch (SpotkitException e) {
      err.println("chat-server: " + e.getMessage());
      return null;
    }
  }
}
