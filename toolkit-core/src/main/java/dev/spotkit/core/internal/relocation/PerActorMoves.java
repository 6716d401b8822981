package dev.spotkit.core.internal.relocation;

import dev.spotkit.core.ActorId;
import dev.spotkit.core.ActorRef;
import dev.spotkit.core.Deadline;
import dev.spotkit.core.NodeRid;
import dev.spotkit.core.SpotRef;
import dev.spotkit.core.SpotRelocationResult;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.core.internal.mesh.RouteMesh;
import dev.spotkit.core.internal.runtime.ActorCell;
import dev.spotkit.core.internal.runtime.Cell;
import dev.spotkit.core.internal.runtime.CellState;
import dev.spotkit.core.internal.runtime.NodeConfig;
import dev.spotkit.core.internal.runtime.NodeRuntime;
import dev.spotkit.core.internal.runtime.SpotCell;
import dev.spotkit.core.location.AggregatePointer;
import dev.spotkit.core.location.LocationRecords;
import dev.spotkit.core.location.NodeDirectory;
import dev.spotkit.core.location.NodePeer;
import dev.spotkit.core.location.ObjectKey;
import dev.spotkit.core.mesh.PeerConnection;
import dev.spotkit.core.wire.Rids;
import dev.spotkit.relocation.wire.TargetFence;
import dev.spotkit.store.StoreBytes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The move of a PerActor User Spot (spec 000 section 7 "A PerActor User Spot doesn't use an aggregate owner change";
 * spec 001 sections 3 and 8; FACTS.md "Host relocation"; REL-01). Not API. In order:
 * <ol>
 *   <li>the Spot's runtime-private shell moves first, on the one-row path of {@link AggregateMoves} (unit kind
 *       {@link InstanceMoves#UNIT_PER_ACTOR}): the seal waits for the Spot queue's current turn and for members in a
 *       Create/Join of their own, the target prepares the shell (PerActor spots allow only RecreateOnRelocation: the
 *       Spot's factory builds it, no state travels; its not-yet-run queue and timers do) with admission closed, and
 *       the target CASes the Spot's authority row to itself, same SpotId and ObjectGeneration. From then on new
 *       ToSpot, Create and Join go to the target; the source's shell cell follows what still reaches it there;</li>
 *   <li>then each member Actor moves as its own unit ({@link #moveMembers}) with the single-actor relocation
 *       machinery ({@link Relocations#start}, as a host relocation: no approval, no membership callback), and the
 *       target keeps it a member of the same Spot ({@link #shellHere}). Messages for a member still here are served
 *       here; those for a moved one follow it (Message Follow);</li>
 *   <li>once the last member moved, the source shell ends: the source Spot instance's {@code onClosing} runs with
 *       {@code RELOCATION_OUT}.</li>
 * </ol>
 * A member the target refused before relay-ready is tried again (at most {@link #MEMBER_ATTEMPTS} times); one that
 * still fails stays here, owned here alone and serving, and is listed in
 * {@link SpotRelocationResult#keptMembers()}; the shell here then stays open for it, and a later
 * {@code relocateSpot} of the same Spot on this node to the Spot's owner, or a host drain, moves it
 * ({@link #stranded}). Each Actor has one row, so there are never two owners.
 *
 * <p>Blocking: {@link #moveMembers} waits for the moves; virtual threads only. Thread-safety: stateless.
 */
final class PerActorMoves {
  /** Attempts per member when its target refused it before relay-ready. */
  static final int MEMBER_ATTEMPTS = 3;
  /** First pause before a refused member is tried again (doubled per attempt). */
  private static final Duration RETRY_PAUSE = Duration.ofMillis(100);
  /** Longest wait for one round of member moves (a move is known at most Restore validity plus a store call). */
  private static final Duration ROUND_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration STORE_TIMEOUT = Duration.ofSeconds(5);

  private PerActorMoves() {
  }

  /**
   * Whether {@code spot} is a PerActor User Spot (its members keep their own gates).
   *
   * @param spot the Spot.
   * @return true for a PerActor User Spot.
   */
  static boolean isPerActor(final SpotCell spot) {
    return spot.kind == NodeConfig.SpotKind.USER && !spot.spotWide;
  }

  /**
   * The target side: the PerActor User Spot shell that a moving member's row names as its membership, when this
   * node owns that Spot now (Ready here), else null. Any thread.
   *
   * @param rt the target node.
   * @param payload the member's row payload (its membership).
   * @return the shell, or null.
   */
  static SpotCell shellHere(final NodeRuntime rt, final StoreBytes payload) {
    final String spotId = payload == null ? null : AggregatePointer.membershipOf(payload);
    final SpotCell spot = spotId == null ? null : rt.spots.get(spotId);
    return spot != null && spot.state == CellState.READY && isPerActor(spot) ? spot : null;
  }

  /**
   * Members of PerActor User Spots whose shell moved away from this node and that are still here, serving (their
   * own move failed, or has not run yet), by SpotId, in ActorId order.
   *
   * @param rt the source node.
   * @return the stranded members; empty when none.
   */
  static Map<String, List<ActorCell>> stranded(final NodeRuntime rt) {
    final Map<String, List<ActorCell>> out = new LinkedHashMap<>();
    final List<ActorCell> actors = new ArrayList<>(rt.actors.values());
    actors.sort(Comparator.comparing(a -> a.id));
    for (ActorCell a : actors) {
      final SpotCell m = a.membership;
      if (m != null && isPerActor(m) && m.state == CellState.GONE && a.state == CellState.READY
          && a.relocating == null) {
        out.computeIfAbsent(m.id, k -> new ArrayList<>()).add(a);
      }
    }
    return out;
  }

  /**
   * After the shell's CAS and hand-over: moves every member still here to {@code moved}'s node, each as its own
   * unit, then ends the source shell with {@code RELOCATION_OUT} when none is left. Blocks; virtual thread.
   *
   * @param rt the source node.
   * @param shell the Spot's cell here (GONE, following to the target).
   * @param moved the Spot on the target.
   * @param connection the ordered connection to the target.
   * @param paused the Spot's own pause.
   * @return the result: moved members and kept ones with their typed errors.
   */
  static SpotRelocationResult moveMembers(final NodeRuntime rt, final SpotCell shell, final SpotRef moved,
      final PeerConnection connection, final Duration paused) {
    final Map<ActorId, SpotkitException> kept = new LinkedHashMap<>();
    final List<ActorRef> movedMembers = moveAll(rt, shell, shell.members(), moved.nodeRid(), connection, kept);
    closeIfEmpty(rt, shell);
    return new SpotRelocationResult(moved, movedMembers.size(), paused, movedMembers, kept);
  }

  /**
   * Moves members left behind by an earlier move of their PerActor Spot ({@link #stranded}) to the node that owns
   * the Spot now. Blocks; virtual thread.
   *
   * @param rt the source node.
   * @param spotId the Spot.
   * @param target the node that owns the Spot now (checked against the Location Store).
   * @return the result: moved members and kept ones.
   * @throws SpotkitException.NotFound when no member of that Spot is stranded here.
   * @throws SpotkitException.InvalidOperation when the Location Store names another owner of the Spot.
   * @throws SpotkitException.Unavailable when the target cannot be reached or the store fails.
   */
  static SpotRelocationResult moveStranded(final NodeRuntime rt, final String spotId, final NodeRid target) {
    final List<ActorCell> members = stranded(rt).get(spotId);
    if (members == null || members.isEmpty()) {
      throw new SpotkitException.NotFound("no member of PerActor spot '" + spotId + "' is left on node "
          + rt.nodeRid());
    }
    final LocationRecords.Stored row = LocationRecords.read(rt.store().store(), ObjectKey.spot(spotId),
        STORE_TIMEOUT).orElseThrow(() -> new SpotkitException.NotFound("spot '" + spotId + "' has no location"
        + " record"));
    if (!row.authority().allocation().routingIdHex().equals(target.hex())) {
      throw new SpotkitException.InvalidOperation("spot '" + spotId + "' is owned by node "
          + row.authority().allocation().routingIdHex() + ", not " + target + "; its members left here follow it"
          + " there");
    }
    final PeerConnection connection = rt.mesh().connection(target, rt.mesh().endpointOf(rt.meshName().value(),
        target, "PerActor member move target"), Deadline.after(STORE_TIMEOUT));
    final SpotCell shell = members.get(0).membership;
    final Map<ActorId, SpotkitException> kept = new LinkedHashMap<>();
    final List<ActorRef> moved = moveAll(rt, shell, members, target, connection, kept);
    closeIfEmpty(rt, shell);
    return new SpotRelocationResult(new dev.spotkit.core.SpotRef(new dev.spotkit.core.SpotId(spotId),
        row.authority().objectGeneration(), rt.meshName(), target), moved.size(), Duration.ZERO, moved, kept);
  }

  /** Each member as its own unit, tried again while the target refused it before relay-ready. */
  private static List<ActorRef> moveAll(final NodeRuntime rt, final SpotCell shell, final List<ActorCell> members,
      final NodeRid target, final PeerConnection connection, final Map<ActorId, SpotkitException> kept) {
    final List<ActorRef> moved = new ArrayList<>();
    if (members.isEmpty()) {
      return moved;
    }
    final TargetFence fence;
    try {
      fence = fenceOf(rt, target);
    } catch (SpotkitException e) {
      members.forEach(m -> kept.put(m.actorId, e));
      return moved;
    }
    List<ActorCell> round = members;
    long pause = RETRY_PAUSE.toMillis();
    for (int attempt = 1; !round.isEmpty(); attempt++) {
      final Map<ActorCell, CompletableFuture<ActorRef>> moves = new LinkedHashMap<>();
      for (ActorCell member : round) {
        final CompletableFuture<ActorRef> move = new CompletableFuture<>();
        moves.put(member, move);
        member.control(() -> start(rt, shell, member, connection, target, fence, move));
      }
      final List<ActorCell> again = new ArrayList<>();
      for (Map.Entry<ActorCell, CompletableFuture<ActorRef>> e : moves.entrySet()) {
        final ActorCell member = e.getKey();
        try {
          moved.add(e.getValue().get(ROUND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS));
          kept.remove(member.actorId);
        } catch (ExecutionException failure) {
          final Throwable cause = RouteMesh.unwrap(failure.getCause());
          if (cause.getCause() == HostRelocations.NOT_STARTED) {
            kept.remove(member.actorId); // it left the Spot (its own join, destroyed): not this move's any more
            continue;
          }
          final SpotkitException typed = Cell.typed(cause, "move of member " + member.describe());
          kept.put(member.actorId, typed);
          if (servingHere(rt, shell, member) && attempt < MEMBER_ATTEMPTS && !rt.isClosing()) {
            again.add(member); // refused before relay-ready: restored here, nothing lost; try once more
          }
        } catch (TimeoutException failure) {
          kept.put(member.actorId, new SpotkitException.Unavailable("move of member " + member.describe()
              + " had no result in " + ROUND_TIMEOUT.toSeconds() + " s", failure));
        } catch (InterruptedException failure) {
          Thread.currentThread().interrupt();
          kept.put(member.actorId, new SpotkitException.Unavailable("move of member " + member.describe()
              + " was interrupted", failure));
        }
      }
      if (!again.isEmpty()) {
        try {
          Thread.sleep(pause); // a backoff between attempts of this move's own virtual thread
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
        pause *= 2;
      }
      round = again;
    }
    return moved;
  }

  /** Whether {@code member} still runs here as a member of the shell, in no move (its move was refused). */
  private static boolean servingHere(final NodeRuntime rt, final SpotCell shell, final ActorCell member) {
    return rt.actors.get(member.id) == member && member.state == CellState.READY && member.relocating == null
        && member.membership == shell;
  }

  /** The target host run, as a member's Restore names it (spec 001 section 4.1). */
  private static TargetFence fenceOf(final NodeRuntime rt, final NodeRid target) {
    final NodePeer peer = new NodeDirectory(rt.store().store(), STORE_TIMEOUT).readMesh(rt.meshName().value())
        .stream().filter(p -> p.routingIdHex().equals(target.hex())).findFirst().orElseThrow(() ->
            new SpotkitException.Unavailable("node " + target + " published no descriptor in mesh " + rt.meshName()
                + " (stopped, or not a member)"));
    return new TargetFence(Rids.of(target), peer.lifecycleGeneration(), peer.ownerId(),
        peer.leaseGeneration().value());
  }

  /** On the member's gate, at a turn boundary: its own move, as a host relocation's (no membership callback). */
  private static void start(final NodeRuntime rt, final SpotCell shell, final ActorCell actor,
      final PeerConnection connection, final NodeRid target, final TargetFence fence,
      final CompletableFuture<ActorRef> moved) {
    if (actor.type.policy() == NodeConfig.Policy.DISABLE) {
      moved.completeExceptionally(new SpotkitException.Rejected(actor.describe() + " is registered with"
          + " DisableRelocation; it stays on node " + rt.nodeRid()));
      return;
    }
    if (actor.state == CellState.READY && actor.barrierActive) {
      // MEM-16: its own join claimed the actor first; this move waits until that join reached its terminal state
      final Runnable before = actor.afterBarrier;
      actor.afterBarrier = () -> {
        if (before != null) {
          before.run();
        }
        start(rt, shell, actor, connection, target, fence, moved);
      };
      return;
    }
    if (rt.isClosing()) { // spec 001 section 9: shutdown sealed first, so no new relocation starts
      moved.completeExceptionally(rt.shuttingDown("relocation of " + actor.describe()));
      return;
    }
    if (actor.state != CellState.READY || actor.relocating != null || actor.membership != shell) {
      moved.completeExceptionally(new SpotkitException.Unavailable(actor.describe() + " is not a member of "
          + shell.describe() + " on this node any more, or cannot move now", HostRelocations.NOT_STARTED));
      return;
    }
    actor.mailbox.close(); // the turn boundary: no handler runs until the move ends or the source is restored
    rt.relocations().start(actor, null, moved, connection, target, fence, 0);
  }

  /**
   * Once no member is left here: the source shell ends, its Spot instance's {@code onClosing(RELOCATION_OUT)} runs
   * as a turn of its cell (spec 000 section 7). The shell's cell follows late messages to the target until its
   * Message Follow window ends. Idempotent per shell.
   */
  private static void closeIfEmpty(final NodeRuntime rt, final SpotCell shell) {
    shell.control(() -> {
      if (shell.members.isEmpty() && !shell.relocatedOut) {
        shell.relocatedOut = true;
        InstanceMoves.closedRelocatedOut(rt, shell);
      }
    });
  }
}
