package dev.spotkit.examples;

import dev.spotkit.examples.admin.AdminCommand;
import dev.spotkit.examples.chat.ChatBenchCommand;
import dev.spotkit.examples.chat.ChatBotsCommand;
import dev.spotkit.examples.chat.ChatDemoCommand;
import dev.spotkit.examples.chat.ChatRawServerCommand;
import dev.spotkit.examples.chat.ChatServerCommand;
import dev.spotkit.examples.game.GameBotsCommand;
import dev.spotkit.examples.game.GameDemoCommand;
import dev.spotkit.examples.game.GameServerCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * Entry point of {@code spotkit-examples.jar}: one top command with a subcommand per example.
 *
 * <pre>
 *   java -jar spotkit-examples.jar chat-demo                 # server + bots in one process
 *   java -jar spotkit-examples.jar chat-server --port 7000   # then: nc 127.0.0.1 7000
 *   java -jar spotkit-examples.jar chat-bots --port 7000 --clients 50 --rooms 5 --messages 200
 *   java -jar spotkit-examples.jar chat-bots --port 7000 --rate 100   # open loop: 100 lines/s per bot
 *   java -jar spotkit-examples.jar chat-raw-server --port 7100  # the plain Netty baseline
 *   java -jar spotkit-examples.jar chat-bench               # spotkit vs raw: saturation, 25/50/90% load
 *   java -jar spotkit-examples.jar game-demo --drain       # matches through a rolling restart
 *   java -jar spotkit-examples.jar spotkit-admin nodes --store-prefix spotkit-chat   # operate a Redis mesh
 * </pre>
 */
@Command(name = "spotkit-examples", mixinStandardHelpOptions = true, version = "spotkit-examples 0.1.0-SNAPSHOT",
    description = "Spotkit examples.",
    subcommands = {ChatServerCommand.class, ChatBotsCommand.class, ChatDemoCommand.class,
        ChatRawServerCommand.class, ChatBenchCommand.class,
        GameServerCommand.class, GameBotsCommand.class, GameDemoCommand.class, AdminCommand.class,
        CommandLine.HelpCommand.class})
public final class SpotkitExamples implements Runnable {

  @CommandLine.Spec
  private CommandLine.Model.CommandSpec spec;

  /**
   * Runs the command line and exits with the subcommand's exit code.
   *
   * @param args e.g. {@code chat-demo --clients 10}.
   */
  public static void main(final String[] args) {
    System.exit(new CommandLine(new SpotkitExamples()).execute(args));
  }

  /** Without a subcommand: prints the usage. */
  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }
}
