package dev.spotkit.core.internal.relocation;

import dev.spotkit.core.internal.join.PendingJoin;
import dev.spotkit.core.internal.mesh.PeerLanes;
import dev.spotkit.core.internal.runtime.ActorCell;
import dev.spotkit.core.internal.runtime.CellState;
import dev.spotkit.core.internal.runtime.NodeRuntime;
import dev.spotkit.core.internal.session.SessionBinder;
import dev.spotkit.core.JoinResult;
import dev.spotkit.core.NodeRid;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.core.mesh.PeerConnection;
import dev.spotkit.relocation.wire.RelocationId;
import dev.spotkit.relocation.wire.RelocationIdentity;
import dev.spotkit.relocation.wire.WireFormatException;
import dev.spotkit.relocation.wire.SessionRelocationCodec;
import dev.spotkit.relocation.wire.SessionRelocationFrame;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The relocation side of a bound session's route switch (spec 000 section 4.2 step 8; spec 001 sections 4.1, 7 and
 * 9; FACTS.md "Sessions"): before a session-bound actor's capture the source seals its binding at the Session owner
 * (command 42, confirmed by 43); the target sends the one-way command 44 commit after its CAS and queue opening
 * ({@link TargetObject}), the source the one-way 44 abort after its queue restoration ({@link RelocationSource}).
 * The Session owner's side is {@link SessionBinder}. Neither 44 has a reply (REL-05), and nothing is acknowledged
 * per frame (spec 001 section 11). Any thread unless a method says otherwise.
 */
final class SessionSeals {
  private final Relocations r;
  private final NodeRuntime rt;
  /** Commands 42 and 44 to each Session owner, in the order this node made them (a commit before the next seal). */
  private final PeerLanes lanes;

  SessionSeals(final Relocations r) {
    this.r = r;
    this.rt = r.runtime();
    this.lanes = new PeerLanes(rt);
  }

  /**
   * On the actor's gate, its mailbox closed, before the source unit starts: seals the actor's session binding at
   * its Session owner when it has one to seal, then runs {@code then} on the gate with the installed command 42
   * (null when no seal was needed: no bound session, its disconnect already reached the actor, or the session here
   * is gone for good). When the seal fails the move ends before anything else happened: a join with
   * {@link JoinResult.Failed} (Unavailable, or ShuttingDown), a host relocation's {@code moved} exceptionally, and
   * the actor keeps running here.
   *
   * @param actor the actor.
   * @param join the join that moves it, or null (host relocation).
   * @param moved the host relocation's result, or null for a join.
   * @param identity the move's relocation identity (RelocationId and coordinator fence of the seal).
   * @param then continues the move with the seal, or null.
   */
  void sealThen(final ActorCell actor, final PendingJoin join, final java.util.concurrent.CompletableFuture<
      dev.spotkit.core.ActorRef> moved, final RelocationIdentity identity,
      final java.util.function.Consumer<SessionRelocationFrame.Seal> then) {
    final java.util.function.Consumer<SpotkitException> failed = failure -> {
      if (join != null) {
        rt.joins().finish(actor, new JoinResult.Failed(join.operationId(), failure));
      } else {
        if (actor.state == CellState.READY) {
          actor.mailbox.open();
        }
        moved.completeExceptionally(failure);
      }
    };
    sealThen(actor, identity, then, failed);
  }

  /**
   * As {@link #sealThen(ActorCell, PendingJoin, java.util.concurrent.CompletableFuture, RelocationIdentity,
   * java.util.function.Consumer)}, with the failure handed to {@code failed} on the actor's gate (a SpotWide aggregate
   * restores its whole room then, spec 000 section 8).
   *
   * @param actor the actor, its mailbox closed.
   * @param identity the move's relocation identity for this actor.
   * @param then continues with the installed command 42, or null when no seal was needed.
   * @param failed ends the move with the error; the actor's mailbox is left as it is.
   */
  void sealThen(final ActorCell actor, final RelocationIdentity identity,
      final java.util.function.Consumer<SessionRelocationFrame.Seal> then,
      final java.util.function.Consumer<SpotkitException> failed) {
    final Relocations.Binding binding = Relocations.bindingOf(actor);
    final SessionBinder binder = rt.sessionBinder();
    // No seal when the disconnect already reached the actor, or its session here is gone for good (no frame can
    // come any more): nothing is left to order.
    final dev.spotkit.relocation.wire.SessionBinding wire = binding == null || binding.closed()
        || binding.node().equals(rt.nodeRid()) && (binder == null || !binder.bindings.containsKey(binding.sessionId()))
        ? null : binding.wire(actor.id, actor.generation);
    if (wire == null) {
      then.accept(null);
      return;
    }
    final SessionRelocationFrame.Seal seal = new SessionRelocationFrame.Seal(identity.relocationId(),
        identity.coordinatorFence(), dev.spotkit.relocation.wire.Role.SOURCE, wire, Relocations.sealedRouteOf(actor));
    seal(actor, binding.node(), seal, () -> {
      if (actor.state != CellState.READY || rt.isClosing()) { // gone or closing while the seal was confirmed
        sendRoute(binding.node(), new SessionRelocationFrame.Route(seal.relocationId(),
            seal.coordinatorFence(), dev.spotkit.relocation.wire.Role.SOURCE, wire,
            new dev.spotkit.relocation.wire.SessionRouteAction.Abort(seal.currentRoute().authorityOwnerGeneration())));
        failed.accept(rt.isClosing() ? rt.shuttingDown("relocation of " + actor.describe())
            : new SpotkitException.Unavailable(actor.describe() + " ended while its session was sealed"));
        return;
      }
      then.accept(seal);
    }, failed);
  }


  /** The source's seal of a session-bound actor, its 43 not arrived yet (by RelocationId). */
  private record PendingSeal(ActorCell actor, SessionRelocationFrame.Seal seal, Runnable sealed,
      java.util.function.Consumer<SpotkitException> failed) {
  }

  private final Map<RelocationId, PendingSeal> pendingSeals = new ConcurrentHashMap<>();

  /**
   * Seals the binding of a session-bound actor at its Session owner before the capture (spec 000 section 4.2 step
   * 8; spec 001 section 4.1): the Session owner holds the session's later frames and confirms with command 43 on
   * the ordered connection behind every frame it sent here before, so each of them is in the actor's queue when
   * {@code sealed} runs. On the actor's gate; {@code sealed} and {@code failed} run on it too. A Session owner
   * that does not confirm within {@link SessionBinder#SEAL_TIMEOUT_MS} fails the move before anything else
   * happened (Unavailable): the actor keeps running here.
   *
   * @param actor the actor, its mailbox closed.
   * @param sessionNode the Session owner's node.
   * @param seal the command 42.
   * @param sealed continues the move.
   * @param failed ends the move with the error.
   */
  private void seal(final ActorCell actor, final NodeRid sessionNode, final SessionRelocationFrame.Seal seal,
      final Runnable sealed, final java.util.function.Consumer<SpotkitException> failed) {
    final String what = "session seal of " + actor.describe() + " at its Session owner, node " + sessionNode;
    if (sessionNode.equals(rt.nodeRid())) { // behind this node's earlier 44s to itself (lanes), on the gate
      final long at = Relocations.nowMs();
      lanes.run(sessionNode, () -> {
        final SessionBinder binder = rt.sessionBinder();
        final boolean installed = binder != null && binder.onSeal(seal, at).isPresent();
        actor.control(() -> {
          if (installed) {
            sealed.run();
          } else {
            failed.accept(new SpotkitException.Unavailable(what + " was refused (see the log)"));
          }
        });
      }, why -> actor.control(() -> failed.accept(rt.shuttingDown("relocation of " + actor.describe()))));
      return;
    }
    final PendingSeal pending = new PendingSeal(actor, seal, sealed, failed);
    pendingSeals.put(seal.relocationId(), pending);
    try {
      scheduleSealWait(actor, sessionNode, seal, failed, what, pending);
    } catch (java.util.concurrent.RejectedExecutionException closing) {
      pendingSeals.remove(seal.relocationId(), pending);
      failed.accept(rt.shuttingDown("relocation of " + actor.describe()));
      return;
    }
    // behind this node's earlier 44s to that Session owner: a seal must not overtake the commit that gave the
    // binding the route it names
    lanes.send(sessionNode, SessionRelocationCodec.encode(seal), what, why -> {
      if (pendingSeals.remove(seal.relocationId(), pending)) {
        actor.control(() -> failed.accept(new SpotkitException.Unavailable(what + ": command 42 was not sent ("
            + why + ")")));
      }
    });
  }

  /**
   * Fails a remote seal whose command 43 did not come within {@link SessionBinder#SEAL_TIMEOUT_MS}, after a
   * one-way 44 abort: the seal may be installed with its 43 lost (the source queue is unchanged, so releasing it
   * is safe); a Session owner that never installed it only logs {@code late_session_route_update}.
   *
   * @throws java.util.concurrent.RejectedExecutionException when the node is closing.
   */
  private void scheduleSealWait(final ActorCell actor, final NodeRid sessionNode,
      final SessionRelocationFrame.Seal seal, final java.util.function.Consumer<SpotkitException> failed,
      final String what, final PendingSeal pending) {
    rt.relocationScheduler().schedule(() -> {
      if (pendingSeals.remove(seal.relocationId(), pending)) {
        sendRoute(sessionNode, new SessionRelocationFrame.Route(seal.relocationId(), seal.coordinatorFence(),
            dev.spotkit.relocation.wire.Role.SOURCE, seal.binding(), new dev.spotkit.relocation.wire
            .SessionRouteAction.Abort(seal.currentRoute().authorityOwnerGeneration())));
        actor.control(() -> failed.accept(new SpotkitException.Unavailable(what + " was not confirmed within "
            + SessionBinder.SEAL_TIMEOUT_MS + " ms")));
      }
    }, SessionBinder.SEAL_TIMEOUT_MS, TimeUnit.MILLISECONDS);
  }

  /**
   * Sends a command 44 one-way to the Session owner of a binding (a direct call when it is this node); nothing
   * answers it (REL-05). Any thread; a local one runs on a virtual thread, a remote send dials on one when no
   * connection is open.
   *
   * @param sessionNode the Session owner's node.
   * @param route the commit (from the target) or abort (from the source).
   */
  void sendRoute(final NodeRid sessionNode, final SessionRelocationFrame.Route route) {
    final java.util.function.Consumer<String> notSent = why -> NodeRuntime.LOG.warn(
        "session route update {} to node {} not sent: {}", route.action(), sessionNode, why);
    if (sessionNode.equals(rt.nodeRid())) {
      final long at = Relocations.nowMs();
      lanes.run(sessionNode, () -> { // not inline: the sender may hold the actor's ingress lock, the binding takes it
        final SessionBinder binder = rt.sessionBinder();
        if (binder != null) {
          binder.onRoute(route, at);
        }
      }, notSent);
      return;
    }
    lanes.send(sessionNode, SessionRelocationCodec.encode(route), "session route update", notSent);
  }

  /**
   * Commands 42, 43 and 44 from a peer (spec 000 section 4.2 step 8). A malformed one closes the connection. Event
   * loop.
   *
   * @param from the connection.
   * @param frame the frame.
   */
  void onFrame(final PeerConnection from, final byte[] frame) {
    final SessionRelocationFrame decoded;
    try {
      decoded = SessionRelocationCodec.decode(frame);
    } catch (WireFormatException e) {
      NodeRuntime.LOG.warn("malformed session relocation frame from {}: {}; closing the connection", from.peerRid(),
          e.getMessage());
      from.close();
      return;
    }
    final SessionBinder binder = rt.sessionBinder();
    switch (decoded) {
      case SessionRelocationFrame.Seal seal -> {
        if (binder == null) {
          NodeRuntime.LOG.warn("{} detail=seal of {} from {} but this node has no sessions",
              dev.spotkit.relocation.session.SessionBarrier.STALE_SESSION_SEAL, seal.relocationId(), from.peerRid());
        } else {
          binder.onRemoteSeal(seal, from.peerRid());
        }
      }
      case SessionRelocationFrame.Sealed sealed -> {
        final PendingSeal pending = pendingSeals.get(sealed.relocationId());
        if (pending == null || !SessionRelocationFrame.Sealed.answering(pending.seal()).equals(sealed)
            || !pendingSeals.remove(sealed.relocationId(), pending)) {
          NodeRuntime.LOG.warn("stale_session_sealed relocation={} from={}: no seal of that relocation waits here",
              sealed.relocationId(), from.peerRid());
          return;
        }
        pending.actor().control(pending.sealed());
      }
      case SessionRelocationFrame.Route route -> {
        if (binder == null) {
          NodeRuntime.LOG.warn("{} detail=route update of {} from {} but this node has no sessions",
              dev.spotkit.relocation.session.SessionBarrier.LATE_SESSION_ROUTE_UPDATE, route.relocationId(),
              from.peerRid());
        } else {
          binder.onRoute(route, Relocations.nowMs());
        }
      }
    }
  }
}
