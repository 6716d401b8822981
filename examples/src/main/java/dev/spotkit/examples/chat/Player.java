package dev.spotkit.examples.chat;

import dev.spotkit.core.Actor;
import dev.spotkit.core.ActorContext;
import dev.spotkit.core.ActorHandlers;
import dev.spotkit.core.ActorRelocationAdapter;
import dev.spotkit.core.JoinResult;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.core.Target;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connected chat user: an actor bound to its client session. Each line the client sends arrives as a
 * {@code String} message; each {@link Heard} line is pushed back to the client. It starts as a member of the
 * {@link Lobby} (Entry Spot) of the node the client connected to.
 *
 * <p>Protocol: {@link ChatProtocol}. <b>Rooms.</b> {@code /join ROOM} creates the room if needed (GetOrCreate)
 * and joins it with {@code ctx.joinSpot("room-" + ROOM, new Room.Hello(nick))}. When the room is on another
 * node, the join moves this player there (live relocation, spec 001): its state (nick, room, join in flight,
 * lines held back) travels through a {@code preserveStateWith} adapter ({@link State}), while the client
 * session stays on the node that accepted the connection; the client's lines keep reaching the player in
 * order and its pushes reach the client in order, wherever the player runs. The player says
 * {@code ok join ROOM} in {@link #onJoinCompleted} once it is a member, so every later line of the room reaches
 * it. {@code /leave} joins the Lobby of the node it is on (JoinEntrySpot), which leaves the room. Lines,
 * {@code /nick} and {@code /who} go to the room; a line with control characters and a reserved or malformed nick
 * are refused with an error line ({@link ChatProtocol#lineProblem}, {@link ChatProtocol#nickProblem}).
 * {@code /where} answers {@code where ROOM node=HEX}: the node
 * this player (and so its room) runs on.
 *
 * <p>A room closes when its last member leaves, so a join can find its room gone (Failed) or closing
 * (Rejected): the player then creates the room again and retries ({@link Retry}), at most
 * {@value #JOIN_ATTEMPTS} attempts in all, and reports an error line if none worked. Client lines that arrive
 * while a join (with its retries) is unfinished are held back and handled in order after it, so a client may
 * send lines right behind {@code /join}.
 *
 * <p>When the connection closes, the spot the player is a member of (its {@link Room} or a {@link Lobby})
 * sends it {@link Disconnected}: it leaves its room, then destroys itself ({@link Departures}).
 */
public final class Player implements Actor {

  /** The player's stable type (every session is bound to one). */
  public static final String TYPE = "player";
  /**
   * Join attempts in all: the first, and retries after the room closed under it (a room on another node that is
   * closing still answers GetOrCreate as Existing until its close finished, and its joins fail meanwhile).
   */
  static final int JOIN_ATTEMPTS = 6;
  /** Pause before the first retry; each later retry waits twice as long (50, 100, 200, 400, 800 ms: 1.55 s in all). */
  static final long RETRY_STEP_MILLIS = 50;
  /** Bound of one leave, flush or {@code /rooms} request. */
  static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(5);
  /**
   * Bound of one join (JoinSpot, JoinEntrySpot). A join that moves the player carries it to the target as its
   * Restore validity (spec 001 section 4.5), so it bounds the move too: at 5 s, one cross-node join in a chat-demo
   * --drain run at load 10 passed relay-ready with 1 s left, missed its CAS and closed the client. As long as the
   * session's seal timeout (15 s) a slow move completes instead.
   */
  static final Duration JOIN_TIMEOUT = Duration.ofSeconds(15);

  private static final Logger LOG = LoggerFactory.getLogger(Player.class);

  /**
   * A line for the client, sent by a room.
   *
   * @param line the text to push.
   */
  public record Heard(String line) {
  }

  /** Sent by the spot the player is a member of when the connection closed: leave the room, then go. */
  record Disconnected() {
  }

  /** Sent to itself after a failed join: create the room again and join it (next attempt). */
  record Retry() {
  }

  /**
   * Sent to itself once the room it is leaving for {@code room} relayed every line it said there (or did not
   * answer within the request timeout): the join can start.
   *
   * @param room the room to join.
   */
  record Flushed(String room) {
  }

  /** Sent to itself after a join ended with lines held back: handle them in order. */
  record Drain() {
  }

  private final ActorContext ctx;
  private String nick;
  /** The name of the room this player is in, or null. */
  private String room;
  /** The room of the join in flight or being retried, or null. */
  private String joining;
  /** The attempt number of that join, 1..{@value #JOIN_ATTEMPTS}. */
  private int attempt;
  /** Set when the connection closed: the next join completion (the leave) destroys this player. */
  private boolean departing;
  /** Client lines that arrived while a join was unfinished, oldest first. */
  private final Deque<String> held = new ArrayDeque<>();

  /**
   * Built by the runtime when a client connects, and again on the target node when the player moves.
   *
   * @param ctx this actor's context; {@code ctx.session()} is the client.
   */
  public Player(final ActorContext ctx) {
    this.ctx = ctx;
    this.nick = "guest-" + ctx.session().map(s -> Long.toString(s.id())).orElse(ctx.self().id().value());
  }

  @Override
  public void configure(final ActorHandlers on) {
    on.message(String.class, this::onLine)
      .message(Heard.class, heard -> push(heard.line()))
      .message(Retry.class, retry -> retry())
      .message(Flushed.class, flushed -> {
        if (flushed.room().equals(joining)) {
          tryJoin();
        }
      })
      .message(Drain.class, drain -> drain())
      .message(Disconnected.class, gone -> depart());
  }

  private void onLine(final String line) {
    if (joining != null || !held.isEmpty()) {
      held.add(line); // behind the unfinished join (or the lines already held back)
      return;
    }
    handle(line);
  }

  private void handle(final String line) {
    if (!line.startsWith("/")) {
      say(line);
      return;
    }
    final int space = line.indexOf(' ');
    final String command = space < 0 ? line : line.substring(0, space);
    final String arg = space < 0 ? "" : line.substring(space + 1).strip();
    switch (command) {
      case "/nick" -> setNick(arg);
      case "/join" -> join(arg);
      case "/leave" -> leave();
      case "/rooms" -> rooms();
      case "/who" -> toRoom(new Room.Who(ctx.self()), "who: you are in no room");
      case "/where" -> push(room == null ? "where: in no room"
          : ChatProtocol.WHERE + room + " node=" + ctx.self().nodeRid().hex());
      default -> push(ChatProtocol.ERROR + "unknown command " + ChatProtocol.echo(command) + "; try "
          + ChatProtocol.HELP);
    }
  }

  /** A room line: refused with an error line to this client when unsafe ({@link ChatProtocol#lineProblem}). */
  private void say(final String text) {
    if (room == null) {
      push(ChatProtocol.ERROR + "you are in no room; /join ROOM first");
      return;
    }
    final String problem = ChatProtocol.lineProblem(text);
    if (problem != null) {
      push(ChatProtocol.LINE_REFUSED + problem); // never relayed: no member's terminal sees it
    } else if (!text.isEmpty()) {
      toRoom(new Room.Said(ctx.self(), nick, text), null);
    }
  }

  /** {@code /nick}: refused with an error line unless {@link ChatProtocol#nickProblem} finds nothing. */
  private void setNick(final String name) {
    final String problem = ChatProtocol.nickProblem(name);
    if (problem != null) {
      push(ChatProtocol.ERROR + problem);
      return;
    }
    nick = name;
    toRoom(new Room.Renamed(ctx.self(), nick), null); // before any later /who
    push(ChatProtocol.OK_NICK + nick);
  }

  /** Sends to the room while in one; outside a room pushes {@code whenNoRoom} (if not null). */
  private void toRoom(final Object message, final String whenNoRoom) {
    if (room == null) {
      if (whenNoRoom != null) {
        push(whenNoRoom);
      }
      return;
    }
    try {
      ctx.toSpot(Room.ID_PREFIX + room).send(message);
    } catch (SpotkitException e) {
      LOG.info("{}: room {} did not take a message: {}", nick, room, e.toString());
      push(ChatProtocol.ERROR + "room " + room + " did not take it: " + ChatProtocol.reason(e));
    }
  }

  private void join(final String name) {
    if (!ChatProtocol.NAME.matcher(name).matches()) {
      push(ChatProtocol.ERROR + "bad room '" + ChatProtocol.echo(name) + "': use 1 to 32 of A-Z a-z 0-9 _ -");
      return;
    }
    if (name.equals(room)) {
      push(ChatProtocol.OK_JOIN + room);
      return;
    }
    joining = name;
    attempt = 1;
    if (room == null) {
      tryJoin();
      return;
    }
    // First the old room relays every line said there, so their echoes reach this player before the new room's
    // lines (a cross-node join would otherwise commit while the old room still has them queued, and their echoes
    // would follow this player to the new room behind its new lines). Lines said meanwhile are held.
    final Target target = ctx.toActor(ctx.self().id().value()); // by id: the live incarnation, wherever it is
    try {
      ctx.toSpot(Room.ID_PREFIX + room).request(new Room.Flush(), Boolean.class).timeout(REQUEST_TIMEOUT)
          .toFuture().whenComplete((done, failure) -> target.send(new Flushed(name)));
    } catch (SpotkitException e) {
      tryJoin(); // the old room is gone: nothing of it is left to wait for
    }
  }

  /** One attempt: create the room if needed (blocks this turn only), then JoinSpot it after this turn. */
  private void tryJoin() {
    try {
      ctx.spots().getOrCreate(Room.ID_PREFIX + joining, Room.TYPE).await();
      ctx.joinSpot(Room.ID_PREFIX + joining, new Room.Hello(nick)).timeout(JOIN_TIMEOUT).defer();
    } catch (SpotkitException.NotFound | SpotkitException.StaleGeneration | SpotkitException.Unavailable
        | SpotkitException.DeadlineExceeded | SpotkitException.AlreadyExists e) {
      // closed after GetOrCreate found it, not Ready yet on its node, its creation still running (a loaded node), or
      // the closing room's row not released yet on another node: GetOrCreate again finds or creates the one room
      retryOrGiveUp(e);
    } catch (SpotkitException e) {
      giveUp(e);
    }
  }

  @Override
  public void onJoinCompleted(final JoinResult result) {
    if (departing) {
      Departures.destroy(ctx.actors(), ctx.self(), () -> { }); // out of the room (or not): go
      return;
    }
    if (joining == null) { // the JoinEntrySpot of /leave
      if (result instanceof JoinResult.Failed failed) {
        LOG.debug("{}: leave not confirmed: {}", nick, failed.error().toString());
      }
      return;
    }
    switch (result) {
      case JoinResult.Accepted accepted -> {
        room = joining; // on the room's node now
        joining = null;
        push(ChatProtocol.OK_JOIN + room);
        drainLater();
      }
      case JoinResult.Rejected rejected -> retryOrGiveUp(new SpotkitException.Rejected("the room is closing"));
      case JoinResult.Failed failed -> retryOrGiveUp(failed.error());
    }
  }

  private void retryOrGiveUp(final SpotkitException why) {
    if (attempt >= JOIN_ATTEMPTS) {
      giveUp(why);
      return;
    }
    attempt++;
    ctx.toActor(ctx.self()).send(new Retry()); // a join can be registered in a handler turn only
  }

  private void retry() {
    if (joining == null) {
      return; // disconnected meanwhile
    }
    if (!pause(RETRY_STEP_MILLIS << (attempt - 2))) { // attempt is 2..JOIN_ATTEMPTS here
      giveUp(new SpotkitException.ShuttingDown("the node is closing"));
      return;
    }
    tryJoin();
  }

  private void giveUp(final SpotkitException why) {
    LOG.info("{}: gave up joining {} after {} attempt(s): {}", nick, joining, attempt, why.toString());
    push(ChatProtocol.ERROR + "could not join " + joining + ": " + ChatProtocol.reason(why)); // still in the old room
    joining = null;
    drainLater();
  }

  /** Lines held back behind the join run next, each in its own turn (a later {@code /join} holds the rest). */
  private void drainLater() {
    if (!held.isEmpty()) {
      ctx.toActor(ctx.self()).send(new Drain());
    }
  }

  private void drain() {
    while (joining == null && !held.isEmpty()) {
      handle(held.poll());
    }
  }

  private void leave() {
    if (room == null) {
      push(ChatProtocol.ERROR + "you are in no room");
      return;
    }
    ctx.joinEntrySpot().timeout(JOIN_TIMEOUT).defer(); // the Lobby of the node it is on
    push(ChatProtocol.OK_LEAVE + room);
    room = null;
  }

  private void rooms() {
    try {
      push(ctx.toInstanceSpot(RoomDirectory.ID, RoomDirectory.TYPE)
          .request(new RoomDirectory.Describe(), RoomDirectory.Description.class)
          .timeout(REQUEST_TIMEOUT).await().line());
    } catch (SpotkitException e) {
      LOG.info("{}: /rooms failed: {}", nick, e.toString());
      push(ChatProtocol.ERROR + "could not list rooms: " + ChatProtocol.reason(e));
    }
  }

  /** The connection closed: leave the room (the destroy follows in onJoinCompleted), or go at once. */
  private void depart() {
    departing = true;
    joining = null;
    held.clear();
    if (room != null) {
      room = null;
      ctx.joinEntrySpot().timeout(JOIN_TIMEOUT).defer();
    } else {
      Departures.destroy(ctx.actors(), ctx.self(), () -> { });
    }
  }

  /** Sleeps inside this turn; false when interrupted (the node is closing). */
  private static boolean pause(final long millis) {
    try {
      Thread.sleep(millis);
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private void push(final String line) {
    try {
      ctx.session().ifPresent(session -> session.push(line));
    } catch (SpotkitException e) {
      LOG.debug("{}: line not pushed: {}", nick, e.toString()); // the session is going away
    }
  }

  /**
   * PreserveStateWith adapter: nick, room, join in flight with its attempt, whether departing, and the lines
   * held back, as a UTF-8 {@code DataOutputStream} record.
   */
  static final class State implements ActorRelocationAdapter<Player> {
    @Override
    public byte[] capture(final Player player) {
      final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (DataOutputStream out = new DataOutputStream(bytes)) {
        out.writeUTF(player.nick);
        out.writeUTF(player.room == null ? "" : player.room);
        out.writeUTF(player.joining == null ? "" : player.joining);
        out.writeInt(player.attempt);
        out.writeBoolean(player.departing);
        out.writeInt(player.held.size());
        for (String line : player.held) {
          out.writeUTF(line);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return bytes.toByteArray();
    }

    @Override
    public void restore(final Player player, final byte[] state) {
      try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(state))) {
        player.nick = in.readUTF();
        final String room = in.readUTF();
        final String joining = in.readUTF();
        player.room = room.isEmpty() ? null : room;
        player.joining = joining.isEmpty() ? null : joining;
        player.attempt = in.readInt();
        player.departing = in.readBoolean();
        final int lines = in.readInt();
        player.held.clear();
        for (int i = 0; i < lines; i++) {
          player.held.add(in.readUTF());
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
