package dev.spotkit.core.internal.relocation;

import dev.spotkit.core.internal.join.JoinApprovals;
import dev.spotkit.core.internal.join.Joins;
import dev.spotkit.core.internal.join.PendingJoin;
import dev.spotkit.core.internal.mesh.RouteMesh;
import dev.spotkit.core.internal.mesh.WireDeadlines;
import dev.spotkit.core.internal.runtime.ActorCell;
import dev.spotkit.core.internal.runtime.Cell;
import dev.spotkit.core.internal.runtime.CellState;
import dev.spotkit.core.internal.runtime.Envelope;
import dev.spotkit.core.internal.runtime.NodeConfig;
import dev.spotkit.core.internal.runtime.NodeRuntime;
import dev.spotkit.core.internal.runtime.ReplyErrors;
import dev.spotkit.core.internal.runtime.ReplySink;
import dev.spotkit.core.internal.runtime.SpotCell;
import dev.spotkit.core.internal.session.BoundSession;
import dev.spotkit.core.internal.session.SessionBinder;
import dev.spotkit.core.internal.session.WorkMarks;
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
import dev.spotkit.relocation.Action;
import dev.spotkit.relocation.InFlightBudget;
import dev.spotkit.relocation.Message;
import dev.spotkit.relocation.RelocationPump;
import dev.spotkit.relocation.RelocationSettings;
import dev.spotkit.relocation.SourceEvent;
import dev.spotkit.relocation.SourceUnit;
import dev.spotkit.relocation.TargetEvent;
import dev.spotkit.relocation.TargetUnits;
import dev.spotkit.relocation.follow.MessageFollowTable;
import dev.spotkit.relocation.wire.ApplicationPayload;
import dev.spotkit.relocation.wire.CoordinatorFence;
import dev.spotkit.relocation.wire.FrozenRecord;
import dev.spotkit.relocation.wire.RecordBody;
import dev.spotkit.relocation.wire.RecordSource;
import dev.spotkit.relocation.wire.RelocationCodec;
import dev.spotkit.relocation.wire.RelocationFrame;
import dev.spotkit.relocation.wire.RelocationId;
import dev.spotkit.relocation.wire.RelocationIdentity;
import dev.spotkit.relocation.wire.WireFormatException;
import dev.spotkit.relocation.wire.SessionRelocationFrame;
import dev.spotkit.relocation.wire.TargetFence;
import dev.spotkit.relocation.wire.TargetSpot;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
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
 * Threads: each source unit is driven under its actor's ingress lock; the target units run on the node's one
 * {@link RelocationPump}, spread over {@link #LANES} serial lanes by ActorId: each input (frame, direct work, store
 * answer, Restore result, clock tick) is stamped where it arrived and runs on its unit's lane in arrival order, and
 * the units judge every deadline from the stamps; store I/O and Restore run elsewhere and come back as inputs.
 * Requests keep their reply route: a request captured or relayed from the source is answered by the target with a
 * command 20 whose correlation is the source's reply route id ({@link #REPLY_ROUTE_BASE} and up), and the source
 * completes the caller's reply from it.
 * <p>Parts: {@link RelocationSource} drives one source unit, {@link TargetObject} the target units of one actor,
 * {@link JoinApprovals} answers command 28, {@link HostRelocations} starts {@code MeshNode.relocate}.
 */
public final class Relocations {
  /** Reply route ids start here, above the transport's request correlations. */
  static final long REPLY_ROUTE_BASE = 1L << 62;
  /** Packet name of the one-way leave notice (command 60 to the source Spot, spec 000 section 4.2 step 7). */
  public static final String LEAVE_PACKET = "spotkit.leaveActor";
  /** Content type of the leave notice: the ActorId as UTF-8. */
  public static final String LEAVE_CONTENT = "application/x-spotkit-leave";
  /** Receive chunk limit advertised in the approval reply: 256 KiB. */
  public static final int RECEIVE_CHUNK_LIMIT = RelocationSettings.DEFAULT_CHUNK_LIMIT;
  /**
   * The longest Restore validity on the target, from its first command 40 (which carries no deadline): 10 s. A
   * Restore whose payload carries an absolute deadline (a join's) ends there instead when that comes first (spec
   * 001 section 4.5: the CAS retries use the deadline the Restore operation carries, as-is); a host relocation's
   * carries none.
   */
  static final Duration RESTORE_VALIDITY = Duration.ofSeconds(10);
  /**
   * The longest wait of one Location Store call of a relocation (the target's CAS steps and re-reads, the source's
   * commit reads): a fifth of {@link #RESTORE_VALIDITY}, 2 s, so a lost or slow answer still leaves time to re-read
   * and retry the same CAS inside the validity (spec 001 sections 4.5 and 6, REL-19).
   */
  static final Duration STORE_CALL_TIMEOUT = RESTORE_VALIDITY.dividedBy(5);
  /** How long an approved preparation waits for its Restore (MEM-27): 30 s. */
  static final Duration PREPARATION_VALIDITY = Duration.ofSeconds(30);
  /** The preparation validity in force; only tests shorten it ({@link #preparationValidity(Duration)}). */
  private static volatile Duration preparationValidity = PREPARATION_VALIDITY;
  /** Tests only: runs on the source's event loop before it takes a relay-ready reply, given the ActorId. */
  static volatile java.util.function.Consumer<String> beforeRelayReady;
  /** The handler type written into a timer registration (callbacks come from {@code on.timer} on the target). */
  static final String HANDLER_TYPE = "dev.spotkit.core.OnTick";
  private static final int LOCAL = 0;
  /** How often live target units get the clock, ms. */
  static final long CLOCK_TICK_MS = 20;
  /** Pump lanes per node: target units spread over this many serial executors by ActorId. */
  static final int LANES = RelocationPump.DEFAULT_LANES;

  private final NodeRuntime rt;
  private final AtomicLong nextReplyRoute = new AtomicLong(REPLY_ROUTE_BASE);
  final ConcurrentHashMap<Long, ReplySink> replyRoutes = new ConcurrentHashMap<>();
  private final AtomicLong connectionSeq = new AtomicLong();
  final ConcurrentHashMap<PeerConnection, Long> connectionIds = new ConcurrentHashMap<>();
  final ConcurrentHashMap<Long, PeerConnection> connections = new ConcurrentHashMap<>();
  final ConcurrentHashMap<NodeRid, InFlightBudget> budgets = new ConcurrentHashMap<>();
  public final ConcurrentHashMap<String, RelocationSource> sources = new ConcurrentHashMap<>();
  final ConcurrentHashMap<RelocationIdentity, RelocationSource> sourcesByIdentity = new ConcurrentHashMap<>();
  public final ConcurrentHashMap<String, Prepared> prepared = new ConcurrentHashMap<>();
  /** Actors whose direct work goes through the target executor (a target unit is or was just live). */
  public final Set<String> diverted = ConcurrentHashMap.newKeySet();
  final Object divertLock = new Object();
  /** Direct work handed to a lane and not handled yet, by ActorId (guarded by divertLock). */
  private final Map<String, Integer> divertedInFlight = new java.util.HashMap<>();
  /** Actors whose diversion ends once their direct work in flight was handled (guarded by divertLock). */
  private final Set<String> undiverting = new java.util.HashSet<>();
  /**
   * Actors whose move here ended past relay-ready without a commit (the CAS failed or the owner was not confirmed
   * by Restore validity), by ActorId, to {@link #nowMs()} until which a message for them is answered Unavailable
   * (spec 001 section 9: that unit stays unavailable; section 10), not NotFound: the follow duration.
   */
  final Map<String, Long> abandoned = new ConcurrentHashMap<>();
  /** Target state by ActorId; only the executor thread touches it. */
  final Map<String, TargetObject> objects = new ConcurrentHashMap<>();
  final MessageFollowTable follow;
  /** The source's session seals and the commands 42, 43 and 44 (spec 000 section 4.2 step 8). */
  final SessionSeals sessions;
  /** Command 52 frames from the event loop to their lane, each still in its receive buffer until assembled. */
  final StateFrames stateFrames = new StateFrames(this);
  final Map<String, Long> followGenerations = new ConcurrentHashMap<>();
  /** One serial executor per pump lane (platform threads: relocation steps never block on user code). */
  private final java.util.concurrent.ThreadPoolExecutor[] lanes;
  /** The node's one relocation pump: every target input is stamped where it arrived and runs on its unit's lane. */
  final RelocationPump pump;
  private final ScheduledFuture<?> ticker;
  /** A tick waits for the event loops ({@link #tick}); set until it reached the lanes. */
  private final java.util.concurrent.atomic.AtomicBoolean tickInFlight =
      new java.util.concurrent.atomic.AtomicBoolean();

  /** The operator's SpotWide aggregate moves, source and target (commands 54-57). */
  private final AggregateMoves aggregates;

  /**
   * The SpotWide aggregate moves of this node.
   *
   * @return the driver.
   */
  public AggregateMoves aggregates() {
    return aggregates;
  }

  public Relocations(final NodeRuntime rt) {
    this.rt = rt;
    this.aggregates = new AggregateMoves(this);
    this.sessions = new SessionSeals(this);
    this.follow = new MessageFollowTable(rt.nodeRid().hex(), MessageFollowTable.DEFAULT_DURATION_MS,
        MessageFollowTable.DEFAULT_MAX_HOPS, 5_000);
    this.lanes = new java.util.concurrent.ThreadPoolExecutor[LANES];
    for (int i = 0; i < LANES; i++) {
      final String name = "spotkit-relocation-" + rt.meshName() + "-" + i;
      lanes[i] = new java.util.concurrent.ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS,
          new java.util.concurrent.LinkedBlockingQueue<>(), r -> Thread.ofPlatform().daemon().name(name)
          .unstarted(r));
    }
    this.pump = new RelocationPump(LANES, Relocations::nowMs, i -> lanes[i]::execute);
    this.ticker = rt.relocationScheduler().scheduleAtFixedRate(this::tick, CLOCK_TICK_MS, CLOCK_TICK_MS,
        TimeUnit.MILLISECONDS);
  }

  /**
   * One clock tick ({@link #CLOCK_TICK_MS}): stamped when it fired, handed to the lanes only once the mesh event
   * loops read what their sockets held at that moment ({@link RouteMesh#afterPendingIo}), and then behind every
   * input those reads handed to the lanes. So the units' clock is time this node has caught up with: a cutover that
   * reached the node before the tick is handled before it, however far behind an event loop or a lane was (spec 001
   * section 4.4 measures the wait to the cutover's arrival). A tick fired while the previous one still waits is
   * skipped. Scheduler thread.
   */
  private void tick() {
    if (objects.isEmpty() || !tickInFlight.compareAndSet(false, true)) {
      return;
    }
    final long firedAtMs = nowMs();
    final Runnable deliver = () -> {
      tickInFlight.set(false);
      for (int lane = 0; lane < LANES; lane++) {
        final int l = lane;
        post(lane, at -> clockLane(l, firedAtMs));
      }
    };
    final RouteMesh mesh = rt.mesh();
    if (mesh == null) {
      deliver.run();
    } else {
      mesh.afterPendingIo(deliver);
    }
  }

  public NodeRuntime runtime() {
    return rt;
  }

  /**
   * Node close: waits until every relocation this node started as source reached its result here (restored after
   * an explicit failure, or past the boundary, the Location Store's answer: committed or not), so the close removes
   * no record the target's CAS still conditions on (the node's capacity record). Bounded by {@code deadline}.
   * Caller's thread (the close).
   *
   * @param deadline the latest end of the wait.
   */
  public void awaitSources(final Deadline deadline) {
    final List<java.util.concurrent.CompletableFuture<Void>> open = sourcesByIdentity.values().stream()
        .map(s -> s.settled).filter(f -> !f.isDone()).toList();
    if (open.isEmpty()) {
      return;
    }
    try {
      java.util.concurrent.CompletableFuture.allOf(open.toArray(java.util.concurrent.CompletableFuture[]::new))
          .get(Math.max(0, deadline.remaining().toNanos()), TimeUnit.NANOSECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      NodeRuntime.LOG.warn("node close: {} of {} relocation(s) started here had no result by the close deadline",
          open.stream().filter(f -> !f.isDone()).count(), open.size());
    } catch (java.util.concurrent.ExecutionException e) {
      NodeRuntime.LOG.debug("node close: a relocation ended with {}", e.getCause().toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Node close, after {@link #awaitSources}: the rows of actors whose move from here did not commit are removed with
   * the node (they run nowhere; the close releases this node's rows). Closing thread.
   */
  public void closeSources() {
    for (RelocationSource source : List.copyOf(sourcesByIdentity.values())) {
      if (source.settled.isDone()) {
        source.closeNode();
      }
    }
  }

  /**
   * A destroy by ref of an actor that is not Ready here: decided by its source unit when it moved away from here
   * and Message Follow still runs (see {@link RelocationSource#destroy}). Any thread.
   *
   * @param ref the actor.
   * @return the result, or null when no source unit of that incarnation decides it.
   */
  public java.util.concurrent.CompletableFuture<Boolean> destroyMoved(final dev.spotkit.core.ActorRef ref) {
    final RelocationSource source = sources.get(ref.id().value());
    if (source == null || source.actor.generation != ref.generation().value()) {
      return null;
    }
    return source.destroy();
  }

  public void close() {
    ticker.cancel(false);
    for (java.util.concurrent.ThreadPoolExecutor lane : lanes) {
      lane.shutdownNow();
    }
    stateFrames.close(); // the frames of dropped tasks
  }

  public static long nowMs() {
    return System.nanoTime() / 1_000_000L;
  }

  /**
   * Runs {@code task} on the pump lane of {@code unitKey}, told when it was handed in (its arrival). Any thread.
   *
   * @param unitKey the unit's key: its ActorId.
   * @param task the step, given the arrival stamp in {@link #nowMs()} ms.
   * @return false when the lane refused it (the node is closing): it will never run.
   */
  boolean post(final String unitKey, final RelocationPump.Stamped task) {
    return post(pump.laneOf(unitKey), task);
  }

  private boolean post(final int lane, final RelocationPump.Stamped task) {
    try {
      pump.submitToLane(lane, at -> {
        try {
          task.run(at);
        } catch (RuntimeException e) {
          NodeRuntime.LOG.warn("relocation step failed", e);
        }
      });
    } catch (java.util.concurrent.RejectedExecutionException e) {
      NodeRuntime.LOG.debug("relocation step after close dropped");
      return false;
    }
    return true;
  }

  long connectionId(final PeerConnection connection) {
    return connectionIds.computeIfAbsent(connection, c -> {
      final long id = connectionSeq.incrementAndGet();
      connections.put(id, c);
      return id;
    });
  }

  public void onConnectionLost(final PeerConnection connection) {
    final Long id = connectionIds.remove(connection);
    if (id != null) {
      connections.remove(id);
    }
    for (RelocationSource source : sources.values()) {
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
  public void join(final ActorCell actor, final PendingJoin join) {
    final RouteMesh mesh = rt.mesh(); // a session-bound actor moves too: its session stays (SessionBinder)
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
    // the approval just came over a connection to that node (its call read the node's descriptor): that one, with
    // no second descriptor read (a store round trip), unless it closed since
    final PeerConnection connection = mesh.open(spot.owner()).orElseGet(() -> mesh.connection(spot.owner(),
        mesh.endpointOf(spot.meshName().value(), spot.owner(), what), join.deadline()));
    actor.control(() -> seal(actor, join, connection, spot, (int) accepted.receiveChunkLimitBytes()));
  }

  private ActorJoin.Party actorParty(final ActorCell actor) {
    return new ActorJoin.Party(actor.id, actor.generation, Rids.of(rt.nodeRid()), rt.store().lifecycleGeneration(),
        actor.storeRecord.authorityOwnerGeneration(), leaseGeneration());
  }

  public long leaseGeneration() {
    return rt.store().ownerLease().record().leaseGeneration().value();
  }

  public String ownerId() {
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
    failLaterJoins(actor, join, spot.owner());
    final AuthorityRecord row = spot.stored().authority(); // the Spot's owner is the target host run
    start(actor, join, null, connection, spot.owner(), new TargetFence(Rids.of(spot.owner()),
        row.allocation().descriptorLifecycleGeneration(), row.ownerId(), row.ownerLeaseGeneration().value()),
        chunkLimit);
  }

  /**
   * On the actor's gate, just before the seal of a cross-node join: the joins the same handler registered after
   * {@code moving} cannot run on this node any more (the instance here ends at the boundary), so each gets its
   * completion now, on this instance, as {@link JoinResult.Failed} with {@link SpotkitException.Unavailable} ("the
   * Actor is moving", spec 000 section 4). Without this they were dropped and their completion never came.
   */
  private void failLaterJoins(final ActorCell actor, final PendingJoin moving, final NodeRid owner) {
    for (PendingJoin later = actor.barrier.poll(); later != null; later = actor.barrier.poll()) {
      final JoinResult failed = new JoinResult.Failed(later.operationId(), new SpotkitException.Unavailable(
          actor.describe() + " is moving to node " + owner + " by its join to spot '" + moving.spotId()
          + "', registered earlier in the same handler; the join to "
          + (later.spotId() == null ? "the Entry Spot" : "spot '" + later.spotId() + "'") + " did not run"));
      if (actor.actor != null) {
        actor.runCallback("onJoinCompleted of " + actor.describe(), false, () -> {
          actor.actor.onJoinCompleted(failed);
          return null;
        });
      }
    }
  }

  /**
   * On the actor's gate, its mailbox closed: for a session-bound actor the session seal first (command 42, spec
   * 000 section 4.2 step 8; see {@link #sealSession}), then the seal (every later offer goes to the ingress hold)
   * and the start of the source unit. {@code join} is null for a host relocation, which reports to {@code moved}
   * instead.
   *
   * @param fence the target host run (node rid and generation, owner id and lease generation).
   * @param chunkLimit the receive chunk limit the target advertised, 0 when none (32 KiB chunks).
   */
  void start(final ActorCell actor, final PendingJoin join, final java.util.concurrent.CompletableFuture<
      dev.spotkit.core.ActorRef> moved, final PeerConnection connection, final NodeRid owner, final TargetFence fence,
      final int chunkLimit) {
    final RelocationIdentity identity = new RelocationIdentity(new RelocationId(randomNonZero(),
        ThreadLocalRandom.current().nextLong()), 1, new CoordinatorFence(ownerId(), leaseGeneration(),
        Rids.of(rt.nodeRid()), rt.store().lifecycleGeneration(), actor.storeVersion.value()));
    sessions.sealThen(actor, join, moved, identity, seal -> begin(actor, join, moved, connection, owner, fence,
        chunkLimit, identity, seal));
  }

  /** The seal and the start of the source unit ({@code seal}: the session seal made, or null). Actor's gate. */
  private void begin(final ActorCell actor, final PendingJoin join, final java.util.concurrent.CompletableFuture<
      dev.spotkit.core.ActorRef> moved, final PeerConnection connection, final NodeRid owner, final TargetFence fence,
      final int chunkLimit, final RelocationIdentity identity, final SessionRelocationFrame.Seal seal) {
    final RelocationSettings settings = new RelocationSettings(RelocationSettings.DEFAULT_CHUNK_LIMIT,
        Math.max(0, chunkLimit), RelocationSettings.DEFAULT_CUTOVER_WAIT_MS, RelocationSettings.DEFAULT_FOLLOW_MS,
        50);
    final RelocationSource source = new RelocationSource(this, actor, join, moved, connection, owner, fence,
        identity, settings, seal);
    sources.put(actor.id, source);
    sourcesByIdentity.put(identity, source);
    synchronized (actor.ingressLock) {
      actor.relocating = source;
      source.watch.started(actor.id, join != null, owner, identity.relocationId());
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
   * Participants of SpotWide aggregates that moved away from this node, by {@code spot:{id}} or {@code actor:{id}}:
   * each hands every later offer to the target (Message Follow, spec 000 section 9) under its GONE cell's ingress
   * lock. Only the lock and the follow are kept for the follow's 30 s, not the cell (its actor, state, mailbox and
   * handlers: about 2.5 KiB a member, which a 10,000-member room moved every second kept live by the 100,000s).
   */
  public final ConcurrentHashMap<String, Followed> aggregateFollows = new ConcurrentHashMap<>();

  /**
   * A participant that moved away with its aggregate: its GONE cell's ingress lock and its Message Follow.
   *
   * @param lock the cell's {@link Cell#ingressLock}: the hand-over follows what the cell still held under it.
   * @param follow sends one envelope on the move's ordered connection to the target.
   * @param rerouted once that connection closed, the tail of the work the follow re-routes through the mesh one
   *     message after the other (null before).
   * @param generation the participant's ObjectGeneration (a follow of an earlier incarnation is not waited on).
   * @param target the node the aggregate moved to, which the follow sends to.
   */
  public record Followed(Object lock, java.util.function.Consumer<Envelope> follow,
      java.util.concurrent.atomic.AtomicReference<java.util.concurrent.CompletableFuture<Void>> rerouted,
      long generation, NodeRid target) {

    /**
     * Whether work the follow re-routes is still on its way: a sender must then go through the follow too, not
     * around it, or it overtakes its own earlier messages.
     *
     * @return true while re-routed work is pending.
     */
    public boolean rerouting() {
      final java.util.concurrent.CompletableFuture<Void> tail = rerouted.get();
      return tail != null && !tail.isDone();
    }

    /**
     * Follows {@code envelope} to the target, in order with the hand-over and every other offer. Any thread.
     *
     * @param envelope the work.
     */
    public void offer(final Envelope envelope) {
      synchronized (lock) {
        follow.accept(envelope);
      }
    }
  }

  /**
   * Participants of SpotWide aggregates being restored here whose CAS is about to run or ran, by {@code spot:{id}}
   * or {@code actor:{id}}: work routed here by the new owner goes into their closed mailboxes, behind the backlog
   * the open prepends (spec 001 section 4.3: later work after saved work and the relay).
   */
  public final ConcurrentHashMap<String, Cell> aggregateStaging = new ConcurrentHashMap<>();

  /**
   * An actor is being restored here (a member of a SpotWide aggregate, or an actor's own move whose Restore arrived)
   * while a single-actor move of the same incarnation away from this node still follows ({@link RelocationSource}):
   * that follow becomes the actor's entry in {@link #aggregateFollows} (unless one is there), for the rest of the
   * Message Follow duration, so work for it takes the aggregate's paths (through that follow while it is restored
   * here, behind a route switch once Ready), never the older unit's shortcut. Seen before as a sender's messages
   * reordered when an actor went round three nodes back to it: its new sends went into the temporary queue while its
   * earlier ones were still on the way round.
   *
   * @param actorId the actor's ActorId.
   * @param generation the ObjectGeneration being restored here; a unit of another incarnation is left alone.
   */
  public void supersedeSource(final String actorId, final long generation) {
    final RelocationSource earlier = sources.get(actorId);
    final Followed follow = earlier == null || earlier.actor.generation != generation ? null : earlier.superseded();
    if (follow == null) {
      return;
    }
    final String key = "actor:" + actorId;
    if (aggregateFollows.putIfAbsent(key, follow) == null) {
      rt.relocationScheduler().schedule(() -> aggregateFollows.remove(key, follow),
          MessageFollowTable.DEFAULT_DURATION_MS, TimeUnit.MILLISECONDS);
    }
    // only now: a send in between found neither the unit nor the follow and went into the staged mailbox, ahead of
    // the sender's earlier messages still on that follow (both are the unit's one ordered ingress)
    earlier.endSuperseded();
  }

  /** The participant's authority key in an aggregate's inventory: {@code spot:{id}} or {@code actor:{id}}. */
  static String participantKey(final Cell cell) {
    return (cell instanceof SpotCell ? "spot:" : "actor:") + cell.id;
  }

  /**
   * Whether a move of the actor away from this node is in progress or still follows (its {@link RelocationSource}):
   * such a unit is newer than any follow of the actor in {@link #aggregateFollows} (a unit is ended when the actor is
   * restored here again, {@link #supersedeSource}), so it takes this node's sends to the actor.
   *
   * @param actorId the ActorId.
   * @return true while a unit of it is registered here.
   */
  public boolean followsBySource(final String actorId) {
    return sources.containsKey(actorId);
  }

  /**
   * Whether this node follows a participant of a SpotWide aggregate to {@code peer}: a message that arrives from
   * {@code peer} by Message Follow is then work this node followed there coming back (or later work of that node's
   * senders, on the same connection behind it), never a third node's.
   *
   * @param key {@code spot:{id}} or {@code actor:{id}}.
   * @param peer the node a message arrived from.
   * @return true when this node's follow of {@code key} sends to {@code peer}.
   */
  public boolean followsTo(final String key, final NodeRid peer) {
    final Followed gone = aggregateFollows.get(key);
    return gone != null && gone.target().equals(peer);
  }

  /**
   * Whether a participant of a SpotWide aggregate moved away from here and its follow re-routes nothing now, so a
   * sender that routes to the new owner itself stays behind everything followed.
   *
   * @param key {@code spot:{id}} or {@code actor:{id}}.
   * @return true when followed and idle.
   */
  public boolean followedAndIdle(final String key) {
    final Followed gone = aggregateFollows.get(key);
    return gone != null && !gone.rerouting();
  }

  /**
   * Work for a participant of a SpotWide aggregate that moved away from here: handed to its GONE cell, which
   * follows it to the target on the move's ordered connection. Any thread; never blocks.
   *
   * @param key {@code spot:{id}} or {@code actor:{id}}.
   * @param envelope the work.
   * @return true when taken.
   */
  public boolean aggregateIngress(final String key, final Envelope.Msg envelope) {
    return aggregateIngress(key, envelope, false);
  }

  /**
   * As {@link #aggregateIngress(String, Envelope.Msg)}, for work that reached this node by Message Follow from the
   * node the participant comes back from ({@code followed}): that is the earlier work a sender's later messages wait
   * behind, so it goes into the staged mailbox, never back through this node's own earlier follow.
   *
   * @param key {@code spot:{id}} or {@code actor:{id}}.
   * @param envelope the work.
   * @param followed true when it arrived with Message Follow hops (spec 002 section 7.3).
   * @return true when taken.
   */
  public boolean aggregateIngress(final String key, final Envelope.Msg envelope, final boolean followed) {
    final Cell staged = aggregateStaging.get(key);
    final Followed away = staged == null || followed ? null : aggregateFollows.get(key);
    if (away != null && away.generation() == staged.generation) {
      // coming back here while this node still follows its earlier move away: behind what that follow sent (the
      // node it went to relays it back with the move), not ahead of it into the staged mailbox
      away.offer(envelope);
      return true;
    }
    if (staged != null) {
      staged.offerEnvelope(envelope);
      return true;
    }
    final Followed gone = aggregateFollows.get(key);
    if (gone == null) {
      return false;
    }
    gone.offer(envelope);
    return true;
  }

  /**
   * Work that came back to this node by Message Follow for a participant of a SpotWide aggregate being restored here:
   * into its staged mailbox, behind the move's backlog. Any thread; never blocks.
   *
   * @param key {@code spot:{id}} or {@code actor:{id}}.
   * @param envelope the work.
   * @return true when taken; false when the participant is not (or no longer) staged here: its staging opened, or
   *     was discarded, since the caller read it.
   */
  public boolean stagedIngress(final String key, final Envelope.Msg envelope) {
    final Cell staged = aggregateStaging.get(key);
    if (staged == null) {
      return false;
    }
    staged.offerEnvelope(envelope);
    return true;
  }

  /**
   * Work for an actor that is not Ready here but relocating away or moved (Message Follow): handled by its source
   * unit. Any thread.
   *
   * @return true when taken.
   */
  public boolean sourceIngress(final String actorId, final Envelope.Msg envelope) {
    return sourceIngress(actorId, envelope, 1);
  }

  /**
   * As {@link #sourceIngress(String, Envelope.Msg)}, for a message that already followed {@code hops - 1} hops:
   * if the source unit follows it on, it leaves with this hop count (spec 002 section 7.3: at most 8 hops), so a
   * message bouncing between stale follow routes ends Unavailable instead of looping until its deadline.
   *
   * @param hops the hop count the message carries when it leaves this node, 1..8.
   */
  public boolean sourceIngress(final String actorId, final Envelope.Msg envelope, final int hops) {
    final RelocationSource source = sources.get(actorId);
    if (source == null) {
      return false;
    }
    synchronized (source.actor.ingressLock) {
      source.ingress(envelope, hops);
    }
    return true;
  }

  /** Commands 42, 43 and 44 from a peer: see {@link SessionSeals#onFrame}. Event loop. */
  public void onSessionFrame(final PeerConnection from, final byte[] frame) {
    sessions.onFrame(from, frame);
  }

  /** A one-way command 44 to a Session owner: see {@link SessionSeals#sendRoute}. Any thread. */
  void sendSessionRoute(final NodeRid sessionNode, final SessionRelocationFrame.Route route) {
    sessions.sendRoute(sessionNode, route);
  }

  /** A command 30 or 53 reply for a source unit. Event loop. */
  private void onSourceReply(final RelocationFrame frame) {
    final RelocationSource source = sourcesByIdentity.get(frame.identity());
    if (source == null) {
      NodeRuntime.LOG.warn("relocation reply {} for unknown identity {} ignored", frame.command(), frame.identity());
      return;
    }
    final java.util.function.Consumer<String> hook = beforeRelayReady;
    if (hook != null && frame instanceof RelocationFrame.Ready) {
      hook.accept(source.actor.id);
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
  public boolean onReplyRoute(final byte[] frame) {
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

  /**
   * The one-way leave notice from the target: OnLeaveActor on the source Spot (spec 000 section 4.2 step 7), in the
   * Spot's queue order, so after every message the actor sent the Spot here before its seal.
   */
  public void onLeaveNotice(final String spotId, final String actorId) {
    final RelocationSource source = sources.get(actorId);
    final SpotCell spot = rt.spots.get(spotId);
    if (source == null || spot == null) {
      // a Spot still here keeps the actor as a member: say so (a notice later than the source unit's follow time)
      if (spot != null) {
        NodeRuntime.LOG.warn("leave notice of actor '{}' from {} found no relocation source here (ended); no"
            + " OnLeaveActor", actorId, spot.describe());
      } else {
        NodeRuntime.LOG.debug("leave notice of actor '{}' from spot '{}': the spot is gone", actorId, spotId);
      }
      return;
    }
    Joins.leaveInOrder(spot, source.actor, null); // behind the lines the actor sent the Spot before its seal
  }

  /**
   * Message Follow of an application message that reached this node for an actor that moved away (spec 002
   * section 7.3, LOC-21): through the source unit while it follows, else to the recorded new owner with one more
   * hop; a cycle, an expired route or too many hops end Unavailable, another generation InvalidOperation.
   *
   * @return true when handled (forwarded or failed); false when no route is known here.
   */
  public boolean followInbound(final ApplicationMessage m, final ReplySink sink, final int sessionWork) {
    final Long generation = followGenerations.get(m.targetId());
    if (generation == null || diverted.contains(m.targetId()) || abandonedHere(m.targetId())) {
      // Moving here again while the route of its earlier move away still lives: the target unit takes the message
      // (temporary queue, spec 001 section 4.3). Following it back to the old owner sent it round a second time,
      // behind later messages of the same sender on the same connection (section 5.1). And once that move here
      // ended past relay-ready without a commit, the message ends Unavailable here (section 9): following it back
      // to the old owner, which follows it here again, bounced it between two live nodes until the hop limit.
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
        final Envelope.Msg envelope = new Envelope.Msg(rt.copier().decode(m.payload()), sink, sessionWork);
        if (sourceIngress(m.targetId(), envelope, forward.followed().hops())) {
          return true;
        }
        if (aggregateFollows.containsKey("actor:" + m.targetId()) && aggregateIngress("actor:" + m.targetId(),
            envelope)) {
          // the unit was superseded just now (the actor is being restored here with its aggregate, or moves here
          // again): its follow took over, and a later message of the same sender takes that ordered way too
          return true;
        }
        final NodeRid next = new NodeRid(Long.parseUnsignedLong(forward.nextNode(), 16));
        rt.metrics().followForward();
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

  /** A frozen record of local work (spec 001 section 4.2): payload, operation identity and reply route kept. */
  FrozenRecord freeze(final Envelope.Msg msg, final Cell actor) {
    final ApplicationPayload payload = WorkMarks.mark(rt.copier().encodeForPeer("message", msg.payload(),
        Integer.MAX_VALUE / 2, true), msg.sessionWork()); // session work keeps its mark in the record
    long route = 0;
    long deadline = 0;
    if (msg.reply() != null) {
      route = nextReplyRoute.incrementAndGet();
      final long id = route;
      replyRoutes.put(id, msg.reply());
      msg.reply().future.whenComplete((v, f) -> replyRoutes.remove(id));
      deadline = WireDeadlines.unixMs(msg.reply().deadline);
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

  /**
   * The client session binding of a session-bound actor, carried in its relocation payload.
   *
   * @param sessionId the session's id on its node, greater than zero.
   * @param node the node that holds the session, its Session owner (it never moves).
   * @param nextPushSequence the next push sequence number of the binding, 0 and up.
   * @param closed true when the session's disconnect already reached the actor (no seal is needed any more).
   * @param owner the Session owner as commands 42 and 44 name it (node rid and generation, owner id and lease
   *     generation), or null when the payload came from a peer that does not carry it (then no seal is made).
   * @param bindingGeneration the binding's generation, 1..2^63-1.
   * @param sealedRouteAog when the move this payload belongs to sealed the binding at its Session owner, the
   *     AuthorityOwnerGeneration of the route its command 42 named (the target's command 44 commit names it as the
   *     previous one, after its CAS and queue opening: spec 000 section 4.2 step 8); 0 when not sealed; -1 when
   *     sealed by a peer that does not carry the route (the previous one is then the object's own).
   */
  public record Binding(long sessionId, NodeRid node, long nextPushSequence, boolean closed,
      dev.spotkit.relocation.wire.SessionOwner owner, long bindingGeneration, long sealedRouteAog) {

    /** True when the move this payload belongs to sealed the binding at its Session owner. */
    boolean sealed() {
      return sealedRouteAog != 0;
    }

    /** The same binding, marked as sealed by {@code seal} (null: not sealed) of the move that carries it. */
    Binding sealedBy(final SessionRelocationFrame.Seal seal) {
      return new Binding(sessionId, node, nextPushSequence, closed, owner, bindingGeneration, seal == null ? 0
          : seal.currentRoute().authorityOwnerGeneration());
    }

    /** The binding as commands 42, 43 and 44 name it, or null without a Session owner. */
    dev.spotkit.relocation.wire.SessionBinding wire(final String actorId, final long objectGeneration) {
      return owner == null ? null : new dev.spotkit.relocation.wire.SessionBinding(owner,
          SessionBinder.sessionRid(sessionId), bindingGeneration, actorId, objectGeneration);
    }
  }

  /** Bytes of a binding in the participant state framing: sessionId, node rid, next push sequence, closed. */
  static final int BINDING_BYTES = 25;
  /** Participant state framing flag: the application state follows. */
  static final int FRAMING_HAS_STATE = 1;
  /** Participant state framing flag: a session binding follows the flags. */
  static final int FRAMING_HAS_BINDING = 2;
  /**
   * Participant state framing flag: the binding's Session owner follows it (u64 node generation, u64 owner lease
   * generation, u64 binding generation, u8 sealed, u8 owner id length, owner id UTF-8).
   */
  static final int FRAMING_HAS_SESSION_OWNER = 4;
  /**
   * Participant state framing flag: the binding was sealed by this move, and the AuthorityOwnerGeneration of the route
   * its command 42 named (u64) follows the Session owner.
   */
  static final int FRAMING_HAS_SEALED_ROUTE = 8;

  /** Participant state framing without a deadline or a session binding (tests and hand-written peers). */
  static byte[] frameState(final OperationId operation, final byte[] state) {
    return frameState(operation, 0, state, null);
  }

  /**
   * Participant state framing (Spotkit-defined: spec 001 section 4.2 fixes the envelope's fields, and an
   * application state entry's bytes are opaque to it, so the golden vectors are unchanged). Version 2, written:
   * u8 2, OperationId (16 bytes, 0 when none), i64 the join's absolute deadline in Unix ms (0 when none: a host
   * relocation), u8 flags ({@link #FRAMING_HAS_STATE}, {@link #FRAMING_HAS_BINDING},
   * {@link #FRAMING_HAS_SESSION_OWNER}, {@link #FRAMING_HAS_SEALED_ROUTE}), then the session binding when flagged
   * (u64 sessionId, u64 session node rid, u64 next push sequence, u8 closed), then its Session owner when flagged,
   * then the sealed route's AuthorityOwnerGeneration when flagged, then the state.
   * Version 1, still read: u8 1, OperationId, u8 hasState, then the state. The target fails a Restore that
   * finishes after the deadline before its relay-ready reply, so a join is never committed after its timeout
   * (spec 000 section 4: the timeout covers the join plus any needed relocation); the binding travels here
   * because the envelope stream's fields and order are fixed by the spec and its vectors.
   *
   * @param operation the join's OperationId, or null (host relocation).
   * @param joinDeadlineUnixMs the join's absolute deadline in Unix ms, or 0.
   * @param state the adapter's captured state, or null (RecreateOnRelocation).
   * @param binding the session binding of a session-bound actor, or null.
   * @return the framed bytes.
   */
  static byte[] frameState(final OperationId operation, final long joinDeadlineUnixMs, final byte[] state,
      final Binding binding) {
    final byte[] head = frameHead(operation, joinDeadlineUnixMs, state != null, binding);
    if (state == null) {
      return head;
    }
    final byte[] framed = java.util.Arrays.copyOf(head, head.length + state.length);
    System.arraycopy(state, 0, framed, head.length, state.length);
    return framed;
  }

  /**
   * The framing of {@link #frameState} without the state: {@code frameState(operation, deadline, state, binding)}
   * is these bytes followed by {@code state}. A move sends the two as one application state without joining them
   * ({@code EnvelopeEntries.ApplicationState.ofParts}), so the adapter's bytes are copied once, into the stream.
   *
   * @param operation the join's OperationId, or null (host relocation).
   * @param joinDeadlineUnixMs the join's absolute deadline in Unix ms, or 0.
   * @param hasState whether the adapter's state follows (false: RecreateOnRelocation).
   * @param binding the session binding of a session-bound actor, or null.
   * @return the framing bytes, 26 bytes plus the binding's.
   */
  static byte[] frameHead(final OperationId operation, final long joinDeadlineUnixMs, final boolean hasState,
      final Binding binding) {
    final byte[] ownerId = binding == null || binding.owner() == null ? new byte[0]
        : binding.owner().ownerId().getBytes(java.nio.charset.StandardCharsets.UTF_8);
    final boolean hasOwner = binding != null && binding.owner() != null;
    final boolean sealedRoute = hasOwner && binding.sealed();
    final ByteBuffer b = ByteBuffer.allocate(26 + (binding == null ? 0 : BINDING_BYTES)
        + (hasOwner ? 26 + ownerId.length : 0) + (sealedRoute ? 8 : 0));
    b.put((byte) 2);
    b.putLong(operation == null ? 0 : operation.high()).putLong(operation == null ? 0 : operation.low());
    b.putLong(joinDeadlineUnixMs);
    b.put((byte) ((hasState ? FRAMING_HAS_STATE : 0) | (binding == null ? 0 : FRAMING_HAS_BINDING)
        | (hasOwner ? FRAMING_HAS_SESSION_OWNER : 0) | (sealedRoute ? FRAMING_HAS_SEALED_ROUTE : 0)));
    if (binding != null) {
      b.putLong(binding.sessionId()).putLong(binding.node().value()).putLong(binding.nextPushSequence())
          .put((byte) (binding.closed() ? 1 : 0));
    }
    if (hasOwner) {
      b.putLong(binding.owner().nodeGeneration()).putLong(binding.owner().ownerLeaseGeneration())
          .putLong(binding.bindingGeneration()).put((byte) (binding.sealed() ? 1 : 0))
          .put((byte) ownerId.length).put(ownerId);
    }
    if (sealedRoute) {
      b.putLong(binding.sealedRouteAog());
    }
    if (b.hasRemaining()) { // the adapter's bytes follow at once: a gap would be read as state
      throw new IllegalStateException("move framing sized " + b.capacity() + " bytes, wrote " + b.position());
    }
    return b.array();
  }

  /**
   * Reads a binding written by {@link #frameState} (after the flags). DataLost when truncated.
   *
   * @param state the framing, positioned after the flags.
   * @param flags the flags.
   * @param actorId for the error text.
   * @return the binding.
   */
  static Binding readBinding(final ByteBuffer state, final int flags, final String actorId) {
    if (state.remaining() < BINDING_BYTES) {
      throw new SpotkitException.DataLost("the session binding of actor '" + actorId + "' is truncated");
    }
    final long sessionId = state.getLong();
    final NodeRid node = new NodeRid(state.getLong());
    final long push = state.getLong();
    final boolean closed = state.get() == 1;
    if ((flags & FRAMING_HAS_SESSION_OWNER) == 0) {
      return new Binding(sessionId, node, push, closed, null, SessionBinder.BINDING_GENERATION, 0);
    }
    if (state.remaining() < 26) {
      throw new SpotkitException.DataLost("the session owner of actor '" + actorId + "' is truncated");
    }
    final long nodeGeneration = state.getLong();
    final long lease = state.getLong();
    final long bindingGeneration = state.getLong();
    final boolean sealed = state.get() == 1;
    final int length = state.get() & 0xFF;
    if (state.remaining() < length) {
      throw new SpotkitException.DataLost("the session owner id of actor '" + actorId + "' is truncated");
    }
    final byte[] owner = new byte[length];
    state.get(owner);
    // -1: sealed by a peer that does not name the route (the target then names the object's own generation)
    long sealedRouteAog = sealed ? -1 : 0;
    if ((flags & FRAMING_HAS_SEALED_ROUTE) != 0) {
      if (state.remaining() < 8) {
        throw new SpotkitException.DataLost("the sealed route of actor '" + actorId + "' is truncated");
      }
      sealedRouteAog = state.getLong();
    }
    try {
      return new Binding(sessionId, node, push, closed, new dev.spotkit.relocation.wire.SessionOwner(Rids.of(node),
          nodeGeneration, new String(owner, java.nio.charset.StandardCharsets.UTF_8), lease), bindingGeneration,
          sealedRouteAog);
    } catch (IllegalArgumentException e) {
      throw new SpotkitException.DataLost("the session owner of actor '" + actorId + "' is invalid: "
          + e.getMessage());
    }
  }

  /** The session binding of an actor about to be captured (on its gate, sealed), or null when it has none. */
  static Binding bindingOf(final ActorCell actor) {
    final BoundSession bound = actor.binding;
    if (bound != null) {
      return bound.binding();
    }
    final SessionBinder.Link link = actor.session;
    if (link == null) {
      return null;
    }
    final NodeRuntime rt = actor.runtime();
    final Relocations r = rt.relocations();
    return new Binding(link.session().id(), rt.nodeRid(), 0, link.disconnectQueuedHere(),
        new dev.spotkit.relocation.wire.SessionOwner(Rids.of(rt.nodeRid()), rt.store().lifecycleGeneration(),
        r.ownerId(), r.leaseGeneration()), SessionBinder.BINDING_GENERATION, 0);
  }

  /**
   * The route of an actor Ready on its node, as a Session owner's binding stores it (spec 001 section 7): this
   * node's rid and lifecycle generation, the actor's AuthorityOwnerGeneration, this host run's lease generation.
   *
   * @param actor the actor, Ready here with its store record.
   * @return the route.
   */
  public static dev.spotkit.relocation.wire.ActorRoute routeOf(final ActorCell actor) {
    final NodeRuntime rt = actor.runtime();
    return new dev.spotkit.relocation.wire.ActorRoute(Rids.of(rt.nodeRid()), rt.store().lifecycleGeneration(),
        actor.storeRecord.authorityOwnerGeneration(), rt.relocations().leaseGeneration());
  }

  /**
   * The route a Session owner's binding holds for an actor Ready on this node, as a command 42 names it: {@link
   * #routeOf}, with the AuthorityOwnerGeneration of {@link ActorCell#sessionRouteAog} when a reversed room move
   * left the binding on an earlier one.
   *
   * @param actor the actor, Ready here with its store record.
   * @return the route the binding holds.
   */
  static dev.spotkit.relocation.wire.ActorRoute sealedRouteOf(final ActorCell actor) {
    final dev.spotkit.relocation.wire.ActorRoute now = routeOf(actor);
    final long bound = actor.sessionRouteAog;
    return bound == 0 ? now : new dev.spotkit.relocation.wire.ActorRoute(now.nodeRid(), now.nodeGeneration(), bound,
        now.ownerLeaseGeneration());
  }

  /**
   * A unit's log line for {@code objectId}: the spec's warnings become typed node events (logged as key=value by the
   * event feed), other codes are logged as before.
   */
  void log(final Action.Log l, final String objectId) {
    if (!RelocationEvents.warning(rt, l, objectId)) {
      log(l);
    }
  }

  static void log(final Action.Log l) {
    if (l.level() == Action.Level.ERROR) {
      NodeRuntime.LOG.error("relocation {}: {}", l.code(), l.detail());
    } else {
      NodeRuntime.LOG.warn("relocation {}: {}", l.code(), l.detail());
    }
  }

  // ================================================================ mesh frames
  /**
   * Command 52 still in the connection's receive buffer (the mesh decoder did not copy it): decoded in place, fed to
   * its unit on the unit's lane, released after the assembler's copy or on any other path ({@link StateFrames}).
   * Event loop.
   *
   * @param from the connection.
   * @param frame the frame, head included; owned from the call on (released exactly once, here or on the lane).
   */
  public void onStateFrame(final PeerConnection from, final io.netty.buffer.ByteBuf frame) {
    stateFrames.onFrame(from, frame);
  }

  /** Commands 28, 30, 31, 34, 40, 52 and 53 from a peer. Event loop. */
  public void onFrame(final PeerConnection from, final int command, final byte[] frame) {
    if (command == dev.spotkit.core.wire.Commands.ACTOR_JOIN) {
      JoinApprovals.onActorJoin(this, from, ActorJoin.decode(frame));
      return;
    }
    if (command == RelocationFrame.State.COMMAND) { // already copied out of its buffer: read in place all the same
      onStateFrame(from, io.netty.buffer.Unpooled.wrappedBuffer(frame));
      return;
    }
    final RelocationFrame decoded;
    try {
      decoded = RelocationCodec.decode(frame);
    } catch (WireFormatException e) {
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
          // coming back while this node still follows its earlier move away: that follow takes this node's sends
          // from now on (Messaging), behind what it followed before; together with the diversion, so no send of
          // this node and no message coming back finds neither
          supersedeSource(id, p.object().objectGeneration());
          diverted.add(id);
          undiverting.remove(id);
        }
        post(id, at -> target(id).restoreRequested(from, connection, p, at));
      }
      case RelocationFrame.Data d -> post(id, at -> known(id, command, from).ifPresent(t -> t.relay(connection, d,
          at)));
      case RelocationFrame.Cutover c -> post(id, at -> known(id, command, from).ifPresent(t -> t.feed(
          new TargetEvent.CutoverArrived(c.identity(), connection, c.boundaryRecordCount(),
          c.boundaryChecksumCrc32c()), at)));
      case RelocationFrame.State s -> throw new IllegalStateException("decoded above");
    }
  }

  // ================================================================ target side

  /**
   * An approved preparation (MEM-25..MEM-28): the Spot, the approval's reply and its expiry ({@link System#nanoTime}
   * ns). While it lives, the Spot counts it in {@link SpotCell#admittedJoins} and its close is refused.
   */
  public record Prepared(SpotCell spot, Optional<Object> reply, long expiresAtNanos) {
    /** The join of {@code actorId} committed, failed or expired: the Spot may close again. Any thread. */
    public void release(final String actorId) {
      spot.admittedJoins.remove(actorId, this);
    }
  }

  /**
   * How long an approved preparation waits for its Restore (MEM-27).
   *
   * @return {@link #PREPARATION_VALIDITY} unless a test shortened it.
   */
  public static Duration preparationValidity() {
    return preparationValidity;
  }

  /**
   * Tests only: sets the preparation validity of approvals made from now on, in every node of this JVM.
   *
   * @param validity the new validity, zero or more; {@link #PREPARATION_VALIDITY} restores the default.
   */
  public static void preparationValidity(final Duration validity) {
    preparationValidity = validity;
  }

  /**
   * Work for an actor whose target unit is live here (temporary queue; spec 001 section 4.3): through the target
   * executor, in arrival order. Any thread.
   *
   * @return true when taken.
   */
  /**
   * Whether the object is being restored on this node right now: an Actor's move here diverts its messages to the
   * temporary queue, or a SpotWide aggregate's participant waits here between the CAS and its open. A local sender
   * then keeps its cached route to the old owner (see {@code Messaging.deliver}). Any thread; a hint, not locked
   * against the move's next step.
   *
   * @param actorId the Actor's id, or null for a Spot.
   * @param followKey {@code spot:{id}} or {@code actor:{id}}, or null.
   * @return true while such a move is under way here.
   */
  public boolean arrivingHere(final String actorId, final String followKey) {
    if (followKey != null && aggregateStaging.containsKey(followKey)) {
      return true;
    }
    if (actorId == null || diverted.isEmpty()) {
      return false;
    }
    synchronized (divertLock) {
      return diverted.contains(actorId);
    }
  }

  public boolean targetIngress(final String actorId, final Envelope.Msg envelope) {
    if (diverted.isEmpty()) {
      return false;
    }
    synchronized (divertLock) {
      if (!diverted.contains(actorId)) {
        return false;
      }
      divertedInFlight.merge(actorId, 1, Integer::sum);
      post(actorId, at -> {
        try {
          target(actorId).direct(envelope, at);
        } finally {
          divertedHandled(actorId);
        }
      });
      return true;
    }
  }

  /**
   * Ends the diversion of {@code actorId} (its queue opened here, or its move here ended), but only once every
   * message diverted to its lane before has been handled: until then later messages are diverted too and queue
   * behind them. Ending it at once let a message that arrived next go straight to the mailbox ahead of ones still
   * queued on the lane (spec 001 section 5.1: order per sender on one connection). Lane.
   *
   * @param actorId the actor.
   */
  void stopDiverting(final String actorId) {
    synchronized (divertLock) {
      if (divertedInFlight.containsKey(actorId)) {
        undiverting.add(actorId);
      } else {
        diverted.remove(actorId);
        undiverting.remove(actorId);
      }
    }
  }

  /**
   * Messages of {@code actorId} diverted to its lane and not handled yet. Tests only.
   *
   * @param actorId the actor.
   * @return 0 or more.
   */
  int divertedInFlight(final String actorId) {
    synchronized (divertLock) {
      return divertedInFlight.getOrDefault(actorId, 0);
    }
  }

  /** One diverted message of {@code actorId} was handled; the last one ends a pending {@link #stopDiverting}. */
  private void divertedHandled(final String actorId) {
    synchronized (divertLock) {
      if (divertedInFlight.compute(actorId, (k, n) -> n == null || n <= 1 ? null : n - 1) == null
          && undiverting.remove(actorId)) {
        diverted.remove(actorId);
      }
    }
  }

  /**
   * The target state of {@code actorId} for a command 52, 31 or 34, or empty when no Restore (command 40) made one
   * here: such a frame is discarded with a log line and creates nothing (a peer's frames for objects never
   * prepared here, or late ones after the state was dropped, must not build up state or a clock entry). Executor.
   */
  Optional<TargetObject> known(final String actorId, final int command, final PeerConnection from) {
    final TargetObject t = objects.get(actorId);
    if (t == null) {
      NodeRuntime.LOG.warn("relocation command {} from {} for actor '{}' with no Restore here discarded", command,
          from.peerRid(), actorId);
    }
    return Optional.ofNullable(t);
  }

  /**
   * Whether a message for {@code actorId} must end Unavailable because its move here was abandoned past
   * relay-ready (see {@link #abandoned}). Any thread.
   *
   * @param actorId the actor.
   * @return true within the follow duration after such an end.
   */
  public boolean abandonedHere(final String actorId) {
    final Long until = abandoned.get(actorId);
    if (until == null) {
      return false;
    }
    if (nowMs() - until < 0) {
      return true;
    }
    abandoned.remove(actorId, until);
    return false;
  }

  private TargetObject target(final String actorId) {
    return objects.computeIfAbsent(actorId, id -> new TargetObject(this, id));
  }

  /**
   * Gives the clock to every target unit of one lane: the time a tick fired, once every input that reached the node
   * before it already ran on this lane ({@link #tick}). Lane.
   */
  private void clockLane(final int lane, final long firedAtMs) {
    for (TargetObject t : List.copyOf(objects.values())) {
      if (t.lane == lane) {
        t.feed(new TargetEvent.ClockAdvanced(firedAtMs), firedAtMs);
      }
    }
  }

  /**
   * Local work from a frozen record captured or relayed by a source (spec 001 section 4.2): the payload decoded, and
   * for a request a reply sink whose answer goes back as a command 20 to the record's reply route on its source
   * node. Any thread.
   */
  Envelope.Msg thaw(final FrozenRecord record) {
    final Object payload = rt.copier().decode(WorkMarks.unmark(((RecordBody.SpotRequest) record.body())
        .payload()));
    final int work = WorkMarks.workOf(((RecordBody.SpotRequest) record.body()).payload());
    if (record.replyRouteId() == 0) {
      return new Envelope.Msg(payload, null, work);
    }
    final long deadline = Relocations.deadlineOf(record);
    final ReplySink sink = new ReplySink(deadline == 0 ? Deadline.after(Duration.ofSeconds(30))
        : WireDeadlines.deadlineOf(deadline), Object.class, "relocated request to actor '"
        + ((RecordBody.SpotRequest) record.body()).targetSpot().spotId() + "'");
    final long route = record.replyRouteId();
    final NodeRid node = record.source() instanceof RecordSource.Node n ? Rids.toNodeRid(n.nodeRid()) : null;
    sink.future.whenComplete((value, failure) -> {
      Reply reply;
      if (failure == null) {
        try {
          reply = new Reply(route, TerminalResult.OK, dev.spotkit.core.wire.FailureCode.NONE, ReplyTail.Empty.INSTANCE,
              rt.copier().encodeForPeer("reply", value, Integer.MAX_VALUE / 2, false));
        } catch (SpotkitException e) {
          reply = ReplyErrors.toReply(route, e);
        }
      } else {
        reply = ReplyErrors.toReply(route, Cell.typed(RouteMesh.unwrap(failure), sink.description));
      }
      final byte[] frame = ReplyCodec.encode(reply);
      if (node == null || node.equals(rt.nodeRid())) {
        onReplyRoute(frame);
        return;
      }
      final java.util.Optional<PeerConnection> open = rt.mesh().open(node);
      if (open.isPresent() && open.get().send(frame)) {
        return;
      }
      rt.async(() -> rt.mesh().connection(node, rt.mesh().endpointOf(rt.meshName().value(), node, "reply route"),
          Deadline.after(Duration.ofSeconds(5))).send(frame));
    });
    return new Envelope.Msg(payload, sink, work);
  }
}
