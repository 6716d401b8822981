package dev.spotkit.examples.chat;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import org.HdrHistogram.Histogram;

/**
 * Runs N chat bots against a server and checks delivery: every line reaches every member of its room
 * (the sender too) exactly once and in each sender's order. With several ports (the nodes of a mesh) the
 * bots are spread over them round-robin, so the members of one room sit on different nodes.
 *
 * <p>Phases, each bounded by one overall deadline: connect every bot and start its reader; each bot sets
 * its nick and joins room {@code i % rooms}, and the swarm waits for every {@code ok join} (so every
 * membership is complete before anyone talks); then every bot says its numbered lines at once; then the
 * swarm waits until each bot has all lines of its room, or the deadline. Finally every socket is closed
 * and the counters are summed into a {@link BotReport}. One virtual thread per bot sends, one reads.
 */
public final class BotSwarm {

  /**
   * What to run.
   *
   * @param host server host.
   * @param ports server ports, 1 to 64 of them (e.g. one per node of a mesh); bot i connects to
   *     {@code ports.get(i % ports.size())}.
   * @param clients bots, 1 to 10,000.
   * @param rooms rooms, 1 to clients; bot i joins room {@code "room" + (i % rooms)}.
   * @param messages lines per bot, 0 to 1,000,000.
   * @param timeout bound on the whole run.
   */
  public record Settings(String host, List<Integer> ports, int clients, int rooms, int messages,
      Duration timeout) {
    /** Validates, naming the bad value; copies {@code ports}. */
    public Settings {
      Objects.requireNonNull(host, "host");
      Objects.requireNonNull(ports, "ports");
      Objects.requireNonNull(timeout, "timeout");
      ports = List.copyOf(ports);
      check(!ports.isEmpty() && ports.size() <= 64, "ports " + ports + " must name 1 to 64 ports");
      for (int port : ports) {
        check(port >= 1 && port <= 65535, "port " + port + " must be between 1 and 65535");
      }
      check(clients >= 1 && clients <= 10_000, "clients " + clients + " must be between 1 and 10000");
      check(rooms >= 1 && rooms <= clients, "rooms " + rooms + " must be between 1 and clients (" + clients + ")");
      check(messages >= 0 && messages <= 1_000_000, "messages " + messages + " must be between 0 and 1000000");
      check(!timeout.isNegative() && !timeout.isZero(), "timeout " + timeout + " must be positive");
    }

    /**
     * One server port.
     *
     * @param host server host.
     * @param port server port.
     * @param clients bots.
     * @param rooms rooms.
     * @param messages lines per bot.
     * @param timeout bound on the whole run.
     */
    public Settings(final String host, final int port, final int clients, final int rooms, final int messages,
        final Duration timeout) {
      this(host, List.of(port), clients, rooms, messages, timeout);
    }

    private static void check(final boolean ok, final String message) {
      if (!ok) {
        throw new IllegalArgumentException(message);
      }
    }
  }

  private BotSwarm() {
  }

  /**
   * Runs the bots. Never hangs: every wait ends at {@code settings.timeout()} from the start.
   *
   * @param settings what to run.
   * @return the counts and latencies; {@link BotReport#failure()} says why a run could not finish.
   * @throws InterruptedException if the calling thread is interrupted.
   */
  public static BotReport run(final Settings settings) throws InterruptedException {
    final long deadline = System.nanoTime() + settings.timeout().toNanos();
    final List<Bot> bots = newBots(settings);
    final Queue<Future<?>> readers = new ConcurrentLinkedQueue<>();
    String failure = null;
    try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
      try {
        failure = talk(settings, bots, threads, readers, deadline);
      } finally {
        bots.forEach(Bot::close); // ends every reader and unblocks every writer, so the executor can close
      }
    }
    for (Future<?> reader : readers) {
      awaitQuietly(reader); // all done (the executor closed); get() makes the readers' counters visible here
    }
    return report(settings, bots, failure);
  }

  private static List<Bot> newBots(final Settings s) {
    final AtomicLongArray sendNanos = new AtomicLongArray(s.clients() * s.messages());
    final List<Bot> bots = new ArrayList<>(s.clients());
    for (int i = 0; i < s.clients(); i++) {
      final int room = i % s.rooms();
      final int[] mates = new int[(s.clients() - room + s.rooms() - 1) / s.rooms()];
      for (int k = 0; k < mates.length; k++) {
        mates[k] = room + k * s.rooms();
      }
      bots.add(new Bot(i, "room" + room, mates, s.messages(), sendNanos));
    }
    return bots;
  }

  /** Connect, join, send, await. Returns null on success, or why it stopped. */
  private static String talk(final Settings s, final List<Bot> bots, final ExecutorService threads,
      final Queue<Future<?>> readers, final long deadline) throws InterruptedException {
    final List<Future<?>> joins = new ArrayList<>();
    for (Bot bot : bots) {
      final InetSocketAddress server = new InetSocketAddress(s.host(), s.ports().get(bot.index % s.ports().size()));
      joins.add(threads.submit(() -> {
        bot.connect(server, (int) Math.max(1, remainingMillis(deadline)));
        readers.add(threads.submit(bot::readLoop));
        bot.join(deadline);
        return null;
      }));
    }
    final String joinFailure = awaitAll(joins, deadline, "join");
    if (joinFailure != null) {
      return joinFailure;
    }
    final List<Future<?>> sends = new ArrayList<>();
    for (Bot bot : bots) {
      sends.add(threads.submit(() -> {
        bot.sendAll();
        return null;
      }));
    }
    final String sendFailure = awaitAll(sends, deadline, "send");
    if (sendFailure != null) {
      return sendFailure;
    }
    for (Bot bot : bots) {
      if (!bot.awaitAll(deadline)) {
        return "timed out after " + s.timeout().toMillis() + " ms waiting for deliveries";
      }
    }
    return null;
  }

  private static String awaitAll(final List<Future<?>> futures, final long deadline, final String phase)
      throws InterruptedException {
    for (int i = 0; i < futures.size(); i++) {
      try {
        futures.get(i).get(remainingMillis(deadline), TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.TimeoutException e) {
        return phase + " timed out (bot" + i + ")";
      } catch (java.util.concurrent.ExecutionException e) {
        if (e.getCause() instanceof java.util.concurrent.TimeoutException) {
          return phase + " timed out (bot" + i + ")"; // the bot's own wait hit the same deadline first
        }
        return phase + " failed (bot" + i + "): " + reason(e);
      }
    }
    return null;
  }

  /** What went wrong, for the report line: the innermost cause's message, without wrapper class names. */
  static String reason(final Throwable failure) {
    Throwable cause = failure;
    while ((cause instanceof java.util.concurrent.ExecutionException
        || cause instanceof java.util.concurrent.CompletionException) && cause.getCause() != null) {
      cause = cause.getCause();
    }
    final String message = cause.getMessage();
    if (message == null || message.isBlank()) {
      return cause.getClass().getSimpleName();
    }
    return cause instanceof java.io.IOException && !message.contains(": ") ? message + " ("
        + cause.getClass().getSimpleName() + ")" : message;
  }

  private static void awaitQuietly(final Future<?> done) throws InterruptedException {
    try {
      done.get();
    } catch (java.util.concurrent.ExecutionException e) {
      System.err.println("chat-bots: a reader failed: " + reason(e));
    }
  }

  private static BotReport report(final Settings s, final List<Bot> bots, final String failure) {
    final Histogram latency = new Histogram(TimeUnit.MINUTES.toMicros(2), 3);
    long sent = 0;
    long expected = 0;
    long delivered = 0;
    long duplicated = 0;
    long reordered = 0;
    for (Bot bot : bots) {
      sent += bot.sent;
      expected += bot.expected();
      delivered += bot.delivered;
      duplicated += bot.duplicated;
      reordered += bot.reordered;
      latency.add(bot.latencyMicros);
    }
    return new BotReport(s.clients(), s.rooms(), sent, expected, delivered, duplicated, reordered,
        latency.getValueAtPercentile(50) / 1000.0, latency.getValueAtPercentile(99) / 1000.0, failure);
  }

  private static long remainingMillis(final long deadlineNanos) {
    return Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime()));
  }
}
