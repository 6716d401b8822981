package dev.spotkit.examples.chat;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * One bot of a {@link BotSwarm}: a TCP client that sets its nick, joins its room, says numbered lines and
 * checks what the room sends back. The swarm calls {@link #connect}, {@link #join}, {@link #sendAll} and
 * {@link #awaitAll} from one thread; {@link #readLoop} runs on its own thread and writes the counters until
 * it ends (the swarm reads the final ones after joining that thread; while it runs, under a lock, only what a
 * member received from a mate whose connection the server dropped, {@link #highestFrom}).
 */
final class Bot implements AutoCloseable {

  /** Latency range: 1 microsecond to 2 minutes, 3 significant digits. */
  private static final long MAX_LATENCY_MICROS = TimeUnit.MINUTES.toMicros(2);

  final int index;
  final String nick;
  final String room;
  private final int messages;
  private final AtomicLongArray sendNanos;
  /** Null: send as fast as possible; else the fixed schedule of this bot's lines. */
  private final Pace pace;

  private final CompletableFuture<Void> nickAck = new CompletableFuture<>();
  private final CompletableFuture<Void> joinAck = new CompletableFuture<>();
  /**
   * Guards the delivery tracking ({@link #tracks}, {@link #satisfied}, the counters the reader writes) so that the
   * swarm can read them, and lower or raise what it waits for, while the reader still runs; notified on every change
   * that can end {@link #awaitAll}.
   */
  private final Object tracking = new Object();

  /**
   * Set by {@link #close} before the socket closes: a read error after it is this side's doing, and a
   * {@link #connect} after it opens nothing. Written and read under {@code this} together with {@link #socket}.
   */
  private boolean closing;

  /**
   * Null while the connection is up or when this side closed it; otherwise how the server dropped it before the
   * swarm closed it ({@code "closed by the server"}, or the read error such as {@code "Connection reset"}).
   * Written by the reader thread once, when it ends.
   */
  private volatile String dropped;

  /** Called once, on the thread that saw it, when the server dropped this bot's connection; set before any run. */
  private volatile java.util.function.Consumer<Bot> onDropped = bot -> { };

  /** The node the server said this bot's room runs on ({@code /where}), as hex; null before the answer. */
  private volatile String roomNode;

  /** Room mates whose lines this bot has all it waits for ({@link Track#need}); guarded by {@link #tracking}. */
  private int satisfied;

  /** Senders in this bot's room, by bot index: which of their seqs arrived, and the highest so far. */
  private final Map<Integer, Track> tracks = new HashMap<>();
  private final long expected;

  // Written only by the reader thread under tracking; the swarm reads them under tracking or after that thread ended.
  final Histogram latencyMicros = new Histogram(MAX_LATENCY_MICROS, 3);
  long delivered;
  /** {@link System#nanoTime()} of the last new delivery, 0 before the first. */
  long lastDeliveryNanos;
  long duplicated;
  long reordered;
  long errors;

  // Written only by the swarm thread that sends.
  long sent;

  /** Guarded by {@code this}: set by {@link #connect}, closed by {@link #close}, whichever thread runs them. */
  private Socket socket;
  private BufferedReader in;
  private Writer out;

  private static final class Track {
    final BitSet seen = new BitSet();
    int highest = -1;
    /** This bot waits for the sender's seqs 0 (inclusive) to need (exclusive): all of them until it dropped. */
    int need;
    /** Whether seqs 0..need-1 all arrived. */
    boolean satisfied;

    Track(final int need) {
      this.need = need;
      this.satisfied = need == 0;
    }

    /** Re-checks {@link #satisfied}; returns true when it just became true. */
    boolean check() {
      if (!satisfied && seen.nextClearBit(0) >= need) {
        satisfied = true;
        return true;
      }
      return false;
    }
  }

  /**
   * A bot's fixed send schedule: line {@code seq} is due {@code (seq + phase) * periodNanos} after the swarm's start.
   *
   * @param periodNanos nanoseconds between two lines of this bot (1e9 / lines per second), above 0.
   * @param phase this bot's offset in periods, 0 (inclusive) to 1 (exclusive), so the bots' lines are spread evenly.
   */
  record Pace(double periodNanos, double phase) {
    /** Validates. */
    Pace {
      if (!(periodNanos > 0) || !(phase >= 0 && phase < 1)) {
        throw new IllegalArgumentException("period " + periodNanos + " ns must be above 0, phase " + phase
            + " in [0, 1)");
      }
    }

    /** When line {@code seq} is due, as a {@link System#nanoTime()} value. */
    long due(final long startNanos, final int seq) {
      return startNanos + (long) ((seq + phase) * periodNanos);
    }
  }

  Bot(final int index, final String room, final int[] roomMates, final int messages,
      final AtomicLongArray sendNanos, final Pace pace) {
    this.index = index;
    this.nick = "bot" + index;
    this.room = room;
    this.messages = messages;
    this.sendNanos = sendNanos;
    this.pace = pace;
    for (int mate : roomMates) {
      tracks.put(mate, new Track(messages));
    }
    this.expected = (long) roomMates.length * messages;
    this.satisfied = messages == 0 ? roomMates.length : 0;
  }

  /**
   * What to call when the server drops this bot's connection (the swarm tells the bot's room mates). Set before the
   * run starts.
   *
   * @param callback called once, with this bot, on the thread that saw the drop (reader or sender).
   */
  void onDropped(final java.util.function.Consumer<Bot> callback) {
    this.onDropped = callback;
  }

  /**
   * Opens the connection. A bot {@link #close closed} before or during this call opens nothing, or closes what it
   * opened, so no reader can be left blocked on a socket the swarm never closes (the swarm closes every bot when
   * the run ends, while a late bot may still be connecting).
   *
   * @param server the chat server.
   * @param timeoutMillis bound of the TCP connect, in milliseconds, above 0.
   * @throws IOException when the connect fails or times out, or the bot was closed before or while it connected.
   */
  void connect(final InetSocketAddress server, final int timeoutMillis) throws IOException {
    final Socket opening = new Socket();
    synchronized (this) {
      if (closing) {
        throw new IOException(nick + ": closed before it connected (the run had ended)");
      }
      socket = opening; // from here on close() closes it, which ends the connect below
    }
    opening.setTcpNoDelay(true);
    opening.connect(server, timeoutMillis);
    in = new BufferedReader(new InputStreamReader(opening.getInputStream(), StandardCharsets.UTF_8));
    out = new BufferedWriter(new OutputStreamWriter(opening.getOutputStream(), StandardCharsets.UTF_8));
  }

  /** Reader thread: until the socket closes. */
  void readLoop() {
    try {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        onLine(line);
      }
      if (!closing()) {
        dropped("closed by the server");
      }
    } catch (IOException e) {
      if (!closing()) { // else the swarm closed the socket: reading is over, nothing lost by it
        dropped(BotSwarm.reason(e));
      }
    } finally {
      nickAck.completeExceptionally(new IOException(nick + ": connection closed"));
      joinAck.completeExceptionally(new IOException(nick + ": connection closed"));
    }
  }

  /**
   * Sets the nick and joins the room; returns once the server said the bot is a member. Then asks {@code /where}
   * without waiting: the answer ({@link #roomNode()}) comes before any room line this bot sends afterwards.
   */
  void join(final long deadlineNanos) throws Exception {
    sendLine("/nick " + nick);
    nickAck.get(remainingMillis(deadlineNanos), TimeUnit.MILLISECONDS);
    sendLine("/join " + room);
    joinAck.get(remainingMillis(deadlineNanos), TimeUnit.MILLISECONDS);
    sendLine("/where");
  }

  /**
   * A send failed: unless the swarm closed this bot, the server dropped the connection.
   *
   * @param failure the write's error.
   */
  void sendFailed(final IOException failure) {
    if (!closing()) {
      dropped(BotSwarm.reason(failure));
    }
  }

  /**
   * Marks the connection as dropped by the server (the first reason wins), wakes {@link #awaitAll} and, the first
   * time, tells the swarm.
   *
   * @param reason e.g. {@code "Connection reset"}.
   */
  void dropped(final String reason) {
    synchronized (tracking) {
      if (dropped != null) {
        return;
      }
      dropped = reason;
      tracking.notifyAll(); // nothing more will come: the swarm need not wait for this bot
    }
    onDropped.accept(this);
  }

  /**
   * Says {@code messages} numbered lines: {@code <nick> <seq>}. Unpaced, one after the other as fast as the socket
   * takes them, each timed from its actual send. Paced, each line when it is due ({@link Pace#due}): the sender
   * sleeps until the next line is due, then writes every line due by now in one flush (a sender that fell behind
   * catches up at once), each timed from its intended send time, not the actual one.
   *
   * @param startNanos the schedule's start ({@link System#nanoTime()}); unused when unpaced.
   * @param deadlineNanos when to give up ({@link System#nanoTime()}).
   * @throws IOException when the connection fails.
   * @throws TimeoutException when the deadline passed before every line was sent.
   */
  void sendAll(final long startNanos, final long deadlineNanos) throws IOException, TimeoutException {
    if (pace == null) {
      for (int seq = 0; seq < messages; seq++) {
        sendNanos.set(index * messages + seq, System.nanoTime()); // read back by the receivers in onText
        sendLine(nick + " " + seq);
        sent++;
      }
      return;
    }
    int seq = 0;
    while (seq < messages) { // each pass sends at least one line, or sleeps until the next is due
      final long now = System.nanoTime();
      if (now - deadlineNanos > 0) {
        throw new TimeoutException(nick + ": " + seq + " of " + messages + " lines sent by the deadline");
      }
      final long due = pace.due(startNanos, seq);
      if (due - now > 0) {
        LockSupport.parkNanos(Math.min(due - now, deadlineNanos - now)); // pacing, not synchronisation
        continue;
      }
      for (long at = due; seq < messages && at - now <= 0; at = pace.due(startNanos, seq)) {
        sendNanos.set(index * messages + seq, at); // the intended time: latency counts any delay of this send
        out.write(nick);
        out.write(' ');
        out.write(Integer.toString(seq));
        out.write('\n');
        sent++;
        seq++;
      }
      out.flush();
    }
  }

  /**
   * Waits until every line this bot waits for arrived (all lines of each room mate; of a mate whose connection the
   * server dropped, the seqs {@link #need} names), the server dropped this bot's connection ({@link #dropped()}), or
   * the deadline.
   *
   * @return false when the deadline came first.
   */
  boolean awaitAll(final long deadlineNanos) throws InterruptedException {
    synchronized (tracking) {
      while (satisfied < tracks.size() && dropped == null) {
        final long left = remainingMillis(deadlineNanos);
        if (left <= 0) {
          return false;
        }
        tracking.wait(left); // a condition wait: the reader notifies on each mate it has every line of
      }
      return true;
    }
  }

  /**
   * Sets how many of a room mate's seqs this bot waits for: seqs 0 to {@code count - 1}. The swarm lowers it to 0 when
   * the mate's connection was dropped (its unsent lines will never come), then raises it to what some other member
   * received from it (the room relayed those, so every member gets them).
   *
   * @param mate the sender's bot index, a member of this bot's room.
   * @param count 0 to the lines per bot.
   */
  void need(final int mate, final int count) {
    synchronized (tracking) {
      final Track track = tracks.get(mate);
      final boolean was = track.satisfied;
      track.need = count;
      track.satisfied = false;
      track.check();
      satisfied += (track.satisfied ? 1 : 0) - (was ? 1 : 0);
      tracking.notifyAll();
    }
  }

  /**
   * One past the highest seq that arrived from a room mate.
   *
   * @param mate the sender's bot index, a member of this bot's room.
   * @return 0 (nothing arrived) to the lines per bot.
   */
  int highestFrom(final int mate) {
    synchronized (tracking) {
      return tracks.get(mate).highest + 1;
    }
  }

  /**
   * The node this bot's room ran on when the bot had joined, from the server's answer to {@code /where}.
   *
   * @return the node as hex, or null when no answer came (a server without {@code /where}).
   */
  String roomNode() {
    return roomNode;
  }

  private void sendLine(final String line) throws IOException {
    out.write(line);
    out.write('\n');
    out.flush();
  }

  private void onLine(final String line) {
    if (line.startsWith(ChatProtocol.OK_NICK)) {
      nickAck.complete(null);
    } else if (line.startsWith(ChatProtocol.OK_JOIN)) {
      joinAck.complete(null);
    } else if (line.startsWith(ChatProtocol.WHERE) && line.contains(" node=")) {
      roomNode = line.substring(line.lastIndexOf(" node=") + " node=".length());
    } else if (line.startsWith(ChatProtocol.ERROR)) {
      errors++;
      System.err.println(nick + " got: " + line);
      joinAck.completeExceptionally(new IllegalStateException(nick + " got: " + line));
    } else {
      final String text = ChatProtocol.roomText(line);
      if (text != null) {
        onText(text);
      }
    }
  }

  /** A room line's text: {@code bot<i> <seq>} from a bot of this room; anything else is ignored. */
  private void onText(final String text) {
    final int space = text.indexOf(' ');
    if (!text.startsWith("bot") || space < 4) {
      return;
    }
    final int sender;
    final int seq;
    try {
      sender = Integer.parseInt(text, 3, space, 10);
      seq = Integer.parseInt(text, space + 1, text.length(), 10);
    } catch (NumberFormatException notABotLine) {
      return;
    }
    final Track track = tracks.get(sender);
    if (track == null || seq < 0 || seq >= messages) {
      return;
    }
    synchronized (tracking) {
      track(track, sender, seq);
    }
  }

  private void track(final Track track, final int sender, final int seq) {
    if (track.seen.get(seq)) {
      duplicated++;
      return;
    }
    track.seen.set(seq);
    delivered++;
    final long now = System.nanoTime();
    lastDeliveryNanos = now;
    if (seq < track.highest) {
      reordered++;
    } else {
      track.highest = seq;
    }
    final long sentAt = sendNanos.get(sender * messages + seq); // written by the sender in sendAll
    if (sentAt != 0) {
      final long micros = TimeUnit.NANOSECONDS.toMicros(now - sentAt);
      latencyMicros.recordValue(Math.max(1, Math.min(micros, MAX_LATENCY_MICROS)));
    }
    if (track.check()) {
      satisfied++;
      tracking.notifyAll();
    }
  }

  long expected() {
    return expected;
  }

  /**
   * How the server dropped this bot's connection before the swarm closed it.
   *
   * @return null when it did not (still open, or closed by the swarm); else e.g. {@code "Connection reset"}.
   */
  String dropped() {
    return dropped;
  }

  private static long remainingMillis(final long deadlineNanos) {
    return Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime()));
  }

  private synchronized boolean closing() {
    return closing;
  }

  /**
   * Ends this bot's connection: its reader and sender stop (a blocked read or write fails at once), and a
   * {@link #connect} not yet done opens nothing. Idempotent; any thread.
   */
  @Override
  public void close() {
    final Socket open;
    synchronized (this) {
      closing = true;
      open = socket;
    }
    try {
      if (open != null) {
        open.close();
      }
    } catch (IOException ignored) {
      // closing anyway
    }
  }
}
