package dev.spotkit.core.internal.session;

import dev.spotkit.core.internal.relocation.Relocations;
import dev.spotkit.core.internal.runtime.ActorCell;
import dev.spotkit.core.internal.runtime.Cell;
import dev.spotkit.core.internal.runtime.CellState;
import dev.spotkit.core.internal.runtime.Envelope;
import dev.spotkit.core.internal.runtime.NodeConfig;
import dev.spotkit.core.internal.runtime.NodeRuntime;
import dev.spotkit.core.internal.runtime.SpotCell;
import dev.spotkit.core.CreateOutcome;
import dev.spotkit.core.NodeRid;
import dev.spotkit.core.mesh.PeerConnection;
import dev.spotkit.core.wire.Rids;
import dev.spotkit.relocation.Action;
import dev.spotkit.relocation.Message;
import dev.spotkit.relocation.session.SessionAction;
import dev.spotkit.relocation.session.SessionBarrier;
import dev.spotkit.relocation.session.SessionEvent;
import dev.spotkit.relocation.wire.ActorRoute;
import dev.spotkit.relocation.wire.SessionBinding;
import dev.spotkit.relocation.wire.SessionOwner;
import dev.spotkit.relocation.wire.SessionRelocationFrame;
import java.nio.ByteBuffer;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ScheduledFuture;
import dev.spotkit.core.EmptyRequest;
import dev.spotkit.core.EntrySpot;
import dev.spotkit.core.UserSpot;
import dev.spotkit.core.session.Session;
import dev.spotkit.core.session.SessionHandler;
import dev.spotkit.core.session.SessionInbound;
import dev.spotkit.mailbox.DispatchState;
import dev.spotkit.mailbox.OfferResult;
import dev.spotkit.core.Deadline;
import dev.spotkit.core.wire.SessionPush;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The runtime side of the session boundary ({@code notes/session-boundary.md}): binds each accepted
 * connection to a new actor of the configured stable type, created through the Entry Spot's OnCreateActor, and is
 * the <em>Session owner</em> of those bindings while their actors relocate (spec 000 section 4.2 step 8).
 *
 * <p>Everything here runs on a Netty event loop and never blocks: {@link #onOpen} only stages the actor
 * (registry entry, closed mailbox) and hands creation to the Entry Spot's gate. Frames go straight into the
 * actor's mailbox as {@link Envelope.Frame}s, in arrival order; the closed mailbox keeps the ones that arrive
 * before the actor is Ready. A declined or failed creation closes the session.
 *
 * <p><b>Inbound backpressure.</b> Each frame put in the mailbox is counted on the session
 * ({@link Session#frameQueued()}) and uncounted once the actor's handler for it ran
 * ({@link Session#frameHandled()}, from {@link Cell}'s dispatch), once it leaves this node (written to the
 * connection of the actor's node, or captured into a relocation payload), or when it is dropped. At the
 * listener's high-water mark the session stops reading from its socket and resumes at the low-water mark, so a
 * client that sends faster than its actor handles (or while a seal holds its frames) waits in TCP instead of in
 * the heap.
 *
 * <p><b>Disconnect.</b> OnDisconnectActor runs at most once per binding (spec 000 section 3), serialized with
 * the actor's membership changes: the disconnect is queued as a marker behind the binding's last frame, so it
 * runs on the actor's gate once every earlier frame was handled and any join barrier they started completed
 * (a barrier keeps the mailbox closed). There the actor's mailbox is closed again, which freezes its
 * membership (no handler turn, so no new barrier), OnDisconnectActor runs on the lane of the spot the actor
 * belongs to at that moment, and the mailbox reopens afterwards unless the callback destroyed the actor. When the
 * actor is relocating, or may relocate at the end of a running join barrier, or runs on another node, the
 * disconnect travels instead as one-way session work ({@link #CLOSED}) behind the frames, and runs on whichever
 * node and spot the actor ends up in.
 *
 * <p><b>A session-bound actor that relocates</b> (spec 000 section 4.2 step 8; spec 001 sections 4.1, 7, 9 and
 * 11; FACTS.md "Sessions"). The session (socket, codec, Netty channel) stays on this node; only the actor moves.
 * Each {@link Link} drives one {@link SessionBarrier} (toolkit-relocation) over the binding:
 * <ol>
 *   <li>Before the move's capture the relocation source sends command 42 sessionRelocationSeal (a direct call
 *       when the source is this node); the barrier seals the binding and the seal is confirmed with command 43
 *       on the one ordered connection to the source, behind every frame already sent there, so each of them is
 *       in the source's queue (and captured with it) before the source continues.</li>
 *   <li>While sealed, frames and the disconnect are held here in arrival order.</li>
 *   <li>The target, after its CAS and queue opening, sends command 44 commit one-way: in one serial step the
 *       route switches to the target, every held item goes there in order, the seal is released; later items go
 *       after them. Before relay-ready an explicit failure makes the source send 44 abort one-way once its queue
 *       is restored: the held items go back to the source route in order.</li>
 *   <li>No matching 44 within SessionRelocationSealTimeout ({@value #SEAL_TIMEOUT_MS} ms from the seal's
 *       install) closes the physical session and cleans up; held frames are dropped (counted back), a held
 *       disconnect still goes to the last route (Message Follow carries it on). A late or foreign 44 logs
 *       {@code late_session_route_update} (WARN, key=value) and changes nothing.</li>
 * </ol>
 * Items for an actor on another node go one-way as command 60 with content type {@link WorkMarks#FRAME_CONTENT},
 * {@link WorkMarks#BAD_FRAME_REPLY_CONTENT} or {@link WorkMarks#CLOSED_CONTENT}, in order, on the one connection to
 * that node.
 * Nothing is acknowledged per frame (spec 001 section 11: no per-message ACK, no sequence numbers, no high-water).
 * Pushes from a moved actor come back as
 * command 62 ({@link dev.spotkit.core.wire.SessionPush}) and are written in the binding's push sequence order
 * (see {@link BoundSession}).
 */
public final class SessionBinder implements SessionHandler {
  /** {@link Envelope.Msg#sessionWork()} of a client frame delivered as a one-way message. */
  public static final int FRAME = 1;
  /** {@link Envelope.Msg#sessionWork()} of a session disconnect (payload: the session id as a Long). */
  static final int CLOSED = 2;
  /**
   * {@link Envelope.Msg#sessionWork()} of the codec's error reply to a bad client frame (payload: the reply): it
   * queues behind the frames before it and is pushed back to the client when the actor reaches it, so it comes
   * after the replies to those frames.
   */
  public static final int BAD_FRAME_REPLY = 3;
  /**
   * {@link Envelope.Msg#sessionWork()} of a route flush marker (payload: "{RID hex}/{token}" as a String): not session
   * work but framework work carried the same way; it ends a sender node's route switch when it reaches the object
   * (see {@code RouteSwitches}; spec 000 section 9).
   */
  public static final int ROUTE_FLUSH = 4;
  /** SessionRelocationSealTimeout: 3,000 ms from the seal's install (spec 000 section 4.2 step 8). */
  public static final long SEAL_TIMEOUT_MS = SessionBarrier.DEFAULT_SEAL_TIMEOUT_MS;
  /**
   * How long a binding whose physical session closed still answers commands 42 and 44, ms: the Message Follow
   * duration (30 s), so a move that starts just after the disconnect still seals (and orders the disconnect).
   */
  static final long CLOSED_BINDING_KEPT_MS = dev.spotkit.relocation.follow.MessageFollowTable.DEFAULT_DURATION_MS;
  /** The binding generation of every binding of this release (a binding is never rebound). */
  public static final long BINDING_GENERATION = 1;
  /** Pushes that arrived ahead of a missing one, at most; one more closes the session: 4096. */
  static final int MAX_EARLY_PUSHES = 4096;
  private static final Object CLOSE_ITEM = new Object();

  /** A bad frame's error reply among a binding's items. */
  private record BadFrameReply(Object reply) {
  }

  /**
   * One binding: a session and its actor, and the driver of the binding's {@link SessionBarrier}. The barrier,
   * the held items and the outbox are guarded by this object's lock (never held across I/O waits: sends only
   * enqueue on a connection); pushes are guarded by {@link #early}.
   */
  public static final class Link implements SessionInbound {
    private final SessionBinder binder;
    private final Session session;
    private final ActorCell actor;
    /** Set once by the first {@link #onClosed}. Written by: the event loop. Read by: any thread. */
    private final AtomicBoolean disconnected = new AtomicBoolean();
    /**
     * The disconnect was handed to this node's local marker path, or reached the actor here: it does not travel
     * with the actor any more (a move's payload carries the binding as closed, and no seal is made).
     */
    private volatile boolean disconnectQueuedHere;
    /** Set by {@link #actorNodeGone}: what cannot reach the dead node is not worth a warning each. */
    private volatile boolean actorGone;
    /** The barrier, created by the first seal; null while the actor never left this node. Guarded by this. */
    private SessionBarrier barrier;
    /** Local item (frame or {@link #CLOSE_ITEM}) behind each barrier Message (identity). Guarded by this. */
    private final Map<Message, Object> items = new IdentityHashMap<>();
    private long nextItem;
    /** The seal timer while sealed. Guarded by this. */
    private ScheduledFuture<?> timer;
    /** Items and raw frames for other nodes not written yet, in order. Guarded by this. */
    private final ArrayDeque<Outbound> outbox = new ArrayDeque<>();
    private boolean sending;
    /** The seal timed out (the barrier is CLOSED). Guarded by this. */
    private boolean timedOut;
    /** Push order: the next sequence to write and the pushes that came early; guarded by {@link #early}. */
    private long nextPush;
    private final TreeMap<Long, Object> early = new TreeMap<>();

    /** One write to another node: session work ({@code msg}) or a raw frame ({@code frame}). */
    private record Outbound(NodeRid node, Envelope.Msg msg, byte[] frame, boolean counted) {
    }

    Link(final SessionBinder binder, final Session session, final ActorCell actor) {
      this.binder = binder;
      this.session = session;
      this.actor = actor;
    }

    public Session session() {
      return session;
    }

    public boolean isClosed() {
      return disconnected.get();
    }

    /**
     * The node the actor moved to, or null while it is on this node (never sealed, or routed back here) or while a
     * move of it holds the seal (the node it leaves may go away before the target's command 44 arrives). Any thread.
     */
    synchronized NodeRid actorNode() {
      final ActorRoute route = barrier == null ? null : barrier.route();
      if (route == null || barrier.seal().isPresent()) { // sealed: a move runs; its 44 or the seal timeout decides
        return null;
      }
      final NodeRid node = Rids.toNodeRid(route.nodeRid());
      return node.equals(binder.rt.nodeRid()) ? null : node;
    }

    /**
     * The actor's node is gone ({@link SessionWatch}: no descriptor, or its owner lease lapsed): the actor died
     * with it, so the client's connection closes (once) rather than staying open to nobody.
     */
    void actorNodeGone(final NodeRid node) {
      if (disconnected.get() || !node.equals(actorNode())) { // switched to a live node, or sealed, since the sweep
        return;
      }
      actorGone = true;
      NodeRuntime.LOG.info("session {}: its actor '{}' was on node {}, which is gone (no descriptor, or its owner"
          + " lease lapsed); closing the session", session.id(), actor.id, node);
      session.close("the server node running your session's actor went away; its state is lost, reconnect");
    }

    /** Whether the disconnect already went to the actor's queue on this node (it then does not travel). */
    public boolean disconnectQueuedHere() {
      return disconnectQueuedHere;
    }

    @Override
    public void onFrame(final Object frame) {
      session.frameQueued(); // before the offer: the handler may run, and uncount it, at once
      submit(frame);
    }

    @Override
    public void onBadFrame(final Object reply, final Session ignored) {
      submit(new BadFrameReply(reply)); // behind the frames before it, wherever the actor runs
    }

    /** After the actor's handler for one of this binding's frames ran. On the actor's gate. */
    public void frameHandled() {
      session.frameHandled();
    }

    @Override
    public void onClosed() {
      if (!disconnected.compareAndSet(false, true)) {
        return;
      }
      binder.rt.metrics().sessionClosed();
      binder.links.remove(session.id(), this);
      actor.creation.thenAccept(outcome -> {
        if (outcome instanceof CreateOutcome.Created<?>) {
          submit(CLOSE_ITEM);
        }
      });
      try {
        binder.rt.scheduler().schedule(() -> binder.bindings.remove(session.id(), this), CLOSED_BINDING_KEPT_MS,
            TimeUnit.MILLISECONDS);
      } catch (RejectedExecutionException closing) {
        binder.bindings.remove(session.id(), this); // the node is closing: no move will seal it any more
      }
    }

    /** One frame or the disconnect, in arrival order: straight to the route, or held while sealed. Any thread. */
    private synchronized void submit(final Object item) {
      if (barrier == null) {
        deliver(null, item);
        return;
      }
      final Message m = Message.send(ByteBuffer.allocate(8).putLong(++nextItem).array());
      items.put(m, item);
      perform(barrier.handle(new SessionEvent.ClientMessageArrived(m, Relocations.nowMs())));
    }

    /**
     * Command 42 for this binding (spec 000 section 4.2 step 8). The first seal creates the barrier on the route
     * of the actor here. Any thread.
     *
     * @return the command 43 to send, or empty when the seal was not installed (logged).
     */
    synchronized Optional<SessionRelocationFrame.Sealed> seal(final SessionRelocationFrame.Seal seal,
        final long atMs) {
      if (barrier == null) {
        final ActorCell here = localCell();
        if (here.state != CellState.READY || here.storeRecord == null) {
          log(Action.Level.WARNING, SessionBarrier.STALE_SESSION_SEAL, "seal of " + seal.relocationId()
              + " but the actor is not Ready on this node");
          return Optional.empty();
        }
        barrier = new SessionBarrier(binder.sessionBinding(this), Relocations.routeOf(here), binder.sealTimeoutMs());
      }
      return perform(barrier.handle(new SessionEvent.SealArrived(seal, atMs)));
    }

    /** Command 44 for this binding: commit or abort, late or foreign. Any thread. */
    synchronized void route(final SessionRelocationFrame.Route route, final long atMs) {
      if (barrier == null) {
        log(Action.Level.WARNING, SessionBarrier.LATE_SESSION_ROUTE_UPDATE, "route update of "
            + route.relocationId() + " matches no seal");
        return;
      }
      perform(barrier.handle(new SessionEvent.RouteArrived(route, atMs)));
    }

    /** The seal timer fired. Scheduler thread. */
    /**
     * The seal timer fired: the time is taken now, but the barrier sees it only after this node's mesh event loops
     * read what their sockets held at that moment, so a command 44 that arrived in time and waited for a busy loop
     * releases the seal instead of losing to the timer (time is judged from when the update arrived).
     */
    private void clock() {
      final long firedAtMs = Relocations.nowMs();
      final dev.spotkit.core.internal.mesh.RouteMesh mesh = binder.rt.mesh();
      if (mesh == null) {
        advance(firedAtMs);
        return;
      }
      try {
        mesh.afterPendingIo(() -> {
          try {
            binder.rt.async(() -> {
              advance(firedAtMs);
              return null;
            });
          } catch (RejectedExecutionException closing) {
            session.close();
          }
        });
      } catch (RuntimeException closing) { // the transport is closing: advance here
        advance(firedAtMs);
      }
    }

    private synchronized void advance(final long nowMs) {
      timer = null;
      if (barrier != null) {
        perform(barrier.handle(new SessionEvent.ClockAdvanced(nowMs)));
      }
    }

    /** Performs a barrier step's actions in order; under this lock. @return the 43 of a seal step, if any. */
    private Optional<SessionRelocationFrame.Sealed> perform(final List<SessionAction> actions) {
      SessionRelocationFrame.Sealed sealed = null;
      for (SessionAction a : actions) {
        switch (a) {
          case SessionAction.SendSealed s -> sealed = s.frame();
          case SessionAction.ForwardToActor f -> deliver(f.route(), items.remove(f.message()));
          case SessionAction.SwitchRoute sw -> NodeRuntime.LOG.debug("session {}: route of actor '{}' switched"
              + " from node {} to node {}", session.id(), actor.id, Rids.toNodeRid(sw.from().nodeRid()),
              Rids.toNodeRid(sw.to().nodeRid()));
          case SessionAction.CloseSession c -> closeAtTimeout(c);
          case SessionAction.Log l -> log(l.level(), l.code(), l.detail());
        }
      }
      armTimer();
      return Optional.ofNullable(sealed);
    }

    private void armTimer() {
      final OptionalLong due = barrier.nextDeadlineMs();
      if (due.isEmpty()) {
        if (timer != null) {
          timer.cancel(false);
          timer = null;
        }
        return;
      }
      if (timer == null) {
        try {
          timer = binder.rt.scheduler().schedule(this::clock, Math.max(0, due.getAsLong() - Relocations.nowMs()),
              TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closing) {
          session.close(); // the node is closing: the session goes with it
        }
      }
    }

    /** REL-28: no matching 44 in time: the physical session closes, held frames drop, the binding is cleaned. */
    private void closeAtTimeout(final SessionAction.CloseSession c) {
      for (Message m : c.dropped()) {
        final Object item = items.remove(m);
        if (item == CLOSE_ITEM) {
          deliver(barrier.route(), item); // the disconnect still reaches the actor, on its last known route
        } else if (item != null) {
          session.frameHandled();
        }
      }
      if (!timedOut) {
        timedOut = true;
        NodeRuntime.LOG.warn("session_seal_timeout session={} actor={} timeoutMs={} dropped={}: no route update"
            + " within SessionRelocationSealTimeout; closing the session", session.id(), actor.id,
            binder.sealTimeoutMs(),
            c.dropped().size());
      }
      session.close("the server could not move your session in time; reconnect");
    }

    private void log(final Action.Level level, final String code, final String detail) {
      if (dev.spotkit.relocation.session.SessionBarrier.LATE_SESSION_ROUTE_UPDATE.equals(code)) {
        binder.rt.events().emit(new dev.spotkit.core.NodeEvent.LateSessionRouteUpdate(java.time.Instant.now(),
            binder.rt.nodeRid(), session.id(), actor.id, detail)); // logs it as one key=value line
        return;
      }
      if (level == Action.Level.ERROR) {
        NodeRuntime.LOG.error("{} session={} actor={} detail={}", code, session.id(), actor.id, detail);
      } else {
        NodeRuntime.LOG.warn("{} session={} actor={} detail={}", code, session.id(), actor.id, detail);
      }
    }

    /** The actor's cell on this node: the one Ready here now (it may have come back), else the original one. */
    private ActorCell localCell() {
      final ActorCell here = binder.rt.actors.get(actor.id);
      return here != null && here.generation == actor.generation ? here : actor;
    }

    /**
     * Hands one item to the actor on {@code route} (null: this node, never sealed). Under this lock, so items go
     * out in the order the barrier released them.
     */
    private void deliver(final ActorRoute route, final Object item) {
      if (item == null) {
        return;
      }
      if (route == null || Rids.toNodeRid(route.nodeRid()).equals(binder.rt.nodeRid())) {
        deliverHere(item);
        return;
      }
      final Envelope.Msg msg = item == CLOSE_ITEM ? new Envelope.Msg(Long.valueOf(session.id()), null, CLOSED)
          : item instanceof BadFrameReply bad ? new Envelope.Msg(bad.reply(), null, BAD_FRAME_REPLY)
          : new Envelope.Msg(item, null, FRAME);
      send(new Outbound(Rids.toNodeRid(route.nodeRid()), msg, null, item != CLOSE_ITEM
          && !(item instanceof BadFrameReply)));
    }

    private void deliverHere(final Object item) {
      final ActorCell here = localCell();
      if (item == CLOSE_ITEM) {
        disconnectHere(here);
        return;
      }
      if (item instanceof BadFrameReply bad) {
        final Envelope.Msg reply = new Envelope.Msg(bad.reply(), null, BAD_FRAME_REPLY);
        final Relocations moving = binder.rt.relocations();
        if ((moving == null || here == actor || !moving.targetIngress(actor.id, reply))
            && here.offerEnvelope(reply) != OfferResult.ACCEPTED) {
          session.push(bad.reply()); // the queue is full or gone: answer at once rather than not at all
        }
        return;
      }
      final Relocations moves = binder.rt.relocations();
      if (moves != null && here != actor && moves.targetIngress(actor.id, new Envelope.Msg(item, null, FRAME))) {
        session.frameHandled(); // it came back and its queue is still diverted: one-way work, not counted
        return;
      }
      final OfferResult result = here.offerEnvelope(new Envelope.Frame(item, this));
      if (result == OfferResult.ACCEPTED) {
        return;
      }
      session.frameHandled(); // never queued
      if (result == OfferResult.MAILBOX_FULL) {
        NodeRuntime.LOG.warn("session {}: mailbox of {} is full (capacity {}); closing the session. Keep the"
            + " inbound high-water mark below the mailbox capacity", session.id(), here.describe(),
            here.mailbox.capacity());
      }
      session.close();
    }

    /**
     * The disconnect for the actor on this node. Serialized with a seal and a capture (the ingress lock): an actor
     * that is moving, or may move at the end of a running join barrier, gets it as one-way session work, which
     * travels with its queue and runs on the spot it ends up in; otherwise the local marker path.
     */
    private void disconnectHere(final ActorCell here) {
      final Envelope.Msg closed = new Envelope.Msg(Long.valueOf(session.id()), null, CLOSED);
      synchronized (here.ingressLock) {
        if (here.relocating == null && !here.barrierActive) {
          disconnectQueuedHere = true;
          queueDisconnect(here);
          return;
        }
        if (here.offerEnvelope(closed) != OfferResult.MAILBOX_FULL) {
          return;
        }
      }
      queueDisconnect(here); // a full bounded mailbox: the local disconnect path retries, then the lane
    }

    /** Writes to another node in order: inline when nothing waits, else behind the waiting writes. */
    private void send(final Outbound out) {
      if (!sending && outbox.isEmpty()) {
        final PeerConnection c = binder.rt.mesh().open(out.node()).orElse(null);
        if (c != null && c.isOpen()) {
          write(c, out);
          return;
        }
      }
      outbox.add(out);
      if (!sending) {
        sending = true;
        binder.rt.async(() -> {
          drain();
          return null;
        });
      }
    }

    /** A virtual thread: dials where needed and writes the waiting items in order. */
    private void drain() {
      for (;;) {
        final Outbound next;
        synchronized (this) {
          next = outbox.peek();
          if (next == null) {
            sending = false;
            return;
          }
        }
        PeerConnection c;
        try {
          c = binder.rt.mesh().connection(next.node(), binder.rt.mesh().endpointOf(binder.rt.meshName().value(),
              next.node(), "session " + session.id()), Deadline.after(Duration.ofSeconds(5)));
        } catch (RuntimeException e) {
          c = null;
        }
        synchronized (this) {
          outbox.poll();
          if (c == null) {
            lost(next, "node " + next.node() + " cannot be reached");
          } else {
            write(c, next);
          }
        }
      }
    }

    private void write(final PeerConnection c, final Outbound out) {
      if (out.frame() != null) {
        if (!c.send(out.frame())) {
          NodeRuntime.LOG.warn("session {}: command 43 to node {} was not sent (connection closed)", session.id(),
              out.node());
        }
        return;
      }
      try {
        binder.rt.mesh().sendOn(c, actor.key, dev.spotkit.core.wire.ApplicationMessage.TargetKind.ACTOR, actor.id,
            actor.generation, 1, out.msg());
        if (out.counted()) {
          session.frameHandled(); // it left this node: the actor's node owns it now
        }
      } catch (RuntimeException e) {
        lost(out, e.toString());
      }
    }

    /** An item that cannot reach the actor's node: never dropped silently, the session closes. */
    private void lost(final Outbound out, final String why) {
      if (out.frame() != null) {
        NodeRuntime.LOG.warn("session {}: command 43 to node {} was not sent: {}", session.id(), out.node(), why);
        return;
      }
      if (out.counted()) {
        session.frameHandled();
      }
      if (!actorGone) {
        NodeRuntime.LOG.warn("session {}: a {} for actor '{}' on node {} was not delivered ({}); closing the"
            + " session", session.id(), out.counted() ? "frame" : "disconnect", actor.id, out.node(), why);
      }
      session.close();
    }

    /** Queues command 43 to the source node behind every item already written or waiting for it. */
    synchronized void sendSealed(final NodeRid to, final byte[] frame) {
      send(new Outbound(to, null, frame, false));
    }

    /** A frame found in the source's queue or ingress hold at a capture: it leaves the count, as one-way work. */
    public Envelope.Msg leaving(final Envelope.Frame frame) {
      session.frameHandled();
      return new Envelope.Msg(frame.payload(), null, FRAME);
    }

    /**
     * Writes a push of the binding in sequence order: pushes that come early wait for the missing ones (at most
     * {@link #MAX_EARLY_PUSHES}), a repeated sequence is ignored. Any thread.
     *
     * @param close true for a close request, then {@code message} is ignored.
     */
    void deliverPush(final long sequence, final boolean close, final Object message) {
      synchronized (early) {
        if (sequence < nextPush) {
          return;
        }
        if (sequence > nextPush) {
          if (early.size() >= MAX_EARLY_PUSHES) {
            NodeRuntime.LOG.warn("session {}: {} pushes wait for push {}, which never came; closing the session",
                session.id(), early.size(), nextPush);
            session.close();
            return;
          }
          early.put(sequence, close ? CLOSE_ITEM : message);
          return;
        }
        write(close ? CLOSE_ITEM : message);
        nextPush++;
        for (Object next = early.remove(nextPush); next != null; next = early.remove(nextPush)) {
          write(next);
          nextPush++;
        }
      }
    }

    private void write(final Object item) {
      if (item == CLOSE_ITEM) {
        session.close();
      } else {
        session.push(item);
      }
    }
  }

  private static final SessionInbound IGNORE = new SessionInbound() {
    @Override
    public void onFrame(final Object frame) {
    }

    @Override
    public void onClosed() {
    }
  };

  private final NodeRuntime rt;
  private final NodeConfig.ActorType type;
  /** Open bindings by session id (pushes of moved actors find their session here). */
  final ConcurrentHashMap<Long, Link> links = new ConcurrentHashMap<>();
  /**
   * Every binding by session id, also one whose session closed, for {@link #CLOSED_BINDING_KEPT_MS} after the
   * close: commands 42 and 44 find their binding here.
   */
  public final ConcurrentHashMap<Long, Link> bindings = new ConcurrentHashMap<>();

  public SessionBinder(final NodeRuntime rt, final NodeConfig.ActorType type) {
    this.rt = rt;
    this.type = type;
  }

  /**
   * Closes the session whose actor could not be created: a drained node (Relocating, Relocated) places nothing new,
   * not even a session's actor, so the client is told to connect to another node (spec 002 section 8: only a
   * Serving node takes placements); any other failure (a declined creation, a closing node) closes it plainly, as
   * the application's own decision is not the framework's to explain.
   *
   * @param rt the node.
   * @param session the session.
   */
  public static void closeNotStarted(final NodeRuntime rt, final Session session) {
    if (!rt.isClosing() && dev.spotkit.core.internal.relocation.HostDrains.drainingHere(rt)) {
      session.close("this server node is being drained; connect to another node");
    } else {
      session.close();
    }
  }

  @Override
  public SessionInbound onOpen(final Session session) {
    if (rt.isClosing()) {
      session.close();
      return IGNORE;
    }
    rt.metrics().sessionOpened();
    final ActorCell actor = rt.creations().stageFrameworkActor(type);
    final Link link = new Link(this, session, actor);
    links.put(session.id(), link);
    bindings.put(session.id(), link);
    actor.session = link;
    actor.creation.whenComplete((outcome, failure) -> {
      if (!(outcome instanceof CreateOutcome.Created<?>)) {
        if (failure != null && !rt.isClosing()) { // a declined creation is the application's decision: no warning
          NodeRuntime.LOG.warn("session {}: its actor of type '{}' was not created ({}); closing the session",
              session.id(), type.stableType(), dev.spotkit.core.internal.mesh.RouteMesh.unwrap(failure).toString());
        }
        closeNotStarted(rt, session); // Lifecycle.abortActor closed it already the same way
      }
    });
    rt.creations().startActor(actor, EmptyRequest.INSTANCE);
    return link;
  }

  /**
   * The open binding of a session of this node.
   *
   * @return the link, or null when the session closed.
   */
  Link link(final long sessionId) {
    return links.get(sessionId);
  }

  /** The SessionRid of a session of this node: its id as 8 big-endian bytes. */
  public static dev.spotkit.relocation.wire.Rid sessionRid(final long sessionId) {
    return dev.spotkit.relocation.wire.Rid.of(ByteBuffer.allocate(8).putLong(sessionId).array());
  }

  /** The session id a SessionRid names, or -1 when it is not one of this node's (not 8 bytes). */
  private static long sessionIdOf(final dev.spotkit.relocation.wire.Rid rid) {
    final byte[] bytes = rid.bytes();
    return bytes.length == 8 ? ByteBuffer.wrap(bytes).getLong() : -1;
  }

  /** The binding a link holds, as commands 42, 43 and 44 name it (this node is its Session owner). */
  /** SessionRelocationSealTimeout here, ms ({@code SessionOptions.relocationSealTimeout}; 3,000 without sessions). */
  long sealTimeoutMs() {
    final dev.spotkit.core.internal.runtime.NodeConfig.SessionSpec spec = rt.config().sessions();
    return spec == null ? SEAL_TIMEOUT_MS : spec.relocationSealTimeout().toMillis();
  }

  SessionBinding sessionBinding(final Link link) {
    final Relocations r = rt.relocations();
    return new SessionBinding(new SessionOwner(Rids.of(rt.nodeRid()), rt.store().lifecycleGeneration(),
        r.ownerId(), r.leaseGeneration()), sessionRid(link.session.id()), BINDING_GENERATION, link.actor.id,
        link.actor.generation);
  }

  /**
   * Command 42 for a binding of this node (spec 000 section 4.2 step 8). Any thread.
   *
   * @param seal the decoded seal.
   * @param atMs when it arrived, {@link Relocations#nowMs()} ms.
   * @return the command 43 to answer with, or empty when the seal was not installed (logged, e.g.
   *     {@code stale_session_seal}).
   */
  public Optional<SessionRelocationFrame.Sealed> onSeal(final SessionRelocationFrame.Seal seal, final long atMs) {
    final Link link = bindingOf(seal);
    if (link == null) {
      NodeRuntime.LOG.warn("{} session={} actor={} detail=no such binding on this node (relocation {})",
          SessionBarrier.STALE_SESSION_SEAL, sessionIdOf(seal.binding().sessionRid()), seal.binding().actorId(),
          seal.relocationId());
      return Optional.empty();
    }
    return link.seal(seal, atMs);
  }

  /**
   * Command 42 from another node: installs the seal and queues command 43 to {@code from}'s node behind every
   * item already sent there (the ordered connection is the fence). Event loop.
   *
   * @param seal the decoded seal.
   * @param from the node that sent it (the relocation's source).
   */
  public void onRemoteSeal(final SessionRelocationFrame.Seal seal, final NodeRid from) {
    final Link link = bindingOf(seal);
    final Optional<SessionRelocationFrame.Sealed> sealed = onSeal(seal, Relocations.nowMs());
    if (link != null && sealed.isPresent()) {
      link.sendSealed(from, dev.spotkit.relocation.wire.SessionRelocationCodec.encode(sealed.get()));
    }
  }

  /**
   * Command 44 for a binding of this node, commit or abort; one-way, nothing is answered (REL-05). A 44 that
   * matches no binding or no seal logs {@code late_session_route_update} and changes nothing (REL-29). Any thread.
   *
   * @param route the decoded route update.
   * @param atMs when it arrived, {@link Relocations#nowMs()} ms.
   */
  public void onRoute(final SessionRelocationFrame.Route route, final long atMs) {
    final Link link = bindingOf(route);
    if (link == null) {
      rt.events().emit(new dev.spotkit.core.NodeEvent.LateSessionRouteUpdate(java.time.Instant.now(), rt.nodeRid(),
          sessionIdOf(route.binding().sessionRid()), route.binding().actorId(), "no such binding on this node"
          + " (relocation " + route.relocationId() + ")")); // logs it as one key=value line
      return;
    }
    link.route(route, atMs);
  }

  private Link bindingOf(final SessionRelocationFrame frame) {
    final Link link = bindings.get(sessionIdOf(frame.binding().sessionRid()));
    return link != null && link.actor.id.equals(frame.binding().actorId()) ? link : null;
  }

  /** Command 62 from the node of a moved actor: a push (or close) for a session of this node. Event loop. */
  public void onPush(final SessionPush push) {
    final Link link = links.get(push.sessionId());
    if (link == null) {
      NodeRuntime.LOG.debug("push to closed session {} dropped", push.sessionId());
      return;
    }
    link.deliverPush(push.sequence(), push.close(), push.close() ? null : rt.copier().decode(push.payload()));
  }

  /**
   * On the gate of the actor (in a mailbox turn): the routed disconnect of its session reached it. Runs the
   * disconnect handling once per binding.
   */
  public static void closedHere(final ActorCell actor) {
    final BoundSession bound = actor.binding;
    final Link link = actor.session;
    if (link != null) {
      link.disconnectQueuedHere = true; // it reached the actor here: a later move carries it as closed
    }
    if (bound == null || bound.markClosed()) {
      disconnect(actor);
    }
  }

  /**
   * The session of a bound actor here is lost without a routed disconnect (its session node is gone): the
   * disconnect handling runs once, queued behind the actor's mailbox as for a closed connection. The caller has
   * marked the binding closed.
   */
  public static void sessionLost(final ActorCell actor) {
    queueDisconnect(actor);
  }

  /** A full bounded mailbox is retried every millisecond, this many times (about 30 s), before the lane fallback. */
  private static final int FULL_MAILBOX_RETRIES = 30_000;

  /**
   * Queues the disconnect behind every frame already in the actor's mailbox, so it runs after them and after any
   * join they start. A full bounded mailbox is retried every millisecond (its frames keep draining); only when it
   * stays full for about 30 s, or the node is closing, does the disconnect fall back to the actor's lifecycle
   * lane, where it runs at once or at the end of a running join barrier.
   */
  private static void queueDisconnect(final ActorCell actor) {
    offerDisconnect(actor, 0);
  }

  private static void offerDisconnect(final ActorCell actor, final int attempt) {
    final OfferResult result = actor.mailbox.offer(new Envelope.Marker(() -> disconnect(actor)));
    if (result != OfferResult.MAILBOX_FULL) {
      return; // ACCEPTED; or RELEASED: the actor is gone and belongs to no spot, nothing to notify
    }
    if (attempt < FULL_MAILBOX_RETRIES) {
      try {
        actor.runtime().scheduler().schedule(() -> offerDisconnect(actor, attempt + 1), 1, TimeUnit.MILLISECONDS);
        return;
      } catch (RejectedExecutionException closing) {
        // the node is closing: notify now through the lane
      }
    }
    actor.control(() -> {
      if (actor.barrierActive) {
        final Runnable before = actor.afterBarrier; // other work waiting for the barrier keeps its turn
        actor.afterBarrier = () -> {
          if (before != null) {
            before.run();
          }
          disconnect(actor);
        };
      } else {
        disconnect(actor);
      }
    });
  }

  /**
   * On the actor's gate with no join barrier running (from the marker, from the lane, or at a barrier's end;
   * also from a release, when the actor is no longer Ready and nothing runs): freeze the membership by closing
   * the mailbox, run OnDisconnectActor on the member spot's lane, then reopen.
   */
  private static void disconnect(final ActorCell actor) {
    if (actor.state != CellState.READY) {
      return;
    }
    actor.mailbox.close();
    final SpotCell spot = actor.membership;
    spot.control(() -> {
      try {
        if (spot.state == CellState.READY) {
          spot.runCallback("onDisconnectActor of " + spot.describe(), false, () -> {
            if (spot.spot instanceof UserSpot<?> user) {
              user.onDisconnectActor(actor.ref());
            } else if (spot.spot instanceof EntrySpot entry) {
              entry.onDisconnectActor(actor.ref());
            }
            return null;
          });
        }
      } finally {
        actor.control(() -> {
          if (actor.state == CellState.READY && !actor.barrierActive
              && actor.mailbox.dispatchState() == DispatchState.CLOSED) {
            actor.mailbox.open();
          }
        });
      }
    });
  }
}
