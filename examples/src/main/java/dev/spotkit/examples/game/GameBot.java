package dev.spotkit.examples.game;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * One game client of a {@link GameBots} run: a TCP client that queues, plays a move as soon as each round opens,
 * and checks what its match sends: the {@code match} line once, every round's {@code result} exactly once and in
 * round order, its own move shown in each result, and the {@code final} line once after the last result. With
 * {@code quitAfterRound} above 0 it closes its connection right after that round's result (a disconnect
 * mid-match). Its reader runs on its own thread and owns the counters; read them after {@link #awaitFinal} or
 * {@link #close}.
 */
final class GameBot implements AutoCloseable {

  /** Round durations: 1 microsecond to 2 minutes, 3 significant digits. */
  private static final long MAX_MICROS = TimeUnit.MINUTES.toMicros(2);

  final int index;
  /** The round after whose result this bot disconnects, 0 for never. */
  final int quitAfterRound;
  private final CountDownLatch playing = new CountDownLatch(1);
  private final CountDownLatch finished = new CountDownLatch(1);
  private Socket socket;
  private Writer out;
  private Thread reader;
  private volatile boolean closing;

  // Written by the reader thread only; read after it ended or after a latch it counts down.
  volatile String name;
  volatile String matchId;
  volatile String dropped;
  volatile String finalLine;
  final List<String> forfeits = new ArrayList<>();
  final Histogram roundMicros = new Histogram(MAX_MICROS, 3);
  int rounds;
  int matchLines;
  int results;
  int duplicated;
  int reordered;
  int missedMoves;
  int finals;
  int errors;
  private int lastResult;
  private int lastRound;
  private int lastMove;
  private long roundStartNanos;

  GameBot(final int index, final int quitAfterRound) {
    this.index = index;
    this.quitAfterRound = quitAfterRound;
  }

  /** Connects, starts the reader and sends {@code /queue}. */
  void connectAndQueue(final InetSocketAddress server) throws IOException {
    socket = new Socket();
    socket.connect(server, 5_000);
    socket.setTcpNoDelay(true);
    out = new OutputStreamWriter(socket.getOutputStream(), StandardCharsets.UTF_8);
    final BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
        StandardCharsets.UTF_8));
    reader = Thread.ofVirtual().name("game-bot-" + index).start(() -> readLoop(in));
    send("/queue");
  }

  /** Waits for the first round of its match. */
  boolean awaitPlaying(final long nanos) throws InterruptedException {
    return playing.await(nanos, TimeUnit.NANOSECONDS);
  }

  /** Waits for the final line (or the end of the connection). */
  boolean awaitFinal(final long nanos) throws InterruptedException {
    return finished.await(nanos, TimeUnit.NANOSECONDS);
  }

  /** Whether this bot quits mid-match by design. */
  boolean quits() {
    return quitAfterRound > 0;
  }

  private void readLoop(final BufferedReader in) {
    try {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        if (!handle(line)) {
          break;
        }
      }
      if (!closing && finals == 0) {
        dropped = "closed by the server";
      }
    } catch (IOException e) {
      if (!closing) {
        dropped = e.getMessage() + " (" + e.getClass().getSimpleName() + ")";
      }
    } finally {
      playing.countDown();
      finished.countDown();
    }
  }

  /** Handles one line; false to stop reading (the bot quits). */
  private boolean handle(final String line) throws IOException {
    final String[] words = line.split(" ");
    switch (words[0]) {
      case "ok" -> {
        if (line.startsWith(GameProtocol.OK_QUEUE + " as ")) {
          name = line.substring((GameProtocol.OK_QUEUE + " as ").length());
        }
      }
      case GameProtocol.MATCH -> {
        matchLines++;
        matchId = words[1];
        rounds = Integer.parseInt(words[3].substring("rounds=".length()));
      }
      case GameProtocol.ROUND -> round(Integer.parseInt(words[2]));
      case GameProtocol.RESULT -> {
        return result(Integer.parseInt(words[2]), line);
      }
      case GameProtocol.FORFEIT -> forfeits.add(words[2]);
      case GameProtocol.FINAL -> {
        finals++;
        if (lastResult != rounds) {
          reordered++; // the final before the last result
        }
        finalLine = line;
        finished.countDown();
      }
      default -> errors++;
    }
    return true;
  }

  private void round(final int round) throws IOException {
    if (round != lastRound + 1) {
      reordered++;
    }
    lastRound = Math.max(lastRound, round);
    roundStartNanos = System.nanoTime();
    lastMove = (index + round) % GameProtocol.MAX_MOVE + GameProtocol.MIN_MOVE;
    playing.countDown();
    send("/move " + lastMove);
  }

  private boolean result(final int round, final String line) {
    if (round <= lastResult) {
      duplicated++;
      return true;
    }
    if (round != lastResult + 1 || round != lastRound) {
      reordered++;
    }
    lastResult = round;
    results++;
    roundMicros.recordValue(Math.min(MAX_MICROS, Math.max(1, (System.nanoTime() - roundStartNanos) / 1_000)));
    final Map<String, String> moves = GameProtocol.parsePairs(line, "moves");
    if (!Integer.toString(lastMove).equals(moves.get(name))) {
      missedMoves++;
    }
    if (quitAfterRound > 0 && round == quitAfterRound) {
      close();
      return false;
    }
    return true;
  }

  private synchronized void send(final String line) throws IOException {
    out.write(line + "\n");
    out.flush();
  }

  @Override
  public void close() {
    closing = true;
    try {
      if (socket != null) {
        socket.close();
      }
    } catch (IOException e) {
      // closing anyway
    }
  }

  /** Waits for the reader thread after {@link #close}. */
  void join() throws InterruptedException {
    if (reader != null) {
      reader.join(TimeUnit.SECONDS.toMillis(5));
    }
  }
}
