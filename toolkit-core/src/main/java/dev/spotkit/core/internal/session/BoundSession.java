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
import java.time.Duration;
import java.util.Objects;
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
 * {@link SessionBinder#MAX_EARLY_PUSHES} wait, then the session closes.
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

  /**
   * @param binding the binding from the relocation payload: the session's id on its node (greater than zero), the
   *     session node, the next push sequence, whether the session's disconnect already reached the Actor, and the
   *     Session owner that commands 42 and 44 name.
   */
  public BoundSession(final NodeRuntime rt, final Relocations.Binding binding) {
    this.rt = rt;
    this.sessionId = binding.sessionId();
    this.node = binding.node();
    this.nextSequence = new AtomicLong(binding.nextPushSequence());
    this.closed = new AtomicBoolean(binding.closed());
    this.arrived = binding;
  }

  /** The binding as carried in a relocation payload (see {@link Relocations#frameState}); not sealed. */
  public Relocations.Binding binding() {
    return new Relocations.Binding(sessionId, node, nextSequence.get(), closed.get(), arrived.owner(),
        arrived.bindingGeneration(), false);
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
    final byte[] frame = new SessionPush(sessionId, nextSequence.getAndIncrement(), close, payload).encode();
    final PeerConnection open = rt.mesh().open(node).orElse(null);
    if (open != null && open.send(frame)) {
      return true;
    }
    rt.async(() -> rt.mesh().connection(node, rt.mesh().endpointOf(rt.meshName().value(), node,
        "session " + sessionId), Deadline.after(Duration.ofSeconds(5))).send(frame)).whenComplete((sent, f) -> {
          if (f != null || !Boolean.TRUE.equals(sent)) {
            NodeRuntime.LOG.warn("push to session {} on node {} lost: {}", sessionId, node,
                f == null ? "connection closed" : RouteMesh.unwrap(f).toString());
          }
        });
    return true;
  }
}
