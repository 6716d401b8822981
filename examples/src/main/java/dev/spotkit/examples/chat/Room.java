package dev.spotkit.examples.chat;

import dev.spotkit.core.ActorId;
import dev.spotkit.core.ActorRef;
import dev.spotkit.core.JoinDecision;
import dev.spotkit.core.Member;
import dev.spotkit.core.SpotHandlers;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.core.UserSpot;
import dev.spotkit.core.UserSpotContext;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A chat room: a SpotWide User Spot whose members are {@link Player}s. It relays every line said in it to all
 * of its members, the sender included, in the order it receives them. Its id is {@code "room-" + name},
 * created on first {@code /join} with GetOrCreate.
 *
 * <p>A room closes itself when its last member is gone: after a leave, or after the player of a closed
 * connection was destroyed. A join that was already on its way fails with NotFound or Unavailable; the
 * player then creates the room again ({@link Player}). The runtime runs admission, commit and OnJoinedActor
 * of one join in a single step of this room, so "accepted but not yet a member" is never seen here; the room
 * still counts such arrivals ({@code arriving}) and does not close while one is pending. A room nobody ever
 * joined closes at its next {@link #REAP_PERIOD} tick.
 *
 * <p>All callbacks and handlers run one at a time on the room's gate, which its members share (SpotWide), so
 * the fields need no locking.
 */
public final class Room implements UserSpot<Player> {

  /** Prefix of room spot ids. */
  public static final String ID_PREFIX = "room-";

  /**
   * The join request a player sends: it carries the nick the room shows.
   *
   * @param nick the player's nick.
   */
  public record JoinRoom(String nick) {
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

  /** Sent by the room to itself once a disconnected member was destroyed: close if nobody is left. */
  record Vacated() {
  }

  private final UserSpotContext ctx;
  private final RoomDirectory directory;
  private final String name;
  /** Members' nicks in join order. */
  private final Map<ActorId, String> nicks = new LinkedHashMap<>();
  /** Nicks of actors accepted by onActorJoin whose join has not committed yet. */
  private final Map<ActorId, String> arriving = new HashMap<>();

  /**
   * Built by the runtime on GetOrCreate.
   *
   * @param ctx this spot's context.
   * @param directory where the member count is published for {@code /rooms}.
   */
  public Room(final UserSpotContext ctx, final RoomDirectory directory) {
    this.ctx = ctx;
    this.directory = directory;
    this.name = ctx.self().id().value().substring(ID_PREFIX.length());
  }

  @Override
  public UserSpotContext context() {
    return ctx;
  }

  /**
   * How often a room that nobody joined (for example: created for a player whose join then timed out) checks
   * whether it is still empty, and closes if so.
   */
  static final java.time.Duration REAP_PERIOD = java.time.Duration.ofSeconds(30);

  @Override
  public void onInitialize() {
    timers().every("reap-if-empty", REAP_PERIOD, this::closeIfEmpty);
  }

  @Override
  public void configure(final SpotHandlers on) {
    on.message(Said.class, this::said)
      .message(Who.class, who -> ctx.toActor(who.from())
          .send(new Player.Heard("who " + name + ": " + String.join(" ", nicks.values()))))
      .message(Renamed.class, renamed -> nicks.replace(renamed.from().id(), renamed.nick()))
      .message(Vacated.class, vacated -> closeIfEmpty());
  }

  private void said(final Said said) {
    nicks.replace(said.from().id(), said.nick()); // a member may have changed its nick
    final Player.Heard heard = new Player.Heard(ChatProtocol.roomLine(name, said.nick(), said.text()));
    for (Member member : members()) {
      member.send(heard);
    }
  }

  @Override
  public JoinDecision onActorJoin(final ActorId actor, final Object request) {
    arriving.put(actor, request instanceof JoinRoom join ? join.nick() : actor.value());
    return JoinDecision.accept();
  }

  @Override
  public void onJoinedActor(final ActorRef actor) {
    final String nick = arriving.remove(actor.id());
    nicks.put(actor.id(), nick == null ? actor.id().value() : nick);
    directory.update(name, nicks.size());
  }

  @Override
  public void onLeaveActor(final ActorRef actor) {
    nicks.remove(actor.id());
    directory.update(name, nicks.size());
    closeIfEmpty();
  }

  @Override
  public void onDisconnectActor(final ActorRef actor) {
    nicks.remove(actor.id());
    directory.update(name, nicks.size());
    // The player goes with its connection; do not wait in this turn. It stays a member until destroyed.
    Departures.destroy(ctx.actors(), actor, this::vacated);
  }

  /** After a destroy, on a runtime thread: back into the room's own turn. */
  private void vacated() {
    try {
      ctx.toSpot(ctx.self()).send(new Vacated());
    } catch (SpotkitException e) {
      // NotFound: already closed; ShuttingDown: the node closes every room itself
    }
  }

  /** Closes this room once no member is left and no accepted join is pending. In a turn of this room. */
  private void closeIfEmpty() {
    if (nicks.isEmpty() && arriving.isEmpty() && ctx.members().isEmpty()) {
      ctx.close(); // true: OnClosing(ExplicitClose) runs after this turn, the room id can be created again
    }
  }
}
