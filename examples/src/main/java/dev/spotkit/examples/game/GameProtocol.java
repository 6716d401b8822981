package dev.spotkit.examples.game;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The game's line protocol (one UTF-8 line per message, over the session support's {@code LineCodec}), and the
 * formatting and parsing of its lines, shared by the server ({@link GamePlayer}, {@link Match}) and the bots
 * ({@link GameBot}).
 *
 * <p>Client to server:
 * <ul>
 *   <li>{@code /queue}: join matchmaking; answered {@code ok queue}.</li>
 *   <li>{@code /move N}: the move for the open round, N in {@value #MIN_MOVE}..{@value #MAX_MOVE}; answered
 *       {@code ok move MATCH ROUND N}. The first move of a player in a round counts.</li>
 *   <li>{@code /where}: {@code where MATCH node=HEX}, the node the player (and its match) runs on.</li>
 * </ul>
 *
 * <p>Server to client, in this order for one match: {@code match MATCH players=a,b,c,d rounds=R}; then per round
 * {@code round MATCH r} and {@code result MATCH r moves=a:3,b:-,... scores=a:3,...} (the moves of that round,
 * {@code -} for none, and the scores so far); {@code forfeit MATCH name} when a player disconnected; finally
 * {@code final MATCH scores=a:12,... forfeit=d winner=a} ({@code forfeit=-} when nobody forfeited). Errors are
 * {@code error: ...} lines.
 *
 * <p>Scoring ("unique bid"): each player picks a number; a player scores its number when no other player picked
 * the same number that round, else 0; no move scores 0. The winner has the highest total among the players who
 * did not forfeit (the first in roster order on a tie).
 */
public final class GameProtocol {

  /** Smallest move. */
  public static final int MIN_MOVE = 1;
  /** Largest move. */
  public static final int MAX_MOVE = 9;
  /** Prefix of error lines. */
  public static final String ERROR = "error: ";
  /** The answer to {@code /queue}. */
  public static final String OK_QUEUE = "ok queue";
  /** First word of the match line. */
  public static final String MATCH = "match";
  /** First word of a round line. */
  public static final String ROUND = "round";
  /** First word of a result line. */
  public static final String RESULT = "result";
  /** First word of the final line. */
  public static final String FINAL = "final";
  /** First word of a forfeit line. */
  public static final String FORFEIT = "forfeit";
  /** The help text of an unknown command. */
  public static final String HELP = "/queue, /move N (N in " + MIN_MOVE + ".." + MAX_MOVE + "), /where";

  private GameProtocol() {
  }

  /**
   * {@code name:value} pairs joined with commas, in map order.
   *
   * @param values by name.
   * @return e.g. {@code a:3,b:-}; empty for an empty map.
   */
  public static String pairs(final Map<String, String> values) {
    final List<String> parts = new ArrayList<>(values.size());
    values.forEach((name, value) -> parts.add(name + ":" + value));
    return String.join(",", parts);
  }

  /**
   * Parses {@code key=a:1,b:2} out of a line.
   *
   * @param line a result or final line.
   * @param key e.g. {@code moves} or {@code scores}.
   * @return the pairs in line order; empty when the key is missing.
   */
  public static Map<String, String> parsePairs(final String line, final String key) {
    final Map<String, String> pairs = new LinkedHashMap<>();
    for (String word : line.split(" ")) {
      if (word.startsWith(key + "=")) {
        for (String pair : word.substring(key.length() + 1).split(",")) {
          final int colon = pair.indexOf(':');
          if (colon > 0) {
            pairs.put(pair.substring(0, colon), pair.substring(colon + 1));
          }
        }
      }
    }
    return pairs;
  }

  /**
   * The round points of "unique bid": a player's move when nobody else picked it, else 0; no move scores 0.
   *
   * @param moves each active player's move, or null for none.
   * @return the points by player, in the order of {@code moves}.
   */
  public static Map<String, Integer> points(final Map<String, Integer> moves) {
    final Map<Integer, Integer> picked = new LinkedHashMap<>();
    moves.values().forEach(move -> {
      if (move != null) {
        picked.merge(move, 1, Integer::sum);
      }
    });
    final Map<String, Integer> points = new LinkedHashMap<>();
    moves.forEach((name, move) -> points.put(name, move != null && picked.get(move) == 1 ? move : 0));
    return points;
  }
}
