package dev.spotkit.examples.chat;

import dev.spotkit.core.InstanceSpot;
import dev.spotkit.core.InstanceSpotContext;
import dev.spotkit.core.SpotHandlers;
import dev.spotkit.core.SpotRef;
import dev.spotkit.core.SpotkitException;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionException;
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
 *
 * <p>A room whose node died cannot send its last count: every {@link #CHECK_PERIOD} the directory asks each
 * listed room for its count ({@link Room.CountNow}); a room that is gone (NotFound), or twice in a row not
 * reachable (Unavailable: its node stopped or its owner lease lapsed), leaves the listing; the count itself
 * comes only from the room's own {@link Count} messages (in order). A room that answers nothing in time stays.
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

  /** How often the listed rooms are checked: 2 s. */
  static final Duration CHECK_PERIOD = Duration.ofSeconds(2);

  /**
   * The outcome of one check of a room (sent by the directory to itself).
   *
   * @param room the room incarnation checked.
   * @param members its member count (0 and up) when it answered, -1 when it is gone, -2 when it could not be
   *     reached.
   */
  record Checked(SpotRef room, int members) {
  }

  private final InstanceSpotContext ctx;
  private final Map<SpotRef, Count> counts = new HashMap<>();
  /** Rooms that could not be reached at the last check (a second miss in a row drops them). */
  private final Set<SpotRef> unreachable = new HashSet<>();

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
  public void onInitialize() {
    timers().every("check-rooms", CHECK_PERIOD, this::checkRooms);
  }

  @Override
  public void configure(final SpotHandlers on) {
    on.message(Count.class, count -> {
      unreachable.remove(count.room());
      if (count.members() == 0) {
        counts.remove(count.room());
      } else {
        counts.put(count.room(), count);
      }
    }).message(Checked.class, this::checked)
      .request(Describe.class, describe -> new Description(describe()));
  }

  /** Asks every listed room for its count; each answer (or failure) comes back as a {@link Checked}. */
  private void checkRooms() {
    for (SpotRef room : List.copyOf(counts.keySet())) {
      ctx.toSpot(room).request(new Room.CountNow(), Integer.class).timeout(CHECK_PERIOD).toFuture()
          .handle((members, failure) -> {
            final Throwable why = failure instanceof CompletionException c && c.getCause() != null ? c.getCause()
                : failure;
            final int outcome = why == null ? members
                : why instanceof SpotkitException.NotFound ? -1
                : why instanceof SpotkitException.Unavailable ? -2 : Integer.MIN_VALUE;
            if (outcome != Integer.MIN_VALUE) { // a timeout proves nothing
              tellSelf(new Checked(room, outcome));
            }
            return null;
          });
    }
  }

  private void checked(final Checked checked) {
    if (!counts.containsKey(checked.room())) {
      return; // it sent its last count meanwhile
    }
    if (checked.members() >= 0) {
      unreachable.remove(checked.room()); // alive; its own Count messages keep the number right
    } else if (checked.members() == -1 || !unreachable.add(checked.room())) {
      unreachable.remove(checked.room());
      counts.remove(checked.room());
    }
  }

  private void tellSelf(final Object message) {
    try {
      ctx.toSpot(ctx.self()).send(message);
    } catch (SpotkitException e) {
      // the directory is closing: nothing left to list
    }
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
