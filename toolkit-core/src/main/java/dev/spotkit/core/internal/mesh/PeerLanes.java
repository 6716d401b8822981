package dev.spotkit.core.internal.mesh;

import dev.spotkit.core.Deadline;
import dev.spotkit.core.NodeRid;
import dev.spotkit.core.internal.runtime.NodeRuntime;
import dev.spotkit.core.mesh.PeerConnection;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Framework frames from this node to one peer node, written in the order they were handed over, whether or not a
 * connection to the peer is open yet (spec 000 section 9: order holds on one connection; it must also hold across
 * the dial that opens it). A frame handed over while the lane is idle and a connection is open is written inline;
 * otherwise it waits behind the frames before it while one virtual thread dials and writes them in order.
 *
 * <p>Used for the Session owner's commands 42 and 44 (spec 000 section 4.2 step 8): a target's command 44 commit
 * dialled on a virtual thread must reach the Session owner before the same node's command 42 of the next move,
 * or the seal would name a route the binding does not have yet.
 *
 * <p>Thread-safety: any thread; {@link #send} never blocks on I/O (it may write to an open connection, which only
 * enqueues).
 */
public final class PeerLanes {
  /** The longest wait for a connection to the peer, per frame that needs one: 5,000 ms. */
  static final Duration DIAL_WITHIN = Duration.ofSeconds(5);
  private final NodeRuntime rt;
  /** One lane per peer; a lane is kept for the node's life (a few bytes per peer ever written to). */
  private final Map<NodeRid, Lane> lanes = new ConcurrentHashMap<>();

  /**
   * @param rt the node's runtime (its mesh, descriptors and virtual threads).
   */
  public PeerLanes(final NodeRuntime rt) {
    this.rt = rt;
  }

  /**
   * Writes {@code frame} to {@code peer} behind every frame handed over for that peer before.
   *
   * @param peer the peer node (not this node).
   * @param frame the encoded mesh frame.
   * @param what names the frame in logs and errors, e.g. "session route update".
   * @param notSent called once, on any thread, with the reason when the frame could not be written (the peer has
   *     no descriptor, cannot be reached within 5,000 ms, or its connection closed); never called otherwise.
   */
  public void send(final NodeRid peer, final byte[] frame, final String what, final Consumer<String> notSent) {
    lanes.computeIfAbsent(peer, Lane::new).send(new Item(frame, what, notSent, null));
  }

  /**
   * Runs {@code task} on a virtual thread behind every frame and task handed over for {@code node} before: the
   * in-process form of a frame to this node itself (a Session owner that is the relocation's source or target),
   * never inline, since the caller may hold a monitor the task takes.
   *
   * @param node the node whose lane orders the task (this node).
   * @param task the work; an exception it throws is logged and does not stop the lane.
   * @param notRun called once with the reason when the task cannot run (this node is closing).
   */
  public void run(final NodeRid node, final Runnable task, final Consumer<String> notRun) {
    lanes.computeIfAbsent(node, Lane::new).send(new Item(null, "local task", notRun, task));
  }

  private record Item(byte[] frame, String what, Consumer<String> notSent, Runnable local) {
  }

  private final class Lane {
    private final NodeRid peer;
    private final ArrayDeque<Item> waiting = new ArrayDeque<>();
    private boolean draining;

    Lane(final NodeRid peer) {
      this.peer = peer;
    }

    synchronized void send(final Item item) {
      if (!draining && waiting.isEmpty() && item.local() == null) {
        final PeerConnection open = rt.mesh().open(peer).orElse(null);
        if (open != null) {
          write(open, item);
          return;
        }
      }
      waiting.add(item);
      if (!draining) {
        draining = true;
        try {
          rt.async(() -> {
            drain();
            return null;
          });
        } catch (java.util.concurrent.RejectedExecutionException closing) {
          draining = false;
          for (Item dropped : waiting) {
            dropped.notSent().accept("this node is closing");
          }
          waiting.clear();
        }
      }
    }

    /** A virtual thread: dials where needed and writes the waiting frames in order. */
    private void drain() {
      for (;;) {
        final Item next;
        synchronized (this) {
          next = waiting.peek();
          if (next == null) {
            draining = false;
            return;
          }
        }
        if (next.local() != null) {
          try {
            next.local().run();
          } catch (RuntimeException e) {
            NodeRuntime.LOG.warn("{} failed: {}", next.what(), e.toString());
          }
          synchronized (this) {
            waiting.poll();
          }
          continue;
        }
        PeerConnection c;
        String why = null;
        try {
          c = rt.mesh().connection(peer, rt.mesh().endpointOf(rt.meshName().value(), peer, next.what()),
              Deadline.after(DIAL_WITHIN));
        } catch (RuntimeException e) {
          c = null;
          why = RouteMesh.unwrap(e).toString();
        }
        synchronized (this) {
          waiting.poll();
          if (c == null) {
            next.notSent().accept(why);
          } else {
            write(c, next);
          }
        }
      }
    }

    private void write(final PeerConnection c, final Item item) {
      if (!c.send(item.frame())) {
        item.notSent().accept("connection closed");
      }
    }
  }
}
