package dev.spotkit.examples.chat;

import dev.spotkit.core.Actor;
import dev.spotkit.core.ActorContext;
import dev.spotkit.core.ActorHandlers;
import dev.spotkit.core.ActorRelocationAdapter;
import dev.spotkit.core.JoinResult;
import dev.spotkit.core.SpotkitException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A player's presence in the rooms: the actor that really joins a {@link Room} with JoinSpot, one per
 * {@link Player} (id {@code "avatar-" + player id}, created on the player's first {@code /join}).
 *
 * <p><b>Why two actors.</b> The {@link Player} is bound to its client session, and a session-bound actor does
 * not move between nodes (a cross-node join of it fails {@code Unavailable}). A JoinSpot to a room on another
 * node <i>moves</i> the joining actor there (spec 000 section 4.2, live relocation, spec 001). So the player
 * stays on the node its client connected to, and this avatar, which holds no session, is what a room on
 * another node pulls over: its state (player id, nick, room) travels with it through a
 * {@code preserveStateWith} adapter ({@link State}), and messages sent to it meanwhile follow it in order
 * (relay and Message Follow). Lines flow client - player - avatar - room - every member avatar - its player -
 * client; the room and its members sit on one node, only the player hops cross nodes.
 *
 * <p>Protocol with the player: {@link Enter} (JoinSpot the room), {@link Exit} (JoinEntrySpot back to the
 * Lobby of the node it is on, which leaves the room), then a {@link Status} request, which runs only after
 * the join completed (messages that arrive during a join wait behind it, MEM-34), so its {@link Place} reply
 * is the join's outcome. {@link Say}, {@link Rename} and {@link Who} go on to the room; every
 * {@link Player.Heard} from the room goes on to the player.
 */
public final class Avatar implements Actor {

  /** The avatar's stable type. */
  public static final String TYPE = "avatar";
  /** Prefix of avatar actor ids, followed by the player's actor id. */
  public static final String ID_PREFIX = "avatar-";

  private static final Logger LOG = LoggerFactory.getLogger(Avatar.class);

  /**
   * Join room {@code room} (leaving the current one).
   *
   * @param player the player's actor id, where lines go.
   * @param room the room name.
   * @param nick the nick the room shows.
   */
  public record Enter(String player, String room, String nick) {
  }

  /** Leave the room (JoinEntrySpot back to the Lobby of the avatar's node). */
  public record Exit() {
  }

  /** Asks where the avatar is (request; the reply is {@link Place}); answered after any running join. */
  public record Status() {
  }

  /**
   * Where the avatar is.
   *
   * @param room the room it is a member of, or null.
   * @param node the hex NodeRid of the node it runs on now.
   * @param error why the last join failed, or null.
   */
  public record Place(String room, String node, String error) {
  }

  /**
   * The player said a line.
   *
   * @param nick the player's nick.
   * @param text the line.
   */
  public record Say(String nick, String text) {
  }

  /**
   * The player's new nick.
   *
   * @param nick the nick.
   */
  public record Rename(String nick) {
  }

  /** The player asks who is in the room. */
  public record Who() {
  }

  private final ActorContext ctx;
  /** The player's actor id ("" until the first {@link Enter}). */
  private String player = "";
  private String nick = "";
  /** The room it is a member of, or null. */
  private String room;
  /** The room of the join in flight (moves with the avatar, read in {@link #onJoinCompleted}), or null. */
  private String joining;
  /** Why the last join failed, or null. */
  private String error;

  /**
   * Built by the runtime on the player's GetOrCreate, and again on the target node when it moves.
   *
   * @param ctx this actor's context.
   */
  public Avatar(final ActorContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public void configure(final ActorHandlers on) {
    on.message(Enter.class, this::enter)
      .message(Exit.class, exit -> {
        if (room != null) {
          ctx.joinEntrySpot().timeout(Player.REQUEST_TIMEOUT).defer();
          joining = null;
        }
      })
      .request(Status.class, status -> new Place(room, ctx.self().nodeRid().hex(), error))
      .message(Say.class, say -> toRoom(new Room.Said(ctx.self(), say.nick(), say.text())))
      .message(Rename.class, rename -> {
        nick = rename.nick();
        toRoom(new Room.Renamed(ctx.self(), nick));
      })
      .message(Who.class, who -> toRoom(new Room.Who(ctx.self())))
      .message(Player.Heard.class, this::toPlayer);
  }

  private void enter(final Enter enter) {
    player = enter.player();
    nick = enter.nick();
    error = null;
    if (enter.room().equals(room)) {
      return;
    }
    joining = enter.room();
    ctx.joinSpot(Room.ID_PREFIX + joining, new Room.Hello(nick)).timeout(Player.REQUEST_TIMEOUT).defer();
  }

  @Override
  public void onJoinCompleted(final JoinResult result) {
    switch (result) {
      case JoinResult.Accepted accepted -> room = joining; // Lobby after Exit: joining is null
      case JoinResult.Rejected rejected -> error = "the room is closing";
      case JoinResult.Failed failed -> error = failed.error().getMessage();
    }
    joining = null;
  }

  private void toRoom(final Object message) {
    if (room == null) {
      return;
    }
    try {
      ctx.toSpot(Room.ID_PREFIX + room).send(message);
    } catch (SpotkitException e) {
      toPlayer(new Player.Heard(ChatProtocol.ERROR + "room " + room + " did not take it: " + e.getMessage()));
    }
  }

  private void toPlayer(final Player.Heard heard) {
    try {
      ctx.toActor(player).send(heard);
    } catch (SpotkitException e) {
      LOG.debug("avatar of {}: line not passed on: {}", player, e.toString()); // the player is going away
    }
  }

  /** PreserveStateWith adapter: player id, nick, room and join in flight, as UTF strings. */
  static final class State implements ActorRelocationAdapter<Avatar> {
    @Override
    public byte[] capture(final Avatar avatar) {
      final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (DataOutputStream out = new DataOutputStream(bytes)) {
        out.writeUTF(avatar.player);
        out.writeUTF(avatar.nick);
        out.writeUTF(avatar.room == null ? "" : avatar.room);
        out.writeUTF(avatar.joining == null ? "" : avatar.joining);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return bytes.toByteArray();
    }

    @Override
    public void restore(final Avatar avatar, final byte[] state) {
      try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(state))) {
        avatar.player = in.readUTF();
        avatar.nick = in.readUTF();
        final String room = in.readUTF();
        final String joining = in.readUTF();
        avatar.room = room.isEmpty() ? null : room;
        avatar.joining = joining.isEmpty() ? null : joining;
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
