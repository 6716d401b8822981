package dev.spotkit.core.internal.session;

import dev.spotkit.core.CreateOutcome;
import dev.spotkit.core.EmptyRequest;
import dev.spotkit.core.EntrySpot;
import dev.spotkit.core.UserSpot;
import dev.spotkit.core.internal.mesh.RouteMesh;
import dev.spotkit.core.internal.relocation.RelocationSource;
import dev.spotkit.core.internal.relocation.Relocations;
import dev.spotkit.core.internal.runtime.ActorCell;
import dev.spotkit.core.internal.runtime.Address;
import dev.spotkit.core.internal.runtime.Cell;
import dev.spotkit.core.internal.runtime.CellState;
import dev.spotkit.core.internal.runtime.Envelope;
import dev.spotkit.core.internal.runtime.JsonCopier;
import dev.spotkit.core.internal.runtime.Messaging;
import dev.spotkit.core.internal.runtime.NodeConfig;
import dev.spotkit.core.internal.runtime.NodeRuntime;
import dev.spotkit.core.internal.runtime.ReplySink;
import dev.spotkit.core.internal.runtime.SpotCell;
import dev.spotkit.core.session.Session;
import dev.spotkit.core.session.SessionHandler;
import dev.spotkit.core.session.SessionInbound;
import dev.spotkit.mailbox.DispatchState;
import dev.spotkit.mailbox.OfferResult;
import dev.spotkit.core.Deadline;
import dev.spotkit.core.wire.SessionPush;
import dev.spotkit.relocation.wire.ApplicationPayload;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The runtime side of the session boundary ({@code notes/session-boundary.md}): binds each accepted
 * connection to a new actor of the configured stable type, created through the Entry Spot's OnCreateActor.
 *
 * <p>Everything here runs on a Netty event loop and never blocks: {@link #onOpen} only stages the actor
 * (registry entry, closed mailbox) and hands creation to the Entry Spot's gate. Frames go straight into the
 * actor's mailbox as {@link Envelope.Frame}s, in arrival order; the closed mailbox keeps the ones that arrive
 * before the actor is Ready. A declined or failed creation closes the session.
 *
 * <p><b>Inbound backpressure.</b> Each frame put in the mailbox is counted on the session
 * ({@link Session#frameQueued()}) and uncounted once the actor's handler for it ran
 * ({@link Session#frameHandled()}, from {@link Cell}'s dispatch). At the listener's high-water mark the
 * session stops reading from its socket and resumes at the low-water mark, so a client that sends faster than
 * its actor handles (or while a join barrier holds the mailbox closed) waits in TCP instead of in the heap.
 *
 * <p><b>Disconnect.</b> OnDisconnectActor runs at most once per binding (spec 000 section 3), serialized with
 * the actor's membership changes: the disconnect is queued as a marker behind the binding's last frame, so it
 * runs on the actor's gate once every earlier frame was handled and any join barrier they started completed
 * (a barrier keeps the mailbox closed). There the actor's mailbox is closed again, which freezes its
 * membership (no handler turn, so no new barrier), OnDisconnectActor runs on the lane of the spot the actor
 * belongs to at that moment, and the mailbox reopens afterwards unless the callback destroyed the actor.
 *
 * <p><b>A session-bound actor that relocates</b> (issue 5; DESIGN.md "Nodes, transport and sessions"). The
 * session (socket, codec, Netty channel) stays on this node; only the actor moves. From the actor's capture on,
 * the binding is <em>routed</em>: every later frame becomes an application message to the actor
 * ({@link Envelope.Msg} whose {@link ReplySink} carries {@link #FRAME}) and travels like any message: the ingress
 * hold and relay during a move, Message Follow and the route cache afterwards (spec 001 sections 4 and 10, spec
 * 002 section 7.3), on the wire as a command 60 request whose payload content type is {@link #FRAME_CONTENT}.
 * The actor's node answers it once the handler ran. Order: frames go out one destination at a time (this node,
 * a relocation's source unit here, or the owner node from the route cache) and a new destination is used only
 * after every frame sent to the previous one was handled, so the actor sees the client's frames in order, each
 * once, across any number of moves. The disconnect goes the same way behind the last frame ({@link #CLOSED}),
 * also when it comes during a join barrier (the join may move the actor): it then runs on the actor's gate on
 * whichever node the actor ended up, on the spot it belongs to there. A routed disconnect that meets a full
 * bounded mailbox on this node falls back to the local path above (retries, then the lifecycle lane).
 * Pushes from the moved actor come back as command 62 ({@link dev.spotkit.core.wire.SessionPush}) and are written
 * in the binding's push sequence order (see {@link BoundSession}).
 *
 * <p><b>Back-pressure of routed frames.</b> A routed frame stays counted on the session ({@link
 * Session#frameQueued()}) until the actor's node answered that it was handled, so the session's high and low
 * water marks keep bounding the frames in flight to a moved actor exactly as for a local one; the extra cost is
 * the answer's round trip. A routed frame that cannot be delivered (the actor is gone, the node stopped, no
 * answer within {@link #ACK_TIMEOUT}, or no destination within {@link #SWITCH_WAIT}) closes the session: a frame
 * is never dropped silently.
 */
public final class SessionBinder implements SessionHandler {
  /** {@link ReplySink#sessionWork} of a routed client frame. */
  public static final int FRAME = 1;
  /** {@link ReplySink#sessionWork} of a routed session disconnect (payload: the session id as a Long). */
  static final int CLOSED = 2;
  /** Content type marking a routed client frame in command 60 and in a frozen record (Spotkit-defined). */
  static final String FRAME_CONTENT = "application/x-spotkit-session-frame+json";
  /** Content type marking a routed session disconnect in command 60 and in a frozen record (Spotkit-defined). */
  static final String CLOSED_CONTENT = "application/x-spotkit-session-closed+json";
  /** How long a routed frame may wait for the actor's node to answer that it was handled: 5 minutes. */
  static final Duration ACK_TIMEOUT = Duration.ofMinutes(5);
  /** How long a routed frame may wait for a destination (earlier frames handled, the actor found): 60 s. */
  static final Duration SWITCH_WAIT = Duration.ofSeconds(60);
  /** Pushes that arrived ahead of a missing one, at most; one more closes the session: 4096. */
  static final int MAX_EARLY_PUSHES = 4096;
  private static final Object LOCAL = new Object();
  private static final Object CLOSE_ITEM = new Object();

  /** One binding: a session and its actor. Event-loop confined except the flag. */
  public static final class Link implements SessionInbound {
    private final SessionBinder binder;
    private final Session session;
    private final ActorCell actor;
    /** Set once by the first {@link #onClosed}. Written by: the event loop. Read by: any thread. */
    private final AtomicBoolean disconnected = new AtomicBoolean();
    /** True from the actor's first capture for a relocation: frames go out as routed messages. */
    public volatile boolean routed;
    /** Routed items not sent yet (frames, or {@link #CLOSE_ITEM}); guarded by this. */
    private final ArrayDeque<Object> queue = new ArrayDeque<>();
    private boolean draining;
    /** Frames (and the disconnect) handed on and not handled yet; guarded by this. */
    private int dispatched;
    /** Where the frames in flight went: {@link #LOCAL}, a RelocationSource, or a NodeRid; guarded by this. */
    private Object destination = LOCAL;
    /** Push order: the next sequence to write and the pushes that came early; guarded by {@link #early}. */
    private long nextPush;
    private final TreeMap<Long, Object> early = new TreeMap<>();

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

    @Override
    public void onFrame(final Object frame) {
      session.frameQueued(); // before the offer: the handler may run, and uncount it, at once
      synchronized (this) {
        if (routed) {
          enqueue(frame);
          return;
        }
        dispatched++;
      }
      final OfferResult result = actor.offerEnvelope(new Envelope.Frame(frame, this));
      if (result == OfferResult.ACCEPTED) {
        return;
      }
      frameHandled(); // never queued
      if (result == OfferResult.MAILBOX_FULL) {
        NodeRuntime.LOG.warn("session {}: mailbox of {} is full (capacity {}); closing the session. Keep the"
            + " inbound high-water mark below the mailbox capacity", session.id(), actor.describe(),
            actor.mailbox.capacity());
      }
      session.close();
    }

    /** After the actor's handler for one of this binding's frames ran. On the actor's gate. */
    public void frameHandled() {
      session.frameHandled();
      settled();
    }

    private synchronized void settled() {
      dispatched--;
      notifyAll();
    }

    @Override
    public void onClosed() {
      if (!disconnected.compareAndSet(false, true)) {
        return;
      }
      binder.links.remove(session.id(), this);
      actor.creation.thenAccept(outcome -> {
        if (!(outcome instanceof CreateOutcome.Created<?>)) {
          return;
        }
        // Serialized with a seal: an actor that is moving, or may move at the end of a running join barrier, gets
        // the routed disconnect, which travels with its queue and runs on the spot it ends up in.
        synchronized (actor.ingressLock) {
          if (!routed && actor.relocating == null && !actor.barrierActive) {
            queueDisconnect(actor);
            return;
          }
          routed = true;
        }
        synchronized (this) {
          enqueue(CLOSE_ITEM);
        }
      });
    }

    /** A frame of this binding found in the actor's queue or ingress hold at a capture: as a routed message. */
    public Envelope.Msg routedFrame(final Envelope.Frame frame) {
      return acked(frame.payload(), FRAME);
    }

    private void enqueue(final Object item) {
      queue.add(item);
      if (!draining) {
        draining = true;
        actor.runtime().async(() -> {
          drain();
          return null;
        });
      }
    }

    /** A virtual thread: sends the routed items one at a time, in arrival order. */
    private void drain() {
      for (;;) {
        final Object item;
        synchronized (this) {
          item = queue.poll();
          if (item == null) {
            draining = false;
            return;
          }
        }
        try {
          route(item);
        } catch (RuntimeException e) { // never leave the queue stuck: the item is lost, the session closes
          lost(item == CLOSE_ITEM ? CLOSED : FRAME, e.toString());
        }
      }
    }

    private void route(final Object item) {
      final int kind = item == CLOSE_ITEM ? CLOSED : FRAME;
      final long giveUpAt = System.nanoTime() + SWITCH_WAIT.toNanos();
      Object to;
      for (;;) {
        to = destination();
        synchronized (this) {
          if (to != null && (to.equals(destination) || dispatched == 0)) {
            destination = to;
            dispatched++;
            break;
          }
          if (System.nanoTime() - giveUpAt > 0) {
            lost(kind, "no destination for actor '" + actor.id + "' within " + SWITCH_WAIT.toSeconds() + " s");
            return;
          }
          try {
            wait(20); // until the frames sent to the previous destination were handled (bounded by giveUpAt)
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            lost(kind, "interrupted");
            return;
          }
        }
      }
      final Envelope.Msg msg = acked(kind == CLOSED ? Long.valueOf(session.id()) : item, kind);
      try {
        send(to, msg);
      } catch (RuntimeException e) {
        msg.reply().fail(Cell.typed(e, msg.reply().description));
      }
    }

    /** Where the next routed item goes now; null when the actor cannot be found at the moment. */
    private Object destination() {
      final NodeRuntime rt = actor.runtime();
      final Relocations moves = rt.relocations();
      if (moves == null || rt.mesh() == null) {
        return LOCAL; // a node without a mesh: the actor never leaves it
      }
      if (moves.diverted.contains(actor.id) || rt.actors.get(actor.id) != null) {
        return LOCAL; // Ready here, relocating away from here (ingress hold), or arriving here (temporary queue)
      }
      final RelocationSource source = moves.sources.get(actor.id);
      if (source != null) {
        return source; // moved away from here: Message Follow on the relocation's ordered connection
      }
      try {
        return rt.mesh().route(actor.key, 0, "actor '" + actor.id + "'").owner();
      } catch (dev.spotkit.core.SpotkitException e) {
        return null;
      }
    }

    private void send(final Object to, final Envelope.Msg msg) {
      final NodeRuntime rt = actor.runtime();
      final Relocations moves = rt.relocations();
      if (to == LOCAL) {
        if (moves != null && moves.targetIngress(actor.id, msg)) {
          return;
        }
        final ActorCell here = rt.actors.get(actor.id);
        if (here != null) {
          try {
            Messaging.offer(here, msg);
          } catch (dev.spotkit.core.SpotkitException.CapacityExceeded full) {
            if (msg.reply().sessionWork != CLOSED) {
              throw full;
            }
            queueDisconnect(here); // a full bounded mailbox: the local disconnect path retries, then the lane
            msg.reply().complete(Boolean.TRUE);
          }
          return;
        }
        if (moves != null && moves.sourceIngress(actor.id, msg)) {
          return; // it left since: the same source unit whose ingress hold took the earlier frames, so in order
        }
        throw new dev.spotkit.core.SpotkitException.NotFound("actor '" + actor.id + "' left this node");
      }
      if (to instanceof RelocationSource && moves.sourceIngress(actor.id, msg)) {
        return;
      }
      rt.mesh().forward(new Address.ActorById(actor.id), msg);
    }

    private Envelope.Msg acked(final Object payload, final int kind) {
      final ReplySink sink = new ReplySink(Deadline.after(ACK_TIMEOUT), Object.class, (kind == FRAME ? "frame"
          : "disconnect") + " of session " + session.id() + " for actor '" + actor.id + "'");
      sink.sessionWork = kind;
      sink.future.whenComplete((v, failure) -> {
        if (kind == FRAME) {
          session.frameHandled();
        }
        settled();
        if (failure != null) {
          NodeRuntime.LOG.warn("session {}: {} was not delivered ({}); closing the session", session.id(),
              sink.description, RouteMesh.unwrap(failure).toString());
          session.close();
        }
      });
      return new Envelope.Msg(payload, sink);
    }

    private void lost(final int kind, final String why) {
      if (kind == FRAME) {
        session.frameHandled();
      }
      NodeRuntime.LOG.warn("session {}: a routed {} was not delivered ({}); closing the session", session.id(),
          kind == FRAME ? "frame" : "disconnect", why);
      session.close();
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

  public SessionBinder(final NodeRuntime rt, final NodeConfig.ActorType type) {
    this.rt = rt;
    this.type = type;
  }

  @Override
  public SessionInbound onOpen(final Session session) {
    if (rt.isClosing()) {
      session.close();
      return IGNORE;
    }
    final ActorCell actor = rt.creations().stageFrameworkActor(type);
    final Link link = new Link(this, session, actor);
    links.put(session.id(), link);
    actor.session = link;
    actor.creation.whenComplete((outcome, failure) -> {
      if (!(outcome instanceof CreateOutcome.Created<?>)) {
        session.close();
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

  /** Command 62 from the node of a moved actor: a push (or close) for a session of this node. Event loop. */
  public void onPush(final SessionPush push) {
    final Link link = links.get(push.sessionId());
    if (link == null) {
      NodeRuntime.LOG.debug("push to closed session {} dropped", push.sessionId());
      return;
    }
    link.deliverPush(push.sequence(), push.close(), push.close() ? null : rt.copier().decode(push.payload()));
  }

  /** The payload of a routed message, marked with its session work when {@code sink} carries one. */
  public static ApplicationPayload mark(final ApplicationPayload payload, final ReplySink sink) {
    final int work = sink == null ? 0 : sink.sessionWork;
    if (work == 0) {
      return payload;
    }
    return new ApplicationPayload(payload.packetName(), work == FRAME ? FRAME_CONTENT : CLOSED_CONTENT,
        payload.payload());
  }

  /** The payload without its session work mark (the message codec's own content type). */
  public static ApplicationPayload unmark(final ApplicationPayload payload) {
    return workOf(payload) == 0 ? payload : new ApplicationPayload(payload.packetName(), JsonCopier.JSON,
        payload.payload());
  }

  /** The session work a payload is marked with, 0 for none. */
  public static int workOf(final ApplicationPayload payload) {
    return switch (payload.contentType()) {
      case FRAME_CONTENT -> FRAME;
      case CLOSED_CONTENT -> CLOSED;
      default -> 0;
    };
  }

  /**
   * On the gate of the actor (in a mailbox turn): the routed disconnect of its session reached it. Runs the
   * disconnect handling once per binding.
   */
  public static void closedHere(final ActorCell actor) {
    final BoundSession bound = actor.binding;
    if (bound == null || bound.markClosed()) {
      disconnect(actor);
    }
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
