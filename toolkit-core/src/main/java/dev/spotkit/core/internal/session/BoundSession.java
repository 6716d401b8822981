package dev.spotkit.core.internal.session;

import dev.spotkit.core.internal.mesh.RouteMesh;
import dev.spotkit.core.internal.relocation.Relocations;
import dev.spotkit.core.internal.runtime.JsonCopier;
import dev.spotkit.core.internal.runtime.NodeRuntime;
import dev.spotkit.core.Deadline;
import dev.spotkit.core.NodeRid;
import dev.spotkit.core.mesh.PeerConnection;
import dev.spotkit.core.session.Session;
import dev.spotkit.core.wire.SessionPush;
import dev.spotkit.relocation.wire.ApplicationPayload;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import dev.spotkit.core.internal.runtime.ActorCell;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The client session of a session-bound Actor that relocated at least once, as the Actor sees it
 * ({@code ActorContext.session()}): the session itself stays on the node that accepted the connection (its
 * <em>session node</em>); this view sends there.
 *
 * <p><b>Pushes.</b> Each push takes the next number of the binding's push sequence (it travels with the Actor in
 * the relocation payload, so the numbering continues on every node the Actor reaches). On the session node the
 * push goes straight to the binding; from another node it is encoded by the node's message codec (the same
 * crossing checks as any message between nodes) and sent one-way as command 62
 * ({@link dev.spotkit.core.wire.SessionPush}). The session node writes pushes in sequence order, so the client sees
 * them in push order even when pushes of two nodes of the Actor's path race. Delivery is best effort like
 * {@link Session#push}: a push lost with a connection stalls the later ones at the session node until
 * {@link SessionBinder#MAX_EARLY_PUSHES} wait, then the session closes. While no connection is open, one dial
 * runs for all pushes (at most {@link #MAX_WAITING} wait for it, in order); pushes that cannot reach the session
 * node are dead letters ({@code MeshNode.deadLetters()}, reason {@value #UNREACHABLE}), and a session node that
 * is gone (no descriptor) closes this view and tells the actor's Spot of the disconnect.
 *
 * <p>Inbound flow control is kept by the binding on the session node; here {@link #frameQueued()} and
 * {@link #frameHandled()} do nothing and {@link #pendingFrames()} is 0.
 */
public final class BoundSession implements Session {
  private final NodeRuntime rt;
  private final long sessionId;
  private final NodeRid node;
  private final AtomicLong nextSequence;
  private final AtomicBoolean closed;
  /** The binding as it arrived (Session owner, binding generation); push sequence and closed are live above. */
  private final Relocations.Binding arrived;
  /** The actor this view belongs to (told of the disconnect when the session node is gone), or null. */
  private final ActorCell actor;
  /** Orders sequence numbers with the frames waiting for a dial; never held across a blocking call. */
  private final ReentrantLock lock = new ReentrantLock();
  /** Pushes waiting for the one dial in progress, in push order; null when no dial runs. Guarded by lock. */
  private ArrayDeque<byte[]> waiting;
  /** Until this System.nanoTime(), after a failed dial, pushes are dropped at once. Guarded by lock. */
  private long retryAtNanos = System.nanoTime();

  /**
   * Pushes that may wait for one dial: 16,384. At 1,024, a chat drain under load dropped pushes: 50 players moved at
   * once to nodes with no connection to their session node yet, each received hundreds of lines a second, and the
   * dials took seconds on a busy machine (`chat-demo --drain` under `under-load`, 14,048 lines never delivered).
   */
  static final int MAX_WAITING = 16_384;
  /** How long one dial to the session node may take: 5 s. */
  static final Duration DIAL_TIMEOUT = Duration.ofSeconds(5);
  /** After a failed dial, pushes are dropped at once for 1 s. */
  static final Duration RETRY_AFTER = Duration.ofSeconds(1);
  /** The dead-letter reason of a push that could not reach its session node. */
  static final String UNREACHABLE = "session-node-unreachable";

  /**
   * @param binding the binding from the relocation payload: the session's id on its node (greater than zero), the
   *     session node, the next push sequence, whether the session's disconnect already reached the Actor, and the
   *     Session owner that commands 42 and 44 name.
   * @param actor the actor this view belongs to, told of the disconnect when the session node is gone.
   */
  public BoundSession(final NodeRuntime rt, final Relocations.Binding binding, final ActorCell actor) {
    this.rt = rt;
    this.actor = actor;
    this.sessionId = binding.sessionId();
    this.node = binding.node();
    this.nextSequence = new AtomicLong(binding.nextPushSequence());
    this.closed = new AtomicBoolean(binding.closed());
    this.arrived = binding;
  }

  /** The binding as carried in a relocation payload (see {@link Relocations#frameState}); not sealed. */
  public Relocations.Binding binding() {
    return new Relocations.Binding(sessionId, node, nextSequence.get(), closed.get(), arrived.owner(),
        arrived.bindingGeneration(), 0);
  }

  /** The node that holds the client connection. */
  NodeRid node() {
    return node;
  }

  /** Whether this view was closed (the session ended, or its node is gone). */
  boolean closedForActor() {
    return closed.get();
  }

  /** Marks the session closed for this Actor. @return true the first time. */
  boolean markClosed() {
    return closed.compareAndSet(false, true);
  }

  @Override
  public long id() {
    return sessionId;
  }

  /** An unresolved address naming the session node ({@code spotkit-node-<rid hex>}, port 0). */
  @Override
  public SocketAddress remoteAddress() {
    return InetSocketAddress.createUnresolved("spotkit-node-" + node.hex(), 0);
  }

  @Override
  public boolean isOpen() {
    if (closed.get()) {
      return false;
    }
    if (node.equals(rt.nodeRid())) {
      final SessionBinder binder = rt.sessionBinder();
      final SessionBinder.Link link = binder == null ? null : binder.link(sessionId);
      return link != null && link.session().isOpen();
    }
    return true;
  }

  /**
   * Pushes to the session on its node, in push order.
   *
   * @return false when the session is known closed; true when queued (best effort across nodes).
   * @throws NullPointerException if {@code message} is null.
   * @throws dev.spotkit.core.SpotkitException.InvalidOperation when the message cannot cross nodes (not a
   *     record, enum, String or boxed primitive of plain values), checked before anything is sent.
   * @throws dev.spotkit.core.SpotkitException.CapacityExceeded when its encoding exceeds the mesh frame limit.
   */
  @Override
  public boolean push(final Object message) {
    Objects.requireNonNull(message, "message");
    return send(false, message);
  }

  @Override
  public void frameQueued() {
  }

  @Override
  public void frameHandled() {
  }

  @Override
  public int pendingFrames() {
    return 0;
  }

  @Override
  public void close() {
    if (!closed.get()) {
      send(true, null);
    }
  }

  private boolean send(final boolean close, final Object message) {
    if (closed.get()) {
      return false;
    }
    if (node.equals(rt.nodeRid())) {
      final SessionBinder binder = rt.sessionBinder();
      final SessionBinder.Link link = binder == null ? null : binder.link(sessionId);
      if (link == null) {
        return false;
      }
      link.deliverPush(nextSequence.getAndIncrement(), close, message);
      return link.session().isOpen();
    }
    final ApplicationPayload payload = close ? new ApplicationPayload("close", JsonCopier.JSON, new byte[0])
        : rt.copier().encodeForPeer("session push", message, rt.mesh().maxPayloadBytes(), true);
    final PeerConnection open = rt.mesh().open(node).orElse(null);
    final boolean dial;
    lock.lock();
    try {
      final long sequence = nextSequence.getAndIncrement();
      final byte[] frame = new SessionPush(sessionId, sequence, close, payload).encode();
      if (waiting == null && open != null && open.send(frame)) {
        return true;
      }
      if (System.nanoTime() - retryAtNanos < 0) {
        rt.deadLetters().record(UNREACHABLE, "push " + sequence + " to session " + sessionId + " on node " + node
            + " (a dial failed less than " + RETRY_AFTER.toMillis() + " ms ago)");
        return false;
      }
      if (waiting != null && waiting.size() >= MAX_WAITING) {
        rt.deadLetters().record(UNREACHABLE, "push " + sequence + " to session " + sessionId + " on node " + node
            + " (" + MAX_WAITING + " pushes already wait for the connection)");
        return false;
      }
      dial = waiting == null;
      if (dial) {
        waiting = new ArrayDeque<>();
      }
      waiting.add(frame); // in push order behind the ones waiting for the same dial
    } finally {
      lock.unlock();
    }
    if (dial) {
      rt.async(this::dial);
    }
    return true;
  }

  /**
   * A virtual thread: one dial to the session node for every push waiting on it, then writes them in push order.
   * When the dial fails the waiting pushes are dead letters (counted, logged with a rate limit, never retried
   * into memory) and later pushes are dropped at once for {@link #RETRY_AFTER}; when the session node no longer
   * publishes a descriptor (it stopped or its lease lapsed, spec 002 section 5) the session is lost for good: this
   * view closes and the actor's Spot is told of the disconnect as for a closed connection.
   */
  private Void dial() {
    PeerConnection c = null;
    String why = null;
    try {
      c = rt.mesh().connection(node, rt.mesh().endpointOf(rt.meshName().value(), node, "session " + sessionId),
          Deadline.after(DIAL_TIMEOUT));
    } catch (RuntimeException e) {
      why = RouteMesh.unwrap(e).toString();
      lock.lock();
      try {
        retryAtNanos = System.nanoTime() + RETRY_AFTER.toNanos(); // later pushes are refused at once
      } finally {
        lock.unlock();
      }
    }
    for (;;) {
      final byte[] next;
      lock.lock();
      try {
        next = waiting.poll();
        if (next == null) {
          waiting = null;
          break;
        }
      } finally {
        lock.unlock();
      }
      if (c == null || !c.send(next)) {
        rt.deadLetters().record(UNREACHABLE, "a push to session " + sessionId + " on node " + node + " ("
            + (why == null ? "connection closed" : why) + ")");
      }
    }
    if (c == null && actor != null && !sessionNodeLive()) {
      sessionNodeGone();
    }
    return null;
  }

  private boolean sessionNodeLive() {
    try {
      return rt.mesh().live(node);
    } catch (RuntimeException e) {
      return true; // the store did not answer: not proof that the node is gone
    }
  }

  /**
   * The session node is gone (no descriptor, or its owner lease lapsed: {@link SessionWatch} or a failed dial
   * found it): this view closes once and the actor's Spot hears of the disconnect.
   */
  void sessionNodeGone() {
    if (actor != null && markClosed()) {
      NodeRuntime.LOG.info("session {} of actor '{}': its session node {} is gone (no descriptor, or its owner"
          + " lease lapsed); the session is closed for the actor", sessionId, actor.id, node);
      SessionBinder.sessionLost(actor);
    }
  }
}
