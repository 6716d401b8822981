package dev.spotkit.examples.chat;

import java.util.Locale;

/**
 * Outcome of a {@link ChatBots} run.
 *
 * @param clients bots connected.
 * @param rooms rooms used.
 * @param sent lines the bots wrote.
 * @param expected deliveries due: for each room, members x lines sent by its members (the sender too).
 * @param delivered distinct lines received (each (receiver, sender, seq) counted once).
 * @param duplicated extra copies of a line a receiver already had.
 * @param reordered lines a receiver got after a later line of the same sender.
 * @param p50Millis median latency from send to receipt.
 * @param p99Millis 99th percentile latency from send to receipt.
 * @param failure null, or why the run could not finish (join timeout, connection refused...).
 */
public record BotReport(int clients, int rooms, long sent, long expected, long delivered, long duplicated,
    long reordered, double p50Millis, double p99Millis, String failure) {

  /**
   * Deliveries that never arrived.
   *
   * @return expected minus delivered.
   */
  public long lost() {
    return expected - delivered;
  }

  /**
   * Whether every line reached every member exactly once and in each sender's order.
   *
   * @return true when lost, duplicated and reordered are all 0 and nothing failed.
   */
  public boolean passed() {
    return failure == null && lost() == 0 && duplicated == 0 && reordered == 0;
  }

  /**
   * The one summary line.
   *
   * @return {@code chat-bots: clients=N rooms=R sent=S expected=E delivered=D lost=L duplicated=U
   *     reordered=O p50_ms=.. p99_ms=..}.
   */
  public String line() {
    return String.format(Locale.ROOT,
        "chat-bots: clients=%d rooms=%d sent=%d expected=%d delivered=%d lost=%d duplicated=%d reordered=%d"
            + " p50_ms=%.2f p99_ms=%.2f",
        clients, rooms, sent, expected, delivered, lost(), duplicated, reordered, p50Millis, p99Millis);
  }
}
