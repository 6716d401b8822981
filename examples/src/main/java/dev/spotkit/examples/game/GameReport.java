package dev.spotkit.examples.game;

import java.util.Locale;

/**
 * Outcome of a {@link GameBots} run.
 *
 * @param matches matches asked for.
 * @param completed matches whose every remaining player got the final line.
 * @param rounds rounds played, summed over the matches (as seen by their players).
 * @param moves match rooms moved to another node by drains during the run.
 * @param expected result lines due: each bot, one per round of its match (up to the round it quits after).
 * @param delivered distinct result lines received.
 * @param lost {@code expected - delivered}: result lines that did not arrive.
 * @param duplicated extra copies of a result line a bot already had.
 * @param reordered lines out of order: a result before its round or after a later one, a round skipped, a final
 *     line before the last result.
 * @param missedMoves results that did not show the move the bot sent for that round.
 * @param roundP50Millis median round duration as a player sees it (round line to result line), in milliseconds.
 * @param roundP99Millis its 99th percentile, in milliseconds.
 * @param movePauseP99Millis 99th percentile of the moved matches' pauses (seal to commit), in milliseconds; 0 when
 *     nothing moved.
 * @param failure null, or why the run failed (a connection dropped, a timeout, ...).
 */
public record GameReport(int matches, int completed, long rounds, int moves, long expected, long delivered,
    long lost, long duplicated, long reordered, long missedMoves, double roundP50Millis, double roundP99Millis,
    double movePauseP99Millis, String failure) {

  /**
   * Whether every match completed and every round result reached every player exactly once, in order, with its
   * move.
   *
   * @return true when completed equals matches, nothing was lost, duplicated, reordered or missed, and nothing
   *     failed.
   */
  public boolean passed() {
    return failure == null && completed == matches && lost == 0 && duplicated == 0 && reordered == 0
        && missedMoves == 0;
  }

  /**
   * The one summary line (the failure, if any, goes to stderr apart from it).
   *
   * @return {@code game-bots: matches=M completed=C rounds=N moves=K lost=0 duplicated=0 reordered=0
   *     missed_moves=0 round_p50_ms=.. round_p99_ms=.. move_pause_p99_ms=..}, one line without a line break;
   *     latencies in milliseconds with two decimals.
   */
  public String line() {
    return String.format(Locale.ROOT,
        "game-bots: matches=%d completed=%d rounds=%d moves=%d lost=%d duplicated=%d reordered=%d missed_moves=%d"
            + " round_p50_ms=%.2f round_p99_ms=%.2f move_pause_p99_ms=%.2f",
        matches, completed, rounds, moves, lost, duplicated, reordered, missedMoves, roundP50Millis, roundP99Millis,
        movePauseP99Millis);
  }
}
