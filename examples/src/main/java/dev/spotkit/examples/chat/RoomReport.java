package dev.spotkit.examples.chat;

import java.util.Locale;

/**
 * One room's part of a {@link BotSwarm} run, so that a run in which a server node died still shows which rooms lost
 * nothing. Its members are the bots that joined it; a member whose connection the server reset or closed is
 * <em>dropped</em>. The counts of deliveries are over the members still connected at the end (the survivors): each
 * survivor is due every line of every surviving member, and of a dropped member the lines up to the highest one any
 * survivor received (the room relayed those, so every member gets them; the lines after it may have died with the
 * node). So {@code expected = delivered + lost + timedOut} over the survivors.
 *
 * @param room the room's name, e.g. {@code room3}.
 * @param node the node the room ran on when its members had joined, from the server's {@code /where} answer (hex);
 *     {@code ?} when no member got an answer.
 * @param members bots that joined it, 1 or more.
 * @param dropped members whose connection the server reset or closed, 0 to {@code members}.
 * @param expected deliveries due to the survivors, 0 or more.
 * @param delivered distinct lines the survivors received, 0 to {@code expected}.
 * @param lost deliveries due to survivors that did not arrive although the run did not time out, 0 or more.
 * @param timedOut deliveries due to survivors still outstanding when the run hit its timeout, 0 or more.
 * @param duplicated extra copies of a line any member (dropped or not) already had, 0 or more.
 * @param reordered lines any member received after a later line of the same sender, 0 or more.
 */
public record RoomReport(String room, String node, int members, int dropped, long expected, long delivered,
    long lost, long timedOut, long duplicated, long reordered) {

  /**
   * Whether the room has a survivor and every survivor got every line due to it exactly once, in each sender's order.
   *
   * @return true when at least one member is still connected and lost, timed out, duplicated and reordered are all
   *     0; false for a room whose members were all dropped (nothing could be checked).
   */
  public boolean clean() {
    return members > dropped && lost == 0 && timedOut == 0 && duplicated == 0 && reordered == 0;
  }

  /**
   * The room's summary line.
   *
   * @return {@code chat-bots: room=R node=HEX members=M dropped=D expected=E delivered=N lost=L duplicated=U
   *     reordered=O timed_out=T clean=true|false}, one line without a line break.
   */
  public String line() {
    return String.format(Locale.ROOT, "chat-bots: room=%s node=%s members=%d dropped=%d expected=%d delivered=%d"
            + " lost=%d duplicated=%d reordered=%d timed_out=%d clean=%b", room, node, members, dropped, expected,
        delivered, lost, duplicated, reordered, timedOut, clean());
  }
}
