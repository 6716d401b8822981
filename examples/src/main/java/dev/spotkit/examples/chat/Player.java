package dev.spotkit.examples.chat;

import dev.spotkit.core.Actor;
import dev.spotkit.core.ActorContext;
import dev.spotkit.core.ActorHandlers;
import dev.spotkit.core.ActorRef;
import dev.spotkit.core.SpotkitException;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connected chat user: an actor bound to its client session, on the node the client connected to, where
 * it stays (a session-bound actor does not move). Each line the client sends arrives as a {@code String}
 * message; each {@link Heard} line is pushed back to the client. It is a member of its node's {@link Lobby}
 * (Entry Spot) for its whole life.
 *
 * <p>Protocol: {@link ChatProtocol}. <b>Rooms through an avatar.</b> On the first {@code /join} the player
 * creates its {@link Avatar} (GetOrCreate, id {@code "avatar-" + player id}); the avatar is what joins rooms
 * with JoinSpot, and a room on another node pulls it there (live relocation) while this player and its session
 * stay here. {@code /join} creates the room if needed (GetOrCreate), sends the avatar {@link Avatar.Enter},
 * then asks it for its {@link Avatar.Status}, which it answers only after the join completed; the player says
 * {@code ok join ROOM} once the avatar is a member, so every later line of the room reaches it. {@code /leave}
 * and a closed connection send {@link Avatar.Exit}; lines, {@code /nick} and {@code /who} go through the
 * avatar. These requests are awaited inside this player's turn (blocking a virtual thread, nothing else), so
 * they never overlap and the player's own lines keep their order behind them. {@code /where} answers
 * {@code where ROOM node=HEX}: the node the avatar (and so the room) runs on.
 *
 * <p>A room closes when its last member leaves, so a join can find its room gone (NotFound) or closing
 * (rejected): the player then creates the room again and retries, at most {@value #JOIN_ATTEMPTS} attempts in
 * all, and reports an error line if none worked.
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
   * A line for the client, sent by a room (to the avatar, which passes it on).
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
  /** The avatar's id, once created. */
  private String avatar;
  /** The avatar's ref from GetOrCreate (for the destroy), once created. */
  private ActorRef avatarRef;

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
      case "/who" -> toAvatar(new Avatar.Who(), "who: you are in no room");
      case "/where" -> where();
      default -> push(ChatProtocol.ERROR + "unknown command " + ChatProtocol.echo(command) + "; try "
          + ChatProtocol.HELP);
    }
  }

  private void say(final String text) {
    if (room == null) {
      push(ChatProtocol.ERROR + "you are in no room; /join ROOM first");
    } else if (!text.isEmpty()) {
      toAvatar(new Avatar.Say(nick, text), null);
    }
  }

  private void setNick(final String name) {
    if (!ChatProtocol.NAME.matcher(name).matches()) {
      push(ChatProtocol.ERROR + "bad nick '" + ChatProtocol.echo(name) + "': use 1 to 32 of A-Z a-z 0-9 _ -");
      return;
    }
    nick = name;
    if (room != null) {
      toAvatar(new Avatar.Rename(nick), null); // before any later /who
    }
    push(ChatProtocol.OK_NICK + nick);
  }

  /** Sends to this player's avatar while in a room; outside a room pushes {@code whenNoRoom} (if not null). */
  private void toAvatar(final Object message, final String whenNoRoom) {
    if (room == null) {
      if (whenNoRoom != null) {
        push(whenNoRoom);
      }
      return;
    }
    try {
      ctx.toActor(avatar).send(message);
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
    final String why = enter(name);
    if (why != null) {
      push(ChatProtocol.ERROR + "could not join " + name + ": " + why);
      return; // still in the old room, if any
    }
    room = name;
    push(ChatProtocol.OK_JOIN + room);
  }

  /**
   * Makes the avatar a member of room {@code name} (it leaves its old room), creating both when needed. Blocks
   * this turn only.
   *
   * @return null when it is a member now, else why not.
   */
  private String enter(final String name) {
    String why = "";
    for (int attempt = 1; attempt <= JOIN_ATTEMPTS; attempt++) {
      if (attempt > 1 && !pause(RETRY_STEP_MILLIS * (attempt - 1))) {
        break;
      }
      try {
        ctx.spots().getOrCreate(Room.ID_PREFIX + name, "room").await(); // blocks this turn only
        final Avatar.Place place = joinThroughAvatar(new Avatar.Enter(ctx.self().id().value(), name, nick));
        if (name.equals(place.room())) {
          return null;
        }
        why = place.error() == null ? "not admitted" : place.error(); // closed or closing: create it again
      } catch (SpotkitException.NotFound | SpotkitException.StaleGeneration | SpotkitException.Unavailable e) {
        why = e.getMessage(); // closed after GetOrCreate found it, or not Ready yet on its node: try again
      } catch (SpotkitException e) {
        why = e.getMessage();
        break;
      }
    }
    return why;
  }

  /** Sends {@code command} to the avatar (created on first use) and returns its status after it ran. */
  private Avatar.Place joinThroughAvatar(final Object command) {
    if (avatar == null) {
      avatarRef = ctx.actors().getOrCreate(Avatar.ID_PREFIX + ctx.self().id().value(), Avatar.TYPE).await();
      avatar = avatarRef.id().value();
    }
    ctx.toActor(avatar).send(command);
    return ctx.toActor(avatar).request(new Avatar.Status(), Avatar.Place.class).timeout(REQUEST_TIMEOUT).await();
  }

  private void leave() {
    if (room == null) {
      push(ChatProtocol.ERROR + "you are in no room");
      return;
    }
    leaveQuietly();
    push(ChatProtocol.OK_LEAVE + room);
    room = null;
  }

  /** The avatar goes back to its node's Lobby, leaving its room; a failure is logged. */
  private void leaveQuietly() {
    try {
      joinThroughAvatar(new Avatar.Exit());
    } catch (SpotkitException e) {
      LOG.debug("{}: leave not confirmed: {}", nick, e.toString());
    }
  }

  private void where() {
    if (room == null) {
      push("where: in no room");
      return;
    }
    try {
      final Avatar.Place place = ctx.toActor(avatar).request(new Avatar.Status(), Avatar.Place.class)
          .timeout(REQUEST_TIMEOUT).await();
      push(ChatProtocol.WHERE + place.room() + " node=" + place.node());
    } catch (SpotkitException e) {
      push(ChatProtocol.ERROR + "could not ask the avatar: " + e.getMessage());
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

  /** The connection closed: the avatar leaves its room, then the avatar and this player are destroyed. */
  private void depart() {
    if (room != null) {
      leaveQuietly();
      room = null;
    }
    if (avatar != null) {
      Departures.destroy(ctx.actors(), avatarRef, () -> { });
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
