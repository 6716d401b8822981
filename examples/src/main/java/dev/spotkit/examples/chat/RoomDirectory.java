package dev.spotkit.examples.chat;

import java.util.Map;
import java.util.StringJoiner;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * Member counts of the rooms, for {@code /rooms}. Rooms write their own count after every membership change;
 * players read a snapshot.
 *
 * <p><b>Note:</b> this is a plain thread-safe map shared by the spots of one node, which is enough for a
 * single-node demo. With several nodes the directory would be an Instance Spot that rooms send their counts
 * to.
 */
public final class RoomDirectory {

  private final Map<String, Integer> members = new ConcurrentSkipListMap<>();

  /**
   * Records a room's member count. Any thread.
   *
   * @param room the room's name.
   * @param count members now; 0 removes the room from the listing.
   */
  public void update(final String room, final int count) {
    if (count == 0) {
      members.remove(room);
    } else {
      members.put(room, count);
    }
  }

  /**
   * The {@code /rooms} answer. Any thread.
   *
   * @return {@code rooms: ROOM(3) ROOM(1)} in name order, or {@code rooms: none}.
   */
  public String describe() {
    if (members.isEmpty()) {
      return "rooms: none";
    }
    final StringJoiner line = new StringJoiner(" ", "rooms: ", "");
    members.forEach((room, count) -> line.add(room + "(" + count + ")"));
    return line.toString();
  }
}
