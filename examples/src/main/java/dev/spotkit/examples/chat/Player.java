package dev.spotkit.examples.chat;

import dev.spotkit.core.Actor;
import dev.spotkit.core.ActorContext;
import dev.spotkit.core.ActorHandlers;
import dev.spotkit.core.JoinResult;
import dev.spotkit.core.SpotRef;
import dev.spotkit.core.SpotkitException;

/**
 * One connected chat user: an actor bound to its client session. Each line the client sends arrives as a
 * {@code String} message; each {@link Heard} line from its room is pushed back to the client.
 *
 * <p>Protocol: {@link ChatProtocol}. Joining and leaving are JoinSpot / JoinEntrySpot barriers
 * ({@code defer()}); the answer is written in {@link #onJoinCompleted}, so {@code ok join ROOM} means the
 * room has already counted the player as a member. A room closes when its last member leaves, so a join can
 * find its room gone (NotFound) or closing (Unavailable): the player then creates the room again and retries
 * once, and reports an error line if that fails too.
 */
public final class Player implements Actor {

  /**
   * A line for the client, sent by a room.
   *
   * @param line the text to push.
   */
  public record Heard(String line) {
  }

  /** Sent to itself after a join found its room closed: create the room again and join once more. */
  record RetryJoin(String room) {
  }

  private final ActorContext ctx;
  private final RoomDirectory directory;
  private String nick;
  /** The room this player is in, or null in the lobby. */
  private String room;
  /** The room of the join in flight, or null. */
  private String joining;
  /** The room being left by the JoinEntrySpot in flight, or null. */
  private String leaving;
  /** Whether the join in flight may still be retried once. */
  private boolean mayRetry;

  /**
   * Built by the runtime when a client connects.
   *
   * @param ctx this actor's context; {@code ctx.session()} is the client.
   * @param directory room counts for {@code /rooms}.
   */
  public Player(final ActorContext ctx, final RoomDirectory directory) {
    this.ctx = ctx;
    this.directory = directory;
    this.nick = "guest-" + ctx.session().map(s -> Long.toString(s.id())).orElse(ctx.self().id().value());
  }

  @Override
  public void configure(final ActorHandlers on) {
    on.message(String.class, this::onLine)
      .message(Heard.class, heard -> push(heard.line()))
      .message(RetryJoin.class, retry -> {
        if (retry.room().equals(joining)) {
          startJoin(retry.room(), false);
        }
      });
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
      case "/rooms" -> push(directory.describe());
      case "/who" -> who();
      default -> push(ChatProtocol.ERROR + "unknown command " + ChatProtocol.echo(command) + "; try "
          + ChatProtocol.HELP);
    }
  }

  private void say(final String text) {
    if (room == null) {
      push(ChatProtocol.ERROR + "you are in no room; /join ROOM first");
    } else if (!text.isEmpty()) {
      ctx.toSpot(Room.ID_PREFIX + room).send(new Room.Said(ctx.self(), nick, text));
    }
  }

  private void setNick(final String name) {
    if (!ChatProtocol.NAME.matcher(name).matches()) {
      push(ChatProtocol.ERROR + "bad nick '" + ChatProtocol.echo(name) + "': use 1 to 32 of A-Z a-z 0-9 _ -");
      return;
    }
    nick = name;
    if (room != null) {
      ctx.toSpot(Room.ID_PREFIX + room).send(new Room.Renamed(ctx.self(), nick)); // before any later /who
    }
    push(ChatProtocol.OK_NICK + nick);
  }

  private void join(final String name) {
    if (!ChatProtocol.NAME.matcher(name).matches()) {
      push(ChatProtocol.ERROR + "bad room '" + ChatProtocol.echo(name) + "': use 1 to 32 of A-Z a-z 0-9 _ -");
    } else if (joining != null || leaving != null) {
      push(ChatProtocol.ERROR + "a join or leave is already in progress");
    } else if (name.equals(room)) {
      push(ChatProtocol.OK_JOIN + room);
    } else {
      startJoin(name, true);
    }
  }

  /** Creates the room if needed and registers the join; in a handler turn. */
  private void startJoin(final String name, final boolean retryAllowed) {
    try {
      final SpotRef spot = ctx.spots().getOrCreate(Room.ID_PREFIX + name, "room").await(); // blocks this turn only
      ctx.joinSpot(spot.id().value(), new Room.JoinRoom(nick)).defer(); // runs after this handler
      joining = name;
      mayRetry = retryAllowed;
    } catch (SpotkitException e) {
      joining = null;
      push(ChatProtocol.ERROR + "could not join " + name + ": " + e.getMessage());
    }
  }

  private void leave() {
    if (room == null) {
      push(ChatProtocol.ERROR + "you are in no room");
    } else if (joining != null || leaving != null) {
      push(ChatProtocol.ERROR + "a join or leave is already in progress");
    } else {
      leaving = room;
      ctx.joinEntrySpot().defer();
    }
  }

  private void who() {
    if (room == null) {
      push("who: you are in no room");
    } else {
      ctx.toSpot(Room.ID_PREFIX + room).send(new Room.Who(ctx.self()));
    }
  }

  @Override
  public void onJoinCompleted(final JoinResult result) {
    final boolean wasLeave = leaving != null;
    final String target = wasLeave ? leaving : joining;
    if (!wasLeave && mayRetry && result instanceof JoinResult.Failed failed
        && (failed.error() instanceof SpotkitException.NotFound
            || failed.error() instanceof SpotkitException.Unavailable)) {
      mayRetry = false; // the room closed after getOrCreate found it: create it again, once
      try {
        ctx.toActor(ctx.self()).send(new RetryJoin(target)); // a handler turn may register the join
        return;
      } catch (SpotkitException e) {
        // the node is closing: report the failed join below
      }
    }
    joining = null;
    leaving = null;
    switch (result) {
      case JoinResult.Accepted accepted -> {
        room = wasLeave ? null : target;
        push((wasLeave ? ChatProtocol.OK_LEAVE : ChatProtocol.OK_JOIN) + target);
      }
      case JoinResult.Rejected rejected -> push(ChatProtocol.ERROR + "room " + target + " refused you");
      case JoinResult.Failed failed -> push(ChatProtocol.ERROR + "could not join " + target + ": "
          + failed.error().getMessage());
    }
  }

  private void push(final String line) {
    ctx.session().ifPresent(session -> session.push(line));
  }
}
