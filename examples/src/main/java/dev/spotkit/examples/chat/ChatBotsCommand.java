package dev.spotkit.examples.chat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code chat-bots}: connects N bots to a chat server, checks delivery and prints one summary line
 * ({@link BotReport#line()}); the exit code is 0 only when nothing was lost, timed out, duplicated or reordered
 * and no bot's connection was reset. Why a run failed goes to stderr. Several ports (the nodes of one mesh)
 * get the bots round-robin. See {@link BotSwarm}.
 *
 * <p>When a server node dies mid-run, the bots it served are dropped and the others go on: {@code --per-room} (and
 * any drop) adds one line per room ({@link RoomReport#line()}) with the node the room ran on and {@code clean=true}
 * when every member still connected got every line due to it once and in order, so the rooms of the live nodes can
 * be told from the dead node's. The exit code stays 1 after any drop.
 *
 * <p>{@code --rate R} (lines per second per bot, above 0) makes it an open-loop load: each bot sends its lines on a
 * fixed schedule, one every 1/R s, and latency counts from each line's intended send time, so a server that falls
 * behind shows as latency rather than as a slower sender. Without it each bot sends as fast as it can. The summary
 * line carries the sustained {@code deliveries_per_s} and the delivery latency {@code p50_ms}, {@code p99_ms},
 * {@code p999_ms}.
 */
@Command(name = "chat-bots", mixinStandardHelpOptions = true,
    description = "Load and check a chat server: every line must reach every room member once, in order.")
public final class ChatBotsCommand implements Callable<Integer> {

  @Option(names = "--host", defaultValue = "127.0.0.1", description = "Server host (default: ${DEFAULT-VALUE}).")
  String host;

  @Option(names = "--port", description = "Server port; repeat it for several nodes (bots go round-robin).")
  List<Integer> port;

  @Option(names = "--ports", split = ",", paramLabel = "PORT",
      description = "Server ports as one list, e.g. 7000,7001,7002 (same as repeating --port).")
  List<Integer> ports;

  @Option(names = "--clients", defaultValue = "50", description = "Bots (default: ${DEFAULT-VALUE}).")
  int clients;

  @Option(names = "--rooms",
      description = "Rooms; bot i joins room i %% R (default: 5, or --clients when fewer).")
  Integer rooms;

  @Option(names = "--messages", defaultValue = "200", description = "Lines per bot (default: ${DEFAULT-VALUE}).")
  int messages;

  @Option(names = "--timeout-seconds", defaultValue = "60",
      description = "Bound on the whole run, in seconds; it ends at most 2 s later also when the server dies or goes"
          + " silent (default: ${DEFAULT-VALUE}).")
  int timeoutSeconds;

  @Option(names = "--rate", paramLabel = "LINES_PER_S",
      description = "Lines per second per bot, sent on a fixed schedule (open loop; latency from each line's intended"
          + " send time); above 0, at most 1000000 (default: as fast as each bot can).")
  Double rate;

  @Option(names = "--per-room",
      description = "Also print one line per room (its node, members, dropped members, counts, clean=true|false);"
          + " printed anyway when the server dropped a bot's connection.")
  boolean perRoom;

  @Spec
  CommandSpec spec;

  /** Rooms when {@code --rooms} is not given (fewer with fewer clients). */
  static final int DEFAULT_ROOMS = 5;
  /** Highest {@code --rate}, lines per second per bot. */
  static final double MAX_RATE = 1_000_000;

  @Override
  public Integer call() throws InterruptedException {
    final List<Integer> all = new ArrayList<>();
    all.addAll(port == null ? List.of() : port);
    all.addAll(ports == null ? List.of() : ports);
    if (all.isEmpty()) {
      throw new ParameterException(spec.commandLine(), "give the server's port: --port P (repeatable) or"
          + " --ports P1,P2,...");
    }
    if (rate != null && !(rate > 0 && rate <= MAX_RATE)) {
      throw new ParameterException(spec.commandLine(), "--rate " + rate + " must be above 0 and at most " + MAX_RATE
          + " lines/s per bot (leave it out to send as fast as possible)");
    }
    final int roomCount = rooms != null ? rooms : Math.max(1, Math.min(DEFAULT_ROOMS, clients));
    return runAndPrint(settings(spec, host, all, clients, roomCount, messages, timeoutSeconds, rate == null ? 0
        : rate), perRoom);
  }

  /**
   * Validated settings; a bad value is a usage error naming it, not a stack trace.
   *
   * @return the settings.
   */
  static BotSwarm.Settings settings(final CommandSpec spec, final String host, final List<Integer> ports,
      final int clients, final int rooms, final int messages, final int timeoutSeconds) {
    return settings(spec, host, ports, clients, rooms, messages, timeoutSeconds, 0);
  }

  /**
   * Validated settings with a send rate; a bad value is a usage error naming it, not a stack trace.
   *
   * @param rate lines per second per bot; 0 = as fast as possible.
   * @return the settings.
   */
  static BotSwarm.Settings settings(final CommandSpec spec, final String host, final List<Integer> ports,
      final int clients, final int rooms, final int messages, final int timeoutSeconds, final double rate) {
    try {
      return new BotSwarm.Settings(host, ports, clients, rooms, messages, Duration.ofSeconds(timeoutSeconds), rate);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec == null ? new CommandLine(new ChatBotsCommand()) : spec.commandLine(),
          e.getMessage(), e);
    }
  }

  /**
   * Runs the bots, prints the summary line (and any failure on stderr).
   *
   * @param settings what to run.
   * @return the exit code: 0 when the run passed, 1 otherwise.
   * @throws InterruptedException if interrupted.
   */
  static int runAndPrint(final BotSwarm.Settings settings) throws InterruptedException {
    return runAndPrint(settings, false);
  }

  /**
   * Runs the bots, prints the summary line, then the rooms' lines ({@link RoomReport#line()}) when asked or when the
   * server dropped a bot's connection, and any failure on stderr.
   *
   * @param settings what to run.
   * @param perRoom whether to print the rooms' lines also when no connection was dropped.
   * @return the exit code: 0 when the run passed, 1 otherwise.
   * @throws InterruptedException if interrupted.
   */
  static int runAndPrint(final BotSwarm.Settings settings, final boolean perRoom) throws InterruptedException {
    final BotReport report = BotSwarm.run(settings);
    if (report.failure() != null) {
      System.err.println("chat-bots: " + report.failure());
    }
    System.out.println(report.line());
    if (perRoom || report.reset() > 0) {
      report.perRoom().forEach(room -> System.out.println(room.line()));
    }
    return report.passed() ? 0 : 1;
  }
}
