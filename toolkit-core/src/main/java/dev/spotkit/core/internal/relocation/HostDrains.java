package dev.spotkit.core.internal.relocation;

import dev.spotkit.core.ActorRef;
import dev.spotkit.core.Deadline;
import dev.spotkit.core.HostRelocationResult;
import dev.spotkit.core.NodeRid;
import dev.spotkit.core.RelocateOptions;
import dev.spotkit.core.RelocateResult;
import dev.spotkit.core.RelocateResult.Kept;
import dev.spotkit.core.RelocateResult.Reason;
import dev.spotkit.core.RelocateResult.UnitKind;
import dev.spotkit.core.SpotRelocationResult;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.core.internal.mesh.RouteMesh;
import dev.spotkit.core.internal.runtime.ActorCell;
import dev.spotkit.core.internal.runtime.Cell;
import dev.spotkit.core.internal.runtime.CellState;
import dev.spotkit.core.internal.runtime.NodeConfig;
import dev.spotkit.core.internal.runtime.NodeRuntime;
import dev.spotkit.core.internal.runtime.SpotCell;
import dev.spotkit.core.location.LocationRecords;
import dev.spotkit.core.location.NodeDirectory;
import dev.spotkit.core.location.NodePeer;
import dev.spotkit.core.location.NodeState;
import dev.spotkit.core.location.ObjectKey;
import dev.spotkit.core.location.PlacementKind;
import dev.spotkit.relocation.RelocationSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A host drain ({@code MeshNode.relocate(RelocateOptions)}; FACTS.md "Host relocation"): publishes Relocating, reads
 * the live Serving targets once, then moves this node's units in the FACTS batch order on the existing machinery:
 * <ol>
 *   <li>every PerActor User Spot's shell first, through {@link AggregateMoves} and {@link PerActorMoves} (in SpotId
 *       order, at most {@code parallelism} at once); each then moves its members one by one, while</li>
 *   <li>every Entry Spot actor, grouped by target, moves through {@link HostRelocations} (all groups at once);</li>
 *   <li>every SpotWide User Spot with its members as one aggregate, and every Instance Spot as one Actor-less unit,
 *       through {@link AggregateMoves} (in SpotId order), at most {@code parallelism} at once, each started only
 *       before the deadline.</li>
 * </ol>
 * Then publishes Relocated (every unit moved) or Serving again (Blocked), and, when asked, waits out the last
 * Message Follow window (SafeToShutdown). One drain per node at a time. Not API.
 */
public final class HostDrains {
  /** MessageFollowDuration: a moved unit's old address follows it this long (FACTS.md). */
  static final Duration FOLLOW = Duration.ofMillis(RelocationSettings.DEFAULT_FOLLOW_MS);
  /** Bound of the mesh read and of a kept unit's row read. */
  private static final Duration STORE_TIMEOUT = Duration.ofSeconds(5);
  /**
   * How long past the drain's deadline a started move is awaited before it is reported as still unknown: a move
   * is known at most the Restore validity (10 s) plus a store call after relay-ready, a room at most two 30 s steps.
   */
  private static final Duration MOVE_BOUND = Duration.ofSeconds(75);
  /** First pause before a units refused by their target are tried again; doubled per pass up to the max. */
  private static final Duration RETRY_PAUSE = Duration.ofMillis(250);
  /** Longest pause between two passes. */
  private static final Duration RETRY_PAUSE_MAX = Duration.ofSeconds(2);

  private final NodeRuntime rt;
  private final RelocateOptions options;
  private final Deadline deadline;
  private final List<Kept> kept = Collections.synchronizedList(new ArrayList<>());
  private final List<ActorRef> actors = Collections.synchronizedList(new ArrayList<>());
  private final List<SpotRelocationResult> rooms = Collections.synchronizedList(new ArrayList<>());
  private final List<SpotRelocationResult> instances = Collections.synchronizedList(new ArrayList<>());
  /** System.nanoTime() of the last commit this drain saw, 0 when none. */
  private final AtomicLong lastCommitNanos = new AtomicLong();
  private TargetPicker picker;

  private HostDrains(final NodeRuntime rt, final RelocateOptions options) {
    this.rt = rt;
    this.options = options;
    this.deadline = Deadline.after(options.deadline());
  }

  /**
   * Starts a host drain; returns at once, the work runs on a virtual thread.
   *
   * @param rt the node.
   * @param options the options.
   * @return the result (see {@code MeshNode.relocate(RelocateOptions)}).
   */
  public static CompletableFuture<RelocateResult> drain(final NodeRuntime rt, final RelocateOptions options) {
    if (options == null) {
      return CompletableFuture.failedFuture(new SpotkitException.InvalidOperation("relocate(null): pass options,"
          + " e.g. RelocateOptions.drainAnywhere()"));
    }
    if (rt.mesh() == null || rt.relocations() == null) {
      return CompletableFuture.failedFuture(new SpotkitException.NotConfigured("a host drain needs a mesh:"
          + " configure MeshNode.builder().mesh(...)"));
    }
    if (rt.isClosing()) {
      return CompletableFuture.failedFuture(rt.shuttingDown("host drain"));
    }
    if (!rt.beginDrain()) {
      return CompletableFuture.failedFuture(new SpotkitException.InvalidOperation("a host drain of node "
          + rt.nodeRid() + " is already running; wait for its result"));
    }
    final HostDrains drain = new HostDrains(rt, options);
    return rt.async(() -> {
      try {
        return drain.run();
      } finally {
        rt.endDrain();
      }
    });
  }

  /**
   * Whether this node is being drained (it published Relocating or Relocated): a target in that state refuses a
   * host move before relay-ready, since its own drain, which listed its units already, would leave the arrival
   * behind (two nodes drained at once, each picking the other while both still looked Serving).
   *
   * @param rt the node.
   * @return true while drained.
   */
  public static boolean drainingHere(final NodeRuntime rt) {
    final NodeState state = rt.publishedState();
    return state == NodeState.RELOCATING || state == NodeState.RELOCATED;
  }

  private RelocateResult run() throws InterruptedException {
    rt.publishState(NodeState.RELOCATING); // placement stops picking this node (it picks Serving nodes only)
    boolean published = false;
    try {
      for (long pause = RETRY_PAUSE.toMillis(); ; pause = Math.min(pause * 2, RETRY_PAUSE_MAX.toMillis())) {
        picker = new TargetPicker(candidates()); // read again each pass: a target that refused may be draining
        final Map<String, CompletableFuture<SpotRelocationResult>> perActor = startPerActorSpots();
        moveEntryActors();
        awaitPerActorSpots(perActor);
        moveRooms();
        // A target's refusal before relay-ready (it is draining too, full, unreachable) may pass: what stayed and
        // serves here is tried again, on the targets read anew, until the deadline leaves no room for a pass.
        // So is what arrived here after this pass listed the units: a move this node admitted just before it
        // published Relocating (a peer draining at the same time picked it while it was still Serving).
        final boolean refused = kept.stream().anyMatch(k -> k.reason() == Reason.TARGET_REFUSED);
        if (!refused && !arrivedMeanwhile() || deadline.remaining().toMillis() < pause + RETRY_PAUSE_MAX.toMillis()) {
          break;
        }
        NodeRuntime.LOG.info("host drain of node {}: {} unit(s) refused by their target, or arrived meanwhile; trying"
            + " again in {} ms", rt.nodeRid(), kept.stream().filter(k -> k.reason() == Reason.TARGET_REFUSED).count(),
            pause);
        Thread.sleep(pause); // a backoff between passes of this drain's own virtual thread
        kept.clear();
      }
      final boolean relocated = kept.stream().allMatch(k -> k.reason() == Reason.LEFT);
      publishQuietly(relocated ? NodeState.RELOCATED : NodeState.SERVING);
      published = true;
      return result(relocated);
    } finally {
      if (!published) {
        publishQuietly(NodeState.SERVING);
      }
    }
  }

  /**
   * Whether a unit this drain must move is here and not listed as kept, or a move to this node is still in flight
   * (it was admitted before this node published Relocating; a drain refuses later ones).
   */
  private boolean arrivedMeanwhile() {
    final java.util.Set<String> stays = new java.util.HashSet<>();
    synchronized (kept) {
      kept.forEach(k -> stays.add(k.id()));
    }
    for (ActorCell actor : rt.entry().members()) {
      if (actor.state == CellState.READY && !stays.contains(actor.id)) {
        return true;
      }
    }
    for (SpotCell spot : rt.spots.values()) {
      if (spot.state == CellState.READY && spot.kind != NodeConfig.SpotKind.ENTRY && !stays.contains(spot.id)) {
        return true;
      }
    }
    final Relocations moves = rt.relocations();
    return !moves.diverted.isEmpty() || !moves.aggregateStaging.isEmpty() || moves.aggregates().receiving();
  }

  private void publishQuietly(final NodeState state) {
    try {
      rt.publishState(state);
    } catch (SpotkitException e) {
      NodeRuntime.LOG.warn("host drain: could not publish node state {}: {}", state, e.getMessage());
    }
  }

  private RelocateResult result(final boolean relocated) throws InterruptedException {
    final long last = lastCommitNanos.get();
    long followLeft = last == 0 ? 0 : last + FOLLOW.toNanos() - System.nanoTime();
    if (relocated && followLeft > 0 && options.awaitsSafeToShutdown()) {
      TimeUnit.NANOSECONDS.sleep(followLeft); // waits out a fixed window (SafeToShutdown), no synchronisation
      followLeft = 0;
    }
    final Duration followEndsIn = Duration.ofNanos(Math.max(0, followLeft));
    final boolean safe = relocated && followEndsIn.isZero();
    return new RelocateResult(relocated ? RelocateResult.Outcome.RELOCATED : RelocateResult.Outcome.BLOCKED,
        List.copyOf(actors), List.copyOf(rooms), List.copyOf(instances), List.copyOf(kept), safe, followEndsIn);
  }

  /** The live Serving peers other than this node that the options admit. */
  private List<NodePeer> candidates() {
    final List<NodePeer> out = new ArrayList<>();
    for (NodePeer peer : new NodeDirectory(rt.store().store(), STORE_TIMEOUT).readMesh(rt.meshName().value())) {
      final NodeRid rid = new NodeRid(Long.parseUnsignedLong(peer.routingIdHex(), 16));
      if (rid.equals(rt.nodeRid()) || peer.state() != NodeState.SERVING || !options.admits(rid)) {
        continue;
      }
      if (options.targets().isEmpty() && peer.placementWeight() <= 0) {
        continue; // weight 0 is never chosen unless named (spec 002 section 4)
      }
      out.add(peer);
    }
    out.sort(Comparator.comparing(NodePeer::routingIdHex)); // a deterministic visiting order
    return out;
  }

  // ---------------------------------------------------------------- batch 0: PerActor User Spots

  /**
   * Starts the move of every PerActor User Spot here (its shell, then its members one by one), and of members an
   * earlier move of their Spot left here (to the Spot's owner), by SpotId. Kept ones are recorded.
   */
  private Map<String, CompletableFuture<SpotRelocationResult>> startPerActorSpots() throws InterruptedException {
    final Map<String, CompletableFuture<SpotRelocationResult>> started = new LinkedHashMap<>();
    final Semaphore slots = new Semaphore(options.parallelism());
    for (SpotCell spot : sorted(rt.spots.values())) {
      if (!PerActorMoves.isPerActor(spot) || spot.state != CellState.READY) {
        continue;
      }
      final Kept refused = refusal(spot);
      if (refused != null) {
        kept.add(refused);
        keepMembers(spot, spot.members(), refused.reason(), refused.error());
        continue;
      }
      if (deadline.isExpired() || !slots.tryAcquire(deadline.remaining().toNanos(), TimeUnit.NANOSECONDS)) {
        final Kept late = late(spot);
        kept.add(late);
        keepMembers(spot, spot.members(), late.reason(), late.error());
        continue;
      }
      final NodeRid target = picker.pick(needs(spot));
      if (target == null) {
        slots.release();
        kept.add(new Kept(UnitKind.PER_ACTOR_SPOT, spot.id, Reason.NO_TARGET, noTarget(spot.describe()), true));
        keepMembers(spot, spot.members(), Reason.NO_TARGET, noTarget(spot.describe()));
        continue;
      }
      started.put(spot.id, rt.relocations().aggregates().relocate(spot.id, target)
          .whenComplete((moved, failure) -> slots.release()));
    }
    for (Map.Entry<String, List<ActorCell>> left : PerActorMoves.stranded(rt).entrySet()) {
      if (started.containsKey(left.getKey())) {
        continue;
      }
      final String spotId = left.getKey();
      started.put(spotId, rt.async(() -> {
        final NodeRid owner = LocationRecords.read(rt.store().store(), ObjectKey.spot(spotId), STORE_TIMEOUT)
            .map(row -> new NodeRid(Long.parseUnsignedLong(row.authority().allocation().routingIdHex(), 16)))
            .orElseThrow(() -> new SpotkitException.NotFound("spot '" + spotId + "' has no location record"));
        return PerActorMoves.moveStranded(rt, spotId, owner);
      }));
    }
    return started;
  }

  private void awaitPerActorSpots(final Map<String, CompletableFuture<SpotRelocationResult>> started)
      throws InterruptedException {
    for (Map.Entry<String, CompletableFuture<SpotRelocationResult>> move : started.entrySet()) {
      final String spotId = move.getKey();
      final SpotCell before = rt.spots.get(spotId);
      try {
        final SpotRelocationResult r = await(move.getValue());
        rooms.add(r);
        lastCommitNanos.set(System.nanoTime());
        r.keptMembers().forEach((id, why) -> kept.add(keptMember(id.value(), why)));
      } catch (SpotkitException failure) {
        final SpotCell here = rt.spots.get(spotId);
        if (here != null) {
          final Kept k = keptRoom(here, failure);
          kept.add(k);
          keepMembers(here, here.members(), k.reason(), failure);
        } else if (before == null) { // stranded members whose second try failed as a whole
          for (ActorCell m : PerActorMoves.stranded(rt).getOrDefault(spotId, List.of())) {
            kept.add(keptMember(m.id, failure));
          }
        } else {
          kept.add(new Kept(UnitKind.PER_ACTOR_SPOT, spotId, Reason.UNAVAILABLE, failure, false));
        }
      }
    }
  }

  private void keepMembers(final SpotCell spot, final List<ActorCell> members, final Reason reason,
      final SpotkitException why) {
    for (ActorCell member : sorted(members)) {
      kept.add(new Kept(UnitKind.PER_ACTOR_MEMBER, member.id, reason, new SpotkitException.Unavailable(
          member.describe() + " stays with " + spot.describe() + ": " + why.getMessage(), why), true));
    }
  }

  private Kept keptMember(final String actorId, final SpotkitException why) {
    final ActorCell here = rt.actors.get(actorId);
    final boolean serving = here != null && here.state == CellState.READY && here.relocating == null;
    final Reason reason = reason(why, serving, serving, () -> ownedHere(ObjectKey.actor(actorId)));
    return new Kept(UnitKind.PER_ACTOR_MEMBER, actorId, reason, why, serving);
  }

  // ---------------------------------------------------------------- batch 1: Entry Spot actors

  private void moveEntryActors() throws InterruptedException {
    final Map<NodeRid, List<ActorCell>> groups = new LinkedHashMap<>();
    for (ActorCell actor : sorted(rt.entry().members())) {
      if (actor.type.policy() == NodeConfig.Policy.DISABLE) {
        kept.add(new Kept(UnitKind.ENTRY_ACTOR, actor.id, Reason.RELOCATION_DISABLED, new SpotkitException.Rejected(
            actor.describe() + " is registered with DisableRelocation; it stays here"), true));
        continue;
      }
      final NodeRid target = picker.pick(List.of(new TargetPicker.Need(PlacementKind.ACTOR, actor.stableType)));
      if (target == null) {
        kept.add(new Kept(UnitKind.ENTRY_ACTOR, actor.id, Reason.NO_TARGET, noTarget(actor.describe()), true));
        continue;
      }
      groups.computeIfAbsent(target, t -> new ArrayList<>()).add(actor);
    }
    final Map<NodeRid, CompletableFuture<HostRelocationResult>> moves = new LinkedHashMap<>();
    groups.forEach((target, list) -> moves.put(target, HostRelocations.relocate(rt, target, list)));
    for (Map.Entry<NodeRid, CompletableFuture<HostRelocationResult>> move : moves.entrySet()) {
      final List<ActorCell> group = groups.get(move.getKey());
      try {
        final HostRelocationResult r = await(move.getValue());
        if (!r.relocated().isEmpty()) {
          actors.addAll(r.relocated());
          lastCommitNanos.set(System.nanoTime());
        }
        for (ActorCell actor : group) {
          final SpotkitException why = r.kept().get(actor.actorId);
          if (why != null) {
            kept.add(keptActor(actor, why));
          }
        }
      } catch (SpotkitException failure) { // the whole group: no connection to the target, or still unknown
        for (ActorCell actor : group) {
          kept.add(keptActor(actor, failure));
        }
      }
    }
  }

  private Kept keptActor(final ActorCell actor, final SpotkitException why) {
    final ActorCell here = rt.actors.get(actor.id);
    final boolean serving = here != null && here.state == CellState.READY && here.followAggregate == null
        && here.relocating == null;
    final Reason reason = reason(why, serving && here.membership == rt.entry(), serving,
        () -> ownedHere(ObjectKey.actor(actor.id)));
    return new Kept(UnitKind.ENTRY_ACTOR, actor.id, reason, why, serving);
  }

  // ---------------------------------------------------------------- batch 2: SpotWide rooms and Instance Spots

  private void moveRooms() throws InterruptedException {
    final Semaphore slots = new Semaphore(options.parallelism());
    final Map<SpotCell, CompletableFuture<?>> started = new LinkedHashMap<>();
    for (SpotCell room : sorted(rt.spots.values())) {
      if (!(room.spotWide || InstanceMoves.isInstance(room)) || room.state != CellState.READY) {
        continue;
      }
      final Kept refused = refusal(room);
      if (refused != null) {
        kept.add(refused);
        continue;
      }
      if (deadline.isExpired() || !slots.tryAcquire(deadline.remaining().toNanos(), TimeUnit.NANOSECONDS)) {
        kept.add(late(room));
        continue;
      }
      final NodeRid target = picker.pick(needs(room));
      if (deadline.isExpired() || target == null) { // target: checked in refusal(); members may have joined since
        slots.release();
        kept.add(target == null ? new Kept(unitKind(room), room.id, Reason.NO_TARGET,
            noTarget(room.describe()), true) : late(room));
        continue;
      }
      started.put(room, rt.relocations().aggregates().relocate(room.id, target).whenComplete((moved, failure) -> {
        slots.release();
        if (failure == null) {
          (InstanceMoves.isInstance(room) ? instances : rooms).add(moved);
          lastCommitNanos.set(System.nanoTime());
        } else {
          kept.add(keptRoom(room, Cell.typed(RouteMesh.unwrap(failure), "move of " + room.describe())));
        }
      }));
    }
    for (Map.Entry<SpotCell, CompletableFuture<?>> move : started.entrySet()) {
      try {
        await(move.getValue());
      } catch (SpotkitException e) {
        if (!move.getValue().isDone()) { // a failure is recorded by its whenComplete; this one is still unknown
          kept.add(new Kept(unitKind(move.getKey()), move.getKey().id, Reason.UNAVAILABLE, e, false));
        }
      }
    }
  }

  /** SPOT_WIDE_ROOM, PER_ACTOR_SPOT or INSTANCE_SPOT. */
  private static UnitKind unitKind(final SpotCell spot) {
    return InstanceMoves.isInstance(spot) ? UnitKind.INSTANCE_SPOT : PerActorMoves.isPerActor(spot)
        ? UnitKind.PER_ACTOR_SPOT : UnitKind.SPOT_WIDE_ROOM;
  }

  private Kept late(final SpotCell room) {
    return new Kept(unitKind(room), room.id, Reason.DEADLINE_EXCEEDED, new SpotkitException.DeadlineExceeded(
        "the drain deadline of " + options.deadline() + " passed before the move of " + room.describe()
        + " started; it stays and serves here"), true);
  }

  /** A room that cannot move at all (DisableRelocation, no target), or null. */
  private Kept refusal(final SpotCell room) {
    final List<String> disabled = new ArrayList<>();
    if (room.type.policy() == NodeConfig.Policy.DISABLE) {
      disabled.add(room.describe());
    }
    for (ActorCell member : room.members()) {
      if (member.type.policy() == NodeConfig.Policy.DISABLE) {
        disabled.add(member.describe());
      }
    }
    if (!disabled.isEmpty()) {
      return new Kept(unitKind(room), room.id, Reason.RELOCATION_DISABLED, new SpotkitException.Rejected(
          "registered with DisableRelocation: " + String.join(", ", disabled) + "; it stays here"),
          true);
    }
    if (!picker.anyFor(needs(room))) {
      return new Kept(unitKind(room), room.id, Reason.NO_TARGET, noTarget(room.describe()), true);
    }
    return null;
  }

  private static List<TargetPicker.Need> needs(final SpotCell room) {
    final List<TargetPicker.Need> needs = new ArrayList<>();
    // an Instance Spot needs a node that registered its stable type as an Instance Spot (its capacity kind)
    needs.add(new TargetPicker.Need(InstanceMoves.isInstance(room) ? PlacementKind.INSTANCE_SPOT
        : PlacementKind.USER_SPOT, room.stableType));
    for (ActorCell member : room.members()) {
      final TargetPicker.Need need = new TargetPicker.Need(PlacementKind.ACTOR, member.stableType);
      if (!needs.contains(need)) {
        needs.add(need);
      }
    }
    return needs;
  }

  private Kept keptRoom(final SpotCell room, final SpotkitException why) {
    final SpotCell here = rt.spots.get(room.id);
    final boolean serving = here == room && here.state == CellState.READY && here.followAggregate == null
        && !here.aggregateSealed;
    final Reason reason = reason(why, serving, serving, () -> ownedHere(ObjectKey.spot(room.id)));
    return new Kept(unitKind(room), room.id, reason, why, serving);
  }

  // ---------------------------------------------------------------- shared

  /**
   * The typed reason of a failed move: DisableRelocation and shutdown by their error; otherwise by where the unit
   * is now: still serving here as before (refused before relay-ready), still owned here but not serving (passed
   * relay-ready without a commit), or gone from here (its own join moved it, or it closed).
   */
  private static Reason reason(final SpotkitException why, final boolean servingAsBefore, final boolean servingHere,
      final java.util.function.BooleanSupplier ownedHere) {
    if (why instanceof SpotkitException.Rejected) {
      return Reason.RELOCATION_DISABLED;
    }
    if (why instanceof SpotkitException.ShuttingDown) {
      return Reason.SHUTTING_DOWN;
    }
    if (why.getCause() == HostRelocations.NOT_STARTED) {
      return Reason.LEFT; // in its own join or move when its turn came: nothing was sealed, it is in that flow
    }
    if (servingAsBefore) {
      return Reason.TARGET_REFUSED;
    }
    if (servingHere) {
      return Reason.LEFT; // still here, but no longer in the place it was moved from (it joined a room here)
    }
    return ownedHere.getAsBoolean() ? Reason.UNAVAILABLE : Reason.LEFT;
  }

  private boolean ownedHere(final ObjectKey key) {
    try {
      return LocationRecords.read(rt.store().store(), key, STORE_TIMEOUT).map(row -> row.authority().allocation()
          .routingIdHex().equals(rt.nodeRid().hex())).orElse(false);
    } catch (SpotkitException e) {
      return true; // unknown: never claim it left
    }
  }

  private SpotkitException noTarget(final String what) {
    return new SpotkitException.Unavailable("no target for " + what + ": no live Serving node other than "
        + rt.nodeRid() + " that registered its types passed " + options + "; it stays and serves here");
  }

  private <T> T await(final CompletableFuture<T> move) throws InterruptedException {
    final Duration bound = deadline.remaining().plus(MOVE_BOUND);
    try {
      return move.get(bound.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw Cell.typed(RouteMesh.unwrap(e.getCause()), "host drain move");
    } catch (TimeoutException e) {
      throw new SpotkitException.Unavailable("a host drain move had no result " + bound.toSeconds() + " s after it"
          + " was awaited; its unit's state is unknown", e);
    }
  }

  private static <C extends Cell> List<C> sorted(final java.util.Collection<C> cells) {
    final List<C> out = new ArrayList<>(cells);
    out.sort(Comparator.comparing(c -> c.id));
    return out;
  }
}
