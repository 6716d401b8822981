package dev.spotkit.examples.admin;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code spotkit-admin}: the operator's command line for a mesh whose nodes share a Redis Location Store (issue 15).
 * It is no MeshNode: it reads and writes the store only, through {@link dev.spotkit.core.MeshAdmin}.
 *
 * <pre>
 *   bin/spotkit-admin nodes --store-prefix spotkit-chat
 *   bin/spotkit-admin objects --store-prefix spotkit-chat --node 1c9e --json
 *   bin/spotkit-admin relocations --store-prefix spotkit-chat
 *   bin/spotkit-admin drain 1c9e --store-prefix spotkit-chat --timeout 2m
 * </pre>
 *
 * <p>Exit codes: 0 ok; 1 the operation failed; 2 bad usage (also: no subcommand); 3 the store is unreachable or did
 * not answer within {@code --store-timeout}.
 */
@Command(name = "spotkit-admin", mixinStandardHelpOptions = true, version = "spotkit-admin 0.1.0-SNAPSHOT",
    description = "Operate a Spotkit mesh through its Redis Location Store: nodes, objects, relocations, drain.",
    subcommands = {NodesCommand.class, ObjectsCommand.class, RelocationsCommand.class, DrainCommand.class,
        CommandLine.HelpCommand.class})
public final class AdminCommand implements Callable<Integer> {

  @CommandLine.Spec
  private CommandLine.Model.CommandSpec spec;

  /**
   * Runs {@code spotkit-admin} on its own (the examples jar runs it as its subcommand {@code spotkit-admin}).
   *
   * @param args e.g. {@code nodes --store-prefix spotkit-chat}.
   */
  public static void main(final String[] args) {
    System.exit(new CommandLine(new AdminCommand()).execute(args));
  }

  /**
   * Without a subcommand: prints the usage on stderr.
   *
   * @return 2, bad usage.
   */
  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getErr());
    return AdminOptions.USAGE;
  }
}
