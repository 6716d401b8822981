package dev.spotkit.examples.game;

import dev.spotkit.core.Actor;
import dev.spotkit.core.ActorContext;
import dev.spotkit.core.ActorHandlers;
import dev.spotkit.core.ActorRelocationAdapter;
import dev.spotkit.core.JoinResult;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.examples.chat.Departures;
import dev.spotkit.examples.chat.Lobby;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connected game client: an actor (type {@value #TYPE}) bound to its client session; each line the client sends
 * arrives as a {@code String}, each {@link Push} is pushed back to the client ({@link GameProtocol}). It starts as a
 * member of the Lobby (Entry Spot, {@link Lobby}) of the node the client connected to, and is named {@code p} + its
 * session id.
 *
 * <p>{@code /queue} sends {@link Matchmaker.Enqueue} to the matchmaker ({@link Matchmaker#ID}); when it has a match
 * the matchmaker sends {@link MatchFound}, and the player joins the {@link Match} with JoinSpot: a match on another
 * node pulls the player there (live relocation, {@code preserveStateWith(new GamePlayer.State())}) while its session
 * stays on the node that accepted the connection, so the client's lines keep reaching it in order and its pushes
 * reach the client in push order. {@code /move N} goes to the match as {@link Match.Move}. After the final line the
 * match sends {@link MatchOver} and the player goes back to the Lobby of the node it is on (JoinEntrySpot); it may
 * {@code /queue} again.
 *
 * <p>When the connection closes, the spot the player belongs to sends {@link Disconnected}: it leaves the queue
 * ({@link Matchmaker.Dequeue}) or its match (which counts it as a forfeit), then destroys itself
 * ({@link Departures}).
 */
public final class GamePlayer implements Actor {

  /** The player's stable type (every session is bound to one). */
  public static final String TYPE = "game-player";
  /** Bound of a join or leave; as long as the session's seal timeout (15 s), see the chat example's Player. */
  static final Duration JOIN_TIMEOUT = Duration.ofSeconds(15);

  private static final Logger LOG = LoggerFactory.getLogger(GamePlayer.class);

  /**
   * A line for the client (from the match).
   *
   * @param line the text to push.
   */
  public record Push(String line) {
  }

  /**
   * From the matchmaker: join this match.
   *
   * @param matchId the match's spot id.
   */
  public record MatchFound(String matchId) {
  }

  /**
   * From the match after its final line: leave it.
   *
   * @param matchId the match's spot id.
   */
  public record MatchOver(String matchId) {
  }

  /** From the spot the player belongs to when the connection closed: leave, then go. */
  public record Disconnected() {
  }

  private final ActorContext ctx;
  private String name;
  /** The match this player is a member of, or null. */
  private String match;
  /** The match of the join in flight, or null. */
  private String joining;
  /** Whether the matchmaker holds this player in its queue. */
  private boolean queued;
  /** Set when the connection closed: the next join completion destroys this player. */
  private boolean departing;

  /**
   * Built by the runtime when a client connects, and again on the target node when the player moves.
   *
   * @param ctx this actor's context; {@code ctx.session()} is the client.
   */
  public GamePlayer(final ActorContext ctx) {
    this.ctx = ctx;
    this.name = "p" + ctx.session().map(s -> Long.toString(s.id())).orElse(ctx.self().id().value());
  }

  @Override
  public void configure(final ActorHandlers on) {
    on.message(String.class, this::onMessage)
      .message(Push.class, push -> push(push.line()))
      .message(MatchFound.class, found -> join(found.matchId()))
      .message(MatchOver.class, over -> leave(over.matchId()))
      .message(Disconnected.class, gone -> depart());
  }

  /**
   * One client message: a line of the line protocol, or a WebSocket text message, which may hold several lines.
   * Each non-blank line is a command, in order; a message with no command at all is answered with an error line.
   */
  private void onMessage(final String message) {
    final java.util.List<String> commands = message.lines().filter(l -> !l.isBlank()).toList();
    if (commands.isEmpty()) {
      onLine("");
    }
    commands.forEach(this::onLine);
  }

  private void onLine(final String line) {
    final String[] words = line.strip().split("\\s+");
    switch (words[0]) {
      case "/queue" -> queue();
      case "/move" -> move(words.length == 2 ? words[1] : "");
      case "/where" -> push(match == null ? "where: in no match"
          : "where " + match + " node=" + ctx.self().nodeRid().hex());
      default -> push(GameProtocol.ERROR + "unknown command; try " + GameProtocol.HELP);
    }
  }

  private void queue() {
    if (match != null || joining != null) {
      push(GameProtocol.ERROR + "already in match " + (match != null ? match : joining));
      return;
    }
    if (!queued) {
      try {
        ctx.toInstanceSpot(Matchmaker.ID, Matchmaker.TYPE).send(new Matchmaker.Enqueue(ctx.self(), name));
        queued = true;
      } catch (SpotkitException e) {
        push(GameProtocol.ERROR + "could not queue: " + e.getMessage());
        return;
      }
    }
    push(GameProtocol.OK_QUEUE + " as " + name);
  }

  private void move(final String value) {
    final int move;
    try {
      move = Integer.parseInt(value);
    } catch (NumberFormatException e) {
      push(GameProtocol.ERROR + "usage: /move N with N in " + GameProtocol.MIN_MOVE + ".." + GameProtocol.MAX_MOVE);
      return;
    }
    if (move < GameProtocol.MIN_MOVE || move > GameProtocol.MAX_MOVE) {
      push(GameProtocol.ERROR + "move " + move + " must be in " + GameProtocol.MIN_MOVE + ".." + GameProtocol.MAX_MOVE);
    } else if (match == null) {
      push(GameProtocol.ERROR + "you are in no match; /queue first");
    } else {
      try {
        ctx.toSpot(match).send(new Match.Move(ctx.self(), move));
      } catch (SpotkitException e) {
        push(GameProtocol.ERROR + "move not sent: " + e.getMessage());
      }
    }
  }

  private void join(final String matchId) {
    queued = false;
    if (departing || match != null || joining != null) {
      return; // the match counts a roster player that never joins as a forfeit
    }
    joining = matchId;
    ctx.joinSpot(matchId, name).timeout(JOIN_TIMEOUT).defer();
  }

  private void leave(final String matchId) {
    if (matchId.equals(match)) {
      match = null;
      ctx.joinEntrySpot().timeout(JOIN_TIMEOUT).defer(); // the Lobby of the node it is on
    }
  }

  @Override
  public void onJoinCompleted(final JoinResult result) {
    if (departing) {
      Departures.destroy(ctx.actors(), ctx.self(), () -> { }); // out of the match (or not): go
      return;
    }
    if (joining == null) {
      return; // the JoinEntrySpot after a match
    }
    if (result instanceof JoinResult.Accepted) {
      match = joining; // on the match's node now
    } else {
      LOG.info("{}: could not join match {}: {}", name, joining, result);
      push(GameProtocol.ERROR + "could not join match " + joining + "; /queue again");
    }
    joining = null;
  }

  /** The connection closed: leave the queue or the match (the destroy follows in onJoinCompleted), or go. */
  private void depart() {
    departing = true;
    if (queued) {
      queued = false;
      try {
        ctx.toInstanceSpot(Matchmaker.ID, Matchmaker.TYPE).send(new Matchmaker.Dequeue(ctx.self()));
      } catch (SpotkitException e) {
        LOG.debug("{}: dequeue not sent: {}", name, e.toString());
      }
    }
    if (match != null) {
      match = null;
      ctx.joinEntrySpot().timeout(JOIN_TIMEOUT).defer();
    } else if (joining == null) {
      Departures.destroy(ctx.actors(), ctx.self(), () -> { });
    }
  }

  private void push(final String line) {
    try {
      ctx.session().ifPresent(session -> session.push(line));
    } catch (SpotkitException e) {
      LOG.debug("{}: line not pushed: {}", name, e.toString()); // the session is going away
    }
  }

  /** PreserveStateWith adapter: name, match, join in flight, queued and departing, as a DataOutputStream record. */
  static final class State implements ActorRelocationAdapter<GamePlayer> {
    @Override
    public byte[] capture(final GamePlayer player) {
      final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (DataOutputStream out = new DataOutputStream(bytes)) {
        out.writeUTF(player.name);
        out.writeUTF(player.match == null ? "" : player.match);
        out.writeUTF(player.joining == null ? "" : player.joining);
        out.writeBoolean(player.queued);
        out.writeBoolean(player.departing);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return bytes.toByteArray();
    }

    @Override
    public void restore(final GamePlayer player, final byte[] state) {
      try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(state))) {
        player.name = in.readUTF();
        final String match = in.readUTF();
        final String joining = in.readUTF();
        player.match = match.isEmpty() ? null : match;
        player.joining = joining.isEmpty() ? null : joining;
        player.queued = in.readBoolean();
        player.departing = in.readBoolean();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
