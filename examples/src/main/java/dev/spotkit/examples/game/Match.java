package dev.spotkit.examples.game;

import dev.spotkit.core.ActorId;
import dev.spotkit.core.ActorRef;
import dev.spotkit.core.CreateDecision;
import dev.spotkit.core.JoinDecision;
import dev.spotkit.core.Member;
import dev.spotkit.core.RelocationReadyOutcome;
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
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One match: a SpotWide User Spot (type {@value #TYPE}) created by the {@link Matchmaker} with its {@link Roster},
 * whose members are the roster's {@link GamePlayer}s (each joins with JoinSpot, which moves it to this Spot's node
 * while its client session stays where it is). Registered with {@code preserveStateWith(new Match.State())} and
 * {@code applicationSignaledRelocation()}: a move (a host drain or {@code relocateSpot}) waits for the boundary this
 * match registers between two rounds.
 *
 * <p><b>Phases.</b> WAITING until every roster player joined (or {@link #JOIN_WAIT} passed: the missing ones
 * forfeit), then rounds 1..R. A round opens with a {@code round} line to every player; it closes at the first
 * {@value #TIMER} timer tick after every active player moved, or at the {@value #MOVE_TICKS}th tick of the round;
 * the match then scores it ({@link GameProtocol#points}) and pushes the {@code result} line. Between two rounds
 * (BREAK) it calls {@code ctx.relocationReady().defer()}: a move waiting for this match seals it right after that
 * turn, and {@link #onRelocationReadyCompleted} opens the next round, on the new node after a move
 * ({@code RELOCATED}) or here ({@code CONTINUED}). While no round is open (WAITING, FINISHED) every tick is such a
 * boundary too, so a drain never waits long for a match that is starting or closing. After round R it pushes the
 * {@code final} line, tells every member to leave ({@link GamePlayer.MatchOver}) and closes once the last one left.
 *
 * <p><b>Disconnects: forfeit.</b> A player whose connection closes mid-match forfeits: the others get a
 * {@code forfeit} line, its later rounds show {@code -}, it keeps its score so far but cannot win, and the final
 * line names it; the match goes on with the rest (and finishes at once when nobody is left).
 *
 * <p>The round timer is declared with {@code on.timer(TIMER, ...)} in {@link #configure}, so it resumes after a
 * move. All callbacks run one at a time on the match's gate (SpotWide: with its members' turns too), so the fields
 * need no locking.
 */
public final class Match implements UserSpot<GamePlayer> {

  /** The stable type of match spots. */
  public static final String TYPE = "match";
  /** The name of the round timer. */
  public static final String TIMER = "round";
  /** A round closes at this many ticks at the latest, moves missing or not. */
  static final int MOVE_TICKS = 10;
  /** How long a match waits for its roster to join before it starts with those who did. */
  static final Duration JOIN_WAIT = Duration.ofSeconds(10);

  private static final Logger LOG = LoggerFactory.getLogger(Match.class);

  /**
   * The creation request of a match (GetOrCreate's request).
   *
   * @param ids the players' actor ids, in roster order.
   * @param names their names, in the same order.
   * @param rounds rounds to play, 1 or more.
   * @param roundMillis the round timer's period in milliseconds, 1 or more.
   */
  public record Roster(List<String> ids, List<String> names, int rounds, long roundMillis) {
  }

  /**
   * A player's move (sent by its {@link GamePlayer}, a member).
   *
   * @param from the player.
   * @param value the move, {@value GameProtocol#MIN_MOVE}..{@value GameProtocol#MAX_MOVE}.
   */
  public record Move(ActorRef from, int value) {
  }

  /** Where a match is. */
  enum Phase {
    /** Waiting for the roster to join. */
    WAITING,
    /** A round is open. */
    PLAYING,
    /** Between two rounds, at the relocation boundary. */
    BREAK,
    /** The final line was pushed; closing once every member left. */
    FINISHED
  }

  private final UserSpotContext ctx;
  private final String id;
  /** Roster: name by actor id, in roster order. */
  private final Map<String, String> names = new LinkedHashMap<>();
  /** Total score by actor id, in roster order. */
  private final Map<String, Integer> scores = new LinkedHashMap<>();
  /** This round's moves by actor id. */
  private final Map<String, Integer> moves = new LinkedHashMap<>();
  /** Actor ids of players who forfeited, in forfeit order. */
  private final Set<String> forfeited = new LinkedHashSet<>();
  private int rounds;
  private long roundMillis;
  private Phase phase = Phase.WAITING;
  private int round;
  /** Timer ticks seen in the current phase (WAITING or the open round). */
  private int ticks;
  /** How many times this match moved to another node ({@code RELOCATED}). */
  private int relocations;
  private boolean closing;

  /**
   * Built by the runtime on GetOrCreate, and again on the target node when the match moves.
   *
   * @param ctx this spot's context.
   */
  public Match(final UserSpotContext ctx) {
    this.ctx = ctx;
    this.id = ctx.self().id().value();
  }

  @Override
  public UserSpotContext context() {
    return ctx;
  }

  @Override
  public CreateDecision onCreate(final Object request) {
    if (!(request instanceof Roster roster) || roster.ids().isEmpty() || roster.ids().size() != roster.names().size()
        || roster.rounds() < 1 || roster.roundMillis() < 1) {
      return CreateDecision.decline(); // a match is only created by the matchmaker, with its roster
    }
    for (int i = 0; i < roster.ids().size(); i++) {
      names.put(roster.ids().get(i), roster.names().get(i));
      scores.put(roster.ids().get(i), 0);
    }
    rounds = roster.rounds();
    roundMillis = roster.roundMillis();
    return CreateDecision.approve();
  }

  @Override
  public void onInitialize() {
    timers().every(TIMER, Duration.ofMillis(roundMillis), this::tick);
  }

  @Override
  public void configure(final SpotHandlers on) {
    on.message(Move.class, this::move)
      .timer(TIMER, this::tick); // the callback of the timer started in onInitialize, after a move too
  }

  @Override
  public JoinDecision onActorJoin(final ActorId actor, final Object request) {
    return names.containsKey(actor.value()) && !forfeited.contains(actor.value()) && phase != Phase.FINISHED
        ? JoinDecision.accept() : JoinDecision.reject();
  }

  @Override
  public void onJoinedActor(final ActorRef actor) {
    if (phase == Phase.WAITING && memberIds().containsAll(active())) {
      start();
    }
  }

  @Override
  public void onDisconnectActor(final ActorRef actor) {
    forfeit(actor.id().value());
    tell(actor, new GamePlayer.Disconnected()); // it leaves (onLeaveActor), then goes
  }

  @Override
  public void onLeaveActor(final ActorRef actor) {
    forfeit(actor.id().value());
    closeIfDone();
  }

  @Override
  public void onRelocationReadyCompleted(final RelocationReadyOutcome outcome) {
    if (outcome == RelocationReadyOutcome.RELOCATED) {
      relocations++;
      LOG.debug("match {} moved to node {} before round {}", id, ctx.self().nodeRid().hex(), round + 1);
    }
    if (phase == Phase.BREAK) {
      openRound(round + 1);
    }
  }

  private void start() {
    final List<String> playing = new ArrayList<>();
    for (String player : active()) {
      playing.add(names.get(player));
    }
    pushAll(GameProtocol.MATCH + " " + id + " players=" + String.join(",", playing) + " rounds=" + rounds);
    openRound(1);
  }

  private void openRound(final int next) {
    phase = Phase.PLAYING;
    round = next;
    ticks = 0;
    moves.clear();
    pushAll(GameProtocol.ROUND + " " + id + " " + round);
  }

  private void move(final Move move) {
    final String player = move.from().id().value();
    if (phase != Phase.PLAYING || !active().contains(player)) {
      tell(move.from(), new GamePlayer.Push(GameProtocol.ERROR + "no round of " + id + " is open for you"));
    } else if (moves.containsKey(player)) {
      tell(move.from(), new GamePlayer.Push(GameProtocol.ERROR + "you already moved in round " + round));
    } else {
      moves.put(player, move.value());
      tell(move.from(), new GamePlayer.Push("ok move " + id + " " + round + " " + move.value()));
    }
  }

  private void tick() {
    ticks++;
    switch (phase) {
      case WAITING -> {
        if ((long) ticks * roundMillis >= JOIN_WAIT.toMillis()) {
          final Set<String> joined = memberIds();
          for (String player : active()) {
            if (!joined.contains(player)) {
              forfeit(player);
            }
          }
          if (phase == Phase.WAITING) {
            start();
          }
        }
      }
      case PLAYING -> {
        if (moves.keySet().containsAll(active()) || ticks >= MOVE_TICKS) {
          closeRound();
        }
      }
      case FINISHED -> closeIfDone();
      case BREAK -> { } // the boundary callback opens the next round right after the turn that registered it
    }
    if (phase == Phase.WAITING || phase == Phase.FINISHED && !closing) {
      ctx.relocationReady().defer(); // no round open: a waiting move may take the match (and whoever is in it) now
    }
  }

  private void closeRound() {
    final Map<String, Integer> played = new LinkedHashMap<>();
    for (String player : active()) {
      played.put(player, moves.get(player));
    }
    final Map<String, Integer> points = GameProtocol.points(played);
    points.forEach((player, p) -> scores.merge(player, p, Integer::sum));
    final Map<String, String> shownMoves = new LinkedHashMap<>();
    final Map<String, String> shownScores = new LinkedHashMap<>();
    for (String player : names.keySet()) {
      final Integer m = played.get(player);
      shownMoves.put(names.get(player), m == null ? "-" : Integer.toString(m));
      shownScores.put(names.get(player), Integer.toString(scores.get(player)));
    }
    pushAll(GameProtocol.RESULT + " " + id + " " + round + " moves=" + GameProtocol.pairs(shownMoves) + " scores="
        + GameProtocol.pairs(shownScores));
    if (round >= rounds || active().isEmpty()) {
      finish();
    } else {
      phase = Phase.BREAK;
      ctx.relocationReady().defer(); // a waiting move seals the match here; else the next round opens at once
    }
  }

  private void finish() {
    phase = Phase.FINISHED;
    final Map<String, String> shownScores = new LinkedHashMap<>();
    String winner = "-";
    int best = -1;
    for (String player : names.keySet()) {
      shownScores.put(names.get(player), Integer.toString(scores.get(player)));
      if (!forfeited.contains(player) && scores.get(player) > best) {
        best = scores.get(player);
        winner = names.get(player);
      }
    }
    final List<String> gone = new ArrayList<>();
    forfeited.forEach(player -> gone.add(names.get(player)));
    pushAll(GameProtocol.FINAL + " " + id + " scores=" + GameProtocol.pairs(shownScores) + " forfeit="
        + (gone.isEmpty() ? "-" : String.join(",", gone)) + " winner=" + winner);
    for (Member member : ctx.members()) {
      tell(member.ref(), new GamePlayer.MatchOver(id));
    }
    closeIfDone();
  }

  /** A player leaves the match for good: announced once, its later rounds count no move. */
  private void forfeit(final String player) {
    if (phase == Phase.FINISHED || !names.containsKey(player) || !forfeited.add(player)) {
      return;
    }
    if (phase != Phase.WAITING) {
      pushAll(GameProtocol.FORFEIT + " " + id + " " + names.get(player));
    }
    if (active().isEmpty() && phase != Phase.BREAK) {
      finish(); // nobody left to play; in BREAK the next round's opening finds nobody and the tick finishes
    } else if (phase == Phase.WAITING && !active().isEmpty() && memberIds().containsAll(active())) {
      start(); // everyone still in the roster is here
    }
  }

  private void closeIfDone() {
    if (phase == Phase.FINISHED && !closing && ctx.members().isEmpty()) {
      closing = ctx.close(); // false while an admitted join is still on its way: the next tick tries again
    }
  }

  /** Roster players who did not forfeit, in roster order. */
  private List<String> active() {
    final List<String> active = new ArrayList<>();
    for (String player : names.keySet()) {
      if (!forfeited.contains(player)) {
        active.add(player);
      }
    }
    return active;
  }

  private Set<String> memberIds() {
    final Set<String> ids = new LinkedHashSet<>();
    ctx.members().forEach(member -> ids.add(member.ref().id().value()));
    return ids;
  }

  /** Pushes a line to every member's client, each in the order this match sends them. */
  private void pushAll(final String line) {
    final GamePlayer.Push push = new GamePlayer.Push(line);
    for (Member member : ctx.members()) {
      try {
        member.send(push);
      } catch (SpotkitException e) {
        LOG.warn("match {}: line not sent to member {}: {}", id, member.ref().id().value(), e.toString());
      }
    }
  }

  private void tell(final ActorRef player, final Object message) {
    try {
      ctx.toActor(player).send(message);
    } catch (SpotkitException e) {
      LOG.debug("match {}: could not send to {}: {}", id, player.id().value(), e.toString());
    }
  }

  /**
   * The match's state when it moves with its players (a host drain or {@code relocateSpot}; spec 000 section 7):
   * roster, scores, this round's moves, forfeits, rounds, period, phase, round, ticks, relocations and the closing
   * flag, as a {@code DataOutputStream} record. The members, their queues and the round timer move with the match by
   * the framework.
   */
  static final class State implements SpotRelocationAdapter<Match> {
    @Override
    public byte[] capture(final Match match) {
      final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (DataOutputStream out = new DataOutputStream(bytes)) {
        out.writeInt(match.names.size());
        for (Map.Entry<String, String> e : match.names.entrySet()) {
          out.writeUTF(e.getKey());
          out.writeUTF(e.getValue());
          out.writeInt(match.scores.get(e.getKey()));
          final Integer move = match.moves.get(e.getKey());
          out.writeInt(move == null ? -1 : move);
          out.writeBoolean(match.forfeited.contains(e.getKey()));
        }
        out.writeInt(match.rounds);
        out.writeLong(match.roundMillis);
        out.writeUTF(match.phase.name());
        out.writeInt(match.round);
        out.writeInt(match.ticks);
        out.writeInt(match.relocations);
        out.writeBoolean(match.closing);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return bytes.toByteArray();
    }

    @Override
    public void restore(final Match match, final byte[] state) {
      try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(state))) {
        match.names.clear();
        match.scores.clear();
        match.moves.clear();
        match.forfeited.clear();
        for (int i = in.readInt(); i > 0; i--) {
          final String player = in.readUTF();
          match.names.put(player, in.readUTF());
          match.scores.put(player, in.readInt());
          final int move = in.readInt();
          if (move >= 0) {
            match.moves.put(player, move);
          }
          if (in.readBoolean()) {
            match.forfeited.add(player);
          }
        }
        match.rounds = in.readInt();
        match.roundMillis = in.readLong();
        match.phase = Phase.valueOf(in.readUTF());
        match.round = in.readInt();
        match.ticks = in.readInt();
        match.relocations = in.readInt();
        match.closing = in.readBoolean();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
