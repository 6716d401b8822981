package dev.spotkit.core.internal.relocation;

import dev.spotkit.core.ActorId;
import dev.spotkit.core.ActorRef;
import dev.spotkit.core.Deadline;
import dev.spotkit.core.HostRelocationResult;
import dev.spotkit.core.NodeRid;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.core.internal.mesh.RouteMesh;
import dev.spotkit.core.internal.runtime.ActorCell;
import dev.spotkit.core.internal.runtime.Cell;
import dev.spotkit.core.internal.runtime.CellState;
import dev.spotkit.core.internal.runtime.NodeConfig;
import dev.spotkit.core.internal.runtime.NodeRuntime;
import dev.spotkit.core.location.NodeDirectory;
import dev.spotkit.core.location.NodePeer;
import dev.spotkit.core.mesh.PeerConnection;
import dev.spotkit.core.wire.Rids;
import dev.spotkit.relocation.wire.TargetFence;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Host relocation of the Entry Spot's actors to another node's Entry Spot ({@code MeshNode.relocate}): each actor
 * is sealed at a turn boundary on its own gate and handed to the same relocation driver as a cross-node join,
 * without an approval round trip (32 KiB chunks) and without membership callbacks (spec 000 section 4.2).
 */
public final class HostRelocations {

  /**
   * The cause of a move refused before it started because the actor is in another flow (its own join or move, not
   * READY, no longer an Entry Spot member): nothing was sealed or sent; a host drain reports it as LEFT.
   */
  static final Throwable NOT_STARTED = new Throwable("the move did not start", null, false, false) {
    private static final long serialVersionUID = 1L;
  };

  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);

  private HostRelocations() {
  }

  /**
   * Starts the host relocation.
   *
   * @param rt the node.
   * @param target the target node.
   * @return the result future (see {@code MeshNode.relocate}).
   */
  public static CompletableFuture<HostRelocationResult> relocate(final NodeRuntime rt, final NodeRid target) {
    return relocate(rt, target, null);
  }

  /**
   * Starts the host relocation of some Entry Spot actors (a host drain's batch for one target).
   *
   * @param rt the node.
   * @param target the target node.
   * @param only the actors to move, or null for every Entry Spot actor at this call.
   * @return the result future (see {@code MeshNode.relocate}).
   */
  public static CompletableFuture<HostRelocationResult> relocate(final NodeRuntime rt, final NodeRid target,
      final List<ActorCell> only) {
    if (target == null || target.equals(rt.nodeRid())) {
      return CompletableFuture.failedFuture(new SpotkitException.InvalidOperation("relocate needs another node as"
          + " target, not " + target));
    }
    final RouteMesh mesh = rt.mesh();
    if (mesh == null || rt.relocations() == null) {
      return CompletableFuture.failedFuture(new SpotkitException.NotConfigured("relocate needs a mesh: configure"
          + " MeshNode.builder().mesh(...)"));
    }
    if (rt.isClosing()) {
      return CompletableFuture.failedFuture(rt.shuttingDown("relocate"));
    }
    final List<ActorCell> actors = only != null ? List.copyOf(only)
        : rt.entry().members(); // the Entry Spot's actors at this call
    final TargetFence[] fence = new TargetFence[1];
    return rt.async(() -> {
      final NodePeer peer = new NodeDirectory(rt.store().store(), CONNECT_TIMEOUT).readMesh(rt.meshName().value())
          .stream().filter(p -> p.routingIdHex().equals(target.hex())).findFirst().orElseThrow(() ->
              new SpotkitException.Unavailable("node " + target + " published no descriptor in mesh "
                  + rt.meshName() + " (stopped, or not a member)"));
      fence[0] = new TargetFence(Rids.of(target), peer.lifecycleGeneration(), peer.ownerId(),
          peer.leaseGeneration().value());
      return mesh.connection(target, mesh.endpointOf(rt.meshName().value(), target, "host relocation target"),
          Deadline.after(CONNECT_TIMEOUT));
    }).thenCompose(connection -> {
          final List<CompletableFuture<ActorRef>> moves = new ArrayList<>();
          for (ActorCell actor : actors) {
            final CompletableFuture<ActorRef> moved = new CompletableFuture<>();
            moves.add(moved);
            actor.control(() -> start(rt, actor, connection, target, fence[0], moved));
          }
          return CompletableFuture.allOf(moves.toArray(CompletableFuture[]::new)).handle((v, f) -> {
            final List<ActorRef> relocated = new ArrayList<>();
            final Map<ActorId, SpotkitException> kept = new HashMap<>();
            for (int i = 0; i < actors.size(); i++) {
              final CompletableFuture<ActorRef> move = moves.get(i);
              if (move.isCompletedExceptionally()) {
                kept.put(actors.get(i).actorId, Cell.typed(RouteMesh.unwrap(move.exceptionNow()),
                    "relocation of " + actors.get(i).describe()));
              } else {
                relocated.add(move.join());
              }
            }
            return new HostRelocationResult(relocated, kept);
          });
        });
  }

  /** On the actor's gate, at a turn boundary. */
  private static void start(final NodeRuntime rt, final ActorCell actor, final PeerConnection connection,
      final NodeRid target, final TargetFence fence, final CompletableFuture<ActorRef> moved) {
    if (actor.type.policy() == NodeConfig.Policy.DISABLE) {
      moved.completeExceptionally(new SpotkitException.Rejected(actor.describe() + " is registered with"
          + " DisableRelocation"));
      return;
    }
    if (actor.state == CellState.READY && actor.barrierActive) {
      // MEM-16: the join claimed the actor first; this move waits until the join reached its terminal state.
      final Runnable before = actor.afterBarrier;
      actor.afterBarrier = () -> {
        if (before != null) {
          before.run();
        }
        start(rt, actor, connection, target, fence, moved);
      };
      return;
    }
    if (rt.isClosing()) { // spec 001 section 9: shutdown sealed first, so no new relocation starts
      moved.completeExceptionally(rt.shuttingDown("relocation of " + actor.describe()));
      return;
    }
    if (actor.state != CellState.READY || actor.relocating != null || actor.membership != rt.entry()) {
      moved.completeExceptionally(new SpotkitException.Unavailable(actor.describe() + " is not an Entry Spot"
          + " actor of this node any more, or cannot move now (moved or joined a User Spot, closing)",
          NOT_STARTED));
      return;
    }
    actor.mailbox.close(); // the turn boundary: no handler runs until the move ends or the source is restored
    rt.relocations().start(actor, null, moved, connection, target, fence, 0);
  }
}
