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
 * @param matchmakerIdle how long the {@link Matchmaker} stays active with nobody waiting before it closes itself (its
 *     InstanceSpotIdleTimeout, spec 003 section 6.2; the next player activates it again), 10 ms to 1 h.
 */
public record GameRules(int players, int rounds, Duration roundPeriod, Duration matchmakerIdle) {

  /** Most players per match. */
  public static final int MAX_PLAYERS = 16;
  /** Most rounds per match. */
  public static final int MAX_ROUNDS = 1000;
  /** The matchmaker's idle time of {@link #GameRules(int, int, Duration)}. */
  public static final Duration DEFAULT_MATCHMAKER_IDLE = Duration.ofSeconds(30);

  /**
   * Rules with the default matchmaker idle time ({@link #DEFAULT_MATCHMAKER_IDLE}).
   *
   * @param players players per match, 2 to {@value #MAX_PLAYERS}.
   * @param rounds rounds per match, 1 to {@value #MAX_ROUNDS}.
   * @param roundPeriod the round timer's period, 10 ms to 60 s.
   * @throws IllegalArgumentException when a value is out of range.
   * @throws NullPointerException when {@code roundPeriod} is null.
   */
  public GameRules(final int players, final int rounds, final Duration roundPeriod) {
    this(players, rounds, roundPeriod, DEFAULT_MATCHMAKER_IDLE);
  }

  /**
   * Validates, naming the bad value.
   *
   * @throws IllegalArgumentException when a value is out of range.
   * @throws NullPointerException when {@code roundPeriod} is null.
   */
  public GameRules {
    Objects.requireNonNull(roundPeriod, "roundPeriod");
    Objects.requireNonNull(matchmakerIdle, "matchmakerIdle");
    if (players < 2 || players > MAX_PLAYERS) {
      throw new IllegalArgumentException("players " + players + " must be between 2 and " + MAX_PLAYERS);
    }
    if (rounds < 1 || rounds > MAX_ROUNDS) {
      throw new IllegalArgumentException("rounds " + rounds + " must be between 1 and " + MAX_ROUNDS);
    }
    if (roundPeriod.toMillis() < 10 || roundPeriod.toMillis() > 60_000) {
      throw new IllegalArgumentException("round period " + roundPeriod.toMillis() + " ms must be 10 to 60000 ms");
    }
    if (matchmakerIdle.toMillis() < 10 || matchmakerIdle.toMillis() > 3_600_000) {
      throw new IllegalArgumentException("matchmaker idle time " + matchmakerIdle.toMillis() + " ms must be 10 to"
          + " 3600000 ms");
    }
  }
}
