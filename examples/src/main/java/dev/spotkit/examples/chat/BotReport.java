package dev.spotkit.examples.chat;

import java.util.Locale;

/**
 * Outcome of a {@link BotSwarm} run. The deliveries due split into three: {@code expected = delivered + lost +
 * timedOut}. A bot whose connection the server dropped is due every line of its room; a bot still connected is due
 * every line of its room but those a dropped member never got through (see {@link RoomReport}).
 *
 * @param clients bots connected.
 * @param rooms rooms used.
 * @param sent lines the bots wrote.
 * @param expected deliveries due: for each room, members x lines sent by its members (the sender too).
 * @param delivered distinct lines received (each (receiver, sender, seq) counted once).
 * @param lost deliveries that definitely will not arrive: those due to a bot whose connection the server reset or
 *     closed, and those still missing when the run ended early without timing out (a refused join, a failed
 *     send); 0 or more.
 * @param timedOut deliveries still outstanding, to bots whose connection was still open, when the run hit its
 *     timeout (slow, not known lost); 0 or more.
 * @param reset bots whose connection the server reset or closed before the run ended (named in
 *     {@code failure}); 0 or more.
 * @param duplicated extra copies of a line a receiver already had.
 * @param reordered lines a receiver got after a later line of the same sender.
 * @param p50Millis median delivery latency, in milliseconds: from the send (with {@code --rate}: from the line's
 *     intended send time) to its receipt, over every delivery.
 * @param p99Millis 99th percentile delivery latency, in milliseconds.
 * @param p999Millis 99.9th percentile delivery latency, in milliseconds.
 * @param deliveriesPerSecond sustained deliveries per second: {@code delivered} over the time from the start of
 *     sending (the schedule's start with {@code --rate}) to the last delivery; 0 when nothing was delivered.
 * @param failure null, or why the run failed (join timeout, deliveries timed out, connections reset...).
 * @param perRoom one {@link RoomReport} per room, in room order; empty when not computed (a report made by hand).
 */
public record BotReport(int clients, int rooms, long sent, long expected, long delivered, long lost, long timedOut,
    int reset, long duplicated, long reordered, double p50Millis, double p99Millis, double p999Millis,
    double deliveriesPerSecond, String failure, java.util.List<RoomReport> perRoom) {

  /** Copies {@code perRoom}. */
  public BotReport {
    perRoom = java.util.List.copyOf(perRoom);
  }

  /**
   * A report without rooms' parts.
   *
   * @param clients bots connected.
   * @param rooms rooms used.
   * @param sent lines the bots wrote.
   * @param expected deliveries due.
   * @param delivered distinct lines received.
   * @param lost deliveries that will not arrive.
   * @param timedOut deliveries outstanding at the timeout.
   * @param reset bots whose connection the server dropped.
   * @param duplicated extra copies.
   * @param reordered lines after a later line of the same sender.
   * @param p50Millis median latency, ms.
   * @param p99Millis 99th percentile latency, ms.
   * @param p999Millis 99.9th percentile latency, ms.
   * @param deliveriesPerSecond sustained deliveries per second.
   * @param failure null, or why the run failed.
   */
  public BotReport(final int clients, final int rooms, final long sent, final long expected, final long delivered,
      final long lost, final long timedOut, final int reset, final long duplicated, final long reordered,
      final double p50Millis, final double p99Millis, final double p999Millis, final double deliveriesPerSecond,
      final String failure) {
    this(clients, rooms, sent, expected, delivered, lost, timedOut, reset, duplicated, reordered, p50Millis,
        p99Millis, p999Millis, deliveriesPerSecond, failure, java.util.List.of());
  }

  /**
   * Whether every line reached every member exactly once and in each sender's order.
   *
   * @return true when lost, timed out, reset, duplicated and reordered are all 0 and nothing failed.
   */
  public boolean passed() {
    return failure == null && lost == 0 && timedOut == 0 && reset == 0 && duplicated == 0 && reordered == 0;
  }

  /**
   * The one summary line (the failure, if any, goes to stderr apart from it).
   *
   * @return {@code chat-bots: clients=N rooms=R sent=S expected=E delivered=D lost=L duplicated=U reordered=O
   *     timed_out=T reset=B p50_ms=.. p99_ms=.. p999_ms=.. deliveries_per_s=..}, one line without a line break:
   *     {@code lost} counts deliveries that will not arrive, {@code timed_out} those still outstanding when the run
   *     timed out, {@code reset} the bots whose connection the server dropped; latencies in milliseconds with two
   *     decimals; {@code deliveries_per_s} the sustained deliveries per second, a whole number.
   */
  public String line() {
    return String.format(Locale.ROOT,
        "chat-bots: clients=%d rooms=%d sent=%d expected=%d delivered=%d lost=%d duplicated=%d reordered=%d"
            + " timed_out=%d reset=%d p50_ms=%.2f p99_ms=%.2f p999_ms=%.2f deliveries_per_s=%.0f",
        clients, rooms, sent, expected, delivered, lost, duplicated, reordered, timedOut, reset, p50Millis,
        p99Millis, p999Millis, deliveriesPerSecond);
  }
}
