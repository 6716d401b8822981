package dev.spotkit.examples.game;

import dev.spotkit.core.ActorRef;
import dev.spotkit.core.ClosingContext;
import dev.spotkit.core.CreateOutcome;
import dev.spotkit.core.InstanceSpot;
import dev.spotkit.core.InstanceSpotContext;
import dev.spotkit.core.SpotHandlers;
import dev.spotkit.core.SpotRef;
import dev.spotkit.core.SpotkitException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The matchmaking queue of the one game mode: an Instance Spot ({@value #ID}, type {@value #TYPE}) that activates on
 * its first message. It keeps waiting players in arrival order; whenever it holds {@link GameRules#players()} of
 * them it creates a {@link Match} (GetOrCreate of {@link #matchId} with its {@link Match.Roster}, placed by the
 * placement rules on a node that registered the match type) and sends each of those players
 * {@link GamePlayer.MatchFound}. Its messages are handled one at a time, so a player is taken from the queue at
 * most once: every player queueing at once, from any node, ends in exactly one match (the rest wait for more
 * players). A player that disconnects while waiting is dropped ({@link Dequeue}). When the creation of a match
 * fails, its players stay first in the queue and a {@value #RETRY_TIMER} tick tries again.
 *
 * <p><b>Closing itself when idle</b> (issue 14). It is registered with an idle timeout
 * ({@link GameRules#matchmakerIdle()}, the InstanceSpotIdleTimeout of spec 003 section 6.2): once nobody has waited
 * for that long, the runtime closes it ({@code onClosing(IDLE_EVICTED)}) and removes its location record; the next
 * {@link Enqueue} (sent with Instance intent) activates a new incarnation. The {@value #RETRY_TIMER} timer runs only
 * while somebody waits: a registered timer keeps an Instance Spot active, so the players waiting for a group are never
 * dropped with a closing matchmaker, and with nobody waiting nothing keeps it alive. An {@link Enqueue} that arrives
 * while it closes is kept by the runtime and activates the next incarnation, so that player still ends in exactly
 * one match. Match ids carry the incarnation's ObjectGeneration ({@code match-<generation>-<n>}): a new incarnation
 * never reuses the id of a match an earlier one created that may still be playing.
 *
 * <p>Only the game server's gateway node registers this type, so placement activates it there, on the node that is
 * never drained (it is registered with DisableRelocation).
 */
public final class Matchmaker implements InstanceSpot {

  /** The stable type of the matchmaker. */
  public static final String TYPE = "matchmaker";
  /** The id of the queue of the one mode ("classic"). */
  public static final String ID = "match:classic";
  /** The name of the timer that retries a failed match creation. */
  static final String RETRY_TIMER = "retry";
  /** Period of that timer. */
  static final Duration RETRY_PERIOD = Duration.ofSeconds(1);
  /** Creation attempts per group before the retry timer takes over. */
  static final int CREATE_ATTEMPTS = 5;
  /** Bound of one match creation. */
  static final Duration CREATE_TIMEOUT = Duration.ofSeconds(10);

  private static final Logger LOG = LoggerFactory.getLogger(Matchmaker.class);

  /**
   * A player asks for a match.
   *
   * @param player the player.
   * @param name its name, shown in the match's lines.
   */
  public record Enqueue(ActorRef player, String name) {
  }

  /**
   * A waiting player's connection closed.
   *
   * @param player the player.
   */
  public record Dequeue(ActorRef player) {
  }

  private final InstanceSpotContext ctx;
  private final GameRules rules;
  /** Whether matches belong on worker nodes (a mesh of a gateway and workers) rather than on this node. */
  private final boolean onWorkers;
  /** Waiting players by actor id, in arrival order. */
  private final Map<String, Enqueue> waiting = new LinkedHashMap<>();
  private long matches;

  /**
   * Built by the runtime on the first message with Instance intent.
   *
   * @param ctx this spot's context.
   * @param rules players per match, rounds and round period.
   * @param onWorkers true when other nodes host the matches (this is the gateway of a mesh): a match placed on
   *     this node anyway (its placement weight is small, not 0, so that this Instance Spot can be placed here) is
   *     closed again before anyone joined it, and created under the next id.
   */
  public Matchmaker(final InstanceSpotContext ctx, final GameRules rules, final boolean onWorkers) {
    this.ctx = ctx;
    this.rules = rules;
    this.onWorkers = onWorkers;
  }

  @Override
  public InstanceSpotContext context() {
    return ctx;
  }

  /**
   * The id of match {@code number} of the matchmaker incarnation {@code generation}: unique across incarnations,
   * since every incarnation has a new, higher ObjectGeneration.
   *
   * @param generation the matchmaker's ObjectGeneration, 1 or more.
   * @param number the match's number in that incarnation, 1 or more.
   * @return e.g. {@code match-7-1}.
   */
  public static String matchId(final long generation, final long number) {
    return Match.TYPE + "-" + generation + "-" + number;
  }

  @Override
  public void configure(final SpotHandlers on) {
    on.message(Enqueue.class, enqueue -> {
      waiting.putIfAbsent(enqueue.player().id().value(), enqueue);
      formMatches();
      retryWhileWaiting();
    }).message(Dequeue.class, dequeue -> {
      waiting.remove(dequeue.player().id().value());
      retryWhileWaiting();
    }).timer(RETRY_TIMER, () -> {
      formMatches();
      retryWhileWaiting();
    });
  }

  @Override
  public void onClosing(final ClosingContext closing) {
    LOG.info("matchmaker {} closes ({}) after {} match(es); {} waiting", ctx.self(), closing.reason(), matches,
        waiting.size());
  }

  /** The retry timer runs while somebody waits (it keeps this spot active), and stops when nobody does. */
  private void retryWhileWaiting() {
    final boolean running = timers().names().contains(RETRY_TIMER);
    if (!waiting.isEmpty() && !running) {
      timers().every(RETRY_TIMER, RETRY_PERIOD, () -> {
        formMatches();
        retryWhileWaiting();
      });
    } else if (waiting.isEmpty() && running) {
      timers().cancel(RETRY_TIMER);
    }
  }

  /** Creates a match for every full group of waiting players, oldest first. */
  private void formMatches() {
    int failures = 0;
    while (waiting.size() >= rules.players()) {
      final List<Enqueue> group = new ArrayList<>(rules.players());
      final Iterator<Enqueue> oldest = waiting.values().iterator();
      while (group.size() < rules.players()) {
        group.add(oldest.next());
      }
      final String matchId = matchId(ctx.self().generation().value(), matches + 1);
      if (!create(matchId, group)) {
        if (++failures < CREATE_ATTEMPTS) {
          continue; // the next id at once
        }
        return; // they stay first in the queue; the retry timer tries again
      }
      matches++;
      for (Enqueue player : group) {
        waiting.remove(player.player().id().value());
        try {
          ctx.toActor(player.player()).send(new GamePlayer.MatchFound(matchId));
        } catch (SpotkitException e) {
          LOG.info("match {}: player {} not told: {}", matchId, player.name(), e.toString()); // it forfeits
        }
      }
    }
  }

  private boolean create(final String matchId, final List<Enqueue> group) {
    final List<String> ids = new ArrayList<>(group.size());
    final List<String> names = new ArrayList<>(group.size());
    for (Enqueue player : group) {
      ids.add(player.player().id().value());
      names.add(player.name());
    }
    try {
      final CreateOutcome<?> outcome = ctx.spots().getOrCreate(matchId, Match.TYPE,
          new Match.Roster(ids, names, rules.rounds(), rules.roundPeriod().toMillis()))
          .timeout(CREATE_TIMEOUT).awaitOutcome();
      if (outcome instanceof CreateOutcome.Created<?> created && created.ref() instanceof SpotRef ref) {
        if (onWorkers && ref.nodeRid().equals(ctx.self().nodeRid())) {
          LOG.info("match {} was placed on the gateway; closing it and placing the next id", matchId);
          ctx.spots().close(ref).timeout(CREATE_TIMEOUT).await(); // nobody joined it yet
          matches++;
          return false;
        }
        return true;
      }
      LOG.warn("match {}: creation answered {}; trying another id", matchId, outcome);
      matches++; // an id taken already (not expected: ids carry the generation): the next one
      return false;
    } catch (SpotkitException e) {
      LOG.warn("match {}: could not be created ({}); retrying in {} ms", matchId, e.toString(),
          RETRY_PERIOD.toMillis());
      return false;
    }
  }
}
