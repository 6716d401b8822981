package dev.spotkit.examples.chat;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
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
 * swarm waits until each bot has all lines of its room, or the deadline. Finally every socket is closed (a bot
 * still connecting then opens nothing), every bot thread still waiting is interrupted, and the counters are summed
 * into a {@link BotReport}. One virtual thread per bot sends, one reads. The run returns at most
 * {@link #THREADS_GRACE_MILLIS} after its deadline even if a thread never ends: such a bot is named in the failure.
 *
 * <p>A bot whose connection the server reset or closed (a node died) is dropped; the others go on. Its lines that
 * never reached the room are due to nobody: each member still connected waits for every line of every other member
 * still connected and, of a dropped one, for the lines up to the highest any member received from it (the room relayed
 * those to all), and {@link BotReport#perRoom()} says per room whether its survivors got all that once and in order.
 *
 * <p>Missing deliveries are told apart: those of a bot whose connection the server reset or closed are
 * {@link BotReport#lost() lost} (the bot is counted in {@link BotReport#reset()} and named in the failure); those
 * still outstanding on open connections when the run hit its timeout are {@link BotReport#timedOut() timed out};
 * those missing after the run stopped early for another reason (a refused join) are lost.
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
   * @param rate lines per second per bot, 0 to 1,000,000: 0 = each bot sends as fast as it can (closed loop, the
   *     latency is measured from the actual send); above 0 = each bot sends on a fixed schedule (open loop): line
   *     {@code seq} of bot {@code i} is due at {@code start + (seq + i / clients) / rate} seconds, the bots' schedules
   *     evenly staggered, and its latency is measured from that intended time, so a bot held up by a slow server
   *     does not hide the queueing (no coordinated omission).
   */
  public record Settings(String host, List<Integer> ports, int clients, int rooms, int messages,
      Duration timeout, double rate) {
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
      check(rate >= 0 && rate <= 1_000_000, "rate " + rate + " must be between 0 (as fast as possible) and 1000000"
          + " lines/s per bot");
    }

    /**
     * Unpaced: every bot sends as fast as it can ({@code rate} 0).
     *
     * @param host server host.
     * @param ports server ports.
     * @param clients bots.
     * @param rooms rooms.
     * @param messages lines per bot.
     * @param timeout bound on the whole run.
     */
    public Settings(final String host, final List<Integer> ports, final int clients, final int rooms,
        final int messages, final Duration timeout) {
      this(host, ports, clients, rooms, messages, timeout, 0);
    }

    /**
     * Whether the bots send on a fixed schedule.
     *
     * @return true when {@code rate} is above 0.
     */
    public boolean paced() {
      return rate > 0;
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

  /**
   * How long, in milliseconds, a run waits for its bots' threads after it closed their sockets and interrupted them;
   * a thread still running then is reported ({@link BotReport#failure()}) and left behind (virtual threads do not
   * keep the JVM alive).
   */
  static final long THREADS_GRACE_MILLIS = 2_000;

  private BotSwarm() {
  }

  /**
   * Runs the bots. Never hangs: every wait ends at {@code settings.timeout()} from the start, and the run returns
   * at most {@link #THREADS_GRACE_MILLIS} ms later, also when the server died or went silent meanwhile.
   *
   * @param settings what to run.
   * @return the counts and latencies; {@link BotReport#failure()} says why a run could not finish.
   * @throws InterruptedException if the calling thread is interrupted.
   */
  public static BotReport run(final Settings settings) throws InterruptedException {
    return run(settings, () -> { });
  }

  /**
   * Runs the bots, and {@code onJoined} on its own virtual thread once every bot joined its room, as the bots start
   * sending (the chat demo drains a node there). The bots stay connected, and so stay members of their rooms, until
   * {@code onJoined} returned or the deadline passed: a room whose members all left closes itself, so a drain racing
   * the bots' goodbyes would find fewer rooms to move than the node owned when it started.
   *
   * @param settings what to run.
   * @param onJoined runs once, concurrently with the sends; not at all when a join failed. It should not throw.
   * @return the counts and latencies; {@link BotReport#failure()} says why a run could not finish.
   * @throws InterruptedException if the calling thread is interrupted.
   */
  public static BotReport run(final Settings settings, final Runnable onJoined) throws InterruptedException {
    final long deadline = System.nanoTime() + settings.timeout().toNanos();
    final List<Bot> bots = newBots(settings);
    final Map<Bot, Future<?>> readers = new ConcurrentHashMap<>();
    Outcome outcome = new Outcome(null, false, 0);
    final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
    try {
      outcome = talk(settings, bots, threads, readers, deadline, onJoined);
    } finally {
      bots.forEach(Bot::close); // ends every reader and unblocks every writer; a bot still connecting opens nothing
      threads.shutdownNow(); // and interrupts any wait left (a virtual thread's socket I/O ends on interrupt)
    }
    threads.awaitTermination(THREADS_GRACE_MILLIS, TimeUnit.MILLISECONDS); // bounded: a stuck bot is reported
    final List<Bot> stuck = new ArrayList<>();
    for (Bot bot : bots) {
      final Future<?> reader = readers.get(bot);
      if (reader != null && !reader.isDone()) {
        stuck.add(bot); // its counters are still being written: reported, not read
      } else if (reader != null) {
        awaitQuietly(reader); // done: get() makes the reader's counters visible here
      }
    }
    return report(settings, bots, outcome, stuck);
  }

  /**
   * How {@link #talk} ended.
   *
   * @param failure null, or why the run stopped.
   * @param timedOut whether it stopped because the deadline passed.
   * @param sendStart {@link System#nanoTime()} when the bots started sending (their schedule's start when paced);
   *     0 when they never did.
   */
  private record Outcome(String failure, boolean timedOut, long sendStart) {
  }

  /** Lead time before the first paced line is due, so every bot's sender is running when the schedule starts. */
  private static final long PACED_LEAD_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

  private static List<Bot> newBots(final Settings s) {
    final AtomicLongArray sendNanos = new AtomicLongArray(s.clients() * s.messages());
    final List<Bot> bots = new ArrayList<>(s.clients());
    for (int i = 0; i < s.clients(); i++) {
      final int room = i % s.rooms();
      final int[] mates = new int[(s.clients() - room + s.rooms() - 1) / s.rooms()];
      for (int k = 0; k < mates.length; k++) {
        mates[k] = room + k * s.rooms();
      }
      bots.add(new Bot(i, "room" + room, mates, s.messages(), sendNanos,
          s.paced() ? new Bot.Pace(1e9 / s.rate(), (double) i / s.clients()) : null));
    }
    for (Bot bot : bots) { // a dropped bot's unsent lines will never come: its room mates stop waiting for them
      bot.onDropped(gone -> members(bots, s.rooms(), gone.index % s.rooms()).forEach(m -> m.need(gone.index, 0)));
    }
    return bots;
  }

  /** The bots of room {@code room}: bot i is in room {@code i % rooms}. */
  private static List<Bot> members(final List<Bot> bots, final int rooms, final int room) {
    final List<Bot> members = new ArrayList<>();
    for (int i = room; i < bots.size(); i += rooms) {
      members.add(bots.get(i));
    }
    return members;
  }

  /**
   * What the survivors of each room are due from its dropped members: by dropped bot index, one past the highest seq
   * any member still connected received from it (the room relayed every line up to that one to every member).
   */
  private static Map<Integer, Integer> droppedPrefixes(final List<Bot> bots, final int rooms) {
    final Map<Integer, Integer> prefixes = new java.util.HashMap<>();
    for (Bot gone : bots) {
      if (gone.dropped() == null) {
        continue;
      }
      int prefix = 0;
      for (Bot member : members(bots, rooms, gone.index % rooms)) {
        if (member.dropped() == null) {
          prefix = Math.max(prefix, member.highestFrom(gone.index));
        }
      }
      prefixes.put(gone.index, prefix);
    }
    return prefixes;
  }

  /** Connect, join, send, await. Returns no failure on success, or why it stopped. */
  private static Outcome talk(final Settings s, final List<Bot> bots, final ExecutorService threads,
      final Map<Bot, Future<?>> readers, final long deadline, final Runnable onJoined) throws InterruptedException {
    final List<Future<?>> joins = new ArrayList<>();
    for (Bot bot : bots) {
      final InetSocketAddress server = new InetSocketAddress(s.host(), s.ports().get(bot.index % s.ports().size()));
      joins.add(threads.submit(() -> {
        bot.connect(server, (int) Math.max(1, remainingMillis(deadline)));
        readers.put(bot, threads.submit(bot::readLoop));
        bot.join(deadline);
        return null;
      }));
    }
    final Outcome joined = awaitAll(joins, deadline, "join");
    if (joined != null) {
      return joined;
    }
    final Thread joinedHook = Thread.ofVirtual().name("bots-joined").start(onJoined);
    final Outcome talked = sendAndAwait(s, bots, threads, deadline);
    joinedHook.join(Math.max(1, remainingMillis(deadline))); // the bots leave their rooms only after it
    return talked;
  }

  /** Every bot sends all its lines, then awaits every delivery it expects. */
  private static Outcome sendAndAwait(final Settings s, final List<Bot> bots, final ExecutorService threads,
      final long deadline) throws InterruptedException {
    final long start = System.nanoTime() + (s.paced() ? PACED_LEAD_NANOS : 0);
    final List<Future<?>> sends = new ArrayList<>();
    for (Bot bot : bots) {
      sends.add(threads.submit(() -> {
        try {
          bot.sendAll(start, deadline);
        } catch (java.io.IOException e) {
          bot.sendFailed(e); // the server dropped it: the others go on, its room mates stop waiting for its lines
        }
        return null;
      }));
    }
    final Outcome sentAll = awaitAll(sends, deadline, "send");
    if (sentAll != null) {
      return new Outcome(sentAll.failure(), sentAll.timedOut(), start);
    }
    final Map<Integer, Integer> awaited = new java.util.HashMap<>();
    for (int round = 0; round < SETTLE_ROUNDS; round++) {
      for (Bot bot : bots) {
        if (!bot.awaitAll(deadline)) { // a bot whose connection was dropped returns at once
          return new Outcome("timed out after " + s.timeout().toMillis() + " ms waiting for deliveries", true,
              start);
        }
      }
      // Every survivor has what it waits for. A dropped member's lines that reached one survivor were relayed by
      // the room to every member: the survivors wait for those too, until no survivor got one the others lack.
      final Map<Integer, Integer> prefixes = droppedPrefixes(bots, s.rooms());
      if (prefixes.equals(awaited)) {
        break;
      }
      prefixes.forEach((gone, prefix) -> members(bots, s.rooms(), gone % s.rooms()).forEach(m -> m.need(gone,
          prefix)));
      awaited.clear();
      awaited.putAll(prefixes);
    }
    return new Outcome(null, false, start);
  }

  /**
   * Bound on the rounds of waiting for the lines of dropped bots that some survivor received (each round waits until
   * every survivor has what the others got; a new round only when one got more meanwhile).
   */
  private static final int SETTLE_ROUNDS = 5;

  /** Null when every future completed; else the first failure, marked as a timeout when it was one. */
  private static Outcome awaitAll(final List<Future<?>> futures, final long deadline, final String phase)
      throws InterruptedException {
    for (int i = 0; i < futures.size(); i++) {
      try {
        futures.get(i).get(remainingMillis(deadline), TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.TimeoutException e) {
        return new Outcome(phase + " timed out (bot" + i + ")", true, 0);
      } catch (java.util.concurrent.ExecutionException e) {
        if (e.getCause() instanceof java.util.concurrent.TimeoutException) {
          // the bot's own wait hit the same deadline first
          return new Outcome(phase + " timed out (bot" + i + ")", true, 0);
        }
        return new Outcome(phase + " failed (bot" + i + "): " + reason(e), false, 0);
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

  /** The result of a finished reader: its failure, if any, goes to stderr. */
  private static void awaitQuietly(final Future<?> done) throws InterruptedException {
    try {
      done.get();
    } catch (java.util.concurrent.ExecutionException e) {
      System.err.println("chat-bots: a reader failed: " + reason(e));
    }
  }

  /** At most this many dropped bots are named in the failure text; the rest are counted. */
  private static final int NAMED_DROPS = 10;

  private static BotReport report(final Settings s, final List<Bot> bots, final Outcome outcome,
      final List<Bot> stuck) {
    final Histogram latency = new Histogram(TimeUnit.MINUTES.toMicros(2), 3);
    final Map<Integer, Integer> prefixes = droppedPrefixes(bots, s.rooms());
    final Tally all = new Tally();
    final List<Tally> rooms = new ArrayList<>();
    for (int r = 0; r < s.rooms(); r++) {
      rooms.add(new Tally());
    }
    long sent = 0;
    long lastDelivery = 0;
    final List<String> drops = new ArrayList<>();
    for (Bot bot : bots) {
      sent += bot.sent;
      lastDelivery = Math.max(lastDelivery, bot.lastDeliveryNanos);
      if (!stuck.contains(bot)) {
        latency.add(bot.latencyMicros); // its reader ended: the histogram is complete
      }
      final Tally room = rooms.get(bot.index % s.rooms());
      room.members++;
      if (room.node == null) {
        room.node = bot.roomNode();
      }
      final long due = due(s, bot, prefixes);
      final long outstanding = Math.max(0, due - bot.delivered);
      all.add(due, bot.delivered, bot.duplicated, bot.reordered);
      room.duplicated += bot.duplicated;
      room.reordered += bot.reordered;
      if (bot.dropped() != null) {
        all.lost += outstanding; // its connection is gone: these never arrive
        room.dropped++;
        drops.add(bot.nick + " (" + bot.dropped() + ")");
        continue;
      }
      room.expected += due;
      room.delivered += bot.delivered;
      if (outcome.timedOut()) {
        all.timedOut += outstanding; // still on their way when the deadline passed
        room.timedOut += outstanding;
      } else {
        all.lost += outstanding; // the run stopped early (0 when it passed)
        room.lost += outstanding;
      }
    }
    final List<RoomReport> perRoom = new ArrayList<>();
    for (int r = 0; r < s.rooms(); r++) {
      final Tally t = rooms.get(r);
      perRoom.add(new RoomReport("room" + r, t.node == null ? "?" : t.node, t.members, t.dropped, t.expected,
          t.delivered, t.lost, t.timedOut, t.duplicated, t.reordered));
    }
    final long window = lastDelivery - outcome.sendStart();
    final double perSecond = outcome.sendStart() == 0 || all.delivered == 0 || window <= 0 ? 0
        : all.delivered * 1e9 / window;
    return new BotReport(s.clients(), s.rooms(), sent, all.expected, all.delivered, all.lost, all.timedOut,
        drops.size(), all.duplicated, all.reordered, latency.getValueAtPercentile(50) / 1000.0,
        latency.getValueAtPercentile(99) / 1000.0, latency.getValueAtPercentile(99.9) / 1000.0, perSecond,
        failure(outcome.failure(), all.timedOut, drops, stuck), perRoom);
  }

  /**
   * The deliveries due to a bot: to a dropped one every line of its room; to a survivor every line of each surviving
   * room mate and, of a dropped one, its lines up to the highest any survivor received ({@link #droppedPrefixes}).
   */
  private static long due(final Settings s, final Bot bot, final Map<Integer, Integer> prefixes) {
    if (bot.dropped() != null) {
      return bot.expected();
    }
    long due = 0;
    for (int mate = bot.index % s.rooms(); mate < s.clients(); mate += s.rooms()) { // bot i is in room i % rooms
      due += prefixes.getOrDefault(mate, s.messages());
    }
    return due;
  }

  /** Counts summed over bots, for the whole run or one room. */
  private static final class Tally {
    String node;
    int members;
    int dropped;
    long expected;
    long delivered;
    long lost;
    long timedOut;
    long duplicated;
    long reordered;

    void add(final long due, final long got, final long duplicates, final long reorders) {
      expected += due;
      delivered += got;
      duplicated += duplicates;
      reordered += reorders;
    }
  }

  /**
   * The run's failure text: why it stopped, the deliveries timed out, the bots the server dropped, and the bots whose
   * reader was still blocked when the run gave up on it.
   */
  private static String failure(final String stopped, final long timedOut, final List<String> drops,
      final List<Bot> stuck) {
    final List<String> parts = new ArrayList<>();
    if (stopped != null) {
      parts.add(timedOut > 0 ? stopped + " (" + timedOut + " deliveries outstanding)" : stopped);
    }
    if (!drops.isEmpty()) {
      final String named = String.join(", ", drops.subList(0, Math.min(NAMED_DROPS, drops.size())));
      parts.add(drops.size() + " bot connection(s) reset or closed by the server: " + named
          + (drops.size() > NAMED_DROPS ? " and " + (drops.size() - NAMED_DROPS) + " more" : ""));
    }
    if (!stuck.isEmpty()) {
      parts.add(stuck.size() + " bot reader(s) still blocked " + THREADS_GRACE_MILLIS + " ms after their sockets"
          + " were closed, their counts incomplete: " + String.join(", ", stuck.stream().limit(NAMED_DROPS)
          .map(b -> b.nick).toList()) + (stuck.size() > NAMED_DROPS ? " and " + (stuck.size() - NAMED_DROPS)
          + " more" : ""));
    }
    return parts.isEmpty() ? null : String.join("; ", parts);
  }

  private static long remainingMillis(final long deadlineNanos) {
    return Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime()));
  }
}
