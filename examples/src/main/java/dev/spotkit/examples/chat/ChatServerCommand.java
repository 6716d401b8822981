package dev.spotkit.examples.chat;

import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code chat-server}: serves the {@link ChatProtocol} until the process is stopped (Ctrl-C). */
@Command(name = "chat-server", mixinStandardHelpOptions = true,
    description = "Chat rooms over a line protocol; try: nc 127.0.0.1 <port>, then /nick ann, /join lobby, hello.")
public final class ChatServerCommand implements Callable<Integer> {

  @Option(names = "--host", defaultValue = "127.0.0.1",
      description = "Address to listen on (default: ${DEFAULT-VALUE}; 0.0.0.0 for every interface).")
  String host;

  @Option(names = "--port", defaultValue = "7000", description = "Port, 0 for a free one (default: ${DEFAULT-VALUE}).")
  int port;

  @Override
  public Integer call() throws Exception {
    final ChatServer server = ChatServer.start(host, port);
    final CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      server.close();
      stopped.countDown();
    }, "chat-server-shutdown"));
    System.out.println("chat-server: listening on " + host + ":" + server.port() + " (Ctrl-C stops)");
    stopped.await();
    return 0;
  }
}
