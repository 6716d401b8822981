package dev.spotkit.examples.chat;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code chat-bench}: the chat server benchmark (issue 16). For each server in {@code --servers}, one after the other,
 * each in a child JVM of its own started from this jar with this JVM's flags ({@code spotkit}: {@code chat-server
 * --port 0}, one node, the command's default; {@code raw}: {@code chat-raw-server --port 0}, the plain Netty
 * {@link RawChatServer}; {@code raw-batched}: the same with {@code --consolidate-flushes}), it drives open-loop
 * {@link BotSwarm} runs ({@code --rate}) from this process over loopback TCP:
 *
 * <ol>
 *   <li>a warm-up run at {@code --start-rate} lines/s per bot, not counted;</li>
 *   <li>the saturation search: runs of {@code --step-seconds} at a rate growing by {@code --growth} until a run does
 *       not keep up, then {@code --refine} bisections between the last rate that kept up and the first that did
 *       not. A run keeps up when it passed (nothing lost, duplicated, reordered or timed out), its sustained
 *       deliveries/s reached {@code --keep-up} of the offered deliveries/s, and its median latency stayed at or
 *       under {@code --p50-limit-ms}: past saturation the backlog grows for the whole run, so the median explodes
 *       with it, while the p99 of a busy shared machine jumps by tens of ms on any stall of another process and
 *       would end the search by chance. The saturation throughput is the sustained deliveries/s of the fastest run
 *       that kept up;</li>
 *   <li>runs of {@code --measure-seconds} at 25%, 50% and 90% of that run's rate, each reporting sustained
 *       deliveries/s and delivery latency p50/p99/p999 (from each line's intended send time).</li>
 * </ol>
 *
 * <p>A run that does not keep up is repeated once, and only a second miss counts (the machine is shared; one stall
 * of another process should not end the search). Every run is one line on stderr ({@code chat-bench: spotkit step
 * rate=... offered_per_s=... kept_up=yes server_cpu=0.93 bots_cpu=1.01 ...}, the CPU figures in cores: CPU seconds
 * of the server's process and of this one over the run, from {@code /proc}); the
 * result is a Markdown table on stdout, one column group per server, and a {@code targets:} line comparing Spotkit
 * with the raw server (saturation ratio at least 0.5, p99 under 5 ms at 50% load). The bots share the machine with
 * the server, so on a small machine the bots' own cost bounds every figure. Exit code 0 when every measured run (25,
 * 50, 90%) passed its delivery checks, 1 otherwise; the targets are reported, not enforced.
 */
@Command(name = "chat-bench", mixinStandardHelpOptions = true,
    description = "Benchmark: saturation throughput, and latency at 25/50/90%% load, of chat-server vs a raw Netty"
        + " server.")
public final class ChatBenchCommand implements Callable<Integer> {

  /** The fractions of the saturation rate measured, in order. */
  static final double[] LOADS = {0.25, 0.50, 0.90};

  @Option(names = "--servers", split = ",", defaultValue = "spotkit,raw,raw-batched", paramLabel = "SERVER",
      description = "Servers to measure, in order: spotkit, raw, raw-batched (default: ${DEFAULT-VALUE}).")
  List<String> servers;

  @Option(names = "--clients", defaultValue = "50", description = "Bots (default: ${DEFAULT-VALUE}).")
  int clients;

  @Option(names = "--rooms", defaultValue = "5", description = "Rooms (default: ${DEFAULT-VALUE}).")
  int rooms;

  @Option(names = "--start-rate", defaultValue = "20",
      description = "First rate tried, lines/s per bot (default: ${DEFAULT-VALUE}).")
  double startRate;

  @Option(names = "--growth", defaultValue = "1.5",
      description = "Factor between two rates of the search, above 1 (default: ${DEFAULT-VALUE}).")
  double growth;

  @Option(names = "--max-steps", defaultValue = "20",
      description = "Most runs of the growing search (default: ${DEFAULT-VALUE}).")
  int maxSteps;

  @Option(names = "--refine", defaultValue = "2",
      description = "Bisections after the search (default: ${DEFAULT-VALUE}).")
  int refine;

  @Option(names = "--step-seconds", defaultValue = "4",
      description = "Length of a search run's schedule, s (default: ${DEFAULT-VALUE}).")
  int stepSeconds;

  @Option(names = "--measure-seconds", defaultValue = "10",
      description = "Length of a measured run's schedule, s (default: ${DEFAULT-VALUE}).")
  int measureSeconds;

  @Option(names = "--keep-up", defaultValue = "0.95",
      description = "Least fraction of the offered deliveries/s a run must sustain to keep up (default:"
          + " ${DEFAULT-VALUE}).")
  double keepUp;

  @Option(names = "--p50-limit-ms", defaultValue = "25",
      description = "Highest median latency of a run that keeps up, ms (default: ${DEFAULT-VALUE}).")
  double p50LimitMillis;

  @Option(names = "--settle-ms", defaultValue = "1500",
      description = "Pause between two runs so the server drops the last run's sessions, ms (default:"
          + " ${DEFAULT-VALUE}).")
  long settleMillis;

  @Option(names = "--in-process",
      description = "Run the servers in this JVM instead of a child JVM each (no CPU split; for quick checks).")
  boolean inProcess;

  @Spec
  CommandSpec spec;

  /** Progress lines; stderr unless a test replaces it. */
  PrintStream progress = System.err;

  /**
   * One run's figures.
   *
   * @param rate lines/s per bot offered.
   * @param offeredPerSecond deliveries/s offered: expected deliveries over the schedule's length.
   * @param report the bots' report.
   * @param keptUp whether the run kept up (see the class comment).
   * @param serverCpu cores the server's process used over the run (CPU seconds / wall seconds); -1 when unknown.
   * @param botsCpu cores this process (the bots) used over the run; -1 when unknown.
   * @param serverMicrosPerDelivery the server's CPU time over the run (connects and joins included) divided by the
   *     deliveries, in microseconds; -1 when unknown.
   */
  record Run(double rate, double offeredPerSecond, BotReport report, boolean keptUp, double serverCpu,
      double botsCpu, double serverMicrosPerDelivery) {
  }

  /**
   * One server's results.
   *
   * @param server {@code spotkit} or {@code raw}.
   * @param saturation the fastest run that kept up, or null when none did.
   * @param loads the measured runs at {@link #LOADS}, in order; empty when there was no saturation run.
   */
  record Result(String server, Run saturation, List<Run> loads) {
  }

  @Override
  public Integer call() throws Exception {
    validate();
    final Map<String, Result> results = new LinkedHashMap<>();
    for (String server : servers) {
      try (ServerUnderTest running = inProcess ? ServerUnderTest.inProcess(server) : ServerUnderTest.child(server)) {
        results.put(server, measure(server, running));
      }
    }
    System.out.print(table(results));
    System.out.println(targets(results));
    boolean passed = true;
    for (Result result : results.values()) {
      passed &= result.saturation() != null && result.loads().stream().allMatch(run -> run.report().passed());
    }
    return passed ? 0 : 1;
  }

  private void validate() {
    final List<String> problems = new ArrayList<>();
    if (servers.isEmpty() || !servers.stream().allMatch(List.of("spotkit", "raw", "raw-batched")::contains)) {
      problems.add("--servers " + servers + " must name spotkit, raw and/or raw-batched");
    }
    if (clients < 1 || clients > 10_000 || rooms < 1 || rooms > clients) {
      problems.add("--clients " + clients + " must be 1..10000 and --rooms " + rooms + " 1..clients");
    }
    if (!(startRate > 0) || !(growth > 1) || maxSteps < 1 || maxSteps > 100 || refine < 0 || refine > 10) {
      problems.add("--start-rate must be above 0, --growth above 1, --max-steps 1..100, --refine 0..10");
    }
    if (stepSeconds < 1 || measureSeconds < 1 || !(keepUp > 0 && keepUp <= 1) || !(p50LimitMillis > 0)
        || settleMillis < 0) {
      problems.add("--step-seconds and --measure-seconds must be at least 1, --keep-up in (0, 1], --p50-limit-ms"
          + " above 0, --settle-ms at least 0");
    }
    if (!problems.isEmpty()) {
      throw new ParameterException(spec.commandLine(), String.join("; ", problems));
    }
  }

  /** Warm-up, saturation search, then the runs at 25, 50 and 90% of the saturation rate. */
  Result measure(final String server, final ServerUnderTest target) throws InterruptedException {
    run(server, "warmup", target, startRate, stepSeconds);
    Run best = null;
    Run worst = null;
    double rate = startRate;
    for (int step = 0; step < maxSteps; step++) {
      final Run run = confirmed(server, "step", target, rate);
      if (run.keptUp()) {
        best = run;
        if (worst != null) {
          break; // came down from a first rate that was already too fast
        }
        rate *= growth;
      } else {
        worst = run;
        if (best != null) {
          break;
        }
        rate /= growth;
      }
    }
    for (int i = 0; i < refine && best != null && worst != null; i++) {
      final Run run = confirmed(server, "refine", target, Math.sqrt(best.rate() * worst.rate()));
      if (run.keptUp()) {
        best = run;
      } else {
        worst = run;
      }
    }
    final List<Run> loads = new ArrayList<>();
    for (double load : best == null ? new double[0] : LOADS) {
      loads.add(run(server, "load" + Math.round(load * 100), target, best.rate() * load, measureSeconds));
    }
    return new Result(server, best, loads);
  }

  /** A search run; one that does not keep up is run once more, and the second one counts. */
  private Run confirmed(final String server, final String what, final ServerUnderTest target, final double rate)
      throws InterruptedException {
    final Run first = run(server, what, target, rate, stepSeconds);
    return first.keptUp() ? first : run(server, what + "-again", target, rate, stepSeconds);
  }

  /** One swarm run at {@code rate} lines/s per bot for {@code seconds} of schedule; one progress line. */
  private Run run(final String server, final String what, final ServerUnderTest target, final double rate,
      final int seconds) throws InterruptedException {
    final int messages = (int) Math.max(1, Math.min(1_000_000, Math.round(rate * seconds)));
    final BotSwarm.Settings settings = new BotSwarm.Settings("127.0.0.1", List.of(target.port()), clients, rooms,
        messages, Duration.ofSeconds(3L * seconds + 30), rate);
    final long wallBefore = System.nanoTime();
    final long serverBefore = ServerUnderTest.cpuNanos(target.pid());
    final long botsBefore = ServerUnderTest.cpuNanos(ProcessHandle.current().pid());
    final BotReport report = BotSwarm.run(settings);
    final double wall = System.nanoTime() - wallBefore;
    final long serverAfter = ServerUnderTest.cpuNanos(target.pid());
    final long botsAfter = ServerUnderTest.cpuNanos(ProcessHandle.current().pid());
    final double serverCpu = serverBefore < 0 || serverAfter < 0 ? -1 : (serverAfter - serverBefore) / wall;
    final double botsCpu = botsBefore < 0 || botsAfter < 0 ? -1 : (botsAfter - botsBefore) / wall;
    final double offered = report.expected() / (messages / rate);
    final boolean keptUp = report.passed() && report.deliveriesPerSecond() >= keepUp * offered
        && report.p50Millis() <= p50LimitMillis;
    final double micros = serverCpu < 0 || report.delivered() == 0 ? -1
        : (serverAfter - serverBefore) / 1e3 / report.delivered();
    progress.println(String.format(Locale.ROOT, "chat-bench: %s %s rate=%.1f offered_per_s=%.0f kept_up=%s"
        + " server_cpu=%.2f bots_cpu=%.2f server_us_per_delivery=%.1f %s", server, what, rate, offered,
        keptUp ? "yes" : "no", serverCpu, botsCpu, micros, report.line().substring("chat-bots: ".length())));
    if (report.failure() != null) {
      progress.println("chat-bench: " + server + " " + what + ": " + report.failure());
    }
    Thread.sleep(settleMillis); // a pause between runs, not a synchronisation: the server drops the old sessions
    return new Run(rate, offered, report, keptUp, serverCpu, botsCpu, micros);
  }

  /**
   * The results as a Markdown table: one row per load (saturation, 25, 50, 90%), for each server its offered
   * deliveries/s, sustained deliveries/s and p50/p99/p999 latency in ms.
   *
   * @param results by server, in column order.
   * @return the table, lines ending in LF.
   */
  static String table(final Map<String, Result> results) {
    final StringBuilder out = new StringBuilder("| load |");
    final StringBuilder rule = new StringBuilder("|---|");
    for (String server : results.keySet()) {
      out.append(String.format(" %s offered/s | %s deliveries/s | %s p50 ms | %s p99 ms | %s p999 ms |"
          + " %s server CPU (cores) | %s server CPU us/delivery |", server, server, server, server, server, server,
          server));
      rule.append("---:|---:|---:|---:|---:|---:|---:|");
    }
    out.append('\n').append(rule).append('\n');
    for (int row = -1; row < LOADS.length; row++) {
      out.append(row < 0 ? "| saturation |" : "| " + Math.round(LOADS[row] * 100) + "% |");
      for (Result result : results.values()) {
        final Run run = row < 0 ? result.saturation() : row < result.loads().size() ? result.loads().get(row) : null;
        out.append(run == null ? " - | - | - | - | - | - | - |" : String.format(Locale.ROOT,
            " %,.0f | %,.0f | %.2f | %.2f | %.2f | %.2f | %.1f |%s", run.offeredPerSecond(),
            run.report().deliveriesPerSecond(), run.report().p50Millis(), run.report().p99Millis(),
            run.report().p999Millis(), run.serverCpu(), run.serverMicrosPerDelivery(),
            run.report().passed() ? "" : " (failed: " + run.report().line() + ")"));
      }
      out.append('\n');
    }
    return out.toString();
  }

  /**
   * The targets, measured: Spotkit's saturation throughput over the raw server's (target at least 0.5; the
   * faster of {@code raw} and {@code raw-batched} when both ran) and Spotkit's p99 at 50% load (target under 5 ms).
   *
   * @param results by server.
   * @return one line starting {@code targets:}.
   */
  static String targets(final Map<String, Result> results) {
    final Result ours = results.get("spotkit");
    Result raw = null;
    for (String name : List.of("raw", "raw-batched")) {
      final Result r = results.get(name);
      if (r != null && r.saturation() != null && (raw == null || r.saturation().report().deliveriesPerSecond()
          > raw.saturation().report().deliveriesPerSecond())) {
        raw = r;
      }
    }
    final List<String> parts = new ArrayList<>();
    if (ours != null && raw != null && ours.saturation() != null && raw.saturation() != null) {
      final double ratio = ours.saturation().report().deliveriesPerSecond()
          / raw.saturation().report().deliveriesPerSecond();
      parts.add(String.format(Locale.ROOT, "saturation spotkit/%s = %.2f (target >= 0.5: %s)", raw.server(), ratio,
          ratio >= 0.5 ? "met" : "NOT met"));
    }
    if (ours != null && ours.loads().size() > 1) {
      final double p99 = ours.loads().get(1).report().p99Millis();
      parts.add(String.format(Locale.ROOT, "spotkit p99 at 50%% load = %.2f ms (target < 5 ms: %s)", p99,
          p99 < 5 ? "met" : "NOT met"));
    }
    return "targets: " + (parts.isEmpty() ? "not measured (needs both servers)" : String.join("; ", parts));
  }
}
