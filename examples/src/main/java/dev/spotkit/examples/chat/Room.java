package dev.spotkit.examples.chat;

import dev.spotkit.core.ActorId;
import dev.spotkit.core.ActorRef;
import dev.spotkit.core.ClosingContext;
import dev.spotkit.core.JoinDecision;
import dev.spotkit.core.Member;
import dev.spotkit.core.SpotHandlers;
import dev.spotkit.core.SpotRelocationAdapter;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.core.UserSpot;
import dev.spotkit.core.UserSpotContext;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A chat room: a User Spot whose members are {@link Player}s that joined it with JoinSpot, and which relays
 * every line said in it to all of them (the sender included) in the order it receives the lines. Its id is
 * {@code "room-" + name}, created on first {@code /join} with GetOrCreate on the node the placement rules
 * choose.
 *
 * <p><b>Real membership.</b> A member is in {@code ctx.members()}: a player joins with
 * {@code ctx.joinSpot("room-" + name, new Hello(nick))}; when the room is on another node that join moves the
 * player here (live relocation) while its client session stays where it is, so a room and all its members run
 * on one node and the fan-out of a line is local (each member's pushes then reach its client on the session's
 * node, in order). {@link #onActorJoin} admits unless the room is closing; {@link #onJoinedActor} and
 * {@link #onLeaveActor} (a player joined another room or went back to a Lobby) keep the nicks and the
 * {@link RoomDirectory} count; {@link #onDisconnectActor} tells a member whose connection closed
 * ({@link Player.Disconnected}), which then leaves. Order: lines of one player arrive in the order it sent them
 * (through a move as well: messages sent to a moving player are relayed and follow it in order), and its
 * {@link #onLeaveActor} comes after every line it said here, so a line said right before a {@code /join} or
 * {@code /leave} is still a member's line.
 *
 * <p>A room closes itself when its last member left and no join it admitted is still on its way (an admitted
 * join commits only after the player moved here; closing in between would strand it). A join that arrives
 * later finds the room closed (NotFound) or closing (rejected); the player creates the room again and retries
 * ({@link Player}). A room nobody ever joined (or whose admitted joins never committed) closes at a later
 * {@link #REAP_PERIOD} tick.
 *
 * <p>All callbacks and handlers run one at a time on the room's gate, so the fields need no locking.
 */
public final class Room implements UserSpot<Player> {

  /** Prefix of room spot ids. */
  public static final String ID_PREFIX = "room-";
  /** The stable type rooms are registered under. */
  public static final String TYPE = "room";

  /**
   * How often a room that nobody joined (for example: created for a player whose join then timed out) checks
   * whether it is still empty, and closes if so.
   */
  static final Duration REAP_PERIOD = Duration.ofSeconds(30);

  private static final Logger LOG = LoggerFactory.getLogger(Room.class);

  /**
   * The request of a player's JoinSpot.
   *
   * @param nick the nick the room shows.
   */
  public record Hello(String nick) {
  }

  /**
   * A line said by a member.
   *
   * @param from the member.
   * @param nick its nick now.
   * @param text what it said.
   */
  public record Said(ActorRef from, String nick, String text) {
  }

  /**
   * A member asks who is here; the answer is a {@link Player.Heard} line to {@code from}.
   *
   * @param from the member asking.
   */
  public record Who(ActorRef from) {
  }

  /**
   * A member changed its nick; {@code /who} shows the new one at once.
   *
   * @param from the member.
   * @param nick its new nick.
   */
  public record Renamed(ActorRef from, String nick) {
  }

  /**
   * A member about to join another room asks (request; the reply is {@code Boolean.TRUE}) once every line it
   * said here was relayed: the room answers in its queue order, so the reply comes after those lines' echoes were
   * sent to the member, and the member's next room's lines come after them.
   */
  public record Flush() {
  }

  /** The {@link RoomDirectory} asks for the member count now (request; the reply is an Integer). */
  public record CountNow() {
  }

  private final UserSpotContext ctx;
  private final String name;
  /**
   * The nick of each member, by actor id, in join order (the members themselves are {@code ctx.members()}),
   * and of each actor admitted by {@link #onActorJoin} whose join has not committed yet.
   */
  private final Map<ActorId, String> nicks = new LinkedHashMap<>();
  /** Admitted actors that were still no member at the last reap tick (dropped if still none at the next). */
  private final Set<ActorId> stale = new HashSet<>();
  /** Set once {@code ctx.close()} was accepted: later joins are rejected (the player creates the room again). */
  private boolean closing;
  /** The member count last reported to the directory. */
  private int published;
  /**
   * {@code ctx.members()} as of the last membership change, or null: read again after every join, leave and
   * disconnect callback, so a line's fan-out does not build the member list anew for each line (it showed as 8% of
   * a busy server's CPU in the chat benchmark).
   */
  private List<Member> members;

  /**
   * Built by the runtime on GetOrCreate.
   *
   * @param ctx this spot's context.
   */
  public Room(final UserSpotContext ctx) {
    this.ctx = ctx;
    this.name = ctx.self().id().value().substring(ID_PREFIX.length());
  }

  @Override
  public UserSpotContext context() {
    return ctx;
  }

  @Override
  public void onInitialize() {
    timers().every("reap-if-empty", REAP_PERIOD, this::reap);
  }

  @Override
  public void configure(final SpotHandlers on) {
    on.message(Said.class, this::said)
      .message(Who.class, who -> tell(who.from(), new Player.Heard("who " + name + ": "
          + String.join(" ", nicks.values()))))
      .message(Renamed.class, renamed -> nicks.computeIfPresent(renamed.from().id(), (id, old) -> renamed.nick()))
      .request(CountNow.class, now -> closing ? 0 : ctx.members().size())
      .request(Flush.class, flush -> Boolean.TRUE) // every earlier line of the member was relayed before this
      .timer("reap-if-empty", this::reap); // the callback of the timer started in onInitialize, after a move too
  }

  @Override
  public JoinDecision onActorJoin(final ActorId actor, final Object request) {
    if (closing) {
      return JoinDecision.reject();
    }
    nicks.put(actor, request instanceof Hello hello ? hello.nick() : actor.value());
    return JoinDecision.accept();
  }

  @Override
  public void onJoinedActor(final ActorRef actor) {
    members = null;
    publish();
  }

  @Override
  public void onLeaveActor(final ActorRef actor) {
    members = null;
    nicks.remove(actor.id());
    publish();
    closeIfEmpty();
  }

  @Override
  public void onDisconnectActor(final ActorRef actor) {
    members = null;
    tell(actor, new Player.Disconnected()); // it leaves (onLeaveActor), then goes
  }

  private void said(final Said said) {
    if (!nicks.containsKey(said.from().id())) {
      // a member's lines all come before its leave: a line of a non-member is lost, say so
      LOG.warn("room {}: line of {} ({}) dropped: not a member", name, said.nick(), said.from().id().value());
      return;
    }
    nicks.put(said.from().id(), said.nick());
    final Player.Heard heard = new Player.Heard(ChatProtocol.roomLine(name, said.nick(), said.text()));
    if (members == null) {
      members = ctx.members();
    }
    for (Member member : members) {
      try {
        member.send(heard);
      } catch (SpotkitException e) {
        LOG.warn("room {}: line not sent to member {}: {}", name, member.ref().id().value(), e.toString());
      }
    }
  }

  /** Sends to one actor (best effort). */
  private void tell(final ActorRef member, final Object message) {
    try {
      ctx.toActor(member).send(message);
    } catch (SpotkitException e) {
      LOG.debug("room {}: could not send to {}: {}", name, member.id().value(), e.toString());
    }
  }

  /** Reports the member count to the directory (one-way; best effort). */
  private void publish() {
    final int count = closing ? 0 : ctx.members().size();
    if (count == published) {
      return;
    }
    published = count;
    try {
      ctx.toInstanceSpot(RoomDirectory.ID, RoomDirectory.TYPE)
          .send(new RoomDirectory.Count(ctx.self(), name, published));
    } catch (SpotkitException e) {
      LOG.debug("room {}: directory not told about {} members: {}", name, published, e.toString());
    }
  }

  /** Forgets admitted actors whose join never committed (two ticks in a row), then closes if empty. */
  private void reap() {
    this.members = null; // read afresh at least every tick
    final Set<ActorId> members = new HashSet<>();
    ctx.members().forEach(member -> members.add(member.ref().id()));
    final Set<ActorId> pending = new HashSet<>(nicks.keySet());
    pending.removeAll(members);
    for (ActorId actor : pending) {
      if (stale.contains(actor)) {
        nicks.remove(actor);
      }
    }
    stale.clear();
    stale.addAll(pending);
    closeIfEmpty();
  }

  /**
   * Closes this room once no member is left and no admitted join is still on its way (an admitted join commits
   * a little later, after the actor moved here). In a turn of this room.
   */
  private void closeIfEmpty() {
    if (!closing && ctx.members().isEmpty() && nicks.isEmpty()) {
      closing = ctx.close(); // true: OnClosing(ExplicitClose) runs after this turn, the room id can be created again
    }
  }

  @Override
  public void onClosing(final ClosingContext context) {
    closing = true; // node shutdown or close: take this room out of the directory
    publish();
  }

  /**
   * The room's state when it moves to another node with its members (a host drain or {@code relocateSpot}; spec 000
   * section 7): the nicks by actor id in join order, the admitted-but-not-yet-member ids of the last reap tick, the
   * closing flag and the count last published. The members themselves, their queues and the reap timer move with
   * the room by the framework.
   */
  static final class State implements SpotRelocationAdapter<Room> {
    @Override
    public byte[] capture(final Room room) {
      final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (DataOutputStream out = new DataOutputStream(bytes)) {
        out.writeInt(room.nicks.size());
        for (Map.Entry<ActorId, String> e : room.nicks.entrySet()) {
          out.writeUTF(e.getKey().value());
          out.writeUTF(e.getValue());
        }
        out.writeInt(room.stale.size());
        for (ActorId id : room.stale) {
          out.writeUTF(id.value());
        }
        out.writeBoolean(room.closing);
        out.writeInt(room.published);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return bytes.toByteArray();
    }

    @Override
    public void restore(final Room room, final byte[] state) {
      try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(state))) {
        room.nicks.clear();
        for (int i = in.readInt(); i > 0; i--) {
          final ActorId id = new ActorId(in.readUTF());
          room.nicks.put(id, in.readUTF());
        }
        room.stale.clear();
        for (int i = in.readInt(); i > 0; i--) {
          room.stale.add(new ActorId(in.readUTF()));
        }
        room.closing = in.readBoolean();
        room.published = in.readInt();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
