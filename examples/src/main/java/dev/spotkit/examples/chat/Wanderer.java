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
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The client behind {@code chat-demo --relocations K}: one extra client (nick {@value #NICK}, ignored by the
 * bots' counting) that keeps switching rooms while the bots chat, until it made {@code K} completed
 * moves between nodes. Each round: {@code /join} the next room, then {@code /where} (the node it runs on
 * now); a move counts as a relocation when that node differs from the node of the previous room. Rooms on the
 * current node (as learned so far) are skipped, so most switches are cross-node. After each join it says one
 * numbered line and checks, like a bot, that every such line comes back to it exactly once and in order, across
 * all the moves (the room echoes the sender's lines; an echo sent to a moving player must follow it).
 *
 * <p>Runs on the calling thread, plus one reader thread of its own; bounded by one deadline.
 */
final class Wanderer {

  /** The wanderer's nick. */
  static final String NICK = "wanderer";
  /** Most rounds per wanted move (a round that lands on the same node is a few ms). */
  static final int ROUNDS_PER_MOVE = 400;

  /**
   * Outcome.
   *
   * @param relocations completed cross-node moves.
   * @param said numbered lines said.
   * @param echoed distinct lines that came back.
   * @param duplicated extra copies.
   * @param reordered lines that came back after a later one.
   * @param failure null, or why it stopped early.
   */
  record Report(int relocations, long said, long echoed, long duplicated, long reordered, String failure) {
  }

  private final BlockingQueue<String> replies = new LinkedBlockingQueue<>();
  private final BitSet seen = new BitSet();
  private volatile long echoed;
  private volatile long duplicated;
  private volatile long reordered;
  private int highest = -1;

  private Wanderer() {
  }

  /**
   * Connects to {@code server} and wanders over {@code rooms} until {@code relocations} cross-node moves
   * completed, or the deadline.
   *
   * @param server a session port of the mesh.
   * @param rooms room names, at least 2.
   * @param relocations cross-node moves to make, at least 1.
   * @param deadlineNanos System.nanoTime() bound.
   * @return the counts; {@link Report#failure()} says why it stopped early.
   * @throws InterruptedException if interrupted.
   */
  static Report run(final InetSocketAddress server, final List<String> rooms, final int relocations,
      final long deadlineNanos) throws InterruptedException {
    return new Wanderer().wander(server, rooms, relocations, deadlineNanos);
  }

  private Report wander(final InetSocketAddress server, final List<String> rooms, final int relocations,
      final long deadlineNanos) throws InterruptedException {
    int moves = 0;
    int said = 0;
    String failure = null;
    try (Socket socket = new Socket()) {
      socket.connect(server, (int) Math.max(1, remainingMillis(deadlineNanos)));
      final BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
          StandardCharsets.UTF_8));
      final Writer out = new BufferedWriter(new OutputStreamWriter(socket.getOutputStream(), StandardCharsets.UTF_8));
      final Thread reader = Thread.ofVirtual().start(() -> read(in));
      try {
        send(out, "/nick " + NICK);
        expect(ChatProtocol.OK_NICK, deadlineNanos);
        final Map<String, String> nodeOf = new HashMap<>();
        String node = null;
        int next = 0;
        // bounded by rounds and the deadline; not by a few rounds only: for up to 0.5 s after start a node may
        // still see only itself for placement, so rooms the wanderer creates there stay there for a while
        for (int round = 0; moves < relocations && round < relocations * ROUNDS_PER_MOVE
            && remainingMillis(deadlineNanos) > 0; round++) {
          String room = rooms.get(next++ % rooms.size());
          for (int skip = 0; skip < rooms.size() && node != null && node.equals(nodeOf.get(room)); skip++) {
            room = rooms.get(next++ % rooms.size()); // known to be on this node: no cross-node move
          }
          send(out, "/join " + room);
          expect(ChatProtocol.OK_JOIN, deadlineNanos);
          send(out, "/where");
          final String where = expect(ChatProtocol.WHERE, deadlineNanos);
          final String now = where.substring(where.indexOf("node=") + 5);
          nodeOf.put(room, now);
          if (node != null && !node.equals(now)) {
            moves++;
          }
          node = now;
          send(out, NICK + " " + said++);
        }
        final long wait = deadlineNanos;
        while (echoed < said && System.nanoTime() < wait) {
          final String line = replies.poll(Math.min(50, Math.max(1, remainingMillis(wait))), TimeUnit.MILLISECONDS);
          if (line != null && line.startsWith(ChatProtocol.ERROR)) {
            failure = "wanderer got: " + line;
          }
        }
        if (moves < relocations && failure == null) {
          failure = "wanderer made " + moves + " of " + relocations + " cross-node moves";
        }
      } finally {
        socket.close();
        reader.join(TimeUnit.SECONDS.toMillis(5));
      }
    } catch (IOException | IllegalStateException e) {
      failure = "wanderer: " + e.getMessage();
    }
    return new Report(moves, said, echoed, duplicated, reordered, failure);
  }

  private static void send(final Writer out, final String line) throws IOException {
    out.write(line);
    out.write('\n');
    out.flush();
  }

  /** The next reply line starting with {@code prefix}; other control lines in between are an error. */
  private String expect(final String prefix, final long deadlineNanos) throws InterruptedException {
    final String line = replies.poll(remainingMillis(deadlineNanos), TimeUnit.MILLISECONDS);
    if (line == null) {
      throw new IllegalStateException("timed out waiting for '" + prefix.strip() + "'");
    }
    if (!line.startsWith(prefix)) {
      throw new IllegalStateException("expected '" + prefix.strip() + "...', got: " + line);
    }
    return line;
  }

  /** Reader thread: room lines are counted, everything else is a reply. */
  private void read(final BufferedReader in) {
    try {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        final String text = ChatProtocol.roomText(line);
        if (text == null) {
          replies.add(line);
        } else if (text.startsWith(NICK + " ")) {
          echo(text);
        }
      }
    } catch (IOException closed) {
      // the wanderer closed the socket: reading is over
    }
  }

  private void echo(final String text) {
    final int seq;
    try {
      seq = Integer.parseInt(text.substring(NICK.length() + 1));
    } catch (NumberFormatException notOurs) {
      return;
    }
    if (seen.get(seq)) {
      duplicated++;
      return;
    }
    seen.set(seq);
    if (seq < highest) {
      reordered++;
    } else {
      highest = seq;
    }
    echoed++;
  }

  private static long remainingMillis(final long deadlineNanos) {
    return Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime()));
  }
}
