package dev.spotkit.examples.chat;

import java.io.PrintStream;
import picocli.CommandLine;

/** Runs {@code chat-server} with its error stream replaced, for tests outside this package. */
public final class ChatServerCommandAccess {
  private ChatServerCommandAccess() {
  }

  /**
   * Parses {@code args} and runs the command.
   *
   * @param err where the error line goes.
   * @param args the command line.
   * @return the exit code.
   */
  public static int run(final PrintStream err, final String... args) {
    return run(err, java.util.Map.of(), args);
  }

  /**
   * Parses {@code args} and runs the command with {@code env} as its environment.
   *
   * @param err where the error line goes.
   * @param env the environment variables the command sees.
   * @param args the command line.
   * @return the exit code.
   */
  public static int run(final PrintStream err, final java.util.Map<String, String> env, final String... args) {
    final ChatServerCommand command = new ChatServerCommand();
    command.err = err;
    command.env = env;
    return new CommandLine(command).execute(args);
  }
}
