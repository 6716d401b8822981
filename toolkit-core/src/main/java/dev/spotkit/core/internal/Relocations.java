package dev.spotkit.core.internal;

import dev.spotkit.core.Actor;
import dev.spotkit.core.ActorRelocationAdapter;
import dev.spotkit.core.Deadline;
import dev.spotkit.core.JoinResult;
import dev.spotkit.core.NodeRid;
import dev.spotkit.core.ObjectGeneration;
import dev.spotkit.core.OperationId;
import dev.spotkit.core.SpotId;
import dev.spotkit.core.SpotRef;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.core.location.AuthorityRecord;
import dev.spotkit.core.location.ObjectKey;
import dev.spotkit.core.location.PlacementBatches;
import dev.spotkit.core.mesh.PeerConnection;
import dev.spotkit.core.wire.ActorJoin;
import dev.spotkit.core.wire.ApplicationMessage;
import dev.spotkit.core.wire.OperationKind;
import dev.spotkit.core.wire.Reply;
import dev.spotkit.core.wire.ReplyCodec;
import dev.spotkit.core.wire.ReplyTail;
import dev.spotkit.core.wire.Rids;
import dev.spotkit.core.wire.TerminalResult;
import dev.spotkit.core.wire.WireFormatException;
import dev.spotkit.relocation.Action;
import dev.spotkit.relocation.Frame;
import dev.spotkit.relocation.InFlightBudget;
import dev.spotkit.relocation.Message;
import dev.spotkit.relocation.RelocationSettings;
import dev.spotkit.relocation.SourceEvent;
import dev.spotkit.relocation.SourceUnit;
import dev.spotkit.relocation.Stage;
import dev.spotkit.relocation.TargetEvent;
import dev.spotkit.relocation.TargetUnits;
import dev.spotkit.relocation.follow.MessageFollowTable;
import dev.spotkit.relocation.wire.ApplicationPayload;
import dev.spotkit.relocation.wire.CoordinatorFence;
import dev.spotkit.relocation.wire.EnvelopeEntries;
import dev.spotkit.relocation.wire.FrozenRecord;
import dev.spotkit.relocation.wire.ObjectIdentity;
import dev.spotkit.relocation.wire.RecordBody;
import dev.spotkit.relocation.wire.RecordSource;
import dev.spotkit.relocation.wire.RelocationCodec;
import dev.spotkit.relocation.wire.RelocationEnvelope;
import dev.spotkit.relocation.wire.RelocationEnvelopeCodec;
import dev.spotkit.relocation.wire.RelocationFrame;
import dev.spotkit.relocation.wire.RelocationId;
import dev.spotkit.relocation.wire.RelocationIdentity;
import dev.spotkit.relocation.wire.RelocationWireException;
import dev.spotkit.relocation.wire.Role;
import dev.spotkit.relocation.wire.TargetFence;
import dev.spotkit.relocation.wire.TargetSpot;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The node's driver of the relocation protocol of toolkit-relocation (spec 001; spec 000 sections 4.2 and 6): it
 * feeds {@link SourceUnit} and {@link TargetUnits} with what happens on the mesh, the store and the cells, and
 * performs the actions they answer. One cross-node Actor Join in order (spec 000 section 4.2 steps 1-7):
 * <ol>
 *   <li>source, after the handler ended: command 28 approval to the target spot's owner; there OnActorJoin runs
 *       on the spot's gate and the reply carries the receive chunk limit;</li>
 *   <li>source: DisableRelocation refuses ({@link SpotkitException.Rejected}); otherwise seal (every offer to the
 *       actor goes to the ingress hold from now on), capture on the actor's gate (not-yet-run queue, timer
 *       registrations and pending ticks, state per policy) into relocation-envelope-v1, kept in memory;</li>
 *   <li>source: command 40 manifest and command 52 chunks on the one ordered connection; target: temporary
 *       queue, assembly, factory, Restore, then command 30 (or an explicit command 53, which restores the source
 *       from memory: it keeps serving);</li>
 *   <li>source: relay of the hold (31), then the one-way cutover (34); from then on Message Follow (command 60
 *       on the same connection);</li>
 *   <li>target: one CAS ({@link PlacementBatches#relocate}) changing owner, membership and capacity together,
 *       ObjectGeneration kept, AuthorityOwnerGeneration + 1; the backlog merge (saved work, pre-boundary relay,
 *       later work), OnJoinedActor, the one-way leave notice to the source (its OnLeaveActor), the completion
 *       callback on the new instance, then dispatch.</li>
 * </ol>
 * Threads: each source unit is driven under its actor's ingress lock; all target units of the node on one serial
 * executor (frames, direct work, store answers and the clock, in arrival order); store I/O and Restore run
 * elsewhere and come back as events. Requests keep their reply route: a request captured or relayed from the
 * source is answered by the target with a command 20 whose correlation is the source's reply route id
 * ({@link #REPLY_ROUTE_BASE} and up), and the source completes the caller's reply from it.
 */
final class Relocations {
  /** Reply route ids start here, above the transport's request correlations. */
  static final long REPLY_ROUTE_BASE = 1L << 62;
  /** Packet name of the one-way leave notice (command 60 to the source Spot, spec 000 section 4.2 step 7). */
  static final String LEAVE_PACKET = "spotkit.leaveActor";
  /** Content type of the leave notice: the ActorId as UTF-8. */
  static final String LEAVE_CONTENT = "application/x-spotkit-leave";
  /** Receive chunk limit advertised in the approval reply: 256 KiB. */
  static final int RECEIVE_CHUNK_LIMIT = RelocationSettings.DEFAULT_CHUNK_LIMIT;
  /** Restore validity on the target when the approval fixed none (host relocation): 10 s. */
  static final Duration RESTORE_VALIDITY = Duration.ofSeconds(10);
  /** How long an approved preparation waits for its Restore (MEM-27). */
  static final Duration PREPARATION_VALIDITY = Duration.ofSeconds(30);
  private static final String HANDLER_TYPE = "dev.spotkit.core.OnTick";
  private static final int LOCAL = 0;
  private static final long CLOCK_TICK_MS = 20;

  private final NodeRuntime rt;
  private final AtomicLong nextReplyRoute = new AtomicLong(REPLY_ROUTE_BASE);
  private final ConcurrentHashMap<Long, ReplySink> replyRoutes = new ConcurrentHashMap<>();
  private final AtomicLong connectionSeq = new AtomicLong();
  final ConcurrentHashMap<PeerConnection, Long> connectionIds = new ConcurrentHashMap<>();
  final ConcurrentHashMap<Long, PeerConnection> connections = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<NodeRid, InFlightBudget> budgets = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Source> sources = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<RelocationIdentity, Source> sourcesByIdentity = new ConcurrentHashMap<>();
  final ConcurrentHashMap<String, Prepared> prepared = new ConcurrentHashMap<>();
  /** Actors whose direct work goes through the target executor (a target unit is or was just live). */
  final Set<String> diverted = ConcurrentHashMap.newKeySet();
  final Object divertLock = new Object();
  /** Target state by ActorId; only the executor thread touches it. */
  final Map<String, TargetObject> objects = new ConcurrentHashMap<>();
  private final MessageFollowTable follow;
  private final Map<String, Long> followGenerations = new ConcurrentHashMap<>();
  private final ExecutorService executor;
  private final ScheduledFuture<?> ticker;

  Relocations(final NodeRuntime rt) {
    this.rt = rt;
    this.follow = new MessageFollowTable(rt.nodeRid().hex(), MessageFollowTable.DEFAULT_DURATION_MS,
        MessageFollowTable.DEFAULT_MAX_HOPS, 5_000);
    this.executor = Executors.newSingleThreadExecutor(r -> Thread.ofPlatform().daemon()
        .name("spotkit-relocation-" + rt.meshName()).unstarted(r));
    this.ticker = rt.scheduler().scheduleAtFixedRate(() -> {
      if (!objects.isEmpty()) {
        post(this::clockAll);
      }
    }, CLOCK_TICK_MS, CLOCK_TICK_MS, TimeUnit.MILLISECONDS);
  }

  NodeRuntime runtime() {
    return rt;
  }

  void close() {
    ticker.cancel(false);
    executor.shutdownNow();
  }

  static long nowMs() {
    return System.nanoTime() / 1_000_000L;
  }

  void post(final Runnable task) {
    try {
      executor.execute(() -> {
        try {
          task.run();
        } catch (RuntimeException e) {
          NodeRuntime.LOG.warn("relocation step failed", e);
        }
      });
    } catch (java.util.concurrent.RejectedExecutionException e) {
      NodeRuntime.LOG.debug("relocation step after close dropped");
    }
  }

  private long connectionId(final PeerConnection connection) {
    return connectionIds.computeIfAbsent(connection, c -> {
      final long id = connectionSeq.incrementAndGet();
      connections.put(id, c);
      return id;
    });
  }

  void onConnectionLost(final PeerConnection connection) {
    final Long id = connectionIds.remove(connection);
    if (id != null) {
      connections.remove(id);
    }
    for (Source source : sources.values()) {
      if (source.connection == connection) {
        source.connectionLost();
      }
    }
  }

  // ================================================================ source side

  /**
   * Starts a cross-node JoinSpot of {@code actor} (its target Spot is not on this node). On the actor's gate, in
   * the join chain; the result comes back through {@link Joins#finish} unless the actor moved.
   */
  void join(final ActorCell actor, final PendingJoin join) {
    final RouteMesh mesh = rt.mesh();
    if (actor.session != null && !actor.session.isClosed()) {
      rt.joins().finish(actor, new JoinResult.Failed(join.operationId(), new SpotkitException.Unavailable(
          actor.describe() + " is bound to a session; a session-bound actor does not relocate in this release")));
      return;
    }
    rt.async(() -> {
      approve(actor, join, mesh);
      return null;
    }).whenComplete((v, failure) -> {
      if (failure != null) {
        rt.joins().finish(actor, new JoinResult.Failed(join.operationId(), Cell.typed(RouteMesh.unwrap(failure),
            "join of " + actor.describe())));
      }
    });
  }

  /** Virtual thread: find the owner, ask for approval (command 28), then continue on the actor's gate. */
  private void approve(final ActorCell actor, final PendingJoin join, final RouteMesh mesh) {
    final String what = "join of " + actor.describe() + " to spot '" + join.spotId() + "'";
    final RouteMesh.Located spot = mesh.locate(ObjectKey.spot(join.spotId())).orElseThrow(() ->
        new SpotkitException.NotFound("join target spot '" + join.spotId() + "' not found in mesh "
            + rt.meshName() + "; create it first with spots().getOrCreate(\"" + join.spotId() + "\", type)"));
    if (spot.owner().equals(rt.nodeRid())) {
      throw new SpotkitException.NotFound("join target spot '" + join.spotId() + "' is recorded on this node but"
          + " is not Ready here");
    }
    if (spot.stored().authority().allocation().objectKind() != dev.spotkit.core.location.PlacementKind.USER_SPOT) {
      throw new SpotkitException.InvalidOperation("spot '" + join.spotId() + "' is not a User Spot; only a User"
          + " Spot takes actor members");
    }
    final AuthorityRecord row = spot.stored().authority();
    final ActorJoin.Party self = actorParty(actor);
    final ActorJoin.Party target = new ActorJoin.Party(join.spotId(), spot.generation(), Rids.of(spot.owner()),
        row.allocation().descriptorLifecycleGeneration(), row.authorityOwnerGeneration().value(),
        row.ownerLeaseGeneration().value());
    final ApplicationPayload request = join.request() == null ? null
        : rt.copier().encodeForPeer("join request", join.request(), Joins.MAX_REQUEST_BYTES, true);
    final Reply reply = mesh.call(spot.owner(), spot.meshName().value(), correlation -> new ActorJoin(correlation,
        self, false, target, request).encode(), OperationKind.ACTOR_JOIN, join.deadline(), what).join();
    final SpotRef spotRef = new SpotRef(new SpotId(join.spotId()), new ObjectGeneration(spot.generation()),
        spot.meshName(), spot.owner());
    final Optional<Object> answer = reply.payload() == null ? Optional.empty()
        : Optional.of(rt.copier().decode(reply.payload()));
    if (reply.tail() instanceof ReplyTail.ActorJoinRejected) {
      rt.joins().finish(actor, new JoinResult.Rejected(join.operationId(), spotRef, answer));
      return;
    }
    if (!(reply.tail() instanceof ReplyTail.ActorJoinAccepted accepted)) {
      throw new SpotkitException.InternalFailure(what + ": the approval reply has no actorJoin tail");
    }
    final PeerConnection connection = mesh.connection(spot.owner(), mesh.endpointOf(spot.meshName().value(),
        spot.owner(), what), join.deadline());
    actor.control(() -> seal(actor, join, connection, spot, (int) accepted.receiveChunkLimitBytes()));
  }

  private ActorJoin.Party actorParty(final ActorCell actor) {
    return new ActorJoin.Party(actor.id, actor.generation, Rids.of(rt.nodeRid()), rt.store().lifecycleGeneration(),
        actor.storeRecord.authorityOwnerGeneration(), leaseGeneration());
  }

  long leaseGeneration() {
    return rt.store().ownerLease().record().leaseGeneration().value();
  }

  String ownerId() {
    return rt.store().ownerLease().record().ownerId();
  }

  /** On the actor's gate: policy (step 3), then the seal and the start of the source unit. */
  private void seal(final ActorCell actor, final PendingJoin join, final PeerConnection connection,
      final RouteMesh.Located spot, final int chunkLimit) {
    if (actor.type.policy() == NodeConfig.Policy.DISABLE) {
      // Spec 000 section 4.2 step 3: rejected here; the target's preparation expires (MEM-27).
      rt.joins().finish(actor, new JoinResult.Failed(join.operationId(), new SpotkitException.Rejected(
          actor.describe() + " is registered with DisableRelocation: it cannot move to node " + spot.owner()
          + " owning spot '" + join.spotId() + "' (a same-node join is allowed, MEM-19)")));
      return;
    }
    if (actor.state != CellState.READY || rt.isClosing() || join.deadline().isExpired()) {
      rt.joins().finish(actor, new JoinResult.Failed(join.operationId(), rt.isClosing()
          ? new SpotkitException.ShuttingDown("the node started closing before the join of " + actor.describe()
              + " sealed") : new SpotkitException.DeadlineExceeded("join of " + actor.describe()
              + " passed its deadline before the seal")));
      return;
    }
    start(actor, join, null, connection, spot.owner(), chunkLimit);
  }

  /**
   * On the actor's gate, its mailbox closed: the seal (every later offer goes to the ingress hold) and the start of
   * the source unit. {@code join} is null for a host relocation, which reports to {@code moved} instead.
   *
   * @param chunkLimit the receive chunk limit the target advertised, 0 when none (32 KiB chunks).
   */
  void start(final ActorCell actor, final PendingJoin join, final java.util.concurrent.CompletableFuture<
      dev.spotkit.core.ActorRef> moved, final PeerConnection connection, final NodeRid owner, final int chunkLimit) {
    final RelocationIdentity identity = new RelocationIdentity(new RelocationId(randomNonZero(),
        ThreadLocalRandom.current().nextLong()), 1, new CoordinatorFence(ownerId(), leaseGeneration(),
        Rids.of(rt.nodeRid()), rt.store().lifecycleGeneration(), actor.storeVersion.value()));
    final RelocationSettings settings = new RelocationSettings(RelocationSettings.DEFAULT_CHUNK_LIMIT,
        Math.max(0, chunkLimit), RelocationSettings.DEFAULT_CUTOVER_WAIT_MS, RelocationSettings.DEFAULT_FOLLOW_MS,
        50);
    final Source source = new Source(actor, join, moved, connection, owner, identity, settings);
    sources.put(actor.id, source);
    sourcesByIdentity.put(identity, source);
    synchronized (actor.ingressLock) {
      actor.relocating = source;
      source.post(new SourceEvent.StartRequested());
    }
  }

  private static long randomNonZero() {
    long v;
    do {
      v = ThreadLocalRandom.current().nextLong();
    } while (v == 0);
    return v;
  }

  /**
   * Work for an actor that is not Ready here but relocating away or moved (Message Follow): handled by its source
   * unit. Any thread.
   *
   * @return true when taken.
   */
  boolean sourceIngress(final String actorId, final Envelope.Msg envelope) {
    final Source source = sources.get(actorId);
    if (source == null) {
      return false;
    }
    synchronized (source.actor.ingressLock) {
      source.ingress(envelope);
    }
    return true;
  }

  /** A command 30 or 53 reply for a source unit. Event loop. */
  private void onSourceReply(final RelocationFrame frame) {
    final Source source = sourcesByIdentity.get(frame.identity());
    if (source == null) {
      NodeRuntime.LOG.warn("relocation reply {} for unknown identity {} ignored", frame.command(), frame.identity());
      return;
    }
    synchronized (source.actor.ingressLock) {
      if (frame instanceof RelocationFrame.Failed failed) {
        source.post(new SourceEvent.FailureArrived(failed.identity(),
            dev.spotkit.relocation.FailureCode.fromWire(failed.failureCode())));
      } else {
        source.post(new SourceEvent.RelayReadyArrived(frame.identity()));
      }
    }
  }

  /** A reply (command 20) to a reply route of a captured or relayed request. Event loop. */
  boolean onReplyRoute(final byte[] frame) {
    final long correlation = ReplyCodec.correlation(frame);
    if (correlation < REPLY_ROUTE_BASE) {
      return false;
    }
    final ReplySink sink = replyRoutes.remove(correlation);
    if (sink == null) {
      return true;
    }
    try {
      final Reply reply = ReplyCodec.decode(frame, OperationKind.ACTOR_REQUEST);
      if (reply.terminalResult() != TerminalResult.OK) {
        sink.fail(ReplyErrors.toException(reply, sink.description));
      } else if (reply.payload() == null) {
        sink.fail(new SpotkitException.InternalFailure(sink.description + ": the reply has no payload"));
      } else {
        sink.complete(rt.copier().decodeReply(reply.payload()));
      }
    } catch (WireFormatException | SpotkitException e) {
      sink.fail(Cell.typed(e, sink.description));
    }
    return true;
  }

  /** The one-way leave notice from the target: OnLeaveActor on the source Spot (spec 000 section 4.2 step 7). */
  void onLeaveNotice(final String spotId, final String actorId) {
    final Source source = sources.get(actorId);
    final SpotCell spot = rt.spots.get(spotId);
    if (source == null || spot == null) {
      NodeRuntime.LOG.debug("leave notice of actor '{}' from spot '{}' found no source here", actorId, spotId);
      return;
    }
    final ActorCell actor = source.actor;
    spot.control(() -> {
      if (spot.members.remove(actor)) {
        spot.runCallback("onLeaveActor of " + spot.describe(), false, () -> {
          Joins.left(spot, actor);
          return null;
        });
      }
    });
  }

  /**
   * Message Follow of an application message that reached this node for an actor that moved away (spec 002
   * section 7.3, LOC-21): through the source unit while it follows, else to the recorded new owner with one more
   * hop; a cycle, an expired route or too many hops end Unavailable, another generation InvalidOperation.
   *
   * @return true when handled (forwarded or failed); false when no route is known here.
   */
  boolean followInbound(final ApplicationMessage m, final ReplySink sink) {
    final Long generation = followGenerations.get(m.targetId());
    if (generation == null) {
      return false;
    }
    final MessageFollowTable.Decision decision;
    synchronized (follow) {
      decision = follow.decide(new MessageFollowTable.Followed(m.targetId(), m.objectGeneration() == 0 ? generation
          : m.objectGeneration(), Message.send(new byte[0]), m.hops(), 0, List.of()), nowMs());
    }
    switch (decision) {
      case MessageFollowTable.NoRoute none -> {
        return false;
      }
      case MessageFollowTable.Reject reject -> {
        final SpotkitException error = "InvalidOperation".equals(reject.errorKind())
            ? new SpotkitException.StaleGeneration("actor '" + m.targetId() + "': " + reject.reason())
            : new SpotkitException.Unavailable("actor '" + m.targetId() + "': " + reject.reason());
        if (sink != null) {
          sink.fail(error);
        } else {
          NodeRuntime.LOG.warn("one-way message to moved actor '{}' dropped: {}", m.targetId(), error.getMessage());
        }
        return true;
      }
      case MessageFollowTable.Forward forward -> {
        final Envelope.Msg envelope = new Envelope.Msg(rt.copier().decode(m.payload()), sink);
        if (sourceIngress(m.targetId(), envelope)) {
          return true;
        }
        final NodeRid next = new NodeRid(Long.parseUnsignedLong(forward.nextNode(), 16));
        rt.async(() -> {
          final PeerConnection c = rt.mesh().connection(next, rt.mesh().endpointOf(rt.meshName().value(), next,
              "Message Follow of actor '" + m.targetId() + "'"), Deadline.after(Duration.ofSeconds(5)));
          rt.mesh().sendOn(c, ObjectKey.actor(m.targetId()), ApplicationMessage.TargetKind.ACTOR, m.targetId(),
              m.objectGeneration(), forward.followed().hops(), envelope);
          return null;
        }).whenComplete((v, f) -> {
          if (f != null && sink != null) {
            sink.fail(Cell.typed(RouteMesh.unwrap(f), "Message Follow of actor '" + m.targetId() + "'"));
          }
        });
        return true;
      }
    }
  }

  /** The driver of one source unit; every method runs under the actor's ingress lock. */
  final class Source {
    final ActorCell actor;
    final PendingJoin join;
    final java.util.concurrent.CompletableFuture<dev.spotkit.core.ActorRef> moved;
    final NodeRid owner;
    final RelocationIdentity identity;
    final SourceUnit unit;
    final ObjectIdentity object;
    volatile PeerConnection connection;
    private final ArrayDeque<SourceEvent> events = new ArrayDeque<>();
    private boolean draining;
    private boolean detached;
    /** Local work behind each Message this driver made (identity: the unit keeps the instances). */
    private final Map<Message, Envelope.Msg> local = new IdentityHashMap<>();
    private final Map<Message, FrozenRecord> records = new IdentityHashMap<>();
    /** Captured, in queue order: the source restores exactly these on an explicit failure. */
    private List<Envelope> captured = List.of();
    private List<CellTimers.Entry> capturedTimers = List.of();

    Source(final ActorCell actor, final PendingJoin join,
        final java.util.concurrent.CompletableFuture<dev.spotkit.core.ActorRef> moved,
        final PeerConnection connection, final NodeRid owner,
        final RelocationIdentity identity, final RelocationSettings settings) {
      this.actor = actor;
      this.join = join;
      this.moved = moved;
      this.connection = connection;
      this.owner = owner;
      this.identity = identity;
      this.object = new ObjectIdentity.Actor(actor.id, actor.generation, actor.storeRecord.authorityOwnerGeneration());
      this.unit = new SourceUnit(identity, actor.id, connectionId(connection), settings,
          budgets.computeIfAbsent(owner, k -> InFlightBudget.peerDefault()), false, nowMs());
    }

    /** Work offered to the actor after the seal: the ingress hold, or Message Follow. */
    void ingress(final Envelope envelope) {
      switch (envelope) {
        case Envelope.Msg msg -> post(new SourceEvent.MessageArrived(message(msg)));
        case Envelope.Marker marker -> marker.task().run();
        case Envelope.Tick tick -> {
          // A tick racing the capture: the timer's registration moved; its next tick comes on the target.
        }
        case Envelope.Frame frame -> frame.link().frameHandled();
      }
    }

    private Message message(final Envelope.Msg msg) {
      if (unit.stage() == Stage.SOURCE_PAUSED) {
        final FrozenRecord record = freeze(msg, actor);
        final Message m = record.replyRouteId() == 0 ? Message.send(record.encode())
            : Message.request(record.replyRouteId(), record.replyRouteId(), deadlineOf(record), record.encode());
        records.put(m, record);
        local.put(m, msg);
        return m;
      }
      final Message m = localMessage();
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
            for (Action action : unit.handle(e)) {
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

    private void perform(final Action action) {
      switch (action) {
        case Action.PauseDispatch p -> {
          // The join barrier already closed the mailbox; the seal is the ingress switch made before StartRequested.
        }
        case Action.CapturePayload c -> actor.control(this::capture);
        case Action.Send s -> send(s.frame());
        case Action.DispatchLocal d -> {
          final Envelope.Msg msg = local.remove(d.message());
          if (msg != null) {
            actor.mailbox.offer(msg); // before the seal (budget wait): behind the barrier, captured later
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
          if (msg != null && msg.reply() != null) {
            msg.reply().fail(new SpotkitException.Unavailable("actor '" + actor.id + "' moved and Message Follow"
                + " ended: " + f.errorKind()));
          }
        }
        case Action.Log l -> log(l);
        case Action.SendToSessionOwner s -> {
        }
        default -> NodeRuntime.LOG.warn("source relocation action {} not expected", action);
      }
    }

    private void send(final Frame frame) {
      final PeerConnection c = connection;
      final boolean sent = switch (frame) {
        case Frame.Prepare p -> c.send(RelocationCodec.encode(new RelocationFrame.Prepare(identity,
            new TargetFence(Rids.of(owner), 1, "target", 1), Role.SOURCE, object, Rids.of(rt.nodeRid()),
            rt.store().lifecycleGeneration(), p.totalLength(), p.chunkCount(), p.crc32c(), 1)));
        case Frame.StateChunk chunk -> {
          final boolean ok = c.send(RelocationCodec.encode(new RelocationFrame.State(identity, Role.SOURCE, object,
              chunk.ordinal(), chunk.bytes())));
          events.add(new SourceEvent.ChunkReleased(chunk.ordinal())); // queued in Netty: charge released
          yield ok;
        }
        case Frame.Relay relay -> c.send(RelocationCodec.encode(new RelocationFrame.Data(identity, Role.SOURCE,
            object, records.get(relay.message()))));
        case Frame.Cutover cutover -> c.send(RelocationCodec.encode(new RelocationFrame.Cutover(identity,
            Role.SOURCE, object, cutover.recordCount(), cutover.crc32c())));
        case Frame.Follow f -> {
          final Envelope.Msg msg = local.remove(f.message());
          if (msg != null) {
            try {
              rt.mesh().sendOn(c, actor.key, ApplicationMessage.TargetKind.ACTOR, actor.id, actor.generation, 1, msg);
            } catch (SpotkitException e) {
              if (msg.reply() != null) {
                msg.reply().fail(e);
              }
            }
          }
          yield true;
        }
        default -> true;
      };
      if (!sent && !(frame instanceof Frame.Follow)) {
        connectionLost();
      }
    }

    void connectionLost() {
      post(new SourceEvent.ConnectionLost());
      rt.async(() -> rt.mesh().connection(owner, rt.mesh().endpointOf(rt.meshName().value(), owner,
          "relocation of " + actor.describe()), Deadline.after(Duration.ofSeconds(1)))).whenComplete((c, f) -> {
            if (f == null && c.isOpen()) {
              connection = c;
              post(new SourceEvent.ConnectionOpened(connectionId(c)));
            } else if (unit.stage() == Stage.SOURCE_PAUSED) {
              // The target cannot be reached again: it ended, so it never commits; the source keeps serving.
              NodeRuntime.LOG.warn("relocation of {} to node {}: the target cannot be reached ({}); restoring the"
                  + " source", actor.describe(), owner, f == null ? "closed" : f.toString());
              post(new SourceEvent.FailureArrived(identity, dev.spotkit.relocation.FailureCode.UNRECOGNIZED));
            }
          });
    }

    /** On the actor's gate: the not-yet-run queue, the timers and the state, frozen into one payload. */
    private void capture() {
      synchronized (actor.ingressLock) { // serialized with the ingress, replies and a restoration
        if (unit.stage() == Stage.SOURCE_PAUSED && actor.relocating == this) {
          captureSealed();
        }
      }
    }

    private void captureSealed() {
      try {
        final List<Envelope> drained = actor.mailbox.drainUnrun();
        final List<CellTimers.Entry> timers = actor.timers.entries();
        actor.timers.cancelAll();
        captured = drained;
        capturedTimers = timers;
        final byte[] state = switch (actor.type.policy()) {
          case PRESERVE -> captureState();
          default -> null;
        };
        final List<EnvelopeEntries.SavedWork> saved = new ArrayList<>();
        final List<EnvelopeEntries.PendingTimerTick> ticks = new ArrayList<>();
        long order = 0;
        for (Envelope e : drained) {
          switch (e) {
            case Envelope.Msg msg -> saved.add(new EnvelopeEntries.SavedWork(1, order++, freeze(msg, actor)));
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
        final List<EnvelopeEntries.TimerRegistration> registrations = timers.stream()
            .sorted(Comparator.comparing(t -> t.name.getBytes(StandardCharsets.UTF_8), Arrays::compareUnsigned))
            .map(t -> new EnvelopeEntries.TimerRegistration(1, t.name, HANDLER_TYPE,
                TimeUnit.NANOSECONDS.toMillis(t.periodNanos), EnvelopeEntries.TimerRegistration.OVERRUN_SKIP_LATE_TICKS,
                0, false, t.delivered, t.delivered, System.currentTimeMillis()
                + Math.max(0, TimeUnit.NANOSECONDS.toMillis(t.nextAtNanos - nowNanos)))).toList();
        final byte[] stream = RelocationEnvelopeCodec.encode(new RelocationEnvelope(identity.relocationId(), object,
            1, List.of(new EnvelopeEntries.ApplicationState(1, frameState(join == null ? null : join.operationId(),
            state))), saved, registrations, ticks));
        post(new SourceEvent.PayloadCaptured(stream));
      } catch (RuntimeException e) {
        NodeRuntime.LOG.warn("capture of {} failed; the source keeps serving", actor.describe(), e);
        captureFailure = Cell.typed(e, "capture of " + actor.describe());
        post(new SourceEvent.FailureArrived(identity, dev.spotkit.relocation.FailureCode.RESTORE_FAILED));
      }
    }

    private SpotkitException captureFailure;

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
      return state.clone();
    }

    /** Explicit failure before relay-ready: the captured queue, then the hold, back in order; timers again. */
    private void restore(final List<Message> held) {
      for (Envelope e : captured) {
        if (!(e instanceof Envelope.Tick)) {
          actor.mailbox.offer(e);
        }
      }
      for (Message m : held) {
        final Envelope.Msg msg = local.remove(m);
        final FrozenRecord record = records.remove(m);
        if (record != null && record.replyRouteId() != 0) {
          replyRoutes.remove(record.replyRouteId());
        }
        if (msg != null) {
          actor.mailbox.offer(msg);
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
      sources.remove(actor.id, this);
      sourcesByIdentity.remove(identity);
      final SpotkitException error = captureFailure != null ? captureFailure
          : new SpotkitException.Unavailable("relocation of " + actor.describe() + " to node " + owner
              + " failed before relay-ready; the actor stays on this node");
      if (join != null) {
        rt.joins().finish(actor, new JoinResult.Failed(join.operationId(), error));
      } else {
        if (actor.state == CellState.READY) {
          actor.mailbox.open();
        }
        moved.completeExceptionally(error);
      }
    }

    /** Past the boundary: the actor instance here ends; Message Follow remains (spec 001 section 10). */
    private void detach() {
      detached = true;
      rt.actors.remove(actor.id, actor);
      if (join == null) { // host relocation: no membership callbacks (spec 000 section 4.2)
        actor.membership.members.remove(actor);
        moved.complete(new dev.spotkit.core.ActorRef(actor.actorId, new ObjectGeneration(actor.generation),
            rt.meshName(), owner));
      }
      actor.state = CellState.GONE;
      if (!actor.barrier.isEmpty()) {
        NodeRuntime.LOG.warn("{} moved to node {}; {} later join(s) of the same handler are dropped",
            actor.describe(), owner, actor.barrier.size());
        actor.barrier.clear();
      }
      synchronized (follow) {
        follow.install(new MessageFollowTable.Route(actor.id, actor.generation,
            actor.storeRecord.authorityOwnerGeneration() + 1, owner.hex(), nowMs()));
      }
      followGenerations.put(actor.id, actor.generation);
      final long window = RelocationSettings.DEFAULT_CUTOVER_WAIT_MS + CLOCK_TICK_MS;
      rt.scheduler().schedule(() -> post(new SourceEvent.ClockAdvanced(nowMs())), window, TimeUnit.MILLISECONDS);
      rt.scheduler().schedule(() -> {
        sources.remove(actor.id, this);
        sourcesByIdentity.remove(identity);
        followGenerations.remove(actor.id, actor.generation);
      }, MessageFollowTable.DEFAULT_DURATION_MS, TimeUnit.MILLISECONDS);
    }
  }

  /** A frozen record of local work (spec 001 section 4.2): payload, operation identity and reply route kept. */
  private FrozenRecord freeze(final Envelope.Msg msg, final ActorCell actor) {
    final ApplicationPayload payload = rt.copier().encodeForPeer("message", msg.payload(), Integer.MAX_VALUE / 2,
        true);
    long route = 0;
    long deadline = 0;
    if (msg.reply() != null) {
      route = nextReplyRoute.incrementAndGet();
      final long id = route;
      replyRoutes.put(id, msg.reply());
      msg.reply().future.whenComplete((v, f) -> replyRoutes.remove(id));
      deadline = RouteMesh.unixMs(msg.reply().deadline);
    }
    final byte[] metadata = ByteBuffer.allocate(8).putLong(deadline).array();
    return new FrozenRecord(new RecordSource.Node(Rids.of(rt.nodeRid()), rt.store().lifecycleGeneration(), ownerId(),
        leaseGeneration()), metadata, new dev.spotkit.relocation.wire.OperationId(randomNonZero(),
        randomNonZero()), OperationKind.ACTOR_REQUEST.wireValue(),
        route, new RecordBody.SpotRequest(new TargetSpot(actor.id, actor.generation, Rids.of(rt.nodeRid()),
        rt.store().lifecycleGeneration(), actor.storeRecord.authorityOwnerGeneration(), leaseGeneration()), payload));
  }

  static long deadlineOf(final FrozenRecord record) {
    final byte[] metadata = record.metadata();
    return metadata == null || metadata.length != 8 ? 0 : ByteBuffer.wrap(metadata).getLong();
  }

  private final AtomicLong localIds = new AtomicLong();

  /** A Message standing for local work: a body no frozen record has (they start with their record kind, 6). */
  Message localMessage() {
    return Message.send(ByteBuffer.allocate(9).put((byte) LOCAL).putLong(localIds.incrementAndGet()).array());
  }

  /** Participant state framing: u8 1, OperationId (16 bytes, 0 when none), u8 hasState, then the state. */
  private static byte[] frameState(final OperationId operation, final byte[] state) {
    final ByteBuffer b = ByteBuffer.allocate(18 + (state == null ? 0 : state.length));
    b.put((byte) 1);
    b.putLong(operation == null ? 0 : operation.high()).putLong(operation == null ? 0 : operation.low());
    b.put((byte) (state == null ? 0 : 1));
    if (state != null) {
      b.put(state);
    }
    return b.array();
  }

  static void log(final Action.Log l) {
    if (l.level() == Action.Level.ERROR) {
      NodeRuntime.LOG.error("relocation {}: {}", l.code(), l.detail());
    } else {
      NodeRuntime.LOG.warn("relocation {}: {}", l.code(), l.detail());
    }
  }

  // ================================================================ mesh frames
  /** Commands 28, 30, 31, 34, 40, 52 and 53 from a peer. Event loop. */
  void onFrame(final PeerConnection from, final int command, final byte[] frame) {
    if (command == dev.spotkit.core.wire.Commands.ACTOR_JOIN) {
      JoinApprovals.onActorJoin(this, from, ActorJoin.decode(frame));
      return;
    }
    final RelocationFrame decoded;
    try {
      if (command == RelocationFrame.State.COMMAND) {
        final long connection = connectionId(from);
        final TargetEvent.ChunkArrived chunk = new TargetEvent.ChunkArrived(connection,
            RelocationCodec.decodeStateView(frame));
        final String id = chunk.chunk().object().id();
        post(() -> target(id).feed(chunk));
        return;
      }
      decoded = RelocationCodec.decode(frame);
    } catch (RelocationWireException e) {
      NodeRuntime.LOG.warn("malformed relocation command {} from {}: {}; closing the connection", command,
          from.peerRid(), e.getMessage());
      from.close();
      return;
    }
    final long connection = connectionId(from);
    final String id = decoded.object().id();
    switch (decoded) {
      case RelocationFrame.Ready r -> onSourceReply(r);
      case RelocationFrame.Failed f -> onSourceReply(f);
      case RelocationFrame.Prepare p -> {
        synchronized (divertLock) {
          diverted.add(id);
        }
        post(() -> target(id).restoreRequested(from, connection, p));
      }
      case RelocationFrame.Data d -> post(() -> target(id).relay(connection, d));
      case RelocationFrame.Cutover c -> post(() -> target(id).feed(new TargetEvent.CutoverArrived(c.identity(),
          connection, c.boundaryRecordCount(), c.boundaryChecksumCrc32c())));
      case RelocationFrame.State s -> throw new IllegalStateException("decoded above");
    }
  }

  // ================================================================ target side

  /** An approved preparation (MEM-25..MEM-28): the Spot, the approval's reply and the join's OperationId. */
  record Prepared(SpotCell spot, Optional<Object> reply, long expiresAtNanos) {
  }

  /**
   * Work for an actor whose target unit is live here (temporary queue; spec 001 section 4.3): through the target
   * executor, in arrival order. Any thread.
   *
   * @return true when taken.
   */
  boolean targetIngress(final String actorId, final Envelope.Msg envelope) {
    if (diverted.isEmpty()) {
      return false;
    }
    synchronized (divertLock) {
      if (!diverted.contains(actorId)) {
        return false;
      }
      post(() -> target(actorId).direct(envelope));
      return true;
    }
  }

  private TargetObject target(final String actorId) {
    return objects.computeIfAbsent(actorId, id -> new TargetObject(this, id));
  }

  private void clockAll() {
    for (TargetObject t : List.copyOf(objects.values())) {
      t.feed(new TargetEvent.ClockAdvanced(nowMs()));
    }
  }
}
