package dev.spotkit.examples.chat;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code chat-demo}: starts a {@link ChatServer} in this process on a free loopback port, runs the
 * {@link BotSwarm} against it, prints the bots' summary line and exits with their exit code.
 */
@Command(name = "chat-demo", mixinStandardHelpOptions = true,
    description = "Chat server and bots in one process; prints the bots' summary line.")
public final class ChatDemoCommand implements Callable<Integer> {

  @Option(names = "--clients", defaultValue = "50", description = "Bots (default: ${DEFAULT-VALUE}).")
  int clients;

  @Option(names = "--rooms", defaultValue = "5", description = "Rooms (default: ${DEFAULT-VALUE}).")
  int rooms;

  @Option(names = "--messages", defaultValue = "200", description = "Lines per bot (default: ${DEFAULT-VALUE}).")
  int messages;

  @Option(names = "--timeout-seconds", defaultValue = "60",
      description = "Bound on the bots' run (default: ${DEFAULT-VALUE}).")
  int timeoutSeconds;

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    ChatBotsCommand.settings(spec, "127.0.0.1", 1, clients, rooms, messages, timeoutSeconds); // usage errors first
    try (ChatServer server = ChatServer.start("127.0.0.1", 0)) {
      return ChatBotsCommand.runAndPrint(
          ChatBotsCommand.settings(spec, "127.0.0.1", server.port(), clients, rooms, messages, timeoutSeconds));
    }
  }
}
