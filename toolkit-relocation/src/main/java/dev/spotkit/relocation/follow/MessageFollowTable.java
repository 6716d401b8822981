package dev.spotkit.relocation.follow;

import dev.spotkit.relocation.Message;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One node's Message Follow routes (spec 002 section 7.3): installed from the source-to-target information
 * recorded when a move committed, never from a Store read; active for {@code MessageFollowDuration} (default
 * 30,000 ms, 0 disables); a followed message travels at most 8 hops; each hop's new AuthorityOwnerGeneration must
 * be greater than the one before; a cycle ends {@code Unavailable}, an ObjectGeneration mismatch
 * {@code InvalidOperation}. Operation id, reply route, payload and the original deadline travel unchanged; a hop
 * waits for its own local relay window, not the request's remaining deadline (spec 001 section 10). No
 * relocation-specific count or byte cap is applied.
 *
 * <p>Note: not thread-safe; one driver calls it serially.
 */
public final class MessageFollowTable {
  /** Default MessageFollowDuration: 30,000 ms. */
  public static final long DEFAULT_DURATION_MS = 30_000;
  /** Default maximum hop count: 8. */
  public static final int DEFAULT_MAX_HOPS = 8;

  private final String selfNode;
  private final long durationMs;
  private final int maxHops;
  private final long relayWindowMs;
  private final Map<String, Route> routes = new LinkedHashMap<>();

  /**
   * A committed route from this node to the new owner.
   *
   * @param objectId the object.
   * @param objectGeneration the object's ObjectGeneration (kept by relocation).
   * @param ownerGeneration the new owner's AuthorityOwnerGeneration.
   * @param targetNode the new owner's node.
   * @param installedAtMs when the route was installed, ms.
   */
  public record Route(String objectId, long objectGeneration, long ownerGeneration, String targetNode,
      long installedAtMs) {
  }

  /**
   * A followed message between hops.
   *
   * @param objectId the object.
   * @param objectGeneration the ObjectGeneration the sender addressed.
   * @param message the work, unchanged (operation id, reply route, original deadline).
   * @param hops hops taken so far, 0..maxHops.
   * @param lastOwnerGeneration the AuthorityOwnerGeneration of the last hop's route, 0 before the first hop.
   * @param visited nodes that already forwarded it, in order.
   */
  public record Followed(String objectId, long objectGeneration, Message message, int hops, long lastOwnerGeneration,
      List<String> visited) {
    /** Copies the visited list. */
    public Followed {
      visited = List.copyOf(visited);
    }

    /**
     * A message that just reached an old address.
     *
     * @param objectId the object.
     * @param objectGeneration the addressed ObjectGeneration.
     * @param message the work.
     * @return the envelope with no hops.
     */
    public static Followed fresh(final String objectId, final long objectGeneration, final Message message) {
      return new Followed(objectId, objectGeneration, message, 0, 0, List.of());
    }
  }

  /** The outcome of {@link #decide}. */
  public sealed interface Decision {
  }

  /**
   * Forward to the next node.
   *
   * @param nextNode where to send it.
   * @param followed the envelope to send (hops + 1, this node appended to visited).
   * @param waitUntilMs this hop's own wait for the forward, now + the local relay window, ms.
   */
  public record Forward(String nextNode, Followed followed, long waitUntilMs) implements Decision {
  }

  /**
   * End the message with a typed error.
   *
   * @param errorKind {@code Unavailable} or {@code InvalidOperation}.
   * @param reason human text with the values.
   */
  public record Reject(String errorKind, String reason) implements Decision {
  }

  /** No route for the object here: not a moved object of this node. */
  public record NoRoute() implements Decision {
  }

  /**
   * Creates a table.
   *
   * @param selfNode this node's id.
   * @param durationMs MessageFollowDuration in ms, 0 disables.
   * @param maxHops maximum hops, 1..
   * @param relayWindowMs this node's local relay window in ms, 1..
   * @throws IllegalArgumentException on a negative duration, or non-positive hops or window.
   */
  public MessageFollowTable(final String selfNode, final long durationMs, final int maxHops,
      final long relayWindowMs) {
    this.selfNode = Objects.requireNonNull(selfNode, "selfNode");
    if (durationMs < 0 || maxHops < 1 || relayWindowMs < 1) {
      throw new IllegalArgumentException("durationMs=" + durationMs + " (>= 0), maxHops=" + maxHops + " (>= 1), "
          + "relayWindowMs=" + relayWindowMs + " (>= 1)");
    }
    this.durationMs = durationMs;
    this.maxHops = maxHops;
    this.relayWindowMs = relayWindowMs;
  }

  /**
   * Installs the route recorded when a move from this node committed.
   *
   * @param route the route.
   * @return false (nothing changes) when a route for the object with an equal or higher owner generation exists,
   *     or when Message Follow is disabled.
   */
  public boolean install(final Route route) {
    final Route old = routes.get(route.objectId());
    if (durationMs == 0 || old != null && old.ownerGeneration() >= route.ownerGeneration()) {
      return false;
    }
    routes.put(route.objectId(), route);
    return true;
  }

  /**
   * Decides what to do with a message for an object that moved away from this node.
   *
   * @param followed the message envelope.
   * @param nowMs the driver's time in ms.
   * @return forward, reject, or no route.
   */
  public Decision decide(final Followed followed, final long nowMs) {
    final Route route = routes.get(followed.objectId());
    if (route == null) {
      return new NoRoute();
    }
    if (nowMs >= route.installedAtMs() + durationMs) {
      routes.remove(followed.objectId());
      return new Reject("Unavailable", "Message Follow for " + route.objectId() + " ended at "
          + (route.installedAtMs() + durationMs) + " ms");
    }
    if (followed.objectGeneration() != route.objectGeneration()) {
      return new Reject("InvalidOperation", "ObjectGeneration " + followed.objectGeneration() + " != "
          + route.objectGeneration());
    }
    if (route.targetNode().equals(selfNode) || followed.visited().contains(route.targetNode())
        || route.ownerGeneration() <= followed.lastOwnerGeneration()) {
      return new Reject("Unavailable", "Message Follow cycle at " + selfNode + " to " + route.targetNode()
          + " (owner generation " + route.ownerGeneration() + " after " + followed.lastOwnerGeneration() + ")");
    }
    if (followed.hops() >= maxHops) {
      return new Reject("Unavailable", "Message Follow hop limit " + maxHops + " reached");
    }
    final List<String> visited = new ArrayList<>(followed.visited());
    visited.add(selfNode);
    return new Forward(route.targetNode(), new Followed(followed.objectId(), followed.objectGeneration(),
        followed.message(), followed.hops() + 1, route.ownerGeneration(), visited), nowMs + relayWindowMs);
  }

  /**
   * Drops routes whose duration ended.
   *
   * @param nowMs the driver's time in ms.
   * @return how many routes were dropped.
   */
  public int expire(final long nowMs) {
    int dropped = 0;
    for (final Iterator<Route> it = routes.values().iterator(); it.hasNext();) {
      if (nowMs >= it.next().installedAtMs() + durationMs) {
        it.remove();
        dropped++;
      }
    }
    return dropped;
  }

  /**
   * Active routes.
   *
   * @return how many routes are installed.
   */
  public int size() {
    return routes.size();
  }
}
