package dev.spotkit.core.internal;

import dev.spotkit.core.CreateOutcome;
import dev.spotkit.core.EmptyRequest;
import dev.spotkit.core.EntrySpot;
import dev.spotkit.core.UserSpot;
import dev.spotkit.core.session.Session;
import dev.spotkit.core.session.SessionHandler;
import dev.spotkit.core.session.SessionInbound;
import dev.spotkit.mailbox.OfferResult;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The runtime side of the session boundary ({@code notes/session-boundary.md}): binds each accepted
 * connection to a new actor of the configured stable type, created through the Entry Spot's OnCreateActor.
 *
 * <p>Everything here runs on a Netty event loop and never blocks: {@link #onOpen} only stages the actor
 * (registry entry, closed mailbox) and hands creation to the Entry Spot's gate. Frames go straight into the
 * actor's mailbox as ordinary messages, in arrival order; the closed mailbox keeps the ones that arrive
 * before the actor is Ready. A declined or failed creation closes the session. OnDisconnectActor runs on the
 * member spot's lane exactly once per binding, after the actor is Ready.
 */
final class SessionBinder implements SessionHandler {

  /** One binding: a session and its actor. Event-loop confined except the flags. */
  static final class Link implements SessionInbound {
    private final Session session;
    private final ActorCell actor;
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
      final OfferResult result = actor.mailbox.offer(new Envelope.Msg(frame, null));
      if (result == OfferResult.MAILBOX_FULL) {
        NodeRuntime.LOG.warn("session {}: mailbox of {} is full; closing the session", session.id(),
            actor.describe());
        session.close();
      } else if (result == OfferResult.RELEASED) {
        session.close();
      }
    }

    @Override
    public void onClosed() {
      if (!disconnected.compareAndSet(false, true)) {
        return;
      }
      actor.creation.thenAccept(outcome -> {
        if (outcome instanceof CreateOutcome.Created<?> && actor.state == CellState.READY) {
          notifyDisconnect(actor);
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

  /** OnDisconnectActor on the member spot's lane; never a destroy or a leave. */
  private static void notifyDisconnect(final ActorCell actor) {
    final SpotCell spot = actor.membership;
    spot.control(() -> spot.runCallback("onDisconnectActor of " + spot.describe(), false, () -> {
      if (spot.spot instanceof UserSpot<?> user) {
        user.onDisconnectActor(actor.ref());
      } else if (spot.spot instanceof EntrySpot entry) {
        entry.onDisconnectActor(actor.ref());
      }
      return null;
    }));
  }
}
