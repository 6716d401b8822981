package dev.spotkit.examples.chat;

import dev.spotkit.core.InstanceSpot;
import dev.spotkit.core.InstanceSpotContext;
import dev.spotkit.core.SpotHandlers;
import dev.spotkit.core.SpotRef;
import java.util.HashMap;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeMap;

/**
 * Member counts of the rooms, for {@code /rooms}: one Instance Spot for the whole mesh ({@link #ID}), which
 * every {@link Room} tells its member count after each change and every {@link Player} asks with a
 * {@link Describe} request, from any node. {@link ChatServer} activates it on the first node at start, so all
 * nodes find it there.
 *
 * <p>Counts are kept per room incarnation (its {@link SpotRef}), not per name: a room that closed on one node
 * and was created again on another sends from two refs, and their messages may arrive in either order; each
 * incarnation's own messages arrive in order and its last count is 0. A listing sums the incarnations of a
 * name. Across nodes the listing may be a moment behind a join; on one node a room's count is queued before
 * the room answers the join, so {@code /rooms} after {@code ok join} already counts the player.
 */
public final class RoomDirectory implements InstanceSpot {

  /** The directory's spot id. */
  public static final String ID = "chat-room-directory";
  /** Its stable type. */
  public static final String TYPE = "room-directory";

  /**
   * A room's member count now.
   *
   * @param room the room incarnation.
   * @param name its name.
   * @param members members now; 0 removes it from the listing.
   */
  public record Count(SpotRef room, String name, int members) {
  }

  /** Asks for the {@code /rooms} line (request; the reply is {@link Description}). */
  public record Describe() {
  }

  /**
   * The {@code /rooms} line.
   *
   * @param line {@code rooms: ROOM(3) ROOM(1)} in name order, or {@code rooms: none}.
   */
  public record Description(String line) {
  }

  private final InstanceSpotContext ctx;
  private final Map<SpotRef, Count> counts = new HashMap<>();

  /**
   * Built by the runtime on the first message with Instance intent.
   *
   * @param ctx this spot's context.
   */
  public RoomDirectory(final InstanceSpotContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public InstanceSpotContext context() {
    return ctx;
  }

  @Override
  public void configure(final SpotHandlers on) {
    on.message(Count.class, count -> {
      if (count.members() == 0) {
        counts.remove(count.room());
      } else {
        counts.put(count.room(), count);
      }
    }).request(Describe.class, describe -> new Description(describe()));
  }

  private String describe() {
    if (counts.isEmpty()) {
      return "rooms: none";
    }
    final Map<String, Integer> byName = new TreeMap<>();
    for (Count count : counts.values()) {
      byName.merge(count.name(), count.members(), Integer::sum);
    }
    final StringJoiner line = new StringJoiner(" ", "rooms: ", "");
    byName.forEach((room, members) -> line.add(room + "(" + members + ")"));
    return line.toString();
  }
}
