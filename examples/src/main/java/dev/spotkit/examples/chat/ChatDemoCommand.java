package dev.spotkit.examples.chat;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code chat-demo}: starts a {@link ChatServer} of {@code --nodes} MeshNodes (default 3) in this process on
 * free loopback ports, runs the {@link BotSwarm} against all of them (bots round-robin over the nodes, so
 * rooms have members on several nodes), prints the bots' summary line and exits with their exit code.
 */
@Command(name = "chat-demo", mixinStandardHelpOptions = true,
    description = "Chat server (3 nodes) and bots in one process; prints the bots' summary line.")
public final class ChatDemoCommand implements Callable<Integer> {

  @Option(names = "--nodes", defaultValue = "3",
      description = "MeshNodes the bots spread over (default: ${DEFAULT-VALUE}).")
  int nodes = 3;

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
    // usage errors first
    ChatBotsCommand.settings(spec, "127.0.0.1", List.of(1), clients, rooms, messages, timeoutSeconds);
    if (nodes < 1 || nodes > ChatServer.MAX_NODES) {
      throw new ParameterException(spec == null ? new CommandLine(this) : spec.commandLine(),
          "--nodes " + nodes + " must be between 1 and " + ChatServer.MAX_NODES);
    }
    try (ChatServer server = ChatServer.start("127.0.0.1", 0, nodes)) {
      return ChatBotsCommand.runAndPrint(
          ChatBotsCommand.settings(spec, "127.0.0.1", server.ports(), clients, rooms, messages, timeoutSeconds));
    }
  }
}
