package dev.spotkit.core.internal.relocation;

import dev.spotkit.core.Deadline;
import dev.spotkit.core.NodeRid;
import dev.spotkit.core.ObjectGeneration;
import dev.spotkit.core.SpotId;
import dev.spotkit.core.SpotRef;
import dev.spotkit.core.SpotRelocationResult;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.core.internal.mesh.RouteMesh;
import dev.spotkit.core.internal.runtime.Cell;
import dev.spotkit.core.internal.runtime.NodeRuntime;
import dev.spotkit.core.internal.runtime.ReplyErrors;
import dev.spotkit.core.location.AggregateAuthority;
import dev.spotkit.core.location.InventoryTree;
import dev.spotkit.core.mesh.PeerConnection;
import dev.spotkit.core.wire.FailureCode;
import dev.spotkit.core.wire.OperationKind;
import dev.spotkit.core.wire.Reply;
import dev.spotkit.core.wire.ReplyCodec;
import dev.spotkit.core.wire.TerminalResult;
import dev.spotkit.relocation.wire.ChunkPlan;
import dev.spotkit.relocation.wire.EnvelopeEntries;
import dev.spotkit.relocation.wire.FrameHead;
import dev.spotkit.relocation.wire.FrozenRecord;
import dev.spotkit.relocation.wire.ParticipantInventory;
import dev.spotkit.relocation.wire.RelocationEnvelope;
import dev.spotkit.relocation.wire.RelocationEnvelopeCodec;
import dev.spotkit.relocation.wire.WireIn;
import dev.spotkit.relocation.wire.WireOut;
import dev.spotkit.store.StoreVersion;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The operator's move of one SpotWide User Spot with all its members ({@code MeshNode.relocateSpot}; spec 000
 * section 7), source driver and target handlers, over the node's ordered mesh connection. Not API.
 *
 * <p>Order, source then target:
 * <ol>
 *   <li>source: {@link AggregateSeal} (checks, seal at the room's turn boundary, capture, inventory);</li>
 *   <li>source: command {@value #PREPARE} (manifest and seal fence), then the payload as commands {@value #CHUNK}
 *       split by the CRC-32C chunk plan; target: assembly, verification, {@link AggregateRestore#prepare} with
 *       admission closed, then a command 20 reply: relay-ready, or the typed failure (the source restores the whole
 *       room and keeps serving, and sends {@value #ABORT});</li>
 *   <li>source: the ingress hold, frozen in arrival order per participant, and the cutover, as command
 *       {@value #RELAY}; target: the hold appended behind each participant's saved work, the one CAS
 *       ({@link AggregateRestore#commit}), registration and open, then the command 20 answer;</li>
 *   <li>source, on Committed: {@link AggregateSeal#handOver}: its cells turn GONE and follow every later message to
 *       the target on the same connection (Message Follow).</li>
 * </ol>
 * An Instance Spot moves on the same path as a room with no member (spec 001 section 3: one Actor-less unit; the
 * manifest's unit kind says which, and {@link InstanceMoves} holds its Location Store steps).
 * Spotkit-defined commands 54-57 (spec 001 names no aggregate frames). A failure past relay-ready does not restore
 * the source (spec 000 section 8): the room is unavailable and the call fails with Unavailable. When the commit's
 * answer was lost and the Location Store could not yet tell, {@link AggregateReconcile} keeps reading it, and a commit
 * that lands later hands the room over after all (spec 001 section 9).
 */
public final class AggregateMoves {
  /**
   * Manifest: correlation, SpotId, AggregateId, fence, total length, chunk count, CRC-32C, unit kind (u8: 0 a
   * SpotWide room, 1 an Instance Spot).
   */
  public static final int PREPARE = 54;
  /** One payload chunk: AggregateId, ordinal, bytes. */
  public static final int CHUNK = 55;
  /** The relayed hold and the cutover: correlation, AggregateId, an envelope of saved work only. */
  public static final int RELAY = 56;
  /** Explicit abort before relay-ready: AggregateId. */
  public static final int ABORT = 57;
  /** Largest room payload a target assembles: 256 MiB (about 256,000 members with 1 KiB of state each). */
  static final long MAX_PAYLOAD_BYTES = 256L << 20;
  /** How long the source waits for relay-ready, and for the commit's answer. */
  static final Duration STEP_TIMEOUT = Duration.ofSeconds(30);
  private final Relocations r;
  private final NodeRuntime rt;
  private final Map<String, Incoming> incoming = new ConcurrentHashMap<>();
  /**
   * Instance Spots that moved away from this node, by SpotId: the node they moved to and its endpoint, for the
   * Message Follow duration (Instance intent follows with Instance intent, {@link #followInstance}).
   */
  private final Map<String, Follow> instanceFollows = new ConcurrentHashMap<>();

  /** Where an Instance Spot moved: its target node, mesh endpoint and the move's ordered connection. */
  private record Follow(NodeRid target, java.net.InetSocketAddress endpoint, PeerConnection connection) {
  }

  AggregateMoves(final Relocations r) {
    this.r = r;
    this.rt = r.runtime();
  }

  /** One aggregate arriving here: its manifest, assembly buffer, and then its staged room. */
  private static final class Incoming {
    final long correlation;
    final PeerConnection from;
    final AggregateAuthority.Sealed sealed;
    final String aggregateId;
    /** The assembly buffer; null once the room is staged (the staging owns what it needs). */
    volatile byte[] buffer;
    final long chunkCount;
    final long crc32c;
    /** The manifest's unit kind ({@link InstanceMoves#UNIT_ROOM} and on). */
    final int unitKind;
    long received;
    AggregateRestore staged;
    /** The cleanup of a source that went silent; cancelled when the move ends, so nothing holds this meanwhile. */
    java.util.concurrent.ScheduledFuture<?> expiry;

    /** Leaves the map's life: the cleanup no longer holds the buffer and the staging until its deadline. */
    void ended() {
      final java.util.concurrent.ScheduledFuture<?> e = expiry;
      if (e != null) {
        e.cancel(false);
      }
    }

    Incoming(final long correlation, final PeerConnection from, final AggregateAuthority.Sealed sealed,
        final String aggregateId, final long totalLength, final long chunkCount, final long crc32c,
        final int unitKind) {
      this.correlation = correlation;
      this.from = from;
      this.sealed = sealed;
      this.aggregateId = aggregateId;
      this.buffer = new byte[Math.toIntExact(totalLength)];
      this.chunkCount = chunkCount;
      this.crc32c = crc32c;
      this.unitKind = unitKind;
    }
  }

  // ================================================================ source

  /**
   * Moves one SpotWide User Spot with every current member to {@code target} (see {@code MeshNode.relocateSpot}).
   * Returns at once.
   *
   * @param spotId the Spot.
   * @param target the target node.
   * @return the result, or the typed failure.
   */
  public CompletableFuture<SpotRelocationResult> relocate(final String spotId, final NodeRid target) {
    return rt.async(() -> move(spotId, target));
  }

  /** Whether a room or Instance Spot move to this node is between its manifest and its commit (no cell yet). */
  boolean receiving() {
    return !incoming.isEmpty();
  }

  /**
   * Instance-intent work for an Instance Spot that moved away from this node within the Message Follow duration:
   * sent with Instance intent to the node it moved to, on the ordered connection the move used (spec 001 section
   * 10; spec 003 section 6: there it reaches the live instance, or activates a new one once that closed). Any
   * thread; never blocks (callers may hold a cell's monitor or run on an event loop). Without {@code dial} it sends
   * only on the move's ordered connection while that is open; with {@code dial} it sends, on a virtual thread, by
   * the node's connection to the target, dialled again when needed (a failure fails the request, or drops a one-way
   * message as a dead letter).
   *
   * @param address the Instance Spot with Instance intent.
   * @param envelope the work.
   * @param dial whether to dial the target when the move's connection closed.
   * @return true when sent; false when no such move is known here (or, without {@code dial}, its connection closed).
   */
  public boolean followInstance(final dev.spotkit.core.internal.runtime.Address.Instance address,
      final dev.spotkit.core.internal.runtime.Envelope.Msg envelope, final boolean dial) {
    final Follow follow = instanceFollows.get(address.id());
    if (follow == null) {
      return false;
    }
    if (dial) {
      rt.metrics().followForward();
      rt.async(() -> {
        try {
          rt.mesh().forwardInstance(follow.target(), follow.endpoint(), address, envelope);
        } catch (SpotkitException.Unavailable unreachable) {
          if (!followEnded(address.id(), follow)) {
            throw unreachable; // the target may be alive: Unavailable for the follow window (spec 001 section 9)
          }
          rt.creations().instances().deliver(address, envelope, false); // by the Location Store, as any sender
        }
        return null;
      }).whenComplete((v, failure) -> {
        if (failure == null) {
          return;
        }
        final SpotkitException typed = Cell.typed(RouteMesh.unwrap(failure), "follow of instance spot '"
            + address.id() + "'");
        if (envelope.reply() != null) {
          envelope.reply().fail(typed);
        } else {
          rt.deadLetters().record("instance-follow", "one-way message for instance spot '" + address.id()
              + "' dropped: " + typed.getMessage());
        }
      });
      return true;
    }
    if (!follow.connection().isOpen()) {
      return false;
    }
    try { // the connection the hold's relay and the by-id follows took: in order behind them
      // one hop, as every Message Follow (spec 002 section 7.3): the target tells it from a direct send of this node
      rt.mesh().sendOn(follow.connection(), dev.spotkit.core.location.ObjectKey.spot(address.id()),
          dev.spotkit.core.wire.ApplicationMessage.TargetKind.INSTANCE_SPOT, address.id(), 0,
          address.stableType(), 1, envelope);
      rt.metrics().followForward();
      return true;
    } catch (SpotkitException.Unavailable closed) {
      return false; // closed meanwhile
    }
  }

  /**
   * Ends the follow of an Instance Spot whose target could not be reached once that target is gone for good: the
   * Location Store no longer names it (crash recovery swept its row now, {@code MeshNode.Builder
   * #recreateAfterOwnerLoss}, once its owner lease lapsed; or the Spot went on from there). Until then the object
   * is unavailable, as spec 000 section 8 and spec 001 section 9 say of a target that terminated after its commit;
   * after it, senders here and elsewhere resolve the Spot by the Location Store again instead of following to a
   * dead node for the rest of the Message Follow duration. Virtual threads only (store calls).
   *
   * @param spotId the Instance Spot.
   * @param follow its follow, whose target did not answer.
   * @return true when the follow ended (the caller delivers by the Location Store); false while the target may live.
   * @throws SpotkitException.Unavailable when the store does not answer.
   */
  private boolean followEnded(final String spotId, final Follow follow) {
    if (rt.creations() == null || !rt.creations().instances().sweptDeadOwner(spotId, follow.target())) {
      return false;
    }
    instanceFollows.remove(spotId, follow);
    final Relocations.Followed byId = r.aggregateFollows.get("spot:" + spotId);
    if (byId != null && byId.target().equals(follow.target())) {
      r.aggregateFollows.remove("spot:" + spotId, byId);
    }
    NodeRuntime.LOG.info("instance spot '{}': the node {} it moved to is gone; its Message Follow ended early,"
        + " senders resolve it by the Location Store", spotId, follow.target());
    return true;
  }

  /** Waits for {@code step} at most {@link #STEP_TIMEOUT}; its failure is thrown as it is (typed). */
  private static <T> T await(final CompletableFuture<T> step, final String what) {
    try {
      return step.get(STEP_TIMEOUT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      throw Cell.typed(RouteMesh.unwrap(e.getCause()), what);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new SpotkitException.Unavailable(what + " did not finish in " + STEP_TIMEOUT.toSeconds() + " s", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SpotkitException.Unavailable(what + " was interrupted", e);
    }
  }

  private SpotRelocationResult move(final String spotId, final NodeRid target) {
    if (rt.spots.get(spotId) == null && PerActorMoves.stranded(rt).containsKey(spotId)) {
      return PerActorMoves.moveStranded(rt, spotId, target); // members its earlier move left here follow it
    }
    final AggregateSeal seal = await(AggregateSeal.seal(rt, spotId, target), "seal of spot '" + spotId + "'");
    final long sealedAt = System.nanoTime();
    final PeerConnection connection;
    final java.net.InetSocketAddress endpoint;
    try {
      endpoint = rt.mesh().endpointOf(rt.meshName().value(), target, "aggregate move target");
      connection = rt.mesh().connection(target, endpoint, Deadline.after(Duration.ofSeconds(5)));
      await(ship(seal, connection), "restore of spot '" + spotId + "' on node " + target);
    } catch (SpotkitException e) {
      rt.mesh().open(target).ifPresent(c -> c.send(abortFrame(seal.aggregateId())));
      await(seal.restore(), "restore of spot '" + spotId + "' here");
      throw e; // the room stays here and serves (spec 000 section 8)
    }
    // relay-ready: from here on the source is not restored (spec 000 section 8)
    final Map<String, List<FrozenRecord>> hold = await(seal.takeHold(), "relay of spot '" + spotId + "'");
    final byte[] relay = relayStream(seal, hold);
    try {
      await(rt.mesh().call(connection, c -> relayFrame(c, seal.aggregateId(), relay), OperationKind.NODE_REQUEST,
          Deadline.after(STEP_TIMEOUT), "commit of the move of spot '" + spotId + "'"), "commit of the move of"
          + " spot '" + spotId + "'");
    } catch (SpotkitException cause) {
      final long failedAt = System.nanoTime();
      final AggregateReconcile.Commit first = AggregateReconcile.read(rt, seal, target);
      if (first != AggregateReconcile.Commit.COMMITTED) {
        // spec 001 section 9, unknown cutover: refuse at once (REL-30), then keep reading while the target may commit
        await(seal.abandon("its move to node " + target + " passed relay-ready and did not commit"), "abandon of"
            + " spot '" + spotId + "'");
        final boolean reconciling = first == AggregateReconcile.Commit.PENDING
            || first == AggregateReconcile.Commit.UNREADABLE;
        if (reconciling) {
          AggregateReconcile.reconcile(rt, seal, target, failedAt, outcome -> reconciled(outcome, seal, spotId,
              target, endpoint, connection, sealedAt));
        }
        throw new SpotkitException.Unavailable("move of spot '" + spotId + "' to node " + target + " passed"
            + " relay-ready but did not commit (" + cause.getMessage() + "; the Location Store read " + first
            + "); the room is unavailable (spec 000 section 8: no source restore after relay-ready)" + (reconciling
            ? "; should the target's commit still land, this node follows the room to it (spec 001 section 9)" : ""),
            cause);
      }
    }
    return committed(seal, spotId, target, endpoint, connection, sealedAt);
  }

  /**
   * The background outcome of a move whose commit call failed ({@link AggregateReconcile#reconcile}): a late
   * commit turns the refusing room here into a followed one, as if the commit's answer had come; anything else
   * leaves it refusing (its rows go with this node's close). On a virtual thread.
   */
  private void reconciled(final AggregateReconcile.Commit outcome, final AggregateSeal seal, final String spotId,
      final NodeRid target, final java.net.InetSocketAddress endpoint, final PeerConnection connection,
      final long sealedAt) {
    if (outcome != AggregateReconcile.Commit.COMMITTED) {
      NodeRuntime.LOG.error("move of spot '{}' to node {} did not commit (the Location Store read {}); the room is"
          + " unavailable", spotId, target, outcome);
      return;
    }
    rt.async(() -> {
      PeerConnection to = connection;
      if (!to.isOpen()) { // a fresh ordered connection for the follow, else the follow re-routes by the store
        try {
          to = rt.mesh().connection(target, endpoint, Deadline.after(Duration.ofSeconds(5)));
        } catch (SpotkitException dialFailed) {
          NodeRuntime.LOG.debug("move of spot '{}': no new connection to node {}: {}", spotId, target,
              dialFailed.toString());
        }
      }
      return committed(seal, spotId, target, endpoint, to, sealedAt);
    }).whenComplete((result, failure) -> {
      if (failure != null) {
        NodeRuntime.LOG.error("move of spot '{}' to node {} committed late; its hand-over failed", spotId, target,
            failure);
      } else {
        NodeRuntime.LOG.warn("move of spot '{}' to node {} committed after its commit call failed; the room here"
            + " follows it there (spec 001 section 9)", spotId, target);
      }
    });
  }

  /** After the target's commit: Instance intent follows, the hand-over, then a PerActor shell's members. */
  private SpotRelocationResult committed(final AggregateSeal seal, final String spotId, final NodeRid target,
      final java.net.InetSocketAddress endpoint, final PeerConnection connection, final long sealedAt) {
    if (seal.unitKind() == InstanceMoves.UNIT_INSTANCE) { // Instance intent follows it with Instance intent
      final Follow follow = new Follow(target, endpoint, connection);
      instanceFollows.put(spotId, follow);
      rt.relocationScheduler().schedule(() -> instanceFollows.remove(spotId, follow),
          dev.spotkit.relocation.follow.MessageFollowTable.DEFAULT_DURATION_MS,
          java.util.concurrent.TimeUnit.MILLISECONDS);
    }
    await(seal.handOver(connection), "hand-over of spot '" + spotId + "'");
    final long pausedNanos = System.nanoTime() - sealedAt;
    final SpotRef moved = new SpotRef(new SpotId(spotId), new ObjectGeneration(seal.spot().generation),
        rt.meshName(), target);
    if (seal.unitKind() == InstanceMoves.UNIT_PER_ACTOR) { // then each member as its own unit (spec 000 section 7)
      return PerActorMoves.moveMembers(rt, seal.spot(), moved, connection, Duration.ofNanos(pausedNanos));
    }
    final List<dev.spotkit.core.ActorRef> members = new ArrayList<>();
    for (Cell c : seal.participants()) {
      if (c instanceof dev.spotkit.core.internal.runtime.ActorCell a) {
        members.add(new dev.spotkit.core.ActorRef(a.actorId, new ObjectGeneration(a.generation), rt.meshName(),
            target));
      }
    }
    return new SpotRelocationResult(moved, members.size(), Duration.ofNanos(pausedNanos), members, Map.of());
  }

  /** Command 54 as a request (its reply is relay-ready), then the chunks on the same ordered connection. */
  private CompletableFuture<Reply> ship(final AggregateSeal seal, final PeerConnection connection) {
    final ChunkPlan plan = seal.chunks(ChunkPlan.UNNEGOTIATED_CHUNK_BYTES);
    final AggregateAuthority.Sealed s = seal.stored();
    final CompletableFuture<Reply> ready = rt.mesh().call(connection, correlation -> {
      final WireOut out = new WireOut(512);
      new FrameHead(PREPARE, 0).writeTo(out);
      out.u64(correlation);
      out.text8(s.tree().spotId());
      out.text8(seal.aggregateId());
      out.storeVersion(s.aggregateVersion().value());
      out.storeVersion(s.spotVersion().value());
      out.text8(s.tree().rootSha256Hex());
      out.u32(s.tree().count());
      out.text8(s.tree().digestSha256Hex());
      out.u64(plan.totalLength());
      out.u64(plan.chunkCount());
      out.u64(plan.checksumCrc32c());
      out.u8(seal.unitKind());
      return out.toByteArray();
    }, OperationKind.NODE_REQUEST, Deadline.after(STEP_TIMEOUT), "relay-ready of the move of spot '"
        + s.tree().spotId() + "'");
    for (long i = 0; i < plan.chunkCount(); i++) {
      final byte[] chunk = plan.chunk(i);
      final WireOut out = new WireOut(chunk.length + 64);
      new FrameHead(CHUNK, 0).writeTo(out);
      out.text8(seal.aggregateId());
      out.u64(i);
      out.u32(chunk.length);
      out.bytes(chunk);
      if (!connection.send(out.toByteArray())) {
        return CompletableFuture.failedFuture(new SpotkitException.Unavailable("the connection to node "
            + connection.peerRid() + " closed while the room's payload was sent"));
      }
    }
    return ready;
  }

  private static byte[] abortFrame(final String aggregateId) {
    final WireOut out = new WireOut(64);
    new FrameHead(ABORT, 0).writeTo(out);
    out.text8(aggregateId);
    return out.toByteArray();
  }

  /** The relay's envelope: the hold as saved work per participant, in arrival order. */
  private static byte[] relayStream(final AggregateSeal seal, final Map<String, List<FrozenRecord>> hold) {
    final ParticipantInventory inventory = ParticipantInventory.of(hold.keySet());
    final List<EnvelopeEntries.SavedWork> work = new ArrayList<>();
    for (Map.Entry<String, List<FrozenRecord>> e : hold.entrySet()) {
      long order = 0;
      for (FrozenRecord record : e.getValue()) {
        work.add(new EnvelopeEntries.SavedWork(inventory.participantId(e.getKey()), order++, record));
      }
    }
    work.sort(java.util.Comparator.comparingLong(EnvelopeEntries.SavedWork::participantId)
        .thenComparingLong(EnvelopeEntries.SavedWork::order));
    final RelocationEnvelope envelope = seal.envelope();
    return RelocationEnvelopeCodec.encode(new RelocationEnvelope(envelope.relocation(), envelope.object(), 1,
        List.of(), work, List.of(), List.of()));
  }

  /** Command 56: correlation, AggregateId, the relay's envelope. */
  private static byte[] relayFrame(final long correlation, final String aggregateId, final byte[] stream) {
    final WireOut out = new WireOut(stream.length + 96);
    new FrameHead(RELAY, 0).writeTo(out);
    out.u64(correlation);
    out.text8(aggregateId);
    out.u32(stream.length);
    out.bytes(stream);
    return out.toByteArray();
  }

  // ================================================================ target

  /**
   * A frame of commands 54-57 from a peer. Event loop: never blocks; restore and CAS run on virtual threads.
   *
   * @param from the connection.
   * @param command 54..57.
   * @param frame the frame.
   */
  public void onFrame(final PeerConnection from, final int command, final byte[] frame) {
    switch (command) {
      case PREPARE -> onPrepare(from, frame);
      case CHUNK -> onChunk(frame);
      case RELAY -> onRelay(from, frame);
      case ABORT -> {
        final WireIn in = WireIn.frame(frame, "aggregateAbort");
        FrameHead.expect(in, ABORT);
        final Incoming gone = incoming.remove(in.text8("aggregateId"));
        if (gone != null) {
          gone.ended();
        }
        if (gone != null && gone.staged != null) {
          gone.staged.discard();
        }
      }
      default -> throw new IllegalArgumentException("command " + command + " is not an aggregate command");
    }
  }

  private void onPrepare(final PeerConnection from, final byte[] frame) {
    final WireIn in = WireIn.frame(frame, "aggregatePrepare");
    FrameHead.expect(in, PREPARE);
    final long correlation = in.nonZeroU64("correlation");
    final String spotId = in.text8("spotId");
    final String aggregateId = in.text8("aggregateId");
    final StoreVersion aggregateVersion = new StoreVersion(in.storeVersion("aggregateVersion"));
    final StoreVersion spotVersion = new StoreVersion(in.storeVersion("spotVersion"));
    final String root = in.text8("inventoryRoot");
    final int count = Math.toIntExact(in.nonZeroU32("participantCount"));
    final String digest = in.text8("inventoryDigest");
    final long total = in.u64("totalLength");
    final long chunks = in.u64("chunkCount");
    final long crc = in.u64("crc32c");
    final int unitKind = in.u8("unitKind");
    in.expectEnd();
    if (unitKind > InstanceMoves.UNIT_PER_ACTOR) {
      reply(from, correlation, new SpotkitException.InvalidOperation("unit kind " + unitKind + " of the move of spot '"
          + spotId + "' is not known on node " + rt.nodeRid()));
      return;
    }
    if (rt.isClosing()) {
      reply(from, correlation, rt.shuttingDown("restore of spot '" + spotId + "'"));
      return;
    }
    if (total > MAX_PAYLOAD_BYTES || chunks != (total + ChunkPlan.UNNEGOTIATED_CHUNK_BYTES - 1)
        / ChunkPlan.UNNEGOTIATED_CHUNK_BYTES) {
      reply(from, correlation, new SpotkitException.CapacityExceeded("room payload of " + total + " bytes in "
          + chunks + " chunks: over this node's limit of " + MAX_PAYLOAD_BYTES + " bytes, or not "
          + ChunkPlan.UNNEGOTIATED_CHUNK_BYTES + "-byte chunks"));
      return;
    }
    final InventoryTree tree = new InventoryTree(spotId, List.of(), root, count, digest);
    final Incoming in2 = new Incoming(correlation, from, new AggregateAuthority.Sealed(aggregateVersion, spotVersion,
        null, tree), aggregateId, total, chunks, crc, unitKind);
    incoming.put(aggregateId, in2);
    // a source that never sends its chunks or its relay (it stopped) leaves nothing behind here
    in2.expiry = rt.relocationScheduler().schedule(() -> {
      if (incoming.remove(aggregateId, in2) && in2.staged != null) {
        in2.staged.discard();
      }
    }, 2 * STEP_TIMEOUT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    if (chunks == 0) {
      assembled(in2);
    }
  }

  private void onChunk(final byte[] frame) {
    final WireIn in = WireIn.frame(frame, "aggregateChunk");
    FrameHead.expect(in, CHUNK);
    final String aggregateId = in.text8("aggregateId");
    final long ordinal = in.u64("ordinal");
    final long length = in.u32("length");
    final byte[] bytes = in.bytes("chunk", length);
    in.expectEnd();
    final Incoming target = incoming.get(aggregateId);
    final byte[] buffer = target == null ? null : target.buffer;
    if (buffer == null) {
      return; // aborted meanwhile, or assembled already
    }
    final long at = ordinal * ChunkPlan.UNNEGOTIATED_CHUNK_BYTES;
    if (ordinal >= target.chunkCount || at + bytes.length > buffer.length) {
      // a chunk outside the manifest: the Restore fails, the source keeps all
      if (incoming.remove(aggregateId, target)) {
        target.ended();
      }
      reply(target.from, target.correlation, new SpotkitException.DataLost("chunk " + ordinal + " of " + bytes.length
          + " bytes lies outside the manifest of aggregate " + aggregateId + " (" + target.chunkCount + " chunks, "
          + buffer.length + " bytes)"));
      return;
    }
    System.arraycopy(bytes, 0, buffer, (int) at, bytes.length);
    if (++target.received == target.chunkCount) {
      assembled(target);
    }
  }

  /** Every chunk is in: verify and restore on a virtual thread, then relay-ready or the typed failure. */
  private void assembled(final Incoming target) {
    final byte[] payload = target.buffer;
    rt.async(() -> {
      target.buffer = null; // the staging keeps what it needs; the assembly buffer goes
      final AggregateRestore staged = AggregateRestore.prepare(rt, payload, payload.length,
          target.crc32c, target.sealed, target.aggregateId, target.unitKind);
      staged.source(target.from.peerRid());
      target.staged = staged;
      return staged;
    }).whenComplete((staged, failure) -> {
      if (failure != null) {
        if (incoming.remove(target.aggregateId, target)) {
          target.ended();
        }
        reply(target.from, target.correlation, Cell.typed(RouteMesh.unwrap(failure), "restore of spot '"
            + target.sealed.tree().spotId() + "' on node " + rt.nodeRid()));
      } else if (incoming.get(target.aggregateId) != target) {
        // aborted (command 57) or expired while it was being staged: the abort found no staging to drop, so it
        // is dropped here, and no relay-ready is sent (the source restored, or is gone)
        staged.discard();
      } else {
        target.from.send(ReplyCodec.encode(Reply.of(target.correlation, TerminalResult.OK, FailureCode.NONE)));
      }
    });
  }

  private void onRelay(final PeerConnection from, final byte[] frame) {
    final WireIn in = WireIn.frame(frame, "aggregateRelay");
    FrameHead.expect(in, RELAY);
    final long correlation = in.nonZeroU64("correlation");
    final String aggregateId = in.text8("aggregateId");
    final long length = in.u32("length");
    final byte[] stream = in.bytes("envelope", length);
    in.expectEnd();
    final Incoming target = incoming.remove(aggregateId);
    if (target != null) {
      target.ended();
    }
    if (target == null || target.staged == null) {
      reply(from, correlation, new SpotkitException.Unavailable("no staged room for aggregate " + aggregateId
          + " on node " + rt.nodeRid()));
      return;
    }
    rt.async(() -> {
      final RelocationEnvelope relay = RelocationEnvelopeCodec.decodeOwned(stream, target.sealed.tree().count(),
          Integer.MAX_VALUE);
      final List<String> keys = target.staged.participantKeys();
      final ParticipantInventory inventory = ParticipantInventory.of(keys);
      for (EnvelopeEntries.SavedWork w : relay.savedWork()) {
        target.staged.relay(inventory.authorityKey(w.participantId()), List.of(w.record()));
      }
      return target.staged.commit();
    }).whenComplete((outcome, failure) -> {
      if (failure != null) {
        reply(from, correlation, Cell.typed(RouteMesh.unwrap(failure), "commit of spot '"
            + target.sealed.tree().spotId() + "' on node " + rt.nodeRid()));
      } else if (outcome instanceof AggregateAuthority.Outcome.Committed) {
        from.send(ReplyCodec.encode(Reply.of(correlation, TerminalResult.OK, FailureCode.NONE)));
      } else {
        reply(from, correlation, new SpotkitException.Unavailable("the aggregate CAS of spot '"
            + target.sealed.tree().spotId() + "' did not apply: " + outcome));
      }
    });
  }

  private static void reply(final PeerConnection to, final long correlation, final SpotkitException error) {
    to.send(ReplyCodec.encode(ReplyErrors.toReply(correlation, error)));
  }
}
