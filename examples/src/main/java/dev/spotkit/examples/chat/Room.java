package dev.spotkit.examples.chat;

import dev.spotkit.core.ActorId;
import dev.spotkit.core.ActorRef;
import dev.spotkit.core.ClosingContext;
import dev.spotkit.core.SpotHandlers;
import dev.spotkit.core.SpotRef;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.core.UserSpot;
import dev.spotkit.core.UserSpotContext;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A chat room: a User Spot that keeps its members itself and relays every line said in it to all of them, the
 * sender included, in the order it receives the lines. Its id is {@code "room-" + name}, created on first
 * {@code /join} with GetOrCreate; it may live on any node of the mesh, and its members on any other.
 *
 * <p><b>Room-kept membership.</b> A {@link Player} does not JoinSpot the room (a JoinSpot to a spot on another
 * node does not exist yet: it moves the actor, which needs relocation). It sends a {@link Join} request
 * carrying its own {@link ActorRef}; the room keeps members by ref and fans each line out with
 * {@code ctx.toActor(ref).send(...)}, which reaches a member on any node. A {@link Leave} request (on
 * {@code /leave}, on switching rooms, and from the player of a closed connection) removes it. Order: lines of
 * one sender arrive here in the order it sent them (the transport keeps order per node pair and per sender),
 * and this room sends them on to each member in that order. Cross-node JoinSpot will replace this once
 * relocation lands; the room then counts {@code ctx.members()} again.
 *
 * <p>A room closes itself when its last member left. A join that was already on its way then finds it closed
 * (NotFound) or closing ({@link Joined} without a room); the player creates the room again and retries
 * ({@link Player}). A room nobody ever joined closes at its next {@link #REAP_PERIOD} tick. A member whose
 * actor is gone (a send to it fails with NotFound or StaleGeneration) is dropped too.
 *
 * <p>Every membership change is reported to the {@link RoomDirectory} for {@code /rooms}.
 *
 * <p>All callbacks and handlers run one at a time on the room's gate, so the fields need no locking.
 */
public final class Room implements UserSpot<Player> {

  /** Prefix of room spot ids. */
  public static final String ID_PREFIX = "room-";

  /**
   * How often a room that nobody joined (for example: created for a player whose join then timed out) checks
   * whether it is still empty, and closes if so.
   */
  static final Duration REAP_PERIOD = Duration.ofSeconds(30);

  private static final Logger LOG = LoggerFactory.getLogger(Room.class);

  /**
   * A player asks to become a member (request; the reply is {@link Joined}).
   *
   * @param from the player; lines are sent to this ref.
   * @param nick the nick the room shows.
   */
  public record Join(ActorRef from, String nick) {
  }

  /**
   * The answer to {@link Join}.
   *
   * @param room this room's ref when the player is a member now; null when the room is closing (create it
   *     again and retry).
   */
  public record Joined(SpotRef room) {
  }

  /**
   * A member leaves (request, or a one-way send from a player that is going away; the reply is {@link Left}).
   *
   * @param from the member.
   */
  public record Leave(ActorRef from) {
  }

  /**
   * The answer to {@link Leave}.
   *
   * @param wasMember whether {@code from} was a member until now.
   */
  public record Left(boolean wasMember) {
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

  /** A member: where its lines go, and the nick the room shows. */
  private record Occupant(ActorRef ref, String nick) {
  }

  private final UserSpotContext ctx;
  private final String name;
  /** Members in join order, by actor id. */
  private final Map<ActorId, Occupant> members = new LinkedHashMap<>();
  /** Set once {@code ctx.close()} was accepted: later joins are told to create the room again. */
  private boolean closing;
  /** The member count last reported to the directory. */
  private int published;

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
    timers().every("reap-if-empty", REAP_PERIOD, this::closeIfEmpty);
  }

  @Override
  public void configure(final SpotHandlers on) {
    on.request(Join.class, this::join)
      .request(Leave.class, this::leave)
      .message(Said.class, this::said)
      .message(Who.class, who -> tell(who.from(), new Player.Heard("who " + name + ": " + nicks())))
      .message(Renamed.class, renamed -> members.computeIfPresent(renamed.from().id(),
          (id, member) -> new Occupant(member.ref(), renamed.nick())));
  }

  private Joined join(final Join join) {
    if (closing) {
      return new Joined(null);
    }
    members.put(join.from().id(), new Occupant(join.from(), join.nick()));
    publish();
    return new Joined(ctx.self());
  }

  private Left leave(final Leave leave) {
    final boolean wasMember = members.remove(leave.from().id()) != null;
    if (wasMember) {
      publish();
      closeIfEmpty();
    }
    return new Left(wasMember);
  }

  private void said(final Said said) {
    final Occupant speaker = members.get(said.from().id());
    if (speaker == null) {
      return; // not (or no longer) a member
    }
    if (!speaker.nick().equals(said.nick())) {
      members.put(said.from().id(), new Occupant(speaker.ref(), said.nick()));
    }
    final Player.Heard heard = new Player.Heard(ChatProtocol.roomLine(name, said.nick(), said.text()));
    boolean dropped = false;
    for (Iterator<Occupant> it = members.values().iterator(); it.hasNext();) {
      if (!tell(it.next().ref(), heard)) {
        it.remove();
        dropped = true;
      }
    }
    if (dropped) {
      publish();
      closeIfEmpty();
    }
  }

  /** Sends to a member; false when that actor is gone for good. */
  private boolean tell(final ActorRef member, final Object message) {
    try {
      ctx.toActor(member).send(message);
      return true;
    } catch (SpotkitException.NotFound | SpotkitException.StaleGeneration gone) {
      return false;
    } catch (SpotkitException e) {
      LOG.debug("room {}: could not send to {}: {}", name, member.id().value(), e.toString());
      return true; // e.g. Unavailable while a node goes away: its Leave is on the way
    }
  }

  private String nicks() {
    final StringBuilder line = new StringBuilder();
    for (Occupant member : members.values()) {
      line.append(line.isEmpty() ? "" : " ").append(member.nick());
    }
    return line.toString();
  }

  /** Reports the member count to the directory (one-way; best effort). */
  private void publish() {
    if (members.size() == published) {
      return;
    }
    published = members.size();
    try {
      ctx.toInstanceSpot(RoomDirectory.ID, RoomDirectory.TYPE)
          .send(new RoomDirectory.Count(ctx.self(), name, published));
    } catch (SpotkitException e) {
      LOG.debug("room {}: directory not told about {} members: {}", name, published, e.toString());
    }
  }

  /** Closes this room once no member is left. In a turn of this room. */
  private void closeIfEmpty() {
    if (!closing && members.isEmpty() && ctx.members().isEmpty()) {
      closing = ctx.close(); // true: OnClosing(ExplicitClose) runs after this turn, the room id can be created again
    }
  }

  @Override
  public void onClosing(final ClosingContext context) {
    members.clear(); // node shutdown: take this room out of the directory
    publish();
  }
}
