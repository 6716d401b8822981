package dev.spotkit.core.internal.relocation;

import dev.spotkit.core.Actor;
import dev.spotkit.core.ActorRelocationAdapter;
import dev.spotkit.core.Deadline;
import dev.spotkit.core.JoinResult;
import dev.spotkit.core.NodeRid;
import dev.spotkit.core.ObjectGeneration;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.core.internal.join.PendingJoin;
import dev.spotkit.core.internal.mesh.RouteMesh;
import dev.spotkit.core.internal.mesh.WireDeadlines;
import dev.spotkit.core.internal.runtime.ActorCell;
import dev.spotkit.core.internal.runtime.Address;
import dev.spotkit.core.internal.runtime.Cell;
import dev.spotkit.core.internal.runtime.CellState;
import dev.spotkit.core.internal.runtime.CellTimers;
import dev.spotkit.core.internal.runtime.Envelope;
import dev.spotkit.core.internal.runtime.NodeRuntime;
import dev.spotkit.core.internal.runtime.Turn;
import dev.spotkit.core.mesh.PeerConnection;
import dev.spotkit.core.wire.ApplicationMessage;
import dev.spotkit.core.wire.Rids;
import dev.spotkit.relocation.Action;
import dev.spotkit.relocation.SourceAction;
import dev.spotkit.relocation.Frame;
import dev.spotkit.relocation.InFlightBudget;
import dev.spotkit.relocation.Message;
import dev.spotkit.relocation.RelocationSettings;
import dev.spotkit.relocation.SourceEvent;
import dev.spotkit.relocation.SourceUnit;
import dev.spotkit.relocation.Stage;
import dev.spotkit.relocation.follow.MessageFollowTable;
import dev.spotkit.relocation.wire.EncodedStream;
import dev.spotkit.relocation.wire.EnvelopeEntries;
import dev.spotkit.relocation.wire.FrozenRecord;
import dev.spotkit.relocation.wire.ObjectIdentity;
import dev.spotkit.relocation.wire.RelocationCodec;
import dev.spotkit.relocation.wire.RelocationEnvelope;
import dev.spotkit.relocation.wire.RelocationEnvelopeCodec;
import dev.spotkit.relocation.wire.RelocationFrame;
import dev.spotkit.relocation.wire.RelocationIdentity;
import dev.spotkit.relocation.wire.Role;
import dev.spotkit.relocation.wire.TargetFence;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The driver of one source unit (spec 001 sections 4.1, 4.2, 4.4, 10): seal, capture, manifest and chunks, the
 * ingress hold, relay and cutover, restoration on an explicit failure, then Message Follow. Every method runs
 * under the actor's ingress lock (events queue while one is being handled).
 */
/** The driver of one source unit; every method runs under the actor's ingress lock. */
public final class RelocationSource {
  private final Relocations r;
  private final NodeRuntime rt;
  final ActorCell actor;
  final PendingJoin join;
  final java.util.concurrent.CompletableFuture<dev.spotkit.core.ActorRef> moved;
  final NodeRid owner;
  final TargetFence targetFence;
  final RelocationIdentity identity;
  final SourceUnit unit;
  final ObjectIdentity object;
  final InFlightBudget budget;
  volatile PeerConnection connection;
  /**
   * The command 42 this move's session seal was installed with, or null when the actor has no bound session to
   * seal. An explicit failure before relay-ready sends the matching 44 abort (spec 000 section 4.2 step 8).
   */
  private final dev.spotkit.relocation.wire.SessionRelocationFrame.Seal sessionSeal;
  /**
   * Completes once this unit has its result here: the source restored after an explicit failure, or, past the
   * boundary, the Location Store's answer to the target's CAS (committed, or not). Node close waits for it.
   */
  final java.util.concurrent.CompletableFuture<Void> settled = new java.util.concurrent.CompletableFuture<>();
  /**
   * Why this move did not commit past the boundary, or null: from then on the actor runs nowhere, work for it ends
   * Unavailable here for the follow duration, and its row (still naming this node) is removed by a destroy, at the
   * end of the follow duration, or by the node's close, whichever comes first (spec 001 sections 9 and 10).
   * Written under the ingress lock.
   */
  private volatile String abandoned;
  /** Set with {@link #abandoned} when the move's end was {@link Commit#ENDED}: refused work gets NotFound. */
  private volatile boolean rowEnded;
  private final ArrayDeque<SourceEvent> events = new ArrayDeque<>();
  private boolean draining;
  private boolean detached;
  /** Local work behind each Message this driver made (identity: the unit keeps the instances). */
  private final Map<Message, Envelope.Msg> local = new IdentityHashMap<>();
  private final Map<Message, FrozenRecord> records = new IdentityHashMap<>();
  /** Hop counts above 1 of followed messages, by envelope identity, until they leave (Frame.Follow). */
  private final Map<Envelope.Msg, Integer> followHops = new IdentityHashMap<>();
  /**
   * Whether the capture drained the queue and took the timers (written and read under the ingress lock): before it, a
   * timer tick fired after the seal joins the not-yet-run queue ({@link #ingress}).
   */
  private boolean capturedQueue;
  /**
   * Tests only: run on the actor's gate with the ActorId at the start of each capture, before the queue is drained
   * (a test holds the capture here to let a timer tick fire between seal and capture). Null in production.
   */
  static volatile java.util.function.Consumer<String> beforeCapture;
  /** Captured, in queue order: the source restores exactly these on an explicit failure. */
  private List<Envelope> captured = List.of();
  private List<CellTimers.Entry> capturedTimers = List.of();
  /** Meters and events of this unit (source side). */
  final RelocationEvents.Watch watch;

  RelocationSource(final Relocations r, final ActorCell actor, final PendingJoin join,
      final java.util.concurrent.CompletableFuture<dev.spotkit.core.ActorRef> moved,
      final PeerConnection connection, final NodeRid owner, final TargetFence targetFence,
      final RelocationIdentity identity, final RelocationSettings settings,
      final dev.spotkit.relocation.wire.SessionRelocationFrame.Seal sessionSeal) {
    this.targetFence = targetFence;
    this.sessionSeal = sessionSeal;
    this.watch = new RelocationEvents.Watch(r.runtime(), dev.spotkit.core.NodeEvent.RelocationRole.SOURCE);
    this.r = r;
    this.rt = r.runtime();
    this.actor = actor;
    this.join = join;
    this.moved = moved;
    this.connection = connection;
    this.owner = owner;
    this.identity = identity;
    this.budget = r.budgets.computeIfAbsent(owner, k -> InFlightBudget.peerDefault());
    this.object = new ObjectIdentity.Actor(actor.id, actor.generation, actor.storeRecord.authorityOwnerGeneration());
    this.unit = new SourceUnit(identity, actor.id, r.connectionId(connection), settings,
        budget, sessionSeal != null, Relocations.nowMs());
  }

  /** Work offered to the actor after the seal: the ingress hold, or Message Follow. */
  public void ingress(final Envelope envelope) {
    ingress(envelope, 1);
  }

  /**
   * As {@link #ingress(Envelope)}, with the hop count a followed message leaves with (1 for local work; more for
   * a message that reached this node by Message Follow, spec 002 section 7.3).
   */
  public void ingress(final Envelope envelope, final int hops) {
    if (abandoned != null) {
      refuse(envelope);
      return;
    }
    if (hops > 1 && envelope instanceof Envelope.Msg msg) {
      followHops.put(msg, hops);
    }
    switch (envelope) {
      case Envelope.Msg msg -> post(new SourceEvent.MessageArrived(message(msg)));
      case Envelope.Marker marker -> marker.task().run();
      case Envelope.Tick tick -> {
        if (!capturedQueue) {
          // Fired after the seal, before the capture: unrun work of this actor, not a message to hold. Behind the
          // closed mailbox's work, where the capture drains it into pendingTimerTicks: it runs once, on the target.
          actor.mailbox.offer(tick);
        }
        // After the capture the timers are cancelled and their registrations are in the payload: nothing to keep.
      }
      // A client frame of the bound session (rare: the Session owner holds them while sealed): held, relayed or
      // followed like any message, as one-way session work.
      case Envelope.Frame frame -> post(new SourceEvent.MessageArrived(message(frame.link().leaving(frame))));
    }
  }

  /** Work for an actor whose move did not commit: a request ends Unavailable, a one-way message is dropped. */
  private void refuse(final Envelope envelope) {
    final Envelope.Msg msg = switch (envelope) {
      case Envelope.Msg m -> m;
      case Envelope.Frame frame -> frame.link().leaving(frame);
      case Envelope.Marker marker -> {
        marker.task().run();
        yield null;
      }
      case Envelope.Tick tick -> null;
    };
    final SpotkitException error = rowEnded ? new SpotkitException.NotFound(actor.describe() + " no longer exists: "
        + abandoned) : new SpotkitException.Unavailable(actor.describe() + " is unavailable: its move"
        + " to node " + owner + " did not commit (" + abandoned + "); destroy it, or after Message Follow ends ("
        + MessageFollowTable.DEFAULT_DURATION_MS + " ms) its record is gone and getOrCreate makes a new one");
    if (msg != null && msg.reply() != null) {
      msg.reply().fail(error);
    } else if (msg != null) {
      NodeRuntime.LOG.debug("one-way message dropped: {}", error.getMessage());
    }
  }

  private Message message(final Envelope.Msg msg) {
    if (unit.stage() == Stage.SOURCE_PAUSED) {
      final FrozenRecord record = r.freeze(msg, actor);
      final Message m = record.replyRouteId() == 0 ? Message.send(record.encode())
          : Message.request(record.replyRouteId(), record.replyRouteId(), Relocations.deadlineOf(record),
              record.encode());
      records.put(m, record);
      local.put(m, msg);
      return m;
    }
    final Message m = r.localMessage();
    local.put(m, msg);
    return m;
  }

  void post(final SourceEvent event) {
    synchronized (actor.ingressLock) {
      events.add(event);
      if (draining) {
        return;
      }
      draining = true;
      try {
        for (SourceEvent e = events.poll(); e != null; e = events.poll()) {
          if (e instanceof SourceEvent.FailureArrived failure && failure.identity().equals(identity)) {
            failureCode = failure.code();
          }
          final List<SourceAction> actions;
          synchronized (budget) { // the peer's budget is shared by units driven under other actors' locks
            actions = unit.handle(e);
          }
          for (SourceAction action : actions) {
            perform(action);
          }
          if (unit.stage() == Stage.FOLLOW_ONLY && !detached) {
            detach();
          }
        }
      } finally {
        draining = false;
      }
    }
  }

  private void perform(final SourceAction action) {
    switch (action) {
      case Action.PauseDispatch p -> {
        // The join barrier already closed the mailbox; the seal is the ingress switch made before StartRequested.
      }
      case Action.CapturePayload c -> actor.control(this::capture);
      case Action.Send s -> send(s.frame());
      case Action.DispatchLocal d -> {
        final Envelope.Msg msg = local.remove(d.message());
        followHops.remove(msg);
        if (msg != null && actor.mailbox.offer(msg) == dev.spotkit.mailbox.OfferResult.MAILBOX_FULL) {
          // Before the seal (budget wait): behind the barrier, captured later. The node accepted it for this actor:
          // admitted whatever the capacity rather than dropped (REL-23).
          actor.mailbox.admit(msg);
        }
      }
      case Action.RestoreSourceQueue r -> restore(r.held());
      case Action.ReopenDispatch r -> reopen();
      case Action.ReleasePayload r -> {
        captured = List.of();
        records.clear();
      }
      case Action.FailMessage f -> {
        final Envelope.Msg msg = local.remove(f.message());
        followHops.remove(msg);
        if (msg != null && msg.reply() != null) {
          msg.reply().fail(new SpotkitException.Unavailable("actor '" + actor.id + "' moved and Message Follow"
              + " ended: " + f.errorKind()));
        }
      }
      case Action.Log l -> r.log(l, actor.id);
      case Action.SendToSessionOwner s -> sendAbort(); // after RestoreSourceQueue, before ReopenDispatch
    }
  }

  /**
   * LOC-25, REL-31: the one-way command 44 abort to the Session owner, once the source queue is restored and before
   * it reopens (the unit orders RestoreSourceQueue, SendToSessionOwner, ReopenDispatch); it releases only this
   * move's seal and returns the held frames to this node's route, behind the restored queue.
   */
  private void sendAbort() {
    if (sessionSeal == null) {
      return;
    }
    rt.relocations().sendSessionRoute(Rids.toNodeRid(sessionSeal.binding().sessionOwner().nodeRid()),
        new dev.spotkit.relocation.wire.SessionRelocationFrame.Route(sessionSeal.relocationId(),
        sessionSeal.coordinatorFence(), Role.SOURCE, sessionSeal.binding(),
        new dev.spotkit.relocation.wire.SessionRouteAction.Abort(sessionSeal.currentRoute()
        .authorityOwnerGeneration())));
  }

  private void send(final Frame frame) {
    final PeerConnection c = connection;
    final boolean sent = switch (frame) {
      case Frame.Prepare p -> c.send(RelocationCodec.encode(new RelocationFrame.Prepare(identity,
          targetFence, Role.SOURCE, object, Rids.of(rt.nodeRid()),
          rt.store().lifecycleGeneration(), p.totalLength(), p.chunkCount(), p.crc32c(), 1)));
      // A small head, then the chunk as a range of the payload: written once into the socket's buffer, no copy here.
      case Frame.StateChunk chunk -> c.send(RelocationCodec.encodeStateHead(identity, Role.SOURCE, object,
          chunk.ordinal(), chunk.length()), chunk.stream(), chunk.offset(), chunk.length(), () -> {
            rt.metrics().relocationBytes(chunk.length());
            // Written to the socket: the chunk's charge leaves the in-flight budget (section 5.3); a release of a
            // connection already replaced is not reported (ConnectionLost released its charges).
            if (connection == c) {
              post(new SourceEvent.ChunkReleased(chunk.ordinal()));
              wakeWaiting();
            }
          });
      // Relay and cutover go out in the step that accepts the relay-ready reply, on the loop that read it: written at
      // once, not behind unrelated queued writes, since the target's cutover wait runs meanwhile (section 4.4).
      case Frame.Relay relay -> c.sendNow(RelocationCodec.encode(new RelocationFrame.Data(identity, Role.SOURCE,
          object, records.get(relay.message()))));
      case Frame.Cutover cutover -> c.sendNow(RelocationCodec.encode(new RelocationFrame.Cutover(identity,
          Role.SOURCE, object, cutover.recordCount(), cutover.crc32c())));
      case Frame.Follow f -> {
        final Envelope.Msg msg = local.remove(f.message());
        final Integer followed = msg == null ? null : followHops.remove(msg);
        final int hops = followed == null ? 1 : followed;
        if (msg != null && !c.isOpen()) {
          // The ordered connection is gone: route by the Location Store (the new owner), order no longer kept; by
          // ref, so a later incarnation (crash recovery's, once the target died) never takes this one's work.
          rt.async(() -> {
            try {
              rt.mesh().forward(new Address.ActorByRef(actor.ref()), msg);
            } catch (SpotkitException failed) { // committed, and its incarnation gone for good: the follow ends
              throw settled.isDone() && abandoned == null ? FollowEnds.afterRerouteFailed(rt, actor.key,
                  actor.generation, actor.describe(), owner, failed, this::end) : failed;
            }
            return null;
          }).whenComplete((v, failure) -> {
            if (failure != null && msg.reply() != null) {
              msg.reply().fail(followFailure(RouteMesh.unwrap(failure)));
            }
          });
        } else if (msg != null) {
          rt.metrics().followForward();
          try {
            rt.mesh().sendOn(c, actor.key, ApplicationMessage.TargetKind.ACTOR, actor.id, actor.generation, hops,
                msg);
          } catch (SpotkitException e) {
            if (msg.reply() != null) {
              msg.reply().fail(e);
            }
          }
        }
        yield true;
      }
      // Target frames and the session route: a source unit never sends them as a Send (each listed, so a new frame
      // kind fails to compile).
      case Frame.RelayReady f -> throw notFromSource(f);
      case Frame.Failed f -> throw notFromSource(f);
      case Frame.SessionRoute f -> throw notFromSource(f);
    };
    if (!sent && !(frame instanceof Frame.Follow)) {
      connectionLost();
    }
  }

  private static IllegalStateException notFromSource(final Frame frame) {
    return new IllegalStateException("a source unit sent " + frame.getClass().getSimpleName() + " as a frame");
  }

  void connectionLost() {
    post(new SourceEvent.ConnectionLost());
    redial(System.nanoTime() + Relocations.RESTORE_VALIDITY.plusSeconds(1).toNanos());
  }

  /**
   * Dials the target again. Before the relay-ready reply, the source is restored only when the target can no
   * longer commit: it published no descriptor (it stopped; a closing target takes no ownership), or its Restore
   * validity has passed with the actor's row still at the version this move started from.
   */
  private void redial(final long giveUpAtNanos) {
    rt.async(() -> {
      PeerConnection c = null;
      try {
        c = rt.mesh().connection(owner, rt.mesh().endpointOf(rt.meshName().value(), owner, "relocation of "
            + actor.describe()), Deadline.after(Duration.ofSeconds(1)));
      } catch (SpotkitException e) {
        NodeRuntime.LOG.debug("relocation of {}: redial of node {} failed: {}", actor.describe(), owner, e.toString());
      }
      if (c != null && c.isOpen()) {
        connection = c;
        post(new SourceEvent.ConnectionOpened(r.connectionId(c)));
        return null;
      }
      final boolean paused;
      synchronized (actor.ingressLock) {
        paused = unit.stage() == Stage.SOURCE_PAUSED;
      }
      if (!paused) {
        return null;
      }
      final boolean late = System.nanoTime() - giveUpAtNanos > 0;
      if (!rt.mesh().published(owner) || late && unchanged()) {
        NodeRuntime.LOG.warn("relocation of {} to node {}: the target cannot commit any more; restoring the source",
            actor.describe(), owner);
        post(new SourceEvent.FailureArrived(identity, dev.spotkit.relocation.FailureCode.UNRECOGNIZED));
      } else if (late) {
        NodeRuntime.LOG.error("relocation of {} to node {}: the target committed while unreachable; the held work"
            + " cannot be relayed", actor.describe(), owner);
      } else {
        rt.relocationScheduler().schedule(() -> redial(giveUpAtNanos), 1, TimeUnit.SECONDS);
      }
      return null;
    });
  }

  /**
   * The error of a followed message whose re-route by the Location Store failed. NotFound there means the store
   * still names this node, so the target did not commit (its CAS failed past relay-ready, or it stopped): spec 001
   * section 9's table ("Target CAS fails ... after the ready-to-receive-relay reply": source dispatch isn't
   * reopened, that unit stays unavailable) and section 10 make it Unavailable, not NotFound.
   */
  private SpotkitException followFailure(final Throwable failure) {
    final SpotkitException typed = Cell.typed(failure, "Message Follow of " + actor.describe());
    return typed instanceof SpotkitException.NotFound ? new SpotkitException.Unavailable(actor.describe()
        + " moved to node " + owner + " and that move did not commit: it is unavailable (" + typed.getMessage()
        + ")") : typed;
  }

  /** Budget room came back: units of the same peer waiting before their seal or next chunk may go on. */
  private void wakeWaiting() {
    for (RelocationSource other : r.sources.values()) {
      if (other != this && other.budget == budget && other.unit.isWaitingForBudget()) {
        other.post(new SourceEvent.BudgetChanged());
      }
    }
  }

  /** Whether the actor's row still has the version this move started from (nobody committed it). */
  private boolean unchanged() {
    return dev.spotkit.core.location.LocationRecords.read(rt.store().store(), actor.key).map(stored ->
        stored.version().value().equals(identity.coordinatorFence().expectedAuthorityStoreVersion()))
        .orElse(false);
  }

  /**
   * On the actor's gate: the not-yet-run queue, the timers and the state, frozen into one payload. Only the drain of
   * the queue and the timers holds the ingress lock (every send takes it, also on mesh I/O threads); the adapter's
   * {@code capture} (user code, which may block) and the encoding run outside it, while later sends go to the
   * ingress hold, so no sender waits on a move.
   */
  private void capture() {
    final Relocations.Binding binding;
    final List<CellTimers.Entry> timers;
    final List<EnvelopeEntries.SavedWork> saved = new ArrayList<>();
    final List<EnvelopeEntries.PendingTimerTick> ticks = new ArrayList<>();
    final List<EnvelopeEntries.TimerRegistration> registrations;
    final java.util.function.Consumer<String> hook = beforeCapture;
    if (hook != null) {
      hook.accept(actor.id);
    }
    synchronized (actor.ingressLock) { // serialized with the ingress, replies and a restoration
      if (unit.stage() != Stage.SOURCE_PAUSED || actor.relocating != this) {
        return;
      }
      try {
        final Relocations.Binding bound = Relocations.bindingOf(actor);
        binding = bound == null ? null : bound.sealedBy(sessionSeal);
        final List<Envelope> drained = new ArrayList<>(actor.mailbox.drainUnrun());
        for (int i = 0; i < drained.size(); i++) { // frames of the bound session leave as one-way session work
          if (drained.get(i) instanceof Envelope.Frame frame) {
            drained.set(i, frame.link().leaving(frame));
          }
        }
        timers = actor.timers.entries();
        actor.timers.cancelAll();
        capturedQueue = true;
        captured = drained;
        capturedTimers = timers;
        long order = 0;
        for (Envelope e : drained) {
          switch (e) {
            case Envelope.Msg msg -> saved.add(new EnvelopeEntries.SavedWork(1, order++, r.freeze(msg, actor)));
            case Envelope.Tick tick -> {
              if (timers.contains(tick.timer())) {
                ticks.add(new EnvelopeEntries.PendingTimerTick(1, order++, tick.timer().name,
                    tick.timer().delivered, tick.timer().delivered, System.currentTimeMillis(), 0));
              }
            }
            case Envelope.Marker marker -> marker.task().run();
            case Envelope.Frame frame -> frame.link().frameHandled();
          }
        }
        final long nowNanos = System.nanoTime();
        registrations = timers.stream()
            .sorted(Comparator.comparing(t -> t.name.getBytes(StandardCharsets.UTF_8), Arrays::compareUnsigned))
            .map(t -> new EnvelopeEntries.TimerRegistration(1, t.name, Relocations.HANDLER_TYPE,
                TimeUnit.NANOSECONDS.toMillis(t.periodNanos),
                EnvelopeEntries.TimerRegistration.OVERRUN_SKIP_LATE_TICKS, 0, false, t.delivered, t.delivered,
                System.currentTimeMillis() + Math.max(0, TimeUnit.NANOSECONDS.toMillis(t.nextAtNanos - nowNanos))))
            .toList();
      } catch (RuntimeException e) {
        captureFailed(e);
        return;
      }
    }
    try {
      final byte[] state = switch (actor.type.policy()) {
        case PRESERVE -> captureState(); // user code, outside the ingress lock
        case RECREATE, DISABLE -> null;
      };
      // The framing and the adapter's bytes go into the stream as two parts: the state is copied once, into the
      // stream, and checksummed right after (the stream is the in-memory payload; chunks are ranges of it).
      final byte[] head = Relocations.frameHead(join == null ? null : join.operationId(),
          join == null ? 0 : WireDeadlines.unixMs(join.deadline()), state != null, binding);
      final EncodedStream stream = RelocationEnvelopeCodec.encodeChecksummed(new RelocationEnvelope(
          identity.relocationId(), object, 1, List.of(EnvelopeEntries.ApplicationState.ofParts(1, head, state)),
          saved, registrations, ticks));
      post(new SourceEvent.PayloadCaptured(stream.bytes(), stream.crc32c()));
    } catch (RuntimeException e) {
      captureFailed(e);
    }
  }

  private void captureFailed(final RuntimeException e) {
    NodeRuntime.LOG.warn("capture of {} failed; the source keeps serving", actor.describe(), e);
    captureFailure = Cell.typed(e, "capture of " + actor.describe());
    post(new SourceEvent.FailureArrived(identity, dev.spotkit.relocation.FailureCode.RESTORE_FAILED));
  }

  private SpotkitException captureFailure;
  private dev.spotkit.relocation.FailureCode failureCode;

  @SuppressWarnings("unchecked")
  private byte[] captureState() {
    final ActorRelocationAdapter<Actor> adapter = (ActorRelocationAdapter<Actor>) actor.type.adapter();
    final Turn turn = Turn.enter(actor, false);
    final byte[] state;
    try {
      state = adapter.capture(actor.actor);
    } finally {
      turn.exit();
    }
    if (state == null) {
      throw new SpotkitException.InternalFailure("the relocation adapter of " + actor.describe() + " returned null"
          + " from capture (an empty array is valid state; null is a contract violation)");
    }
    return state; // the framework takes ownership (ActorRelocationAdapter#capture): read once, into the stream
  }

  /** Explicit failure before relay-ready: the captured queue, then the hold, back in order; timers again. */
  private void restore(final List<Message> held) {
    // Admitted whatever the mailbox capacity (REL-23): the captured queue and the hold were accepted already.
    for (Envelope e : captured) {
      if (!(e instanceof Envelope.Tick)) {
        actor.mailbox.admit(e);
      }
    }
    for (Message m : held) {
      final Envelope.Msg msg = local.remove(m);
      followHops.remove(msg);
      final FrozenRecord record = records.remove(m);
      if (record != null && record.replyRouteId() != 0) {
        r.replyRoutes.remove(record.replyRouteId());
      }
      if (msg != null) {
        actor.mailbox.admit(msg);
      }
    }
    for (CellTimers.Entry t : capturedTimers) {
      if (actor.state == CellState.READY) {
        actor.timers.every(t.name, Duration.ofNanos(t.periodNanos), t.tick);
      }
    }
    captured = List.of();
    capturedTimers = List.of();
    actor.relocating = null;
  }

  private void reopen() {
    r.sources.remove(actor.id, this);
    r.sourcesByIdentity.remove(identity);
    final String what = "relocation of " + actor.describe() + " to node " + owner + " failed before relay-ready ("
        + failureCode + "); the actor stays on this node";
    // A join whose deadline passed meanwhile ends DeadlineExceeded whatever the target reported (the target fails
    // a Restore that finished after the join's deadline, spec 000 section 4).
    final SpotkitException error = captureFailure != null ? captureFailure
        : join != null && join.deadline().isExpired() ? new SpotkitException.DeadlineExceeded(what + "; the join's"
            + " deadline passed") : failedKind(failureCode, what);
    settled.complete(null); // before the caller hears of it: a destroy it sends next finds the move settled
    watch.failed(error.getMessage(), false);
    if (join != null) {
      rt.joins().finish(actor, new JoinResult.Failed(join.operationId(), error));
    } else {
      if (actor.state == CellState.READY) {
        actor.mailbox.open();
      }
      moved.completeExceptionally(error);
    }
  }

  /**
   * The Failed kind of a command 53 code, per spec 000 section 4's point-of-failure table: a target refusal
   * (fences, a closing node, no factory, no Entry Spot, an expired approval; also superseded, busy and codes this
   * node does not know) is Unavailable, another ObjectGeneration InvalidOperation (StaleGeneration), a join Spot
   * gone NotFound, a failing factory or Restore InternalFailure, a checksum mismatch DataLost, Restore validity
   * DeadlineExceeded.
   *
   * @param code the decoded failure code; null when none arrived (a lost target: Unavailable).
   * @param what the message.
   * @return the typed error.
   */
  static SpotkitException failedKind(final dev.spotkit.relocation.FailureCode code, final String what) {
    return switch (code) {
      case CHECKSUM_MISMATCH -> new SpotkitException.DataLost(what);
      case RESTORE_FAILED, MANIFEST_CONFLICT -> new SpotkitException.InternalFailure(what);
      case DEADLINE -> new SpotkitException.DeadlineExceeded(what);
      case SUPERSEDED, BUSY, TARGET_UNAVAILABLE, UNRECOGNIZED -> new SpotkitException.Unavailable(what);
      case STALE_GENERATION -> new SpotkitException.StaleGeneration(what);
      case SPOT_NOT_FOUND -> new SpotkitException.NotFound(what);
      case null -> new SpotkitException.Unavailable(what);
    };
  }

  /** Past the boundary: the actor instance here ends; Message Follow remains (spec 001 section 10). */
  private void detach() {
    detached = true;
    rt.actors.remove(actor.id, actor);
    if (join == null) { // host relocation: no membership callbacks (spec 000 section 4.2)
      actor.membership.members.remove(actor);
    }
    actor.state = CellState.GONE;
    actor.control(() -> { // work waiting for this barrier (e.g. a host relocation) learns the actor left
      final Runnable after = actor.afterBarrier;
      actor.afterBarrier = null;
      if (after != null) {
        after.run();
      }
    });
    if (!actor.barrier.isEmpty()) {
      NodeRuntime.LOG.warn("{} moved to node {}; {} later join(s) of the same handler are dropped",
          actor.describe(), owner, actor.barrier.size());
      actor.barrier.clear();
    }
    // the instance here ended: this unit keeps the cell for the follow duration (30 s), not its actor and state
    actor.control(() -> {
      actor.actor = null;
      actor.handlers.release();
    });
    synchronized (r.follow) {
      r.follow.install(new MessageFollowTable.Route(actor.id, actor.generation,
          actor.storeRecord.authorityOwnerGeneration() + 1, owner.hex(), Relocations.nowMs()));
    }
    r.followGenerations.put(actor.id, actor.generation);
    final long window = RelocationSettings.DEFAULT_CUTOVER_WAIT_MS + Relocations.CLOCK_TICK_MS;
    rt.relocationScheduler().schedule(() -> post(new SourceEvent.ClockAdvanced(Relocations.nowMs())), window,
        TimeUnit.MILLISECONDS);
    rt.relocationScheduler().schedule(() -> {
      end();
      leaveIfNoNoticeCame();
      if (abandoned != null) { // the follow duration ended: the row this node still holds goes
        rt.async(() -> removeRow());
      }
    }, MessageFollowTable.DEFAULT_DURATION_MS, TimeUnit.MILLISECONDS);
    final long now = System.nanoTime();
    confirm(now + Relocations.RESTORE_VALIDITY.plus(Relocations.STORE_CALL_TIMEOUT).toNanos(),
        now + TimeUnit.MILLISECONDS.toNanos(MessageFollowTable.DEFAULT_DURATION_MS), FIRST_CONFIRM_DELAY_MS);
  }

  /** What the Location Store says about this move, past the boundary (see {@link #confirm}). */
  private enum Commit {
    /** The row has this incarnation with a newer AuthorityOwnerGeneration: the target's CAS applied. */
    COMMITTED,
    /**
     * The row is gone: the incarnation ended (destroyed or released), on its new owner after a commit or here; it
     * runs nowhere either way, so there is nothing left to be unavailable.
     */
    ENDED,
    /** The row is gone, has another incarnation, or changed without an owner change: the CAS can never apply. */
    REFUSED,
    /** The row is still at the version this move started from: the target may still be trying its CAS. */
    PENDING,
    /** The read failed or did not answer in time. */
    UNREADABLE
  }

  /** First wait before a commit read, ms; doubled after each read up to {@link #MAX_CONFIRM_DELAY_MS}. */
  private static final long FIRST_CONFIRM_DELAY_MS = 5;
  private static final long MAX_CONFIRM_DELAY_MS = 200;

  /**
   * Past the boundary, the source learns whether the target's CAS committed by reading the actor's authority row,
   * never by writing it (spec 001 sections 4.5 and 6: only the target changes the owner), and only then reports the
   * move (spec 001 section 9, "Cutover submit result is unknown": the source does not guess, it reads the Location
   * Store authority, bounded by the Message Follow duration). A row still at this move's starting version is no
   * answer before {@code giveUpAtNanos}, the target's Restore validity (it starts before the relay-ready reply
   * this source accepted) plus one store call that may be in flight at its end; after it the target can no longer
   * commit. An unreadable store is retried until {@code followEndsAtNanos}. Reads run on virtual threads, the waits
   * between them on the scheduler. Any thread.
   */
  private void confirm(final long giveUpAtNanos, final long followEndsAtNanos, final long delayMs) {
    rt.async(this::readCommit).whenComplete((read, failure) -> {
      final Commit commit = failure != null ? Commit.UNREADABLE : read;
      final long now = System.nanoTime();
      switch (commit) {
        case COMMITTED -> committed();
        case ENDED -> ended();
        case REFUSED -> notCommitted("the Location Store shows another incarnation or version of its row: the"
            + " target's CAS ended stale");
        case PENDING, UNREADABLE -> {
          if (commit == Commit.PENDING && now - giveUpAtNanos > 0) {
            notCommitted("the Location Store still names this node after the target's Restore validity ("
                + Relocations.RESTORE_VALIDITY.toMillis() + " ms): its CAS did not commit");
          } else if (now - followEndsAtNanos > 0) {
            notCommitted("the Location Store could not be read until Message Follow ended; whether the target"
                + " committed is unknown");
          } else {
            try {
              rt.relocationScheduler().schedule(() -> confirm(giveUpAtNanos, followEndsAtNanos,
                  Math.min(delayMs * 2, MAX_CONFIRM_DELAY_MS)), delayMs, TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.RejectedExecutionException e) {
              notCommitted("this node closed before the Location Store confirmed the move");
            }
          }
        }
      }
    });
  }

  /** Virtual thread: one read of the actor's authority row. */
  private Commit readCommit() {
    final java.util.Optional<dev.spotkit.core.location.LocationRecords.Stored> row;
    try {
      row = dev.spotkit.core.location.LocationRecords.read(rt.store().store(), actor.key,
          Relocations.STORE_CALL_TIMEOUT);
    } catch (RuntimeException e) {
      NodeRuntime.LOG.debug("relocation of {}: commit read failed: {}", actor.describe(), e.toString());
      return Commit.UNREADABLE;
    }
    if (row.isEmpty()) {
      return Commit.ENDED;
    }
    if (row.get().authority().objectGeneration().value() != actor.generation) {
      return Commit.REFUSED;
    }
    if (row.get().authority().authorityOwnerGeneration().value() > object.expectedAuthorityOwnerGeneration()) {
      return Commit.COMMITTED; // only an owner change issues a newer one, and only the target could make it
    }
    return row.get().version().value().equals(identity.coordinatorFence().expectedAuthorityStoreVersion())
        ? Commit.PENDING : Commit.REFUSED;
  }

  private void committed() {
    settled.complete(null); // first: the caller may act on the result at once (e.g. destroy by the old ref)
    watch.committed();
    if (join == null) {
      moved.complete(new dev.spotkit.core.ActorRef(actor.actorId, new ObjectGeneration(actor.generation),
          rt.meshName(), owner));
    }
  }

  /**
   * The actor's row is gone past the boundary (typically: the move committed and the actor was destroyed on its new
   * owner at once, e.g. its client disconnected during the join): no incarnation to follow or report as
   * unavailable. Work still arriving for it here is refused like that of an abandoned move; an explicit relocate
   * fails NotFound.
   */
  private void ended() {
    final String why = "the actor's location record is gone (it was destroyed or released after the move)";
    synchronized (actor.ingressLock) {
      rowEnded = true;
      abandoned = why;
    }
    NodeRuntime.LOG.debug("relocation of {} to node {}: {}", actor.describe(), owner, why);
    settled.complete(null);
    watch.failed(why, true);
    if (join == null) {
      moved.completeExceptionally(new SpotkitException.NotFound("relocation of " + actor.describe() + " to node "
          + owner + ": " + why));
    }
  }

  private void notCommitted(final String why) {
    synchronized (actor.ingressLock) {
      abandoned = why;
    }
    NodeRuntime.LOG.error("relocation of {} to node {} did not commit: {}; the actor is unavailable", actor.describe(),
        owner, why);
    final dev.spotkit.core.internal.runtime.SpotCell source = actor.membership;
    if (join != null && source != null) {
      // It runs nowhere, and the target's leave notice will never come: its Spot here stops listing it (OnLeaveActor,
      // in queue order), instead of keeping a member that cannot answer for good.
      dev.spotkit.core.internal.join.Joins.leaveInOrder(source, actor, null);
    }
    settled.complete(null); // before the caller hears of it: a destroy it sends next must find the move settled
    watch.failed(why, true);
    if (join == null) {
      moved.completeExceptionally(new SpotkitException.Unavailable("relocation of " + actor.describe() + " to node "
          + owner + " passed the target's relay-ready reply but did not commit (" + why + "); the actor is"
          + " unavailable (spec 001 section 9)"));
    }
  }

  /**
   * A join's move whose target never sent its one-way leave notice (it died right after its CAS): once Message Follow
   * ended, the Spot here stops listing the actor (OnLeaveActor, in queue order) rather than keep it for good.
   */
  private void leaveIfNoNoticeCame() {
    final dev.spotkit.core.internal.runtime.SpotCell source = actor.membership;
    if (join != null && source != null && source.members.contains(actor)) {
      NodeRuntime.LOG.warn("{} moved to node {} {} ms ago and no leave notice came from there; {} lets it go",
          actor.describe(), owner, MessageFollowTable.DEFAULT_DURATION_MS, source.describe());
      dev.spotkit.core.internal.join.Joins.leaveInOrder(source, actor, null);
    }
  }

  /**
   * The actor is being restored on this node again with a SpotWide aggregate while this unit still follows its
   * earlier move away: its follow goes on as the participant's follow of the aggregate's kind
   * ({@link Relocations#aggregateFollows}), so work this node sends the old way and the route switch once the actor
   * is Ready here go through it, behind what it followed before; once the caller registered it, the unit no longer
   * takes work by itself ({@link #endSuperseded}; taken first, it followed work past the aggregate's own hand-over).
   *
   * @return that follow, or null when the unit is not past its move and following.
   */
  Relocations.Followed superseded() {
    if (!Long.valueOf(actor.generation).equals(r.followGenerations.get(actor.id))) {
      return null;
    }
    return new Relocations.Followed(actor.ingressLock, this::ingress,
        new java.util.concurrent.atomic.AtomicReference<>(), actor.generation, owner);
  }

  /** After {@link #superseded}'s follow was registered in its place: this unit is no longer found by the actor's id. */
  void endSuperseded() {
    end();
  }

  /** This unit stops handling work for the actor here (Message Follow ended, or the actor was destroyed). */
  private void end() {
    r.sources.remove(actor.id, this);
    r.sourcesByIdentity.remove(identity);
    r.followGenerations.remove(actor.id, actor.generation);
  }

  /**
   * Deletes the actor's row while it still is this incarnation recorded on this host run with no owner change since
   * the move started (its AuthorityOwnerGeneration unchanged), conditioned on the version just read (see
   * {@link #abandoned}). The target's CAS can no longer apply (its Restore validity is over, or the row left the
   * version it conditions on), and this node is still the recorded owner: the end of an incarnation that runs
   * nowhere, not an owner change. Virtual thread or the closing thread.
   *
   * @return true when this call deleted it.
   */
  private boolean removeRow() {
    final java.util.Optional<dev.spotkit.core.location.LocationRecords.Stored> row;
    try {
      row = dev.spotkit.core.location.LocationRecords.read(rt.store().store(), actor.key,
          Relocations.STORE_CALL_TIMEOUT);
    } catch (RuntimeException e) {
      NodeRuntime.LOG.warn("the location record of {} could not be read to remove it: {}", actor.describe(),
          e.toString());
      return false;
    }
    if (row.isEmpty()) {
      return false;
    }
    final dev.spotkit.core.location.AuthorityRecord a = row.get().authority();
    if (a.objectGeneration().value() != actor.generation
        || a.authorityOwnerGeneration().value() != object.expectedAuthorityOwnerGeneration()
        || !a.allocation().routingIdHex().equals(rt.nodeRid().hex()) || !a.ownerId().equals(r.ownerId())) {
      return false; // another incarnation, an owner change after all, or not this host run's row
    }
    return rt.store().removeAt(actor.key, row.get().version());
  }

  /**
   * A destroy of the moved actor by ref, past the boundary (the actor is not Ready here any more): while the move's
   * result is not known yet, Unavailable; once it did not commit, the row is removed and the unit ends (true; false
   * when the row changed meanwhile); null once it committed (the destroy goes to the new owner). Any thread.
   *
   * @return the result, or null to destroy through the Location Store's owner.
   */
  java.util.concurrent.CompletableFuture<Boolean> destroy() {
    if (!settled.isDone()) {
      return java.util.concurrent.CompletableFuture.failedFuture(new SpotkitException.Unavailable(actor.describe()
          + " is moving to node " + owner + "; destroy it once the move ended"));
    }
    if (abandoned == null) {
      return null;
    }
    end();
    return rt.async(this::removeRow);
  }

  /** Node close, once this unit settled: the row of an actor whose move did not commit goes with the node. */
  void closeNode() {
    if (abandoned != null) {
      end();
      removeRow();
    }
  }
}
