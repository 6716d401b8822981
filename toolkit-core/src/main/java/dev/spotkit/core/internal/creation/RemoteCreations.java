package dev.spotkit.core.internal.creation;

import dev.spotkit.core.internal.mesh.RouteMesh;
import dev.spotkit.core.internal.mesh.WireDeadlines;
import dev.spotkit.core.internal.runtime.Cell;
import dev.spotkit.core.internal.runtime.NodeRuntime;
import dev.spotkit.core.internal.runtime.ReplyErrors;
import dev.spotkit.core.wire.Rids;
import dev.spotkit.core.wire.Payloads;

import dev.spotkit.core.CreateOutcome;
import dev.spotkit.core.Deadline;
import dev.spotkit.core.NodeRid;
import dev.spotkit.core.OperationId;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.core.location.AuthorityRecord;
import dev.spotkit.core.location.CreationTerminalRecord;
import dev.spotkit.core.location.LocationKeys;
import dev.spotkit.core.location.NodeDirectory;
import dev.spotkit.core.location.NodePeer;
import dev.spotkit.core.location.ObjectKey;
import dev.spotkit.core.location.Placement;
import dev.spotkit.core.location.PlacementBatches;
import dev.spotkit.core.location.PlacementKind;
import dev.spotkit.core.location.Sha256;
import dev.spotkit.core.location.StoreCalls;
import dev.spotkit.core.mesh.PeerConnection;
import dev.spotkit.core.wire.ActorCreate;
import dev.spotkit.relocation.wire.ApplicationPayload;
import dev.spotkit.core.wire.CreateResult;
import dev.spotkit.core.wire.CreationCodec;
import dev.spotkit.core.wire.FailureCode;
import dev.spotkit.core.wire.OperationIds;
import dev.spotkit.core.wire.OperationKind;
import dev.spotkit.core.wire.Reply;
import dev.spotkit.core.wire.ReplyTail;
import dev.spotkit.core.wire.ReservationFence;
import dev.spotkit.relocation.wire.Rid;
import dev.spotkit.core.wire.TerminalResult;
import dev.spotkit.core.wire.UserSpotCreate;
import dev.spotkit.core.wire.WireActorRef;
import dev.spotkit.core.wire.WireSpotRef;
import dev.spotkit.store.ReadResult;
import dev.spotkit.store.StoreBytes;
import dev.spotkit.store.StoreVersion;
import java.time.Duration;
import java.util.Base64;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiFunction;
import java.util.function.Supplier;

/**
 * Actor and User Spot creation across the mesh (spec 002 section 7, spec 000 section 2). The coordinator (the
 * node whose manager was called) reads the authority row: Ready of the same kind and type is Existing, another
 * kind or type is TypeMismatch, Creating is waited for; when Missing it picks a Serving node by placement,
 * reserves the row for it (capacity, ObjectGeneration and AuthorityOwnerGeneration in one batch, MEM-02,
 * LOC-09, LOC-13) and sends command 49 (actor) or 47 (User Spot). The target checks the reservation fence
 * against itself and the row (LOC-12), runs factory and callbacks, commits Ready or aborts together with the
 * terminal record (LOC-10) and answers with one command 20. A lost answer is never guessed: the coordinator
 * reads the terminal record of its OperationId (MEM-04..06, LOC-11).
 */
public final class RemoteCreations {
  private static final Duration STORE_TIMEOUT = Duration.ofSeconds(5);
  private static final int MAX_ROUNDS = 10_000;
  /** At most this long (and at most half the call's time left) to connect to a picked target before placing again. */
  private static final Duration CONNECT_BUDGET = Duration.ofSeconds(2);
  /** How long a read of the mesh's descriptors is reused by placement. */
  private static final long PEERS_MAX_AGE_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
  /**
   * A view that holds this node alone is reused for at most 20 ms: right after a mesh starts, one node's first read
   * may precede its peers' descriptors, and 500 ms of placements on itself alone would follow.
   */
  private static final long LONE_PEERS_MAX_AGE_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
  private static final String INLINE = "inline-v1:";
  /**
   * How long a caller waits on an unchanged Creating row, whose target's lease is valid, before it sends the
   * reservation to that target again (1,000 ms; a creation normally commits in a few ms).
   */
  static final Duration RESUME_AFTER = Duration.ofMillis(1_000);

  /** What is being created. */
  record Spec<R>(ObjectKey key, PlacementKind kind, String stableType, Object request, boolean create,
      BiFunction<Long, NodeRid, R> refOf) {
  }

  private record Peers(List<NodePeer> peers, long readAtNanos) {
  }

  private final NodeRuntime rt;
  private final NodeDirectory directory;
  private final ThreadLocal<Placement> placement = ThreadLocal.withInitial(() ->
      new Placement(new SplittableRandom()));
  private volatile Peers peers;

  RemoteCreations(final NodeRuntime rt) {
    this.rt = rt;
    this.directory = new NodeDirectory(rt.store().store(), STORE_TIMEOUT);
  }

  // ------------------------------------------------------------------ coordinator (virtual thread)

  /**
   * GetOrCreate (or Create) anywhere in the mesh.
   *
   * @param spec the object.
   * @param deadline one deadline from lookup to Ready.
   * @param local the local creation path, used when placement picks this node.
   * @return the outcome.
   */
  <R> CreateOutcome<R> getOrCreate(final Spec<R> spec, final Deadline deadline,
      final Supplier<CreateOutcome<R>> local) {
    final Set<NodePeer.HostRun> excluded = new HashSet<>();
    final OperationId operation = OperationId.random();
    for (int round = 0; round < MAX_ROUNDS && !deadline.isExpired(); round++) {
      rt.ensureRunning("creation of " + spec.key().logicalKey());
      final ReadResult read = StoreCalls.await(rt.store().store().read(spec.key().logicalKey().preimage()),
          STORE_TIMEOUT, "read of " + spec.key().logicalKey());
      if (read instanceof ReadResult.Found found) {
        final AuthorityRecord row = AuthorityRecord.decode(found.value());
        checkType(spec, row);
        if (row.allocation().state() == AuthorityRecord.State.ACTIVE) {
          if (sweptAbandoned(spec, row, found.version())) {
            continue; // its owner is gone: the id is Missing now; create it again
          }
          if (spec.create()) {
            throw new SpotkitException.AlreadyExists(what(spec) + " exists (Create never returns an existing"
                + " object; use getOrCreate)");
          }
          return new CreateOutcome.Existing<>(ref(spec, row));
        }
        final CreateOutcome<R> resumed = awaitChange(spec, row, found.version(), deadline); // Creating: wait
        if (resumed != null) {
          return resumed;
        }
        continue;
      }
      final NodePeer target = pick(spec.kind(), spec.stableType(), excluded);
      if (target.routingIdHex().equals(rt.nodeRid().hex())) {
        try {
          return local.get();
        } catch (SpotkitException.AlreadyExists e) {
          continue; // another node reserved it first: read again
        } catch (SpotkitException.CapacityExceeded e) {
          excluded.add(target.hostRun());
          continue;
        }
      }
      final PlacementBatches.Reservation reservation = rt.store().batches().reserve(
          new PlacementBatches.ReserveRequest(spec.key(), spec.kind(), spec.stableType(),
              PlacementBatches.Target.of(target), StoreBytes.empty(), pending(spec, operation)));
      switch (reservation) {
        case PlacementBatches.Reservation.Reserved reserved -> {
          final CreateOutcome<R> outcome = requestCreation(spec, target, reserved, operation, deadline);
          if (outcome != null) {
            return outcome;
          }
          excluded.add(target.hostRun()); // unreachable: its reservation is aborted; place again without it
        }
        case PlacementBatches.Reservation.Existing existing -> {
          // read it again at the top of the loop
        }
        case PlacementBatches.Reservation.Refused refused -> excluded.add(refused.hostRun());
      }
    }
    throw new SpotkitException.DeadlineExceeded(what(spec) + " did not finish by its deadline (the attempt in"
        + " progress may still complete; the next call re-reads the Location Store)");
  }

  /**
   * Crash recovery (issue 15, {@code MeshNode.Builder#recreateAfterOwnerLoss}): when the Ready row's owner run is
   * gone for good, deletes the row and returns its slots in one batch conditioned on the row's StoreVersion and on
   * the dead lease ({@link dev.spotkit.core.location.PlacementBatches#sweepAbandoned}); the caller then reads the id
   * as Missing and creates a new incarnation (higher ObjectGeneration) on a live node. The old incarnation's memory
   * is not recovered. A row this node owns is never swept here (this run is alive while it runs this).
   *
   * @return true when this call swept the row.
   */
  private boolean sweptAbandoned(final Spec<?> spec, final AuthorityRecord row, final StoreVersion version) {
    if (!rt.config().recreateAfterOwnerLoss() || row.ownerId().equals(rt.store().self().ownerId())
        && dev.spotkit.core.location.AggregatePointer.spotOf(row.payload()).isEmpty()) {
      return false;
    }
    if (!rt.store().batches().sweepAbandoned(spec.key(), version)) {
      return false;
    }
    NodeRuntime.LOG.info("{}: its owner {} on node {} is gone (owner lease expired); swept its location record"
        + " (generation {}) and creating a new incarnation; the old one's state is lost", what(spec), row.ownerId(),
        row.allocation().routingIdHex(), row.objectGeneration().value());
    return true;
  }

  private static void checkType(final Spec<?> spec, final AuthorityRecord row) {
    final AuthorityRecord.Allocation a = row.allocation();
    if (a.objectKind() != spec.kind() || !a.stableType().equals(spec.stableType())) {
      throw new SpotkitException.TypeMismatch(what(spec) + " exists as " + a.objectKind().wire() + " of type '"
          + a.stableType() + "'; asked for " + spec.kind().wire() + " of type '" + spec.stableType() + "'");
    }
  }

  private <R> R ref(final Spec<R> spec, final AuthorityRecord row) {
    return spec.refOf().apply(row.objectGeneration().value(),
        new NodeRid(Long.parseUnsignedLong(row.allocation().routingIdHex(), 16)));
  }

  /**
   * Waits until the Creating row at {@code version} changes (spec 000 section 2: a caller that did not obtain
   * creation authority waits for the authority change). Recovery is decided from the Creating row and its target's
   * owner lease: a row whose target run is gone is aborted at once; a row that stays unchanged for
   * {@link #RESUME_AFTER} while its target's lease is valid is sent to that target again (see {@link #resume}), so
   * a reservation whose command never arrived, or arrived too late to run, does not pin the id.
   *
   * @return the outcome when the resumed creation answered Existing or Created, else null (read the row again)
   */
  private <R> CreateOutcome<R> awaitChange(final Spec<R> spec, final AuthorityRecord row, final StoreVersion version,
      final Deadline deadline) {
    if (rt.store().batches().abortAbandoned(spec.key(), version)) {
      NodeRuntime.LOG.info("{}: the Creating row's target run {} is gone (its owner lease expired); aborted the"
          + " reservation, placing again", what(spec), row.allocation().routingIdHex());
      return null;
    }
    final long resumeAt = System.nanoTime() + RESUME_AFTER.toNanos();
    boolean resumed = false;
    long pauseMs = 2;
    while (!deadline.isExpired()) {
      final ReadResult read = StoreCalls.await(rt.store().store().read(spec.key().logicalKey().preimage()),
          STORE_TIMEOUT, "read of " + spec.key().logicalKey());
      if (!(read instanceof ReadResult.Found found) || !found.version().equals(version)) {
        return null;
      }
      if (!resumed && System.nanoTime() - resumeAt >= 0) {
        resumed = true;
        final CreateOutcome<R> outcome = resume(spec, row, version, deadline);
        if (outcome != null) {
          return outcome;
        }
        continue;
      }
      pause(Math.min(pauseMs, Math.max(1, deadline.remaining().toMillis())));
      pauseMs = Math.min(100, pauseMs * 2);
    }
    return null;
  }

  /**
   * Sends a Creating row that did not change for {@link #RESUME_AFTER} to its recorded target again, with the
   * fence read from the row and this caller's own OperationId (spec 000 section 2, "continues creation with the
   * same record and generation, or cancels the same record"). The target runs the stored creation request when it
   * holds no incarnation of the id (the first command never arrived, or arrived past its deadline); one that is
   * still running answers Unavailable and this caller keeps waiting. A target that cannot be reached is cancelled:
   * the reservation is aborted on its StoreVersion, so a late commit of that target fails on the same CAS and
   * never makes a second owner.
   *
   * @return Existing when the target answered Created or Existing; null to read the row again (Rejected, aborted,
   *     still running, or changed)
   * @throws SpotkitException the target's typed failure other than Unavailable / DeadlineExceeded
   */
  private <R> CreateOutcome<R> resume(final Spec<R> spec, final AuthorityRecord row, final StoreVersion version,
      final Deadline deadline) {
    final AuthorityRecord.Allocation a = row.allocation();
    if (row.pendingCreation() == null) {
      return null; // a relocation's reservation, not a creation: its own protocol ends it
    }
    final ReservationFence fence = new ReservationFence(row.pendingCreation().reservationId(), version.value(),
        row.objectGeneration().value(), row.authorityOwnerGeneration().value(), Rids.ofHex(a.routingIdHex()),
        a.descriptorLifecycleGeneration(), row.ownerId(), row.ownerLeaseGeneration().value(), 1);
    final NodeRid owner = new NodeRid(Long.parseUnsignedLong(a.routingIdHex(), 16));
    final OperationId operation = OperationId.random();
    final boolean actor = spec.kind() == PlacementKind.ACTOR;
    NodeRuntime.LOG.info("{}: its Creating row for node {} did not change for {} ms; sending the reservation to that"
        + " target again", what(spec), a.routingIdHex(), RESUME_AFTER.toMillis());
    final CompletableFuture<Reply> reply;
    try {
      if (a.routingIdHex().equals(rt.nodeRid().hex())) {
        reply = createHere(actor, operation, Rids.of(rt.nodeRid()), rt.store().lifecycleGeneration(), spec.key().id(),
            spec.stableType(), fence, WireDeadlines.unixMs(deadline), 1); // answered here: any valid correlation
      } else {
        final PeerConnection connection;
        try {
          connection = rt.mesh().connectionTo(owner, a.meshName(), Deadline.after(Duration.ofMillis(Math.max(1,
              Math.min(CONNECT_BUDGET.toMillis(), deadline.remaining().toMillis() / 2)))), what(spec));
        } catch (SpotkitException.Unavailable e) {
          final PlacementBatches.Outcome aborted = rt.store().batches().abort(spec.key(), version, List.of());
          NodeRuntime.LOG.warn("{}: its Creating row's target node {} cannot be reached ({}); cancelled the"
              + " reservation ({}), placing again", what(spec), a.routingIdHex(), e.getMessage(), aborted);
          return null;
        }
        reply = send(spec, connection, operation, fence, deadline);
      }
      final CreateOutcome<R> outcome = outcome(spec, reply.get(Math.max(1, deadline.remaining().toNanos()),
          TimeUnit.NANOSECONDS), owner);
      return switch (outcome) {
        case CreateOutcome.Created<R> created -> new CreateOutcome.Existing<>(created.ref());
        case CreateOutcome.Existing<R> existing -> existing;
        case CreateOutcome.Rejected<R> rejected -> null; // that request was declined: compete with ours
      };
    } catch (SpotkitException.Unavailable | SpotkitException.DeadlineExceeded e) {
      return null; // the row changed, or a creation of it still runs there: keep waiting
    } catch (ExecutionException e) {
      final Throwable cause = RouteMesh.unwrap(e.getCause());
      if (cause instanceof SpotkitException.Unavailable || cause instanceof SpotkitException.DeadlineExceeded) {
        return null;
      }
      throw Cell.typed(cause, what(spec));
    } catch (TimeoutException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SpotkitException.InternalFailure("interrupted while creating " + spec.key().id(), e);
    }
  }

  private CompletableFuture<Reply> send(final Spec<?> spec, final PeerConnection connection,
      final OperationId operation, final ReservationFence fence, final Deadline deadline) {
    final Rid self = Rids.of(rt.nodeRid());
    final long selfGeneration = rt.store().lifecycleGeneration();
    final long deadlineUnixMs = WireDeadlines.unixMs(deadline);
    final boolean actor = spec.kind() == PlacementKind.ACTOR;
    return rt.mesh().call(connection, correlation -> actor
        ? CreationCodec.encode(new ActorCreate(correlation, OperationIds.wire(operation), self, selfGeneration,
            spec.key().id(), spec.stableType(), fence, deadlineUnixMs))
        : CreationCodec.encode(new UserSpotCreate(correlation, OperationIds.wire(operation), self, selfGeneration,
            spec.key().id(), spec.stableType(), fence, deadlineUnixMs)),
        actor ? OperationKind.ACTOR_CREATE : OperationKind.USER_SPOT_CREATE, deadline, what(spec));
  }

  private static void pause(final long ms) {
    try {
      Thread.sleep(ms); // polling the store between reads while another node runs the factory
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SpotkitException.InternalFailure("interrupted while waiting for a creation", e);
    }
  }

  /**
   * Placement (spec 002 section 4): a Serving node with a valid lease, the type registered and room left, by
   * weight; weight 0 never.
   *
   * @throws SpotkitException.NotFound when no node registered the type.
   * @throws SpotkitException.CapacityExceeded when every candidate is full.
   * @throws SpotkitException.Unavailable when no node is Serving.
   */
  NodePeer pick(final PlacementKind kind, final String stableType, final Set<NodePeer.HostRun> excluded) {
    final List<NodePeer> known = peers(!excluded.isEmpty());
    return placement.get().pick(known, rt.store().batches().readCapacities(known), kind, stableType, excluded);
  }

  /**
   * Deterministic placement of one id (weighted rendezvous, {@link Placement#pickFor}): every node with the same
   * view sends an Instance Spot's first messages to the same target.
   *
   * @throws SpotkitException.NotFound when no node registered the type.
   * @throws SpotkitException.CapacityExceeded when every candidate is full.
   * @throws SpotkitException.Unavailable when no node is Serving.
   */
  NodePeer pickFor(final String id, final PlacementKind kind, final String stableType) {
    final List<NodePeer> known = peers(false);
    return Placement.pickFor(id, known, rt.store().batches().readCapacities(known), kind, stableType, Set.of());
  }

  private List<NodePeer> peers(final boolean fresh) {
    Peers known = peers;
    if (fresh || known == null || System.nanoTime() - known.readAtNanos() > (known.peers().size() <= 1
        ? LONE_PEERS_MAX_AGE_NANOS : PEERS_MAX_AGE_NANOS)) {
      known = new Peers(directory.readMesh(rt.meshName().value(), rt.config().recreateAfterOwnerLoss()),
          System.nanoTime());
      peers = known;
    }
    return known.peers();
  }

  private AuthorityRecord.PendingCreation pending(final Spec<?> spec, final OperationId operation) {
    final byte[] request = Payloads.toBytes(rt.copier().encode("creation request", spec.request(),
        Creations.MAX_CREATION_REQUEST_BYTES));
    return new AuthorityRecord.PendingCreation(reservationId(operation),
        INLINE + Base64.getUrlEncoder().withoutPadding().encodeToString(request), Sha256.hex(request),
        request.length);
  }

  private static String reservationId(final OperationId operation) {
    return HexFormat.of().toHexDigits(operation.high()) + HexFormat.of().toHexDigits(operation.low());
  }

  /** The outcome, or null when the target could not be reached (its reservation aborted: place again). */
  private <R> CreateOutcome<R> requestCreation(final Spec<R> spec, final NodePeer target,
      final PlacementBatches.Reservation.Reserved reserved, final OperationId operation, final Deadline deadline) {
    final AuthorityRecord row = reserved.record();
    final ReservationFence fence = new ReservationFence(row.pendingCreation().reservationId(),
        reserved.version().value(), row.objectGeneration().value(), row.authorityOwnerGeneration().value(),
        Rids.ofHex(target.routingIdHex()), target.lifecycleGeneration(), target.ownerId(),
        target.leaseGeneration().value(), 1);
    final NodeRid owner = new NodeRid(Long.parseUnsignedLong(target.routingIdHex(), 16));
    final PeerConnection connection;
    try {
      connection = rt.mesh().connectionTo(owner, target.meshName(), Deadline.after(Duration.ofMillis(Math.max(1,
          Math.min(CONNECT_BUDGET.toMillis(), deadline.remaining().toMillis() / 2)))), what(spec));
    } catch (SpotkitException.Unavailable e) {
      // nothing was sent: the target never saw the reservation, so it is aborted now (spec 002 sections 4 and
      // 7: placement needs a reachable target) and the caller places again without that node
      NodeRuntime.LOG.warn("{}: placed on node {}, which cannot be reached ({}); aborting its reservation and"
          + " placing again without it", what(spec), target.routingIdHex(), e.getMessage());
      final PlacementBatches.Outcome aborted = rt.store().batches().abort(spec.key(), reserved.version(),
          List.of());
      if (!(aborted instanceof PlacementBatches.Outcome.Done)) {
        NodeRuntime.LOG.warn("{}: abort of the unreachable node's reservation found {}", what(spec), aborted);
      }
      return null;
    }
    try {
      final Reply reply = send(spec, connection, operation, fence, deadline)
          .get(Math.max(1, deadline.remaining().toNanos()), TimeUnit.NANOSECONDS);
      return outcome(spec, reply, owner);
    } catch (ExecutionException e) {
      final Throwable cause = RouteMesh.unwrap(e.getCause());
      if (cause instanceof SpotkitException.Unavailable || cause instanceof SpotkitException.DeadlineExceeded) {
        return replay(spec, operation, owner, deadline, (SpotkitException) cause); // answer lost: never guessed
      }
      throw Cell.typed(cause, what(spec));
    } catch (TimeoutException e) {
      return replay(spec, operation, owner, deadline, new SpotkitException.DeadlineExceeded(what(spec)
          + " did not finish by its deadline (the attempt in progress may still complete)"));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SpotkitException.InternalFailure("interrupted while creating " + spec.key().id(), e);
    }
  }

  private <R> CreateOutcome<R> outcome(final Spec<R> spec, final Reply reply, final NodeRid owner) {
    final Optional<Object> payload = Optional.ofNullable(reply.payload()).map(p -> rt.copier().decode(p));
    final CreateResult result;
    final long generation;
    switch (reply.tail()) {
      case ReplyTail.ActorCreated created -> {
        result = created.result();
        generation = created.actor() == null ? 0 : created.actor().objectGeneration();
      }
      case ReplyTail.UserSpotCreated created -> {
        result = created.result();
        generation = created.spot().objectGeneration();
      }
      default -> throw new SpotkitException.InternalFailure(what(spec) + ": the target answered " + reply.tail());
    }
    return switch (result) {
      case CREATED -> new CreateOutcome.Created<>(spec.refOf().apply(generation, owner), payload);
      case EXISTING -> new CreateOutcome.Existing<>(spec.refOf().apply(generation, owner));
      case REJECTED -> new CreateOutcome.Rejected<>(payload);
    };
  }

  /** After a lost answer: the terminal record of this operation, until the deadline. */
  private <R> CreateOutcome<R> replay(final Spec<R> spec, final OperationId operation, final NodeRid owner,
      final Deadline deadline, final SpotkitException lost) {
    final String key = terminalKey(Rids.of(rt.nodeRid()), rt.store().lifecycleGeneration(), operation);
    long pauseMs = 5;
    do {
      final ReadResult read = StoreCalls.await(rt.store().store().read(key), STORE_TIMEOUT, "read of " + key);
      if (read instanceof ReadResult.Found found) {
        final CreationTerminalRecord terminal = CreationTerminalRecord.decode(found.value());
        final Optional<Object> reply = Optional.ofNullable(terminal.reply()).map(b -> rt.copier().decode(
            Payloads.fromBytes(b)));
        return switch (terminal.result()) {
          case CREATED -> new CreateOutcome.Created<>(spec.refOf().apply(terminal.objectGeneration(), owner), reply);
          case REJECTED -> new CreateOutcome.Rejected<>(reply);
          case FAILED -> throw ReplyErrors.of(terminal.errorKind(), what(spec) + ": " + terminal.errorMessage());
        };
      }
      if (deadline.isExpired()) {
        break;
      }
      pause(Math.min(pauseMs, Math.max(1, deadline.remaining().toMillis())));
      pauseMs = Math.min(200, pauseMs * 2);
    } while (!deadline.isExpired());
    throw lost;
  }

  static String terminalKey(final Rid source, final long sourceGeneration, final OperationId operation) {
    return LocationKeys.creationTerminal(source.bytes(), sourceGeneration, operation.high(), operation.low())
        .preimage();
  }

  private static String what(final Spec<?> spec) {
    return "creation of " + spec.kind().wire() + " '" + spec.key().id() + "' of type '" + spec.stableType() + "'";
  }

  // ------------------------------------------------------------------ target (command 49 / 47)

  /** Command 49 or 47 from a coordinator: handled on a virtual thread, answered once. */
  public void onCreate(final PeerConnection from, final int command, final byte[] frame) {
    final boolean actor = command == dev.spotkit.core.wire.Commands.ACTOR_CREATE;
    final ActorCreate a = actor ? CreationCodec.decodeActorCreate(frame) : null;
    final UserSpotCreate u = actor ? null : CreationCodec.decodeUserSpotCreate(frame);
    final long correlation = actor ? a.correlation() : u.correlation();
    final Rid source = actor ? a.sourceNodeRid() : u.sourceNodeRid();
    final long sourceGeneration = actor ? a.sourceNodeGeneration() : u.sourceNodeGeneration();
    if (!source.equals(Rids.of(from.peerRid())) || sourceGeneration != from.peerGeneration()) {
      RouteMesh.answer(from, correlation, CompletableFuture.<Reply>failedFuture(new SpotkitException.Unavailable(
          "the creation names source node " + source + " run " + sourceGeneration + " but arrived from node "
          + from.peerRid() + " run " + from.peerGeneration() + " (LOC-12); nothing was created")), r -> r);
      return;
    }
    final CompletableFuture<Reply> reply = rt.async(() -> actor
        ? createHere(true, OperationIds.api(a.operation()), a.sourceNodeRid(), a.sourceNodeGeneration(), a.actorId(),
            a.stableType(), a.reservation(), a.deadlineUnixMs(), correlation)
        : createHere(false, OperationIds.api(u.operation()), u.sourceNodeRid(), u.sourceNodeGeneration(), u.spotId(),
            u.stableType(), u.reservation(), u.deadlineUnixMs(), correlation)).thenCompose(f -> f);
    RouteMesh.answer(from, correlation, reply, r -> r);
  }

  private CompletableFuture<Reply> createHere(final boolean actor, final OperationId operation, final Rid source,
      final long sourceGeneration, final String id, final String stableType, final ReservationFence fence,
      final long deadlineUnixMs, final long correlation) {
    final String terminalKey = terminalKey(source, sourceGeneration, operation);
    final ReadResult done = StoreCalls.await(rt.store().store().read(terminalKey), STORE_TIMEOUT,
        "read of " + terminalKey);
    if (done instanceof ReadResult.Found found) { // the same operation again: replay its result (MEM-04)
      return CompletableFuture.completedFuture(replayReply(actor, id, correlation,
          CreationTerminalRecord.decode(found.value())));
    }
    final ObjectKey key = actor ? ObjectKey.actor(id) : ObjectKey.spot(id);
    final ReadResult read = StoreCalls.await(rt.store().store().read(key.logicalKey().preimage()), STORE_TIMEOUT,
        "read of " + key.logicalKey());
    final PlacementBatches.Target self = rt.store().self();
    if (!(read instanceof ReadResult.Found found) || !fence.targetNodeRid().equals(Rids.of(rt.nodeRid()))
        || fence.targetNodeGeneration() != self.lifecycleGeneration() || !fence.targetOwnerId().equals(self.ownerId())
        || fence.targetOwnerLeaseGeneration() != self.leaseGeneration().value()
        || !found.version().value().equals(fence.expectedStoreVersion())) {
      throw new SpotkitException.Unavailable("the reservation of " + key.logicalKey() + " does not match this node"
          + " run or the stored row (LOC-12); nothing was created");
    }
    final AuthorityRecord row = AuthorityRecord.decode(found.value());
    if (row.allocation().state() != AuthorityRecord.State.RESERVED || row.pendingCreation() == null
        || row.objectGeneration().value() != fence.objectGeneration()
        || row.authorityOwnerGeneration().value() != fence.authorityOwnerGeneration()
        || !row.pendingCreation().reservationId().equals(fence.reservationId())
        || !row.allocation().stableType().equals(stableType)) {
      throw new SpotkitException.Unavailable("the Creating row of " + key.logicalKey() + " is not the reservation"
          + " the coordinator sent (LOC-12); nothing was created");
    }
    final Object request = request(row.pendingCreation());
    final CreationTerminal terminal = new CreationTerminal(terminalKey, deadlineUnixMs - System.currentTimeMillis(),
        found.now().epochMillis(), rt.copier());
    return actor ? rt.creations().createReservedActor(id, stableType, row, found.version(), request, terminal)
        .thenApply(outcome -> actorReply(correlation, id, outcome))
        : rt.creations().createReservedSpot(id, stableType, row, found.version(), request, terminal)
        .thenApply(outcome -> spotReply(correlation, id, row.objectGeneration().value(), outcome));
  }

  private Object request(final AuthorityRecord.PendingCreation pending) {
    final String reference = pending.requestContentReference();
    if (!reference.startsWith(INLINE)) {
      throw new SpotkitException.DataLost("creation request reference '" + reference + "' is not inline-v1");
    }
    final byte[] bytes = Base64.getUrlDecoder().decode(reference.substring(INLINE.length()));
    if (!Sha256.hex(bytes).equals(pending.requestSha256())) {
      throw new SpotkitException.DataLost("the stored creation request does not match its SHA-256");
    }
    return rt.copier().decode(Payloads.fromBytes(bytes));
  }

  private Reply actorReply(final long correlation, final String id,
      final CreateOutcome<dev.spotkit.core.ActorRef> outcome) {
    return switch (outcome) {
      case CreateOutcome.Created<dev.spotkit.core.ActorRef> c -> new Reply(correlation, TerminalResult.OK,
          FailureCode.NONE, new ReplyTail.ActorCreated(CreateResult.CREATED, new WireActorRef(id,
          c.ref().generation().value())), payload(c.reply()));
      case CreateOutcome.Existing<dev.spotkit.core.ActorRef> e -> Reply.ok(correlation,
          new ReplyTail.ActorCreated(CreateResult.EXISTING, new WireActorRef(id, e.ref().generation().value())));
      case CreateOutcome.Rejected<dev.spotkit.core.ActorRef> r -> new Reply(correlation, TerminalResult.OK,
          FailureCode.NONE, new ReplyTail.ActorCreated(CreateResult.REJECTED, null), payload(r.reply()));
    };
  }

  private Reply spotReply(final long correlation, final String id, final long generation,
      final CreateOutcome<dev.spotkit.core.SpotRef> outcome) {
    return switch (outcome) {
      case CreateOutcome.Created<dev.spotkit.core.SpotRef> c -> new Reply(correlation, TerminalResult.OK,
          FailureCode.NONE, new ReplyTail.UserSpotCreated(CreateResult.CREATED, new WireSpotRef(id,
          c.ref().generation().value())), payload(c.reply()));
      case CreateOutcome.Existing<dev.spotkit.core.SpotRef> e -> Reply.ok(correlation,
          new ReplyTail.UserSpotCreated(CreateResult.EXISTING, new WireSpotRef(id, e.ref().generation().value())));
      case CreateOutcome.Rejected<dev.spotkit.core.SpotRef> r -> new Reply(correlation, TerminalResult.OK,
          FailureCode.NONE, new ReplyTail.UserSpotCreated(CreateResult.REJECTED, new WireSpotRef(id, generation)),
          payload(r.reply()));
    };
  }

  private Reply replayReply(final boolean actor, final String id, final long correlation,
      final CreationTerminalRecord terminal) {
    final ApplicationPayload reply = terminal.reply() == null ? null : Payloads.fromBytes(terminal.reply());
    final CreateResult result = terminal.result() == CreationTerminalRecord.Result.CREATED ? CreateResult.CREATED
        : CreateResult.REJECTED;
    if (terminal.result() == CreationTerminalRecord.Result.FAILED) {
      return ReplyErrors.toReply(correlation, ReplyErrors.of(terminal.errorKind(), String.valueOf(
          terminal.errorMessage())));
    }
    final ReplyTail tail = actor ? new ReplyTail.ActorCreated(result, result == CreateResult.REJECTED ? null
        : new WireActorRef(id, terminal.objectGeneration()))
        : new ReplyTail.UserSpotCreated(result, new WireSpotRef(id, Math.max(1, terminal.objectGeneration())));
    return new Reply(correlation, TerminalResult.OK, FailureCode.NONE, tail, reply);
  }

  private ApplicationPayload payload(final Optional<Object> reply) {
    return reply.map(r -> rt.copier().encode("creation reply", r, CreationTerminalRecord.MAX_BYTES / 2))
        .orElse(null);
  }
}
