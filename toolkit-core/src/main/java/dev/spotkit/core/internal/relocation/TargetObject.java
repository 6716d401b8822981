package dev.spotkit.core.internal.relocation;

import dev.spotkit.core.internal.join.Joins;
import dev.spotkit.core.internal.mesh.RouteMesh;
import dev.spotkit.core.internal.runtime.ActorCell;
import dev.spotkit.core.internal.runtime.CellState;
import dev.spotkit.core.internal.runtime.CellTimers;
import dev.spotkit.core.internal.runtime.Envelope;
import dev.spotkit.core.internal.runtime.NodeConfig;
import dev.spotkit.core.internal.runtime.NodeRuntime;
import dev.spotkit.core.internal.runtime.SpotCell;
import dev.spotkit.core.internal.runtime.Turn;
import dev.spotkit.core.internal.session.BoundSession;
import dev.spotkit.relocation.wire.TargetFence;
import dev.spotkit.core.NodeRid;
import dev.spotkit.core.Deadline;
import dev.spotkit.core.Actor;
import dev.spotkit.core.ActorFactory;
import dev.spotkit.core.ActorRelocationAdapter;
import dev.spotkit.core.JoinResult;
import dev.spotkit.core.OnTick;
import dev.spotkit.core.OperationId;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.core.location.AuthorityRecord;
import dev.spotkit.core.location.LocationRecords;
import dev.spotkit.core.location.ObjectKey;
import dev.spotkit.core.location.PlacementBatches;
import dev.spotkit.core.mesh.PeerConnection;
import dev.spotkit.core.wire.ApplicationMessage;
import dev.spotkit.core.wire.Rids;
import dev.spotkit.relocation.Action;
import dev.spotkit.relocation.TargetAction;
import dev.spotkit.relocation.Frame;
import dev.spotkit.relocation.Message;
import dev.spotkit.relocation.RelocationSettings;
import dev.spotkit.relocation.TargetEvent;
import dev.spotkit.relocation.TargetUnits;
import dev.spotkit.relocation.wire.ApplicationPayload;
import dev.spotkit.relocation.wire.CoordinatorFence;
import dev.spotkit.relocation.wire.EnvelopeEntries;
import dev.spotkit.relocation.wire.FrozenRecord;
import dev.spotkit.relocation.wire.RecordSource;
import dev.spotkit.relocation.wire.RelocationCodec;
import dev.spotkit.relocation.wire.RelocationEnvelope;
import dev.spotkit.relocation.wire.RelocationEnvelopeCodec;
import dev.spotkit.relocation.wire.RelocationFrame;
import dev.spotkit.relocation.wire.SessionRelocationFrame;
import dev.spotkit.relocation.wire.SessionRouteAction;
import dev.spotkit.relocation.wire.RelocationIdentity;
import dev.spotkit.relocation.wire.Role;
import dev.spotkit.store.StoreBytes;
import dev.spotkit.store.StoreVersion;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The target side of one actor being relocated here (spec 001 sections 4.3-4.6): its {@link TargetUnits}, the
 * staging cell, the spans' work and the CAS; driven by {@link Relocations} on the actor's pump lane only.
 */
final class TargetObject {
  /** Late frames of a finished unit (a late cutover, a retransmission) are still recognised this long: 5 s. */
  private static final long FORGET_AFTER_MS = 5_000;
  /**
   * After a cutover-wait fallback, late relay of the span is recognised until its cutover arrives, or at most this
   * long after the unit ended: the source's Message Follow duration (30 s), past which it sends nothing more.
   */
  private static final long LATE_RELAY_MAX_MS = dev.spotkit.relocation.follow.MessageFollowTable.DEFAULT_DURATION_MS;
  /** The unit {@link #endedAtMs} belongs to. Lane. */
  private dev.spotkit.relocation.TargetUnit endedUnit;
  /** When {@link #forgetLater} first ran for {@link #endedUnit} ({@link Relocations#nowMs}). Lane. */
  private long endedAtMs;
  /**
   * The unit opened by a cutover-wait fallback whose late relay may still come: the actor stays diverted to this
   * lane until that relay ran ({@link #endLateRelayDiversion}), or null. Lane.
   */
  private dev.spotkit.relocation.TargetUnit lateRelayDiversion;
  /** Tests only: runs on the lane before a relay record of the actor (the ActorId given) is taken. */
  static volatile java.util.function.Consumer<String> beforeRelay;
  private final Relocations r;
  private final NodeRuntime rt;
  final String id;
  /** This actor's pump lane ({@link dev.spotkit.relocation.RelocationPump#laneOf}), computed once. */
  final int lane;
  final TargetUnits units = new TargetUnits(new RelocationSettings(RelocationSettings.DEFAULT_CHUNK_LIMIT, 0,
      RelocationSettings.DEFAULT_CUTOVER_WAIT_MS, RelocationSettings.DEFAULT_FOLLOW_MS, 50), Relocations.nowMs());
  final Map<Message, Envelope.Msg> work = new IdentityHashMap<>();
  final Map<Message, Envelope> savedEnvelopes = new IdentityHashMap<>();
  ActorCell cell;
  /** The cell opened by the last commit: work the unit still dispatches after the open goes here. */
  ActorCell live;
  RelocationFrame.Prepare prepare;
  /** The session binding restored with the current attempt, or null. */
  private Relocations.Binding sessionBinding;
  LocationRecords.Stored row;
  String refused;
  /** The command 53 code of {@link #refused} (spec 000 section 4's Failed kind at the source). */
  dev.spotkit.relocation.FailureCode refusedCode;
  Relocations.Prepared approval;
  AuthorityRecord committed;
  StoreVersion committedVersion;
  OperationId operationId;
  /** The join's absolute deadline from the payload, Unix ms; 0 for none (a host relocation). */
  long joinDeadlineUnixMs;
  /** The end of the current unit's Restore validity, {@link Relocations#nowMs()} ms: no store call waits past it. */
  long validUntilMs;
  List<Envelope> backlog = List.of();
  /** Meters and events of the current unit (target side); a new one per relocation identity. */
  private RelocationEvents.Watch watch;

  TargetObject(final Relocations r, final String id) {
    this.r = r;
    this.rt = r.runtime();
    this.id = id;
    this.lane = r.pump.laneOf(id);
  }

  /**
   * Feeds one input, stamped where it arrived (the pump's stamp, or now for the driver's own feedback), and performs
   * what the units answer. Lane.
   */
  void feed(final TargetEvent event, final long arrivedAtMs) {
    for (TargetAction a : units.handle(event, arrivedAtMs)) {
      perform(a);
    }
    if (lateRelayDiversion != null && !lateRelayDiversion.awaitsLateRelay()) {
      endLateRelayDiversion(lateRelayDiversion); // its late cutover came: every relay record before it ran
    }
  }

  /**
   * Ends the diversion of the actor once its queue opened: at once after an accepted cutover; after a cutover-wait
   * fallback (spec 001 section 4.4, REL-27) only once the late cutover arrived or {@link #LATE_RELAY_MAX_MS} passed.
   * The source's relay and its Message Follow of later work share one connection, relay first; the relay waits on
   * this lane while a followed message is read on the event loop: diverted, it queues on the lane behind the relay;
   * undiverted, it went straight into the open mailbox, ahead of relay read before it (one sender's work reordered
   * on a loaded node whose lane ran late). Lane.
   */
  private void divertUntilLateRelayRan() {
    final dev.spotkit.relocation.TargetUnit unit = prepare == null ? null : units.unit(prepare.identity());
    if (unit == null || !unit.awaitsLateRelay()) {
      stopDiverting();
      return;
    }
    lateRelayDiversion = unit;
    rt.relocationScheduler().schedule(() -> r.post(id, at -> endLateRelayDiversion(unit)), LATE_RELAY_MAX_MS,
        java.util.concurrent.TimeUnit.MILLISECONDS);
  }

  /** Ends the diversion {@link #divertUntilLateRelayRan} kept for {@code unit}, unless a newer move took over. */
  private void endLateRelayDiversion(final dev.spotkit.relocation.TargetUnit unit) {
    if (lateRelayDiversion == unit) {
      lateRelayDiversion = null;
      stopDiverting();
    }
  }

  /** Hands an answer of work done elsewhere (Restore, store) back to this object's lane, stamped on arrival. */
  private void answer(final TargetEvent event) {
    r.post(id, at -> feed(event, at));
  }

  void restoreRequested(final PeerConnection from, final long connection, final RelocationFrame.Prepare p,
      final long at) {
    final dev.spotkit.relocation.TargetUnit current = units.unitOf(id);
    if (current != null && !current.isTerminal() && current.stage() != dev.spotkit.relocation.Stage.TARGET_RESTORING
        && !current.identity().equals(p.identity())) {
      // Another identity while a preparation is past relay-ready: TargetUnits refuses it (BUSY); keep this state.
      feed(new TargetEvent.RestoreRequested(p, id, connection, at, new TargetEvent.CasPlan(
          ObjectKey.actor(id).logicalKey().preimage(), "none", fence()), false), at);
      return;
    }
    final TargetEvent.CasPlan plan;
    RelocationEvents.Watch fresh = null;
    if (prepare == null || !prepare.identity().equals(p.identity())) {
      refused = null;
      refusedCode = dev.spotkit.relocation.FailureCode.TARGET_UNAVAILABLE;
      row = LocationRecords.read(rt.store().store(), ObjectKey.actor(id)).orElse(null);
      releaseApproval(); // an earlier identity's approval (MEM-28: the later attempt wins)
      approval = r.prepared.remove(id);
      if (approval != null && System.nanoTime() - approval.expiresAtNanos() > 0) {
        releaseApproval();
      }
      refused = check(from, p);
      prepare = p;
      lateRelayDiversion = null; // a newer move of the actor here: its own diversion, ended by its own open
      fresh = new RelocationEvents.Watch(rt, dev.spotkit.core.NodeEvent.RelocationRole.TARGET, approval != null);
      validUntilMs = at + Relocations.RESTORE_VALIDITY.toMillis(); // the unit's deadline (its first Restore)
    }
    plan = new TargetEvent.CasPlan(ObjectKey.actor(id).logicalKey().preimage(), row == null ? "none"
        : row.version().value(), fence());
    feed(new TargetEvent.RestoreRequested(p, id, connection, at + Relocations.RESTORE_VALIDITY.toMillis(), plan,
        false), at);
    if (fresh != null) { // after the feed: a superseded unit's removal in it ended the earlier watch
      watch = RelocationEvents.next(watch, fresh, id, Rids.toNodeRid(p.sourceNodeRid()), p.identity().relocationId());
    }
  }

  /**
   * Why this node refuses the Restore {@code p} (an explicit command 53 after assembly), or null to go on. Besides
   * the fences: the Restore must come from the actor's current owner node, over that node's own connection (spec
   * 001 section 3: attribution by the relocation identity and the connection that carried it); a Restore of an
   * actor this node already owns, or one sent by another peer with fences copied from the store, is refused, so a
   * forged move cannot replace the live instance here or take over an actor from its owner. Sets
   * {@link #refusedCode}: {@code STALE_GENERATION} for another ObjectGeneration (spec 000 section 4:
   * InvalidOperation), else {@code TARGET_UNAVAILABLE} (fences, a closing node, no factory, no Entry Spot: spec 000
   * section 4's "owner or membership fence differs" and "no compatible target node", Unavailable).
   */
  private String check(final PeerConnection from, final RelocationFrame.Prepare p) {
    if (row == null) {
      return "actor '" + id + "' has no location record";
    }
    final AuthorityRecord a = row.authority();
    final String ownerNode = a.allocation().routingIdHex();
    if (ownerNode.equals(rt.nodeRid().hex())) {
      return "actor '" + id + "' is already owned by this node";
    }
    final NodeRid source = Rids.toNodeRid(p.sourceNodeRid());
    if (!source.hex().equals(ownerNode) || !source.equals(from.peerRid())) {
      return "the Restore of actor '" + id + "' names source node " + source + " and came from node "
          + from.peerRid() + ", but the actor is owned by node " + ownerNode;
    }
    final CoordinatorFence fence = p.identity().coordinatorFence();
    if (a.objectGeneration().value() != p.object().objectGeneration()) {
      refusedCode = dev.spotkit.relocation.FailureCode.STALE_GENERATION; // spec 000 section 4: InvalidOperation
      return "actor '" + id + "' has generation " + a.objectGeneration().value() + ", the Restore names "
          + p.object().objectGeneration();
    }
    if (!row.version().value().equals(fence.expectedAuthorityStoreVersion()) || !a.ownerId().equals(fence.ownerId())
        || a.authorityOwnerGeneration().value() != p.object().expectedAuthorityOwnerGeneration()) {
      return "the owner or generation of actor '" + id + "' differs from the source's fence (stale)";
    }
    if (!rt.config().actorTypes().containsKey(a.allocation().stableType())) {
      return "no factory for actor type '" + a.allocation().stableType() + "' here";
    }
    if (rt.isClosing()) {
      return "this node is closing";
    }
    if (operationId == null && HostDrains.drainingHere(rt)) {
      return "this node is being drained itself"; // a host move here would be left behind by its own drain
    }
    final TargetFence to = p.targetFence();
    if (!to.nodeRid().equals(Rids.of(rt.nodeRid())) || !to.ownerId().equals(r.ownerId())
        || to.ownerLeaseGeneration() != r.leaseGeneration()
        || to.nodeGeneration() != rt.store().lifecycleGeneration()) {
      return "the Restore names target run " + to + ", not this one";
    }
    if (approval == null && hostMembership() == null) {
      return "no Entry Spot here";
    }
    return null;
  }

  /**
   * Where a move without a join (a host relocation, a drain, a PerActor User Spot's member) puts the actor: the
   * PerActor User Spot its row names as membership when this node owns that Spot's shell now (spec 000 section 7:
   * each member moves as its own unit and stays a member of the same Spot, no membership callback), else this
   * node's Entry Spot (null when there is none).
   */
  private SpotCell hostMembership() {
    final SpotCell shell = row == null ? null : PerActorMoves.shellHere(rt, row.authority().payload());
    return shell != null ? shell : rt.entry();
  }

  private String fence() {
    return r.ownerId() + "/" + r.leaseGeneration() + "/" + rt.nodeRid().hex();
  }

  /**
   * A relay record (command 31): thawed only for an identity a Restore made a unit for; another identity is
   * discarded by {@link TargetUnits} without thawing (a thawed request would hold a reply sink nobody completes).
   */
  void relay(final long connection, final RelocationFrame.Data d, final long at) {
    final java.util.function.Consumer<String> hook = beforeRelay;
    if (hook != null) {
      hook.accept(id);
    }
    if (units.unit(d.identity()) == null) {
      NodeRuntime.LOG.warn("relay record for unknown relocation identity {} of actor '{}' discarded", d.identity(),
          id);
      return;
    }
    final FrozenRecord record = d.record();
    final byte[] body = record.encode();
    final Message m = record.replyRouteId() == 0 ? Message.send(body)
        : Message.request(record.replyRouteId(), record.replyRouteId(), Relocations.deadlineOf(record), body);
    work.put(m, thaw(record));
    feed(new TargetEvent.RelayArrived(d.identity(), connection, m), at);
  }

  void direct(final Envelope.Msg envelope, final long at) {
    final Message m = r.localMessage();
    work.put(m, envelope);
    feed(new TargetEvent.DirectMessageArrived(id, m), at);
  }

  private void perform(final TargetAction action) {
    switch (action) {
      case Action.RegisterTemporaryQueue r -> {
        discardCell();
        final AuthorityRecord a = row == null ? null : row.authority();
        final NodeConfig.ActorType type = a == null ? null : rt.config().actorTypes().get(
            a.allocation().stableType());
        if (type != null) {
          cell = new ActorCell(rt, id, type); // its mailbox stays closed: the real queue after the merge
          cell.generation = a.objectGeneration().value();
        }
      }
      case Action.RunRestore r -> restore(r.payload());
      case Action.Send s -> {
        final PeerConnection c = r.connections.get(s.connectionId());
        if (c != null) {
          final byte[] frame = RelocationCodec.encode(switch (s.frame()) {
            case Frame.RelayReady ready -> new RelocationFrame.Ready(ready.identity(), prepare.targetFence(),
                prepare.object(), Role.TARGET);
            case Frame.Failed f -> new RelocationFrame.Failed(f.identity(), prepare.targetFence(),
                prepare.object(), Role.TARGET, f.code().wireCode());
            // Source frames: a target unit never sends them (each listed, so a new frame kind fails to compile).
            case Frame.Prepare f -> throw notFromTarget(f);
            case Frame.StateChunk f -> throw notFromTarget(f);
            case Frame.Relay f -> throw notFromTarget(f);
            case Frame.Cutover f -> throw notFromTarget(f);
            case Frame.Follow f -> throw notFromTarget(f);
            case Frame.SessionRoute f -> throw notFromTarget(f); // a SendToSessionOwner action, not a Send
          });
          if (s.frame() instanceof Frame.RelayReady ready) {
            // The cutover wait runs from the write of the reply (spec 001 section 4.4), however late this lane or
            // the connection's event loop got to it.
            c.send(frame, () -> {
              final long sent = Relocations.nowMs();
              r.post(id, at -> feed(new TargetEvent.RelayReadySent(ready.identity(), sent), at));
            });
          } else {
            c.send(frame);
          }
        }
      }
      case Action.RunCas c -> cas(c);
      case Action.ReReadStore r -> reRead(r);
      case Action.MergeBacklog m -> {
        final List<Envelope> list = new ArrayList<>();
        for (Message x : m.savedWork()) {
          list.add(savedEnvelopes.remove(x));
        }
        for (List<Message> span : List.of(m.preBoundary(), m.postBoundary())) {
          for (Message x : span) {
            list.add(work.remove(x));
          }
        }
        backlog = list;
      }
      case Action.OpenDispatch o -> open();
      case Action.DispatchLocal d -> {
        final Envelope.Msg msg = work.remove(d.message());
        final ActorCell to = cell != null ? cell : live;
        if (msg != null) {
          // After the merge: behind the backlog (direct work, or late relay after fallback), admitted whatever the
          // mailbox capacity (REL-23): the node accepted it for this actor, so it runs or is a counted dead letter.
          if (to == null || to.admitEnvelope(msg) == dev.spotkit.mailbox.OfferResult.RELEASED) {
            deadLetter(msg, "relocated actor '" + id + "' is gone");
          }
        }
      }
      case Action.RemoveStaging rs -> {
        NodeRuntime.LOG.warn("relocation target of actor '{}' removed: {}", id, rs.reason());
        RelocationEvents.removed(watch, refused, rs.reason());
        if (approval != null) {
          approval.release(id); // the join failed: its Spot may close again (kept for a retransmitted Restore)
        }
        if (rs.reason().pastRelayReady()) {
          // Past relay-ready the source is not restored: every request staged here (saved, relayed, direct) ends
          // Unavailable before discardCell drops it, none runs into its deadline unanswered (the FailMessage actions
          // that follow find nothing left). Before relay-ready the source restores its own copies instead.
          final String why = rs.reason().name().toLowerCase(java.util.Locale.ROOT);
          for (Envelope e : List.copyOf(work.values())) {
            failStaged(e, why);
          }
          for (Envelope e : List.copyOf(savedEnvelopes.values())) {
            failStaged(e, why);
          }
          // Past relay-ready, no commit: followed work for the actor ends Unavailable here (spec 001 section 9).
          final long until = Relocations.nowMs() + dev.spotkit.relocation.follow.MessageFollowTable
              .DEFAULT_DURATION_MS;
          r.abandoned.put(id, until);
          rt.relocationScheduler().schedule(() -> r.abandoned.remove(id, until),
              dev.spotkit.relocation.follow.MessageFollowTable.DEFAULT_DURATION_MS,
              java.util.concurrent.TimeUnit.MILLISECONDS);
        }
        discardCell();
        stopDiverting();
        forgetLater();
      }
      case Action.FailMessage f -> {
        Envelope e = work.remove(f.message());
        if (e == null) {
          e = savedEnvelopes.remove(f.message());
        }
        failStaged(e, f.errorKind());
      }
      case Action.Log l -> r.log(l, id);
      case Action.SendToSessionOwner s -> {
        // Not used: command 40 does not say whether the actor is session-bound (the binding is in the payload),
        // so the unit never asks; open() sends the command 44 commit once the queue opened (commitSessionRoute).
      }
    }
  }

  private void failStaged(final Envelope e, final String why) {
    if (e instanceof Envelope.Msg msg && msg.reply() != null) {
      msg.reply().fail(new SpotkitException.Unavailable("actor '" + id + "' is not available here: its"
          + " relocation ended (" + why + ")"));
    }
  }

  private void discardCell() {
    live = null;
    if (cell != null) {
      cell.timers.cancelAll();
      cell.state = CellState.GONE;
      cell = null;
    }
    work.clear();
    savedEnvelopes.clear();
    backlog = List.of();
  }

  /** Factory, configure, state, saved work and timers on the staging cell's gate; no handler runs. */
  private void restore(final byte[] payload) {
    final RelocationIdentity identity = prepare.identity();
    final ActorCell staging = cell;
    if (refused != null || staging == null) {
      final String why = refused != null ? refused : "no staging actor";
      final dev.spotkit.relocation.FailureCode code = refused != null ? refusedCode
          : dev.spotkit.relocation.FailureCode.RESTORE_FAILED;
      answer(new TargetEvent.RestoreFailed(identity, why, code));
      return;
    }
    staging.control(() -> {
      TargetEvent answer;
      try {
        final List<Message> saved = build(staging, payload);
        answer = new TargetEvent.RestoreFinished(identity, saved, carriedDeadlineMs());
      } catch (RuntimeException e) {
        NodeRuntime.LOG.warn("Restore of {} failed", staging.describe(), e);
        answer = new TargetEvent.RestoreFailed(identity, String.valueOf(e));
      }
      final TargetEvent result = answer;
      r.post(id, at -> {
        if (result instanceof TargetEvent.RestoreFinished f && prepare != null && prepare.identity().equals(identity)
            && f.deadlineMs() < validUntilMs) {
          validUntilMs = f.deadlineMs(); // the store calls of the CAS and its re-reads end there too
        }
        feed(result instanceof TargetEvent.RestoreFinished ? spotStillReady(identity, result) : result, at);
      });
    });
  }

  /**
   * The absolute deadline this Restore operation carries (the join's, in its payload's participant state; spec 001
   * section 4.5: the CAS retries use it as-is, never restarted or extended) on the {@link Relocations#nowMs()}
   * clock, or {@link Long#MAX_VALUE} when it carries none (a host relocation: {@link Relocations#RESTORE_VALIDITY}
   * from its first Restore). Read after {@link #build} set {@link #joinDeadlineUnixMs}.
   */
  private long carriedDeadlineMs() {
    final long unixMs = joinDeadlineUnixMs;
    return unixMs == 0 ? Long.MAX_VALUE : Relocations.nowMs() + (unixMs - System.currentTimeMillis());
  }

  /**
   * Before the relay-ready reply: a Restore finished after the join's deadline (carried in the payload) fails, so a
   * join is never committed after its timeout; a host relocation (no join OperationId in the payload) never uses a
   * join's approval left from an earlier failed move of the actor; a join (a join OperationId in the payload) whose
   * approval is gone (its {@link Relocations#preparationValidity()} passed before the Restore arrived, MEM-27) fails
   * with {@code TARGET_UNAVAILABLE} (spec 000 section 4: the membership fence differs, Unavailable) instead of
   * putting the actor into the Entry Spot with no join completion; and the User Spot that approved the join must
   * still be Ready here (its close is refused while the join is admitted, but node shutdown still releases it),
   * else {@code SPOT_NOT_FOUND} (spec 000 section 4: the requested User Spot can't be found, NotFound). Each
   * failure is an explicit command 53: the source keeps serving. Executor.
   */
  private TargetEvent spotStillReady(final RelocationIdentity identity, final TargetEvent finished) {
    if (operationId == null && approval != null) {
      // A host relocation (its payload carries no join OperationId) found the approval of an earlier join of the
      // same actor, one that failed at its source before its Restore (MEM-27 keeps it 30 s). It is not this
      // move's: the actor goes to the Entry Spot with no join completion, and the approval is dropped.
      releaseApproval();
      if (hostMembership() == null) {
        return new TargetEvent.RestoreFailed(identity, "no Entry Spot on node " + rt.nodeRid(),
            dev.spotkit.relocation.FailureCode.TARGET_UNAVAILABLE);
      }
    }
    if (operationId != null && approval == null) {
      return new TargetEvent.RestoreFailed(identity, "the join of actor '" + id + "' has no live approval on node "
          + rt.nodeRid() + " (it expired " + Relocations.preparationValidity().toMillis()
          + " ms after OnActorJoin accepted, or was replaced)", dev.spotkit.relocation.FailureCode.TARGET_UNAVAILABLE);
    }
    if (joinDeadlineUnixMs != 0 && System.currentTimeMillis() > joinDeadlineUnixMs) {
      return new TargetEvent.RestoreFailed(identity, "the join's deadline passed while the Restore ran on node "
          + rt.nodeRid(), dev.spotkit.relocation.FailureCode.DEADLINE);
    }
    final SpotCell spot = approval == null ? null : approval.spot();
    if (spot == null || spot.state == CellState.READY && rt.spots.get(spot.id) == spot) {
      return finished;
    }
    return new TargetEvent.RestoreFailed(identity, "join target spot '" + spot.id + "' was released on node "
        + rt.nodeRid() + " while the Restore ran", dev.spotkit.relocation.FailureCode.SPOT_NOT_FOUND);
  }

  /** Drops this move's approval and lets its User Spot close again (see {@link SpotCell#admittedJoins}). */
  private void releaseApproval() {
    if (approval != null) {
      approval.release(id);
      approval = null;
    }
  }

  @SuppressWarnings("unchecked")
  private List<Message> build(final ActorCell staging, final byte[] payload) {
    final RelocationEnvelope env = RelocationEnvelopeCodec.decodeOwned(payload, 1, Integer.MAX_VALUE);
    final ByteBuffer state = env.applicationStates().isEmpty() ? ByteBuffer.allocate(0)
        : env.applicationStates().get(0).stateBuffer();
    long high = 0;
    long low = 0;
    ByteBuffer appState = null;
    long deadline = 0;
    Relocations.Binding binding = null;
    final int version = state.remaining() >= 18 ? state.get() : 0;
    if (version == 1 || version == 2 && state.remaining() >= 25) { // Relocations.frameState
      high = state.getLong();
      low = state.getLong();
      deadline = version == 2 ? state.getLong() : 0;
      final int flags = state.get();
      if ((flags & Relocations.FRAMING_HAS_BINDING) != 0 && version == 2) {
        binding = Relocations.readBinding(state, flags, id);
      }
      if ((flags & Relocations.FRAMING_HAS_STATE) != 0) {
        appState = state.slice(); // a view of the verified stream: no copy here (the adapter decides)
      }
    }
    // A session-bound actor: its session stays on its node; pushes go there, frames come from there.
    staging.binding = binding == null ? null : new BoundSession(rt, binding, staging);
    sessionBinding = binding;
    operationId = high == 0 && low == 0 ? null : new OperationId(high, low);
    joinDeadlineUnixMs = deadline;
    staging.context = rt.facades().actorContext(staging);
    final Turn turn = Turn.enter(staging, false);
    final Actor actor;
    try {
      actor = ((ActorFactory<Actor>) staging.type.factory()).create(staging.context);
      if (actor == null) {
        throw new SpotkitException.InternalFailure("the actor factory of type '" + staging.stableType
            + "' returned null");
      }
      actor.configure(rt.facades().actorHandlers(staging.handlers));
      staging.handlers.freeze();
      if (staging.type.policy() == NodeConfig.Policy.PRESERVE && appState != null) {
        ((ActorRelocationAdapter<Actor>) staging.type.adapter()).restore(actor, appState);
      }
    } finally {
      turn.exit();
    }
    staging.actor = actor;
    // Timers: the registrations travel, the callbacks come from this instance's configure (on.timer). A timer
    // with a pending tick starts marked queued, before its schedule can fire (its cursor may be due at once).
    final long nowUnix = System.currentTimeMillis();
    final java.util.Set<String> pendingTicks = new java.util.HashSet<>();
    for (EnvelopeEntries.PendingTimerTick p : env.pendingTimerTicks()) {
      pendingTicks.add(p.timerName());
    }
    for (EnvelopeEntries.TimerRegistration t : env.timerRegistrations()) {
      final OnTick tick = staging.handlers.timer(t.name());
      if (tick == null) {
        NodeRuntime.LOG.warn("timer '{}' of {} moved here but this instance declares no on.timer(\"{}\", ...);"
            + " dropped", t.name(), staging.describe(), t.name());
        continue;
      }
      staging.timers.every(t.name(), Duration.ofMillis(Math.max(1, t.periodMilliseconds())), tick,
          Duration.ofMillis(Math.max(0, t.nextScheduledAtUnixMilliseconds() - nowUnix)),
          t.lastCompletedDeliveryIndex(), pendingTicks.contains(t.name()));
    }
    // Saved work and pending ticks, merged by order: the dispatch-closed saved-work span (section 4.3).
    final List<Message> saved = new ArrayList<>();
    int w = 0;
    int k = 0;
    final List<EnvelopeEntries.SavedWork> records = env.savedWork();
    final List<EnvelopeEntries.PendingTimerTick> ticks = env.pendingTimerTicks();
    while (w < records.size() || k < ticks.size()) {
      final Envelope e;
      if (k >= ticks.size()
          || w < records.size() && Long.compareUnsigned(records.get(w).order(), ticks.get(k).order()) < 0) {
        e = thaw(records.get(w++).record());
      } else {
        final CellTimers.Entry timer = staging.timers.entry(ticks.get(k++).timerName());
        if (timer == null) {
          continue;
        }
        timer.queued.set(true);
        e = new Envelope.Tick(timer);
      }
      final Message m = r.localMessage();
      savedEnvelopes.put(m, e);
      saved.add(m);
    }
    return saved;
  }

  private void cas(final Action.RunCas c) {
    if (rt.isClosing()) { // a closing node takes no ownership: the unit re-reads, finds it refused and ends stale
      answer(new TargetEvent.CasAnswered(c.identity(), c.requestId(), TargetEvent.CasOutcome.CONFLICT));
      return;
    }
    final PlacementBatches.Target self = rt.store().self();
    final String membership = approval != null ? approval.spot().id : hostMembership().id;
    final RelocationIdentity identity = c.identity();
    // Each store call of the CAS waits a fraction of the Restore validity and none outlives it, so a lost or slow
    // answer leaves time for the re-read and the same CAS again (spec 001 sections 4.5 and 6, REL-19).
    final PlacementBatches batches = new PlacementBatches(rt.store().store(), Relocations.STORE_CALL_TIMEOUT,
        PlacementBatches.DEFAULT_ATTEMPTS, validity());
    // the row's node when this unit read it: its capacity record is read with the rest, one round trip
    final String source = row == null ? null : row.authority().allocation().routingIdHex();
    rt.async(() -> admitsCas() ? batches.relocate(ObjectKey.actor(id), new StoreVersion(c.expectedVersion()),
        self, StoreBytes.utf8(membership), source) : null).whenComplete((outcome, failure) -> r.post(id, at -> {
          if (failure == null && outcome == null) { // not issued (LOC-04): retried while Restore validity lasts
            feed(new TargetEvent.CasAnswered(identity, c.requestId(), TargetEvent.CasOutcome.TRANSIENT), at);
            return;
          }
          if (failure != null) {
            final Throwable f = RouteMesh.unwrap(failure);
            feed(f instanceof SpotkitException.Unavailable
                ? new TargetEvent.CasIndeterminate(identity, c.requestId())
                : new TargetEvent.CasAnswered(identity, c.requestId(), TargetEvent.CasOutcome.CONFLICT), at);
            return;
          }
          if (outcome instanceof PlacementBatches.Outcome.Done done) {
            committed = done.record().orElseThrow();
            committedVersion = done.version().orElseThrow();
            feed(new TargetEvent.CasAnswered(identity, c.requestId(), TargetEvent.CasOutcome.APPLIED), at);
          } else {
            feed(new TargetEvent.CasAnswered(identity, c.requestId(), TargetEvent.CasOutcome.CONFLICT), at);
          }
        }));
  }

  /**
   * Whether this node's owner lease still admits the CAS now (spec 002 section 5, LOC-04: past the local admission
   * deadline no relocation state change reaches the store). Checked on the store thread right before the CAS is
   * issued; when it answers false the CAS is not sent and the unit treats the attempt as transient, so it is tried
   * again (re-read, then the same CAS) until Restore validity ends, never written by a node past its lease.
   */
  private boolean admitsCas() {
    if (rt.store().ownerLease().admitsNow()) {
      return true;
    }
    NodeRuntime.LOG.warn("relocation CAS of actor '{}' not issued: this node's owner lease is past its local"
        + " admission deadline (spec 002 section 5); retried until Restore validity ends", id);
    return false;
  }

  private void reRead(final Action.ReReadStore action) {
    final RelocationIdentity identity = prepare.identity();
    if (rt.isClosing()) {
      answer(new TargetEvent.StoreReadAnswered(identity, action.requestId(), "closing", "closing"));
      return;
    }
    final Deadline validity = validity();
    rt.async(() -> {
      final Duration left = validity.remaining();
      if (left.isZero()) {
        throw new SpotkitException.Unavailable("Restore validity of actor '" + id + "' passed; no re-read sent");
      }
      return LocationRecords.read(rt.store().store(), ObjectKey.actor(id),
          left.compareTo(Relocations.STORE_CALL_TIMEOUT) < 0 ? left : Relocations.STORE_CALL_TIMEOUT);
    }).whenComplete((read, failure) ->
        r.post(id, at -> {
          if (failure != null) {
            feed(new TargetEvent.StoreReadFailed(identity, action.requestId()), at);
            return;
          }
          if (read.isEmpty()) {
            feed(new TargetEvent.StoreReadAnswered(identity, action.requestId(), "", "none"), at);
            return;
          }
          final AuthorityRecord a = read.get().authority();
          final String owner = a.ownerId() + "/" + a.ownerLeaseGeneration().value() + "/"
              + a.allocation().routingIdHex();
          if (owner.equals(fence())) {
            committed = a;
            committedVersion = read.get().version();
          }
          feed(new TargetEvent.StoreReadAnswered(identity, action.requestId(), owner,
              read.get().version().value()), at);
        }));
  }

  /** The end of the current unit's Restore validity as a deadline. */
  private Deadline validity() {
    return new Deadline(java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(validUntilMs));
  }

  /** A message of this unit with nowhere to run: a request fails Unavailable, a one-way one is a dead letter. */
  private void deadLetter(final Envelope.Msg msg, final String why) {
    if (msg.reply() != null) {
      msg.reply().fail(new dev.spotkit.core.SpotkitException.Unavailable(msg.reply().description + ": " + why));
    } else {
      rt.deadLetters().record("relocation-target-gone", "one-way message of type " + (msg.payload() == null ? "null"
          : msg.payload().getClass().getName()) + " for actor '" + id + "' dropped: " + why);
    }
  }

  /** After the CAS: the real queue gets the backlog; OnJoinedActor, leave notice, completion, then dispatch. */
  private void open() {
    final ActorCell c = cell;
    final SpotCell target = approval != null ? approval.spot() : hostMembership();
    final String sourceSpot = dev.spotkit.core.location.AggregatePointer.membershipOf(row.authority().payload());
    final PeerConnection back = connectionToSource();
    // what that node follows here after the move is earlier work of its senders (RouteMesh: followed back)
    c.arrivedFrom = Rids.toNodeRid(prepare.sourceNodeRid());
    c.storeRecord = LocationRecords.fromAuthority(c.key, committed);
    c.storeVersion = committedVersion;
    c.membership = target;
    target.members.add(c);
    if (approval != null) {
      approval.release(id); // a member now: the Spot's close sees it (release after the add, never a gap)
    }
    final ActorCell old = rt.actors.put(id, c);
    if (old != null && old != c) {
      NodeRuntime.LOG.warn("{} replaced a stale cell of the same id", c.describe());
    }
    c.state = CellState.READY;
    final List<Envelope> queue = backlog;
    backlog = List.of();
    final Relocations.Prepared joined = approval;
    final OperationId op = operationId != null ? operationId : OperationId.random();
    // once every item diverted before ran (and after a cutover-wait fallback, the late relay): later work goes
    // straight to the mailbox
    r.post(id, at -> divertUntilLateRelayRan());
    // The route is installed and the real queue takes offers (kept behind the backlog openWithBacklog puts first):
    // the Session owner may forward its held frames now. Not after the lifecycle hops below: on a busy Spot those
    // wait behind its queue for seconds, past the Session owner's 3,000 ms seal timeout (spec 000 section 4.2 step 8).
    commitSessionRoute(c, sessionBinding, prepare.identity(), prepare.object().expectedAuthorityOwnerGeneration());
    target.control(() -> {
      if (joined != null) {
        target.runCallback("onJoinedActor of " + target.describe(), false, () -> {
          Joins.joined(target, c);
          return null;
        });
        if (back != null) { // one-way OnLeaveActor of the source Spot
          back.send(dev.spotkit.core.wire.ApplicationMessageCodec.encode(new ApplicationMessage(0,
              ApplicationMessage.TargetKind.SPOT, sourceSpot, 0, null, 0, 0,
              new ApplicationPayload(Relocations.LEAVE_PACKET,
              Relocations.LEAVE_CONTENT, id.getBytes(StandardCharsets.UTF_8)))));
        }
      }
      c.control(() -> {
        if (target.spotWide) { // a SpotWide member runs on the Spot's gate (moved at this safe boundary)
          c.mailbox.moveTo(target.gate);
          c.onSpotGate = true;
        }
        c.control(() -> {
          if (joined != null) {
            final JoinResult accepted = new JoinResult.Accepted(op, c.ref(), target.ref(), joined.reply());
            c.runCallback("onJoinCompleted of " + c.describe(), false, () -> {
              c.actor.onJoinCompleted(accepted);
              return null;
            });
          }
          c.mailbox.openWithBacklog(queue);
        });
      });
    });
    live = c;
    cell = null;
    approval = null;
    watch.committed();
    forgetLater();
  }

  /**
   * Spec 000 section 4.2 step 8: after the CAS and the queue opening (the route installed, the real queue taking
   * offers behind the backlog, dispatch still closed), the one-way command 44 commit to the Session owner of a
   * binding this move sealed: the route to this node, the held frames there, the seal released. No reply is awaited
   * (REL-05); a binding not sealed by this move (none, closed, or from a peer without a Session owner) sends
   * nothing. On the unit's relocation lane.
   */
  private void commitSessionRoute(final ActorCell c, final Relocations.Binding bound,
      final RelocationIdentity identity, final long previousAuthorityOwnerGeneration) {
    if (bound == null || !bound.sealed() || bound.owner() == null) {
      return;
    }
    r.sendSessionRoute(bound.node(), new SessionRelocationFrame.Route(identity.relocationId(),
        identity.coordinatorFence(), Role.TARGET, bound.wire(c.id, c.generation),
        new SessionRouteAction.Commit(bound.sealedRouteAog() > 0 ? bound.sealedRouteAog()
        : previousAuthorityOwnerGeneration, Relocations.routeOf(c))));
  }

  private PeerConnection connectionToSource() {
    final RecordSource.Node node = new RecordSource.Node(prepare.sourceNodeRid(), prepare.sourceNodeGeneration(),
        "x", 1);
    for (Map.Entry<PeerConnection, Long> e : r.connectionIds.entrySet()) {
      if (Rids.of(e.getKey().peerRid()).equals(node.nodeRid()) && e.getKey().isOpen()) {
        return e.getKey();
      }
    }
    return null;
  }

  /**
   * Drops this object's state some seconds after its unit ended, unless a newer relocation started meanwhile; while
   * the actor is still diverted (work diverted here before its diversion ended is still queued), later; after a
   * cutover-wait fallback, only once the late cutover arrived (its relay came before it on the same connection) or
   * {@link #LATE_RELAY_MAX_MS} passed: forgetting earlier discarded late relay, one lost message each.
   */
  private void forgetLater() {
    final long endedAt = Relocations.nowMs();
    rt.relocationScheduler().schedule(() -> r.post(id, at -> {
      final dev.spotkit.relocation.TargetUnit unit = prepare == null ? null : units.unit(prepare.identity());
      if (cell == null && (unit == null || unit.isTerminal()) && units.unitOf(id) == unit) {
        if (endedUnit != unit) {
          endedUnit = unit;
          endedAtMs = endedAt;
        }
        final boolean lateRelayMayCome = unit != null && unit.awaitsLateRelay()
            && at - endedAtMs < LATE_RELAY_MAX_MS;
        if (r.diverted.contains(id) || lateRelayMayCome) {
          forgetLater();
        } else {
          r.objects.remove(id, this);
        }
      }
    }), FORGET_AFTER_MS, java.util.concurrent.TimeUnit.MILLISECONDS);
  }

  private static IllegalStateException notFromTarget(final Frame frame) {
    return new IllegalStateException("a target unit sent source frame " + frame.getClass().getSimpleName());
  }

  private void stopDiverting() {
    r.stopDiverting(id);
  }

  /** Local work from a frozen record: a request answers through its reply route (the source node). */
  private Envelope.Msg thaw(final FrozenRecord record) {
    return r.thaw(record);
  }
}
