package dev.spotkit.examples.game;

import java.time.Duration;
import java.util.Objects;

/**
 * The rules every node of one game server shares.
 *
 * @param players players per match, 2 to {@value #MAX_PLAYERS}.
 * @param rounds rounds per match, 1 to {@value #MAX_ROUNDS}.
 * @param roundPeriod the period of a match's round timer: a round closes at the first tick after every player moved
 *     (so a round of quick players lasts up to one period), 10 ms to 60 s.
 */
public record GameRules(int players, int rounds, Duration roundPeriod) {

  /** Most players per match. */
  public static final int MAX_PLAYERS = 16;
  /** Most rounds per match. */
  public static final int MAX_ROUNDS = 1000;

  /**
   * Validates, naming the bad value.
   *
   * @throws IllegalArgumentException when a value is out of range.
   * @throws NullPointerException when {@code roundPeriod} is null.
   */
  public GameRules {
    Objects.requireNonNull(roundPeriod, "roundPeriod");
    if (players < 2 || players > MAX_PLAYERS) {
      throw new IllegalArgumentException("players " + players + " must be between 2 and " + MAX_PLAYERS);
    }
    if (rounds < 1 || rounds > MAX_ROUNDS) {
      throw new IllegalArgumentException("rounds " + rounds + " must be between 1 and " + MAX_ROUNDS);
    }
    if (roundPeriod.toMillis() < 10 || roundPeriod.toMillis() > 60_000) {
      throw new IllegalArgumentException("round period " + roundPeriod.toMillis() + " ms must be 10 to 60000 ms");
    }
  }
}
