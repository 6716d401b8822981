package dev.spotkit.core.internal.relocation;

import dev.spotkit.core.Actor;
import dev.spotkit.core.ActorRelocationAdapter;
import dev.spotkit.core.NodeRid;
import dev.spotkit.core.Spot;
import dev.spotkit.core.SpotRelocationAdapter;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.core.internal.mesh.RouteMesh;
import dev.spotkit.core.internal.mesh.RouteSwitches;
import dev.spotkit.core.internal.runtime.ActorCell;
import dev.spotkit.core.internal.runtime.Cell;
import dev.spotkit.core.internal.runtime.CellState;
import dev.spotkit.core.internal.runtime.CellTimers;
import dev.spotkit.core.internal.runtime.Envelope;
import dev.spotkit.core.internal.runtime.NodeConfig;
import dev.spotkit.core.internal.runtime.NodeRuntime;
import dev.spotkit.core.internal.runtime.SpotCell;
import dev.spotkit.core.internal.runtime.Turn;
import dev.spotkit.core.location.AggregateAuthority;
import dev.spotkit.core.location.InventoryEntry;
import dev.spotkit.core.location.LocationRecords;
import dev.spotkit.core.location.MeshNodeDescriptorRecord;
import dev.spotkit.core.location.NodeDirectory;
import dev.spotkit.core.location.ObjectKey;
import dev.spotkit.core.location.PlacementBatches;
import dev.spotkit.core.location.PlacementKind;
import dev.spotkit.relocation.wire.ChunkPlan;
import dev.spotkit.relocation.wire.EnvelopeEntries;
import dev.spotkit.relocation.wire.ObjectIdentity;
import dev.spotkit.relocation.wire.ParticipantInventory;
import dev.spotkit.relocation.wire.RelocationEnvelope;
import dev.spotkit.relocation.wire.RelocationEnvelopeCodec;
import dev.spotkit.relocation.wire.RelocationId;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The source half of a SpotWide User Spot aggregate move up to its payload (spec 000 section 7 steps 1-4; spec 002
 * section 8.2): the checks with their typed errors, the reversible seal at a Spot turn boundary, the capture of every
 * participant by its policy, the inventory in the Location Store, and the one relocation-envelope-v1 stream that
 * carries the whole room. Not API.
 *
 * <p>Seal: a control task on the Spot's gate runs between two turns of the room (a SpotWide Spot and its members
 * share that gate, so no participant is in a handler then). It refuses joins and leaves ({@link
 * SpotCell#aggregateSealed},
 * join admission answers {@link SpotkitException.Unavailable}) and closes the mailbox of the Spot and of every member:
 * messages and timer ticks arriving from then on are accepted and kept in arrival order (the ingress hold, taken
 * with {@link #takeHold}), and no handler runs.
 *
 * <p>Capture: each participant's not-yet-run queue and timer registrations are taken out under its ingress lock;
 * then, outside every lock, the Spot's {@link SpotRelocationAdapter} and each member's {@link ActorRelocationAdapter}
 * are called separately, for PreserveStateWith participants only (RecreateOnRelocation carries no state). Then the
 * inventory is stored and member rows pointed at the aggregate ({@link AggregateAuthority#seal}); this changes no
 * owner.
 *
 * <p>Envelope: object {@code UserSpot(SpotId, ObjectGeneration, AuthorityOwnerGeneration)}; participants are the
 * authority keys {@code spot:{SpotId}} and {@code actor:{ActorId}} ordered by {@link ParticipantInventory}
 * (participantId = index + 1); an application state per participant (the Spot's: the adapter's bytes as-is, absent
 * for RecreateOnRelocation; a member's: see {@code memberState}); saved work and pending ticks per participant in queue
 * order; timer registrations per
 * participant by name. {@link #chunks} splits it with the existing CRC-32C chunk plan (spec 001 section 4.2).
 *
 * <p>Reversal: before the target's relay-ready is accepted, {@link #restore} puts everything back in order: each
 * captured queue ahead of what the hold kept ({@code openWithBacklog}), timers registered again, joins admitted
 * again. A seal that fails part-way restores itself and fails with the typed cause, so the room keeps serving.
 *
 * <p>After the target's relay-ready, {@link #takeHold} hands the hold over for the relay; after its commit,
 * {@link #handOver} turns every cell here GONE and makes it follow later messages to the target for the Message
 * Follow duration (30 s). The wire between the two halves is {@link AggregateMoves}. Session-bound members: their
 * bindings are sealed at their Session owners (command 42/43) after the mailboxes close and before the drain; each
 * member's state entry carries its command 42 and binding so the target can send the command 44 commit; a
 * restore sends the 44 abort.
 *
 * <p>An Instance Spot (spec 003 section 6) is sealed the same way as a room with no member: its one participant
 * {@code spot:{SpotId}}, object {@code InstanceSpot}; {@link InstanceMoves} replaces the Location Store steps (no
 * aggregate record or inventory is written) and runs {@code OnClosing(RELOCATION_OUT)} after the hand-over.
 *
 * <p>Thread-safety: {@link #seal} and {@link #check} from any thread; the rest of the instance on the Spot's gate or
 * after the future completed.
 */
public final class AggregateSeal {
  /** The longest wait of one Location Store call of the seal. */
  static final Duration STORE_TIMEOUT = Duration.ofSeconds(2);
  /** How long the intent keeps being rescheduled while a member is in a join, leave or move of its own. */
  static final Duration PERMIT_WAIT = Duration.ofSeconds(10);
  /** The delay between two intents. */
  static final long PERMIT_RETRY_MS = 20;
  /**
   * How long a move of an ApplicationSignaled Spot waits for the application's next boundary
   * ({@code relocationReady().defer()}, spec 003 section 5.1): 20 s, inside the move's 30 s seal step.
   */
  public static final Duration BOUNDARY_WAIT = Duration.ofSeconds(20);
  private final NodeRuntime rt;
  private final SpotCell spot;
  private final List<Cell> participants;
  private final ParticipantInventory inventory;
  /** Every participant's key ({@link Relocations#participantKey}), as given to {@link RouteSwitches#seal}. */
  private final List<String> keys;
  private final Map<Cell, List<Envelope>> captured = new IdentityHashMap<>();
  private final Map<Cell, List<CellTimers.Entry>> capturedTimers = new IdentityHashMap<>();
  /**
   * The hold each participant handed over at {@link #takeHold} (requests keep their reply sinks here): refused by
   * {@link #abandon} when the target does not commit. On the Spot's gate.
   */
  private final Map<Cell, List<Envelope.Msg>> taken = new IdentityHashMap<>();
  private final Map<Cell, byte[]> states = new IdentityHashMap<>();
  /** The command 42 installed for each session-bound member (on the Spot's gate). */
  private final Map<ActorCell, dev.spotkit.relocation.wire.SessionRelocationFrame.Seal> sessionSeals =
      new IdentityHashMap<>();
  private final RelocationId relocationId;
  private final String aggregateId;
  private AggregateAuthority.Sealed stored;
  private RelocationEnvelope envelope;
  private boolean sealed;
  /** Sealed at an application-signaled boundary: a restore here ends it with CONTINUED (spec 003 section 5.1). */
  private boolean atApplicationBoundary;

  private AggregateSeal(final NodeRuntime rt, final SpotCell spot, final List<ActorCell> members) {
    this.rt = rt;
    this.spot = spot;
    final List<Cell> all = new ArrayList<>();
    all.add(spot);
    all.addAll(members);
    this.keys = all.stream().map(Relocations::participantKey).toList();
    this.inventory = ParticipantInventory.of(keys);
    all.sort(Comparator.comparingLong(c -> inventory.participantId(Relocations.participantKey(c))));
    this.participants = List.copyOf(all);
    final long high = nonZero();
    final long low = ThreadLocalRandom.current().nextLong();
    this.relocationId = new RelocationId(high, low);
    this.aggregateId = HexFormat.of().toHexDigits(high) + HexFormat.of().toHexDigits(low);
  }

  private static long nonZero() {
    long v;
    do {
      v = ThreadLocalRandom.current().nextLong();
    } while (v == 0);
    return v;
  }

  /**
   * The checks of an operator's move of one SpotWide User Spot, in this order, each with its typed error; changes
   * nothing. Blocks for store reads when the Spot is not here; call from a virtual thread.
   *
   * @param rt the node.
   * @param spotId the Spot.
   * @param target the target node.
   * @return the Spot's cell on this node.
   * @throws SpotkitException.ShuttingDown when this node is closing.
   * @throws SpotkitException.NotConfigured when the node has no mesh.
   * @throws SpotkitException.InvalidOperation when {@code target} is this node, the Spot is not a SpotWide User Spot,
   *     or another node owns it.
   * @throws SpotkitException.NotFound when no Spot of that id exists in the mesh.
   * @throws SpotkitException.Rejected when the Spot or a current member is registered with DisableRelocation.
   * @throws SpotkitException.Unavailable when the target published no descriptor.
   */
  public static SpotCell check(final NodeRuntime rt, final String spotId, final NodeRid target) {
    final String what = "move of spot '" + spotId + "' to node " + target;
    if (rt.isClosing()) {
      throw rt.shuttingDown(what);
    }
    if (rt.mesh() == null) {
      throw new SpotkitException.NotConfigured(what + " needs a mesh: configure MeshNode.builder().mesh(...)");
    }
    if (target.equals(rt.nodeRid())) {
      throw new SpotkitException.InvalidOperation(what + ": the target is this node; name another node");
    }
    final SpotCell spot = rt.spots.get(spotId);
    if (spot == null || spot.state != CellState.READY) {
      final var row = LocationRecords.read(rt.store().store(), ObjectKey.spot(spotId), STORE_TIMEOUT);
      if (row.isEmpty()) {
        throw new SpotkitException.NotFound(what + ": no spot '" + spotId + "' in mesh " + rt.meshName());
      }
      throw new SpotkitException.InvalidOperation(what + ": the spot is owned by node "
          + row.get().authority().allocation().routingIdHex() + ", not by this node " + rt.nodeRid().hex()
          + "; call it on its owner");
    }
    if (!InstanceMoves.isInstance(spot) && spot.kind != NodeConfig.SpotKind.USER) {
      throw new SpotkitException.InvalidOperation(what + ": " + spot.describe() + " is not a User Spot or an"
          + " Instance Spot; only a SpotWide User Spot moves with its members as one aggregate, a PerActor User"
          + " Spot as its shell and then each member (spec 000 section 7), and an Instance Spot as one Actor-less"
          + " unit (spec 003 section 6)");
    }
    final List<String> disabled = new ArrayList<>();
    if (spot.type.policy() == NodeConfig.Policy.DISABLE) {
      disabled.add(spot.describe());
    }
    for (ActorCell member : spot.members()) {
      if (member.type.policy() == NodeConfig.Policy.DISABLE) {
        disabled.add(member.describe());
      }
    }
    if (!disabled.isEmpty()) {
      throw new SpotkitException.Rejected(what + ": registered with DisableRelocation: " + String.join(", ",
          disabled) + "; the whole room stays on this node (spec 002 section 8.2)");
    }
    final boolean published = new NodeDirectory(rt.store().store(), STORE_TIMEOUT).readMesh(rt.meshName().value())
        .stream().anyMatch(p -> p.routingIdHex().equals(target.hex()));
    if (!published) {
      throw new SpotkitException.Unavailable(what + ": node " + target + " published no descriptor in mesh "
          + rt.meshName() + " (stopped, or not a member)");
    }
    return spot;
  }

  /**
   * Checks ({@link #check}) on the calling thread (it blocks for the checks' store reads), then queues the seal on the
   * Spot's control lane, so it runs at the room's next turn boundary ahead of queued application messages, and
   * captures the room. Returns once the intent is queued.
   *
   * @param rt the node.
   * @param spotId the Spot.
   * @param target the target node.
   * @return completes with the sealed room, or fails with the check's typed error, with
   *     {@link SpotkitException.Unavailable} when a member is in a join or a Session owner did not confirm a seal,
   *     with the
   *     adapter's failure when a capture threw, or with the store's error; on every failure the room was restored
   *     and keeps serving.
   */
  public static CompletableFuture<AggregateSeal> seal(final NodeRuntime rt, final String spotId,
      final NodeRid target) {
    final SpotCell spot;
    try {
      spot = check(rt, spotId, target);
    } catch (SpotkitException e) {
      return CompletableFuture.failedFuture(e);
    }
    final CompletableFuture<AggregateSeal> done = new CompletableFuture<>();
    intent(rt, spot, done, System.nanoTime() + PERMIT_WAIT.toNanos());
    return done;
  }

  /**
   * Whether member {@code a} is in a flow of its own that a seal must not cut: not Ready, in a join, leave or move,
   * no longer a member here, or a joiner of a SpotWide room whose mailbox is not on the Spot's gate yet.
   */
  private static boolean inOwnFlow(final SpotCell spot, final ActorCell a) {
    return a.state != CellState.READY || a.barrierActive || a.relocating != null || a.membership != spot
        || spot.spotWide && !a.onSpotGate;
  }

  /**
   * A member that cannot be sealed now (in a join, a leave or a move of its own), or an actor whose cross-node join
   * this Spot approved and that is still on its way here (its Restore commits it as a member after the CAS; a seal
   * now would leave it out of the inventory, a member of a room that moved away), or null. The approvals are read
   * first: a join's open adds the member before it releases the approval, so an empty approval set here means every
   * such member is in the member set read next.
   */
  private static String busyMember(final SpotCell spot) {
    final String arriving = spot.admittedJoins.keySet().stream().findFirst().orElse(null);
    if (arriving != null) {
      return "actor '" + arriving + "' (its join to " + spot.describe() + " was approved and is still arriving)";
    }
    for (ActorCell a : spot.members) { // the set's own snapshot iterator: no copy of a 10,000-member room per check
      if (inOwnFlow(spot, a)) {
        return a.describe();
      }
    }
    return null;
  }

  /**
   * The intent on the Spot's control lane (spec 000 section 7): it runs at the next turn boundary, ahead of queued
   * application messages. When a member is in a join, leave or move of its own, no seal is made: the room keeps
   * running and the next intent is scheduled {@link #PERMIT_RETRY_MS} later, until {@link #PERMIT_WAIT} passed.
   */
  private static void intent(final NodeRuntime rt, final SpotCell spot, final CompletableFuture<AggregateSeal> done,
      final long giveUpAtNanos) {
    spot.control(() -> {
      if (spot.applicationSignaled) {
        awaitBoundary(rt, spot, done);
        return;
      }
      final String member = busyMember(spot);
      String busy = member == null ? null : member + " was still joining, leaving or moving";
      if (busy == null) {
        final String switching = sealNow(rt, spot, done, false);
        if (switching == null) {
          return;
        }
        busy = "the route switch of " + switching + " was still waiting for its flush marker";
      }
      if (spot.state == CellState.READY && !rt.isClosing()) {
        if (System.nanoTime() - giveUpAtNanos < 0) {
          rt.relocationScheduler().schedule(() -> intent(rt, spot, done, giveUpAtNanos), PERMIT_RETRY_MS,
              TimeUnit.MILLISECONDS);
        } else {
          done.completeExceptionally(new SpotkitException.Unavailable(busy + " after " + PERMIT_WAIT.toSeconds()
              + " s; " + spot.describe() + " was not sealed; retry"));
        }
        return;
      }
      sealNow(rt, spot, done, false); // not Ready or closing: fails with the typed cause
    });
  }

  /**
   * ApplicationSignaled (spec 003 section 5.1): the move waits, at most {@link #BOUNDARY_WAIT}, for the end of a turn
   * that called {@code relocationReady().defer()} and seals there; a member in a join, leave or move of its own at
   * that boundary ends it with CONTINUED and fails the move (retry). On the Spot's gate.
   */
  private static void awaitBoundary(final NodeRuntime rt, final SpotCell spot,
      final CompletableFuture<AggregateSeal> done) {
    if (spot.atRelocationBoundary != null) {
      done.completeExceptionally(new SpotkitException.Unavailable("another move of " + spot.describe() + " is"
          + " waiting for its relocation boundary; retry after it"));
      return;
    }
    final Runnable atBoundary = () -> {
      final String busy = busyMember(spot);
      if (busy != null || rt.isClosing()) {
        spot.relocationReadyCompleted(dev.spotkit.core.RelocationReadyOutcome.CONTINUED);
        done.completeExceptionally(rt.isClosing() ? rt.shuttingDown("seal of " + spot.describe())
            : new SpotkitException.Unavailable(busy + " was joining, leaving or moving at the relocation boundary"
            + " of " + spot.describe() + "; it was not sealed; retry"));
        return;
      }
      final String switching = sealNow(rt, spot, done, true);
      if (switching != null) {
        spot.relocationReadyCompleted(dev.spotkit.core.RelocationReadyOutcome.CONTINUED);
        done.completeExceptionally(new SpotkitException.Unavailable("the route switch of " + switching
            + " still waited for its flush marker at the boundary; " + spot.describe() + " was not sealed; retry"));
      }
    };
    spot.atRelocationBoundary = atBoundary;
    rt.relocationScheduler().schedule(() -> spot.control(() -> {
      if (spot.atRelocationBoundary == atBoundary) {
        spot.atRelocationBoundary = null;
        done.completeExceptionally(new SpotkitException.Unavailable(spot.describe() + " did not reach a relocation"
            + " boundary (relocationReady().defer()) within " + BOUNDARY_WAIT.toSeconds() + " s; it was not"
            + " moved"));
      }
    }), BOUNDARY_WAIT.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * On the Spot's gate, at a turn boundary: seal, sessions, drain, then capture on a virtual thread. Returns null when
   * sealed or failed ({@code done}), else the participant whose route switch still waits ({@link RouteSwitches#seal}).
   */
  private static String sealNow(final NodeRuntime rt, final SpotCell spot,
      final CompletableFuture<AggregateSeal> done, final boolean applicationBoundary) {
    final AggregateSeal seal;
    try {
      // a PerActor User Spot's shell is sealed alone: its members stay serving and move one by one after its CAS
      seal = new AggregateSeal(rt, spot, PerActorMoves.isPerActor(spot) ? List.of() : spot.members());
      seal.atApplicationBoundary = applicationBoundary;
      final String switching = seal.sealAtBoundary();
      if (switching != null) {
        return switching;
      }
    } catch (RuntimeException e) {
      if (applicationBoundary) {
        spot.relocationReadyCompleted(dev.spotkit.core.RelocationReadyOutcome.CONTINUED);
      }
      done.completeExceptionally(e);
      return null;
    }
    seal.sealSessions(() -> {
      try {
        seal.drainAtBoundary();
      } catch (RuntimeException e) {
        seal.restore().whenComplete((v, g) -> done.completeExceptionally(e));
        return;
      }
      rt.async(() -> {
        seal.captureAndStore();
        return seal;
      }).whenComplete((s, f) -> {
        if (f == null) {
          done.complete(s);
        } else {
          seal.restore().whenComplete((v, g) -> done.completeExceptionally(RouteMesh.unwrap(f)));
        }
      });
    }, failure -> seal.restore().whenComplete((v, g) -> done.completeExceptionally(failure)));
    return null;
  }

  /**
   * On the Spot's gate, between turns: refuse joins, close every mailbox, take queues and timers. One move at a time
   * (a second seal would take the first one's room apart). Returns null when sealed, else the participant whose route
   * switch still waits for its marker ({@link RouteSwitches#seal}; nothing sealed).
   */
  private String sealAtBoundary() {
    if (spot.state != CellState.READY || rt.isClosing() || spot.aggregateSealed) {
      throw rt.isClosing() ? rt.shuttingDown("seal of " + spot.describe()) : new SpotkitException.Unavailable(
          spot.describe() + (spot.aggregateSealed ? " is in another move; retry after it" : " is closing"));
    }
    for (Cell c : participants) {
      if (c instanceof ActorCell a && inOwnFlow(spot, a)) {
        throw new SpotkitException.Unavailable(a.describe() + " is joining, leaving or moving; the room of "
            + spot.describe() + " was not sealed; retry");
      }
    }
    final String switching = rt.messaging().routeSwitches().seal(keys, this);
    if (switching != null) {
      return switching;
    }
    spot.aggregateSealed = true;
    sealed = true;
    for (Cell c : participants) {
      c.mailbox.close(); // reversible: arrivals are kept in order, no handler runs (the ingress hold)
    }
    return null;
  }

  /**
   * On the Spot's gate, the mailboxes closed: each session-bound member's binding is sealed at its Session owner
   * (command 42, confirmed by 43 behind every frame it sent before; spec 000 section 4.2 step 8), then
   * {@code sealed} runs on the gate; when a seal fails, {@code failed} runs once every answer is in (the seals made
   * are aborted by {@link #restore}).
   */
  private void sealSessions(final Runnable next, final java.util.function.Consumer<SpotkitException> failed) {
    final List<ActorCell> bound = new ArrayList<>();
    for (Cell c : participants) {
      if (c instanceof ActorCell a && Relocations.bindingOf(a) != null) {
        bound.add(a);
      }
    }
    if (bound.isEmpty()) {
      next.run();
      return;
    }
    final int[] left = {bound.size()};
    final SpotkitException[] failure = new SpotkitException[1];
    final Runnable answered = () -> {
      if (--left[0] == 0) {
        if (failure[0] == null) {
          next.run();
        } else {
          failed.accept(failure[0]);
        }
      }
    };
    final Relocations r = rt.relocations();
    for (ActorCell a : bound) {
      final dev.spotkit.relocation.wire.RelocationIdentity identity = new dev.spotkit.relocation.wire
          .RelocationIdentity(new RelocationId(nonZero(), ThreadLocalRandom.current().nextLong()), 1,
          new dev.spotkit.relocation.wire.CoordinatorFence(rt.store().ownerLease().record().ownerId(),
          r.leaseGeneration(), dev.spotkit.core.wire.Rids.of(rt.nodeRid()), rt.store().lifecycleGeneration(),
          a.storeVersion.value()));
      r.sessions.sealThen(a, identity, seal -> {
        if (seal != null) {
          sessionSeals.put(a, seal);
        }
        answered.run();
      }, e -> {
        failure[0] = e;
        answered.run();
      });
    }
  }

  /** On the Spot's gate, every session sealed: the queues and timers of every participant. */
  private void drainAtBoundary() {
    for (Cell c : participants) {
      synchronized (c.ingressLock) {
        final List<Envelope> drained = new ArrayList<>(c.mailbox.drainUnrun());
        for (int i = 0; i < drained.size(); i++) { // frames of a bound session leave as one-way session work
          if (drained.get(i) instanceof Envelope.Frame frame) {
            drained.set(i, frame.link().leaving(frame));
          }
        }
        captured.put(c, drained);
        capturedTimers.put(c, c.timers.entries());
        c.timers.cancelAll();
      }
    }
  }

  /** Virtual thread: adapters (user code), the Location Store inventory, the envelope. */
  private void captureAndStore() {
    for (Cell c : participants) {
      final byte[] state = captureState(c);
      states.put(c, c instanceof ActorCell a ? memberState(a, state) : state);
    }
    final List<InventoryEntry> entries = new ArrayList<>();
    for (Cell c : participants) {
      entries.add(new InventoryEntry(c instanceof SpotCell s ? InstanceMoves.isInstance(s)
          ? PlacementKind.INSTANCE_SPOT : PlacementKind.USER_SPOT : PlacementKind.ACTOR, c.id,
          c.generation, c.storeRecord.authorityOwnerGeneration(), policy(c)));
    }
    stored = InstanceMoves.isOneRow(spot) ? InstanceMoves.seal(rt, spot, entries.get(0)) // writes nothing
        : new AggregateAuthority(rt.store().store(), STORE_TIMEOUT, PlacementBatches.DEFAULT_ATTEMPTS).seal(
        spot.id, aggregateId, entries, rt.store().ownerLease().record().ownerId());
    // The rows pointed at the aggregate have new versions, and their effective AuthorityOwnerGeneration is the
    // aggregate's: the cells take both, so their later writes and fences (a join's, a session seal's) still match.
    final long aggregateAog = stored.aggregate() == null ? 0 : stored.aggregate().authorityOwnerGeneration().value();
    for (Cell c : participants) { // an Instance Spot's seal re-points no row: no member versions
      final dev.spotkit.store.StoreVersion v = c instanceof ActorCell ? stored.memberVersions().get(c.id) : null;
      if (v != null) {
        synchronized (c.ingressLock) {
          c.storeVersion = v;
          c.storeRecord = c.storeRecord.withAuthorityOwnerGeneration(aggregateAog);
        }
      }
    }
    envelope = buildEnvelope();
  }

  /**
   * A member's application state entry (Spotkit-defined; the envelope's state bytes are opaque to spec 001): u8
   * version 1, u32 length and the encoded command 42 this move installed for its session (0 for none), then
   * {@link Relocations#frameState} with its session binding (sealed or not) and the adapter's bytes.
   */
  private byte[] memberState(final ActorCell a, final byte[] state) {
    final Relocations.Binding bound = Relocations.bindingOf(a);
    final dev.spotkit.relocation.wire.SessionRelocationFrame.Seal seal = sessionSeals.get(a);
    final byte[] framed = Relocations.frameState(null, 0, state, bound == null ? null : bound.sealedBy(seal));
    final byte[] sealBytes = seal == null ? new byte[0]
        : dev.spotkit.relocation.wire.SessionRelocationCodec.encode(seal);
    return java.nio.ByteBuffer.allocate(5 + sealBytes.length + framed.length).put((byte) 1)
        .putInt(sealBytes.length).put(sealBytes).put(framed).array();
  }

  private static NodeConfig.Policy policyOf(final Cell c) {
    return c instanceof SpotCell s ? s.type.policy() : ((ActorCell) c).type.policy();
  }

  private static MeshNodeDescriptorRecord.Policy policy(final Cell c) {
    return switch (policyOf(c)) {
      case DISABLE -> MeshNodeDescriptorRecord.Policy.DISABLED;
      case RECREATE -> MeshNodeDescriptorRecord.Policy.RECREATE;
      case PRESERVE -> MeshNodeDescriptorRecord.Policy.SNAPSHOT;
    };
  }

  /** One participant's adapter capture, as a turn of its own cell; null for RecreateOnRelocation. */
  @SuppressWarnings("unchecked")
  private static byte[] captureState(final Cell c) {
    if (policyOf(c) != NodeConfig.Policy.PRESERVE) {
      return null;
    }
    final Turn turn = Turn.enter(c, false);
    final byte[] state;
    try {
      state = c instanceof SpotCell s ? ((SpotRelocationAdapter<Spot>) s.type.adapter()).capture(s.spot)
          : ((ActorRelocationAdapter<Actor>) ((ActorCell) c).type.adapter()).capture(((ActorCell) c).actor);
    } finally {
      turn.exit();
    }
    if (state == null) {
      throw new SpotkitException.InternalFailure("the relocation adapter of " + c.describe() + " returned null"
          + " from capture (an empty array is valid state; null is a contract violation)");
    }
    return state.clone();
  }

  private RelocationEnvelope buildEnvelope() {
    final Relocations r = rt.relocations();
    final List<EnvelopeEntries.ApplicationState> appStates = new ArrayList<>();
    final List<EnvelopeEntries.SavedWork> saved = new ArrayList<>();
    final List<EnvelopeEntries.PendingTimerTick> ticks = new ArrayList<>();
    final List<EnvelopeEntries.TimerRegistration> registrations = new ArrayList<>();
    final long nowNanos = System.nanoTime();
    for (Cell c : participants) {
      final long pid = inventory.participantId(Relocations.participantKey(c));
      appStates.add(new EnvelopeEntries.ApplicationState(pid, states.get(c)));
      final List<CellTimers.Entry> timers = capturedTimers.get(c);
      long order = 0;
      for (Envelope e : captured.get(c)) {
        switch (e) {
          case Envelope.Msg msg -> saved.add(new EnvelopeEntries.SavedWork(pid, order++, r.freeze(msg, c)));
          case Envelope.Tick tick -> {
            if (timers.contains(tick.timer())) {
              ticks.add(new EnvelopeEntries.PendingTimerTick(pid, order++, tick.timer().name,
                  tick.timer().delivered, tick.timer().delivered, System.currentTimeMillis(), 0));
            }
          }
          case Envelope.Marker marker -> { } // runs on restore or is dropped with the source instance
          case Envelope.Frame frame -> throw new IllegalStateException("session frame left in the captured queue"
              + " of " + c.describe() + " (frames leave as session work at the drain)");
        }
      }
      timers.stream().sorted(Comparator.comparing(t -> t.name.getBytes(StandardCharsets.UTF_8),
          Arrays::compareUnsigned)).forEach(t -> registrations.add(new EnvelopeEntries.TimerRegistration(pid, t.name,
          Relocations.HANDLER_TYPE, TimeUnit.NANOSECONDS.toMillis(t.periodNanos),
          EnvelopeEntries.TimerRegistration.OVERRUN_SKIP_LATE_TICKS, 0, false, t.delivered, t.delivered,
          System.currentTimeMillis() + Math.max(0, TimeUnit.NANOSECONDS.toMillis(t.nextAtNanos - nowNanos)))));
    }
    final ObjectIdentity object = InstanceMoves.isInstance(spot) ? new ObjectIdentity.InstanceSpot(spot.stableType,
        spot.id, spot.generation, spot.storeRecord.authorityOwnerGeneration()) : new ObjectIdentity.UserSpot(spot.id,
        spot.generation, spot.storeRecord.authorityOwnerGeneration());
    return new RelocationEnvelope(relocationId, object, 1, appStates, saved, registrations, ticks);
  }

  /**
   * The whole room's relocation-envelope-v1.
   *
   * @return the envelope (participants in {@link #participants()} order).
   */
  public RelocationEnvelope envelope() {
    return envelope;
  }

  /**
   * The envelope split by the existing chunk plan, with its CRC-32C (spec 001 section 4.2).
   *
   * @param chunkSize bytes per chunk, e.g. {@link ChunkPlan#UNNEGOTIATED_CHUNK_BYTES}.
   * @return the plan: total length, chunk count, checksum and chunks.
   */
  public ChunkPlan chunks(final int chunkSize) {
    return ChunkPlan.of(RelocationEnvelopeCodec.encode(envelope), chunkSize);
  }

  /**
   * What the Location Store seal fixed for the target's one CAS ({@link AggregateAuthority#commit}).
   *
   * @return the versions and the inventory.
   */
  public AggregateAuthority.Sealed stored() {
    return stored;
  }

  /**
   * The manifest's unit kind of this move ({@link InstanceMoves#unitKind}).
   *
   * @return a room, an Instance Spot or a PerActor User Spot's shell.
   */
  int unitKind() {
    return InstanceMoves.unitKind(spot);
  }

  /**
   * The sealed Spot's cell on this node.
   *
   * @return the cell.
   */
  SpotCell spot() {
    return spot;
  }

  /**
   * The move's AggregateId.
   *
   * @return 32 lowercase hex digits, non-zero.
   */
  public String aggregateId() {
    return aggregateId;
  }

  /**
   * The participants in inventory order: participantId is index + 1.
   *
   * @return the Spot and its members.
   */
  public List<Cell> participants() {
    return participants;
  }

  /**
   * How many queue items each participant's capture took, by participant key ({@code spot:} or {@code actor:}).
   *
   * @return the counts, in inventory order.
   */
  public Map<String, Integer> capturedCounts() {
    final Map<String, Integer> out = new java.util.LinkedHashMap<>();
    for (Cell c : participants) {
      out.put(Relocations.participantKey(c), captured.get(c).size());
    }
    return out;
  }

  /**
   * After the target's relay-ready: the ingress hold so far, taken out of every participant's closed mailbox and
   * frozen in arrival order (spec 001 section 4.4: the relay). Timer ticks are dropped (the timers moved with the
   * payload); markers run. From here on the move is not reversed (spec 000 section 8).
   *
   * @return completes on the Spot's gate with the frozen records by participant key, in inventory order.
   */
  public CompletableFuture<Map<String, List<dev.spotkit.relocation.wire.FrozenRecord>>> takeHold() {
    return onGate(this::takeHoldOnGate);
  }

  /** Runs {@code step} as a control task on the Spot's gate (inside a turn of every participant's mailbox). */
  private <T> CompletableFuture<T> onGate(final java.util.function.Supplier<T> step) {
    final CompletableFuture<T> done = new CompletableFuture<>();
    spot.control(() -> {
      try {
        done.complete(step.get());
      } catch (RuntimeException e) {
        done.completeExceptionally(e);
      }
    });
    return done;
  }

  private Map<String, List<dev.spotkit.relocation.wire.FrozenRecord>> takeHoldOnGate() {
    final Relocations r = rt.relocations();
    final Map<String, List<dev.spotkit.relocation.wire.FrozenRecord>> out = new java.util.LinkedHashMap<>();
    for (Cell c : participants) {
      final List<Envelope> drained;
      synchronized (c.ingressLock) {
        drained = new ArrayList<>(c.mailbox.drainUnrun());
      }
      final List<dev.spotkit.relocation.wire.FrozenRecord> records = new ArrayList<>();
      final List<Envelope.Msg> handed = taken.computeIfAbsent(c, k -> new ArrayList<>());
      for (Envelope e : drained) {
        switch (e) {
          case Envelope.Msg msg -> {
            handed.add(msg);
            records.add(r.freeze(msg, c));
          }
          case Envelope.Marker marker -> marker.task().run();
          case Envelope.Tick tick -> { }
          case Envelope.Frame frame -> records.add(r.freeze(frame.link().leaving(frame), c));
        }
      }
      out.put(Relocations.participantKey(c), records);
    }
    sealed = false; // past relay-ready: no restore
    return out;
  }

  /**
   * After the target's CAS committed (the target owns the Spot and every member): each participant's cell here
   * becomes GONE and hands what its hold still kept, then every later offer, to the target over {@code connection}
   * in order (Message Follow, spec 000 section 9); its row is never removed by this node (the target owns it).
   *
   * @param connection the ordered connection to the target node.
   * @return completes once every participant follows (on the Spot's gate).
   */
  public CompletableFuture<Void> handOver(final dev.spotkit.core.mesh.PeerConnection connection) {
    return onGate(() -> {
      handOverOnGate(connection);
      // a PerActor shell keeps its members (they move one by one next) and closes after the last ({@link
      // PerActorMoves}); a room's members went with it
      if (!PerActorMoves.isPerActor(spot)) {
        spot.members.clear();
      }
      if (InstanceMoves.isInstance(spot)) { // spec 001 section 8: the source instance ends with RelocationOut
        InstanceMoves.closedRelocatedOut(rt, spot);
      }
      return null;
    });
  }

  private void handOverOnGate(final dev.spotkit.core.mesh.PeerConnection connection) {
    final Relocations r = rt.relocations();
    final NodeRuntime node = rt;
    final Map<String, Relocations.Followed> following = new java.util.HashMap<>();
    for (Cell c : participants) {
      // static, and holding the cell's address only: not this seal (its captured queues and payload), nor the cell
      // (its actor, state and mailbox), which the follow table keeps reachable for 30 s
      final java.util.concurrent.atomic.AtomicReference<CompletableFuture<Void>> rerouted =
          new java.util.concurrent.atomic.AtomicReference<>();
      final AggregateFollow.Target to = AggregateFollow.target(c, rerouted);
      final java.util.function.Consumer<Envelope> follow = e -> AggregateFollow.follow(node, connection, to, e);
      synchronized (c.ingressLock) {
        final List<Envelope> left = new ArrayList<>(c.mailbox.drainUnrun());
        c.followAggregate = follow;
        final String key = Relocations.participantKey(c);
        final Relocations.Followed followed = new Relocations.Followed(c.ingressLock, follow, rerouted,
            c.generation, connection.peerRid());
        r.aggregateFollows.put(key, followed); // before GONE: a reader that sees GONE finds the follow (volatile)
        following.put(key, followed);
        c.state = CellState.GONE;
        c.storeRecord = null; // the target owns the row now: this node's close must not delete it
        left.forEach(follow);
      }

      if (c instanceof SpotCell s) {
        rt.spots.remove(s.id, s);
      } else {
        rt.actors.remove(c.id, (ActorCell) c);
      }
    }
    rt.messaging().routeSwitches().unseal(keys, this); // GONE here: no switch to this node starts for them any more
    // Message Follow lasts MessageFollowDuration (spec 000 section 9): then the old addresses route by the store; one
    // task for the whole room
    rt.relocationScheduler().schedule(() -> following.forEach(r.aggregateFollows::remove),
        dev.spotkit.relocation.follow.MessageFollowTable.DEFAULT_DURATION_MS, TimeUnit.MILLISECONDS);
  }

  /**
   * After relay-ready, when the target's CAS did not commit (spec 000 section 8: no source restore): every
   * participant here refuses its held and later work, a request with {@link SpotkitException.Unavailable} at once
   * and a one-way message as a dead letter, instead of keeping it until its deadline. That includes the queue
   * captured at the seal and the hold handed over for the relay: the target never ran them and never answers them
   * (it discards its staging). The Location Store still names this node; its rows go with the node's close.
   *
   * @param why the reason, for the errors.
   * @return completes once every participant refuses (on the Spot's gate).
   */
  public CompletableFuture<Void> abandon(final String why) {
    return onGate(() -> {
      for (Cell c : participants) {
        final java.util.function.Consumer<Envelope> refuse = e -> refuse(c, e, why);
        for (Envelope e : captured.getOrDefault(c, List.of())) { // markers and ticks go with this instance
          if (e instanceof Envelope.Msg) {
            refuse.accept(e);
          }
        }
        taken.getOrDefault(c, List.of()).forEach(refuse);
        synchronized (c.ingressLock) {
          final List<Envelope> left = new ArrayList<>(c.mailbox.drainUnrun());
          c.followAggregate = refuse;
          left.forEach(refuse);
          // every later offer is refused before the mailbox; opening it lets the node's close run its markers
          c.mailbox.open();
        }
      }
      rt.messaging().routeSwitches().unseal(keys, this);
      return null;
    });
  }

  private void refuse(final Cell c, final Envelope e, final String why) {
    switch (e) {
      case Envelope.Msg msg -> {
        if (msg.reply() != null) {
          msg.reply().fail(new SpotkitException.Unavailable(c.describe() + " is unavailable: " + why));
        } else {
          rt.deadLetters().record("aggregate-unavailable", "one-way message for " + c.describe() + " dropped: "
              + why);
        }
      }
      case Envelope.Marker marker -> marker.task().run();
      case Envelope.Tick tick -> { }
      case Envelope.Frame frame -> frame.link().frameHandled();
    }
  }

  /**
   * Reverses the seal before relay-ready (spec 000 section 8; spec 002 section 9.4): on the Spot's gate, every
   * participant's captured queue goes back ahead of what its hold kept, timers are registered again, the mailboxes
   * open and joins are admitted again. Markers captured run now. Idempotent.
   *
   * @return completes once the room serves again.
   */
  public CompletableFuture<Void> restore() {
    final CompletableFuture<Void> done = new CompletableFuture<>();
    spot.control(() -> {
      try {
        if (sealed) {
          sealed = false;
          for (Cell c : participants) {
            final List<Envelope> back = new ArrayList<>();
            for (Envelope e : captured.getOrDefault(c, List.of())) {
              if (e instanceof Envelope.Marker marker) {
                marker.task().run();
              } else if (!(e instanceof Envelope.Tick)) {
                back.add(e);
              }
            }
            for (CellTimers.Entry t : capturedTimers.getOrDefault(c, List.of())) {
              if (c.state == CellState.READY) {
                c.timers.every(t.name, Duration.ofNanos(t.periodNanos), t.tick);
              }
            }
            final dev.spotkit.relocation.wire.SessionRelocationFrame.Seal seal = c instanceof ActorCell a
                ? sessionSeals.remove(a) : null;
            if (seal != null) { // LOC-25: the 44 abort releases this move's seal; held frames come back behind
              // the binding keeps the route the seal named; the member's row stays pointed at the aggregate
              ((ActorCell) c).sessionRouteAog = seal.currentRoute().authorityOwnerGeneration();
              rt.relocations().sendSessionRoute(dev.spotkit.core.wire.Rids.toNodeRid(seal.binding().sessionOwner()
                  .nodeRid()), new dev.spotkit.relocation.wire.SessionRelocationFrame.Route(seal.relocationId(),
                  seal.coordinatorFence(), dev.spotkit.relocation.wire.Role.SOURCE, seal.binding(),
                  new dev.spotkit.relocation.wire.SessionRouteAction.Abort(seal.currentRoute()
                  .authorityOwnerGeneration())));
            }
            synchronized (c.ingressLock) {
              c.mailbox.openWithBacklog(back); // the captured queue ahead of the hold, in one step
            }
          }
          captured.clear();
          capturedTimers.clear();
          spot.aggregateSealed = false;
          rt.messaging().routeSwitches().unseal(keys, this);
          if (atApplicationBoundary) { // the boundary ends here, in this control task: before the room's next job
            spot.relocationReadyCompleted(dev.spotkit.core.RelocationReadyOutcome.CONTINUED);
          }
          final AggregateAuthority.Sealed written = stored;
          // this attempt's inventory, unless the aggregate names it, takes no space (an Instance Spot wrote none)
          if (written != null && written.aggregate() != null) {
            rt.async(() -> dev.spotkit.core.location.InventoryTree.deleteReplaced(rt.store().store(), spot.id,
                written.tree().rootSha256Hex(), written.aggregate().inventoryRoot(), STORE_TIMEOUT));
          }
        }
        done.complete(null);
      } catch (RuntimeException e) {
        done.completeExceptionally(e);
      }
    });
    return done;
  }
}
