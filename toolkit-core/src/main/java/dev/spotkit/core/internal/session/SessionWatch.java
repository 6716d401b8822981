package dev.spotkit.core.internal.session;

import dev.spotkit.core.NodeRid;
import dev.spotkit.core.internal.runtime.ActorCell;
import dev.spotkit.core.internal.runtime.NodeRuntime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Watches the far end of this node's session bindings, so a node that dies without a word (killed, frozen, cut
 * off) leaves no member and no connection behind: every {@link #PERIOD} it checks, in the Location Store, each
 * distinct node that holds the client connection of an actor here ({@link BoundSession}) or the actor of a
 * connection here ({@link SessionBinder.Link}). A node is gone when its descriptor is missing or its owner lease
 * is no longer valid by StoreNow (spec 002 sections 4 and 5; a killed node's lease lapses one TTL after its last
 * renewal, so that is how late this notices at most, plus one period):
 *
 * <ul>
 *   <li>an actor here whose session node is gone is told of the disconnect once, as for a closed connection
 *       (its Spot's {@code OnDisconnectActor}, spec 000 section 3), so a room drops a member nobody can reach;
 *   <li>a connection here whose actor's node is gone closes (the actor died with its node).
 * </ul>
 *
 * A store that does not answer proves nothing: that node is checked again at the next period. The reads run on a
 * virtual thread, one sweep at a time; the tick itself only starts it.
 */
public final class SessionWatch {

  /** How often the far ends are checked: 1 s. */
  static final Duration PERIOD = Duration.ofSeconds(1);

  private final NodeRuntime rt;
  /** Set while one sweep runs; a tick that finds it set skips. */
  private final AtomicBoolean sweeping = new AtomicBoolean();

  private SessionWatch(final NodeRuntime rt) {
    this.rt = rt;
  }

  /**
   * Starts watching on the runtime's session housekeeping timer until the node closes.
   *
   * @param rt a runtime with a mesh and a Location Store.
   */
  public static void start(final NodeRuntime rt) {
    final SessionWatch watch = new SessionWatch(rt);
    rt.scheduler().scheduleWithFixedDelay(watch::tick, PERIOD.toMillis(), PERIOD.toMillis(), TimeUnit.MILLISECONDS);
  }

  private void tick() {
    if (rt.isClosing() || !sweeping.compareAndSet(false, true)) {
      return;
    }
    try {
      rt.async(() -> {
        try {
          sweep();
        } finally {
          sweeping.set(false);
        }
        return null;
      });
    } catch (RejectedExecutionException closing) {
      sweeping.set(false);
    }
  }

  /** One pass: group the far ends by node, check each node once, act on the gone ones. */
  private void sweep() {
    final NodeRid self = rt.nodeRid();
    final Map<NodeRid, List<Runnable>> byNode = new HashMap<>();
    for (ActorCell cell : rt.actors.values()) {
      final BoundSession bound = cell.binding;
      if (bound != null && !bound.closedForActor() && !bound.node().equals(self)) {
        byNode.computeIfAbsent(bound.node(), n -> new ArrayList<>()).add(bound::sessionNodeGone);
      }
    }
    final SessionBinder binder = rt.sessionBinder();
    if (binder != null) {
      for (SessionBinder.Link link : binder.links.values()) {
        final NodeRid node = link.isClosed() ? null : link.actorNode();
        if (node != null) {
          byNode.computeIfAbsent(node, n -> new ArrayList<>()).add(() -> link.actorNodeGone(node));
        }
      }
    }
    for (Map.Entry<NodeRid, List<Runnable>> entry : byNode.entrySet()) {
      if (rt.isClosing()) {
        return;
      }
      final boolean live;
      try {
        live = rt.mesh().live(entry.getKey());
      } catch (RuntimeException unknown) {
        NodeRuntime.LOG.debug("session watch: node {} not checked: {}", entry.getKey(), unknown.toString());
        continue;
      }
      if (!live) {
        entry.getValue().forEach(Runnable::run);
      }
    }
  }
}
