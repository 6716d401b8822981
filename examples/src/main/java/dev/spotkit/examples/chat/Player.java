package dev.spotkit.examples.chat;

import dev.spotkit.core.Actor;
import dev.spotkit.core.ActorContext;
import dev.spotkit.core.ActorHandlers;
import dev.spotkit.core.SpotRef;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.core.Target;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connected chat user: an actor bound to its client session. Each line the client sends arrives as a
 * {@code String} message; each {@link Heard} line from its room is pushed back to the client. The player
 * stays a member of its node's {@link Lobby} (Entry Spot) for its whole life; its room may be on any node.
 *
 * <p>Protocol: {@link ChatProtocol}. <b>Room-kept membership:</b> {@code /join} creates the room if needed
 * (GetOrCreate) and sends it a {@link Room.Join} request with this player's ref, and answers
 * {@code ok join ROOM} only once the room replied that the player is a member, so every later line of the
 * room reaches it. {@code /leave}, switching rooms and a closed connection send {@link Room.Leave}. This
 * replaces JoinSpot / JoinEntrySpot, which cannot reach a room on another node until relocation lands; then
 * cross-node JoinSpot will replace it again. Joins and leaves are requests awaited inside this player's turn
 * (blocking a virtual thread, nothing else), so they never overlap and the player's own lines keep their
 * order behind them.
 *
 * <p>A room closes when its last member leaves, so a join can find its room gone (NotFound) or closing: the
 * player then creates the room again and retries, at most {@value #JOIN_ATTEMPTS} attempts in all, and reports
 * an error line if none worked. <b>Note:</b> until the core places creations across nodes, GetOrCreate of a
 * room that another node holds fails with AlreadyExists; the player then addresses the room by id, which the
 * mesh routes to its owner (and a room still being created there is NotFound for a moment: retried).
 */
public final class Player implements Actor {

  /** Join attempts in all: the first, and retries after the room closed under it. */
  static final int JOIN_ATTEMPTS = 3;
  /** Pause before retry n is n times this. */
  static final long RETRY_STEP_MILLIS = 50;
  /** Bound of one join, leave or {@code /rooms} request. */
  static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(5);

  private static final Logger LOG = LoggerFactory.getLogger(Player.class);

  /**
   * A line for the client, sent by a room.
   *
   * @param line the text to push.
   */
  public record Heard(String line) {
  }

  /** Sent by the {@link Lobby} when the connection closed: leave the room, then go. */
  record Disconnected() {
  }

  private final ActorContext ctx;
  private String nick;
  /** The name of the room this player is in, or null. */
  private String room;
  /** That room's ref (it may live on another node), or null. */
  private SpotRef roomRef;

  /**
   * Built by the runtime when a client connects.
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
      .message(Disconnected.class, gone -> depart());
  }

  private void onLine(final String line) {
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
      default -> push(ChatProtocol.ERROR + "unknown command " + ChatProtocol.echo(command) + "; try "
          + ChatProtocol.HELP);
    }
  }

  private void say(final String text) {
    if (room == null) {
      push(ChatProtocol.ERROR + "you are in no room; /join ROOM first");
    } else if (!text.isEmpty()) {
      toRoom(new Room.Said(ctx.self(), nick, text), null);
    }
  }

  private void setNick(final String name) {
    if (!ChatProtocol.NAME.matcher(name).matches()) {
      push(ChatProtocol.ERROR + "bad nick '" + ChatProtocol.echo(name) + "': use 1 to 32 of A-Z a-z 0-9 _ -");
      return;
    }
    nick = name;
    if (room != null) {
      toRoom(new Room.Renamed(ctx.self(), nick), null); // before any later /who
    }
    push(ChatProtocol.OK_NICK + nick);
  }

  /** Sends to this player's room; outside a room pushes {@code whenNoRoom} (if not null). */
  private void toRoom(final Object message, final String whenNoRoom) {
    if (roomRef == null) {
      if (whenNoRoom != null) {
        push(whenNoRoom);
      }
      return;
    }
    try {
      ctx.toSpot(roomRef).send(message);
    } catch (SpotkitException e) {
      push(ChatProtocol.ERROR + "room " + room + " did not take it: " + e.getMessage());
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
    final SpotRef joined = enter(name);
    if (joined == null) {
      return; // the error line is out; still in the old room, if any
    }
    if (roomRef != null) {
      leaveQuietly(ctx.toSpot(roomRef));
    }
    room = name;
    roomRef = joined;
    push(ChatProtocol.OK_JOIN + room);
  }

  /**
   * Becomes a member of room {@code name}, creating it when needed. Blocks this turn only.
   *
   * @return the room's ref, or null after pushing an error line.
   */
  private SpotRef enter(final String name) {
    final String id = Room.ID_PREFIX + name;
    String why = "";
    for (int attempt = 1; attempt <= JOIN_ATTEMPTS; attempt++) {
      if (attempt > 1 && !pause(RETRY_STEP_MILLIS * (attempt - 1))) {
        break;
      }
      Target target = null;
      try {
        target = roomTarget(id);
        final SpotRef joined = target.request(new Room.Join(ctx.self(), nick), Room.Joined.class)
            .timeout(REQUEST_TIMEOUT).await().room();
        if (joined != null) {
          return joined;
        }
        why = "the room is closing";
      } catch (SpotkitException.NotFound | SpotkitException.StaleGeneration | SpotkitException.Unavailable e) {
        why = e.getMessage(); // closed after GetOrCreate found it, or not Ready yet on its node: try again
      } catch (SpotkitException.DeadlineExceeded e) {
        if (target != null) {
          leaveQuietly(target); // the join may still arrive: take it back (same sender, so it comes after)
        }
        why = e.getMessage();
        break;
      } catch (SpotkitException e) {
        why = e.getMessage();
        break;
      }
    }
    push(ChatProtocol.ERROR + "could not join " + name + ": " + why);
    return null;
  }

  /** The room by ref from GetOrCreate; by id when another node holds it (see the class Javadoc). */
  private Target roomTarget(final String id) {
    try {
      return ctx.toSpot(ctx.spots().getOrCreate(id, "room").await()); // blocks this turn only
    } catch (SpotkitException.AlreadyExists heldElsewhere) {
      return ctx.toSpot(id);
    }
  }

  private void leave() {
    if (room == null) {
      push(ChatProtocol.ERROR + "you are in no room");
      return;
    }
    leaveQuietly(ctx.toSpot(roomRef));
    push(ChatProtocol.OK_LEAVE + room);
    room = null;
    roomRef = null;
  }

  /** Asks {@code target} to drop this player and waits for the answer; a room that is gone is fine. */
  private void leaveQuietly(final Target target) {
    try {
      target.request(new Room.Leave(ctx.self()), Room.Left.class).timeout(REQUEST_TIMEOUT).await();
    } catch (SpotkitException e) {
      LOG.debug("{}: leave not confirmed: {}", nick, e.toString()); // gone already, or it drops us on its next line
    }
  }

  private void rooms() {
    try {
      push(ctx.toInstanceSpot(RoomDirectory.ID, RoomDirectory.TYPE)
          .request(new RoomDirectory.Describe(), RoomDirectory.Description.class)
          .timeout(REQUEST_TIMEOUT).await().line());
    } catch (SpotkitException e) {
      push(ChatProtocol.ERROR + "could not list rooms: " + e.getMessage());
    }
  }

  /** The connection closed: leave the room, then destroy this player (after this turn). */
  private void depart() {
    if (roomRef != null) {
      leaveQuietly(ctx.toSpot(roomRef));
      room = null;
      roomRef = null;
    }
    Departures.destroy(ctx.actors(), ctx.self(), () -> { });
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
    ctx.session().ifPresent(session -> session.push(line));
  }
}
