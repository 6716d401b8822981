package dev.spotkit.core.internal;

import dev.spotkit.core.CreateOutcome;
import dev.spotkit.core.EmptyRequest;
import dev.spotkit.core.EntrySpot;
import dev.spotkit.core.UserSpot;
import dev.spotkit.core.session.Session;
import dev.spotkit.core.session.SessionHandler;
import dev.spotkit.core.session.SessionInbound;
import dev.spotkit.mailbox.DispatchState;
import dev.spotkit.mailbox.OfferResult;
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
 */
final class SessionBinder implements SessionHandler {

  /** One binding: a session and its actor. Event-loop confined except the flag. */
  static final class Link implements SessionInbound {
    private final Session session;
    private final ActorCell actor;
    /** Set once by the first {@link #onClosed}. Written by: the event loop. Read by: any thread. */
    private final AtomicBoolean disconnected = new AtomicBoolean();

    Link(final Session session, final ActorCell actor) {
      this.session = session;
      this.actor = actor;
    }

    Session session() {
      return session;
    }

    boolean isClosed() {
      return disconnected.get();
    }

    @Override
    public void onFrame(final Object frame) {
      session.frameQueued(); // before the offer: the handler may run, and uncount it, at once
      final OfferResult result = actor.mailbox.offer(new Envelope.Frame(frame, this));
      if (result == OfferResult.ACCEPTED) {
        return;
      }
      session.frameHandled(); // never queued
      if (result == OfferResult.MAILBOX_FULL) {
        NodeRuntime.LOG.warn("session {}: mailbox of {} is full (capacity {}); closing the session. Keep the"
            + " inbound high-water mark below the mailbox capacity", session.id(), actor.describe(),
            actor.mailbox.capacity());
      }
      session.close();
    }

    /** After the actor's handler for one of this binding's frames ran. On the actor's gate. */
    void frameHandled() {
      session.frameHandled();
    }

    @Override
    public void onClosed() {
      if (!disconnected.compareAndSet(false, true)) {
        return;
      }
      actor.creation.thenAccept(outcome -> {
        if (outcome instanceof CreateOutcome.Created<?>) {
          queueDisconnect(actor);
        }
      });
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

  SessionBinder(final NodeRuntime rt, final NodeConfig.ActorType type) {
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
    final Link link = new Link(session, actor);
    actor.session = link;
    actor.creation.whenComplete((outcome, failure) -> {
      if (!(outcome instanceof CreateOutcome.Created<?>)) {
        session.close();
      }
    });
    rt.creations().startActor(actor, EmptyRequest.INSTANCE);
    return link;
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
