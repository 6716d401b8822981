package dev.spotkit.core.internal.join;

import dev.spotkit.core.JoinDecision;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.core.UserSpot;
import dev.spotkit.core.internal.mesh.RouteMesh;
import dev.spotkit.core.internal.relocation.Relocations;
import dev.spotkit.core.internal.runtime.Cell;
import dev.spotkit.core.internal.runtime.CellState;
import dev.spotkit.core.internal.runtime.NodeConfig;
import dev.spotkit.core.internal.runtime.NodeRuntime;
import dev.spotkit.core.internal.runtime.ReplyErrors;
import dev.spotkit.core.internal.runtime.SpotCell;
import dev.spotkit.core.location.AuthorityRecord;
import dev.spotkit.core.location.LocationKeys;
import dev.spotkit.core.location.NodeCapacityRecord;
import dev.spotkit.core.location.ObjectKey;
import dev.spotkit.core.location.StoreCalls;
import dev.spotkit.core.mesh.PeerConnection;
import dev.spotkit.core.wire.ActorJoin;
import dev.spotkit.core.wire.FailureCode;
import dev.spotkit.core.wire.Reply;
import dev.spotkit.core.wire.ReplyCodec;
import dev.spotkit.core.wire.ReplyTail;
import dev.spotkit.core.wire.TerminalResult;
import dev.spotkit.core.wire.WireSpotRef;
import dev.spotkit.relocation.wire.ApplicationPayload;
import dev.spotkit.store.ReadResult;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The target's answer to command 28 actorJoin (spec 000 section 4.2 step 2): the Spot must be a Ready User Spot
 * of the addressed generation, this node must have the actor's factory (the stable type comes from the actor's
 * authority row, never from the wire) and room for it; then OnActorJoin decides on the Spot's gate. Accepted
 * prepares the join (its reply and Spot, valid {@link Relocations#PREPARATION_VALIDITY}, MEM-27; a newer approval
 * replaces it, MEM-28) and advertises the receive chunk limit (MEM-29); Rejected keeps nothing (MEM-26).
 */
public final class JoinApprovals {

  private JoinApprovals() {
  }

  /** Target: command 28 approval. Event loop; the decision runs on the Spot's gate. */
  public static void onActorJoin(final Relocations r, final PeerConnection from, final ActorJoin m) {
    final NodeRuntime rt = r.runtime();
    final SpotCell spot = rt.spots.get(m.targetSpot().id());
    rt.async(() -> {
      if (rt.isClosing()) {
        throw new SpotkitException.Unavailable("node " + rt.nodeRid() + " is closing and takes no actor");
      }
      if (spot == null || spot.state != CellState.READY || spot.kind != NodeConfig.SpotKind.USER) {
        throw new SpotkitException.NotFound("spot '" + m.targetSpot().id() + "' is not a Ready User Spot on node "
            + rt.nodeRid());
      }
      if (spot.generation != m.targetSpot().generation()) {
        throw new SpotkitException.StaleGeneration("spot '" + spot.id + "' has generation " + spot.generation
            + ", the join addressed " + m.targetSpot().generation());
      }
      // the actor's row and this node's capacity record in one request (one round trip); the row's stable type is
      // its own whether or not it follows a SpotWide aggregate, so the aggregate is not read
      final List<ReadResult> reads = StoreCalls.await(rt.store().store().readAll(List.of(
          ObjectKey.actor(m.actor().id()).logicalKey().preimage(), LocationKeys.nodeCapacity(rt.meshName().value(),
          rt.nodeRid().hex()).preimage())), Duration.ofSeconds(5), "read of the actor's row and capacity record");
      if (!(reads.get(0) instanceof ReadResult.Found row)) {
        throw new SpotkitException.NotFound("actor '" + m.actor().id() + "' has no location record");
      }
      final String stableType = AuthorityRecord.decode(row.value()).allocation().stableType();
      if (!rt.config().actorTypes().containsKey(stableType)) {
        throw new SpotkitException.Unavailable("node " + rt.nodeRid() + " has no factory for actor type '"
            + stableType + "'");
      }
      if (reads.get(1) instanceof ReadResult.Found found) {
        final Optional<String> full = NodeCapacityRecord.decode(found.value()).whyFull(
            AuthorityRecord.Capacity.actor());
        if (full.isPresent()) {
          throw new SpotkitException.CapacityExceeded("node " + rt.nodeRid() + " is full: " + full.get());
        }
      }
      return m.payload() == null ? null : rt.copier().decode(m.payload());
    }).whenComplete((request, failure) -> {
      if (failure != null) {
        from.send(ReplyCodec.encode(ReplyErrors.toReply(m.correlation(), Cell.typed(RouteMesh.unwrap(failure),
            "join approval"))));
        return;
      }
      spot.admitAfterQueuedLeave(m.actor().id(), () -> decide(r, from, m, spot, request)); // after its leave here
    });
  }

  private static void decide(final Relocations r, final PeerConnection from, final ActorJoin m,
      final SpotCell spot, final Object request) {
    final NodeRuntime rt = r.runtime();
    Reply reply;
    try {
      if (spot.aggregateSealed) { // spec 000 section 7 step 1: join/leave sealed during an aggregate move
        throw new SpotkitException.Unavailable(spot.describe() + " is sealed for a move to another node; retry");
      }
      final Throwable[] failed = new Throwable[1];
      final JoinDecision decision = spot.runCallback("onActorJoin of " + spot.describe(), false,
          () -> ((UserSpot<?>) spot.spot).onActorJoin(new dev.spotkit.core.ActorId(m.actor().id()), request), failed);
      if (decision == null) {
        throw new SpotkitException.InternalFailure("onActorJoin of " + spot.describe() + (failed[0] == null
            ? " returned null" : " threw " + failed[0]), failed[0]);
      }
      final WireSpotRef ref = new WireSpotRef(spot.id, spot.generation);
      final ApplicationPayload answer = decision.reply().isEmpty() ? null
          : rt.copier().encodeForPeer("join reply", decision.reply().get(), Joins.MAX_REQUEST_BYTES, true);
      if (decision instanceof JoinDecision.Reject) {
        final Relocations.Prepared old = r.prepared.remove(m.actor().id()); // MEM-26: nothing stays prepared
        if (old != null) {
          old.release(m.actor().id());
        }
        reply = new Reply(m.correlation(), TerminalResult.OK, FailureCode.NONE,
            new ReplyTail.ActorJoinRejected(ref), answer);
      } else {
        // Spec 000 section 4.2 step 2: prepared during approval; a newer approval replaces it (MEM-28).
        // Spec 000 (close "checks active Actor membership and relocation state before admission"): the Spot's close
        // is refused from now until this join commits (a member then), fails, or its approval expires.
        final java.time.Duration validity = Relocations.preparationValidity();
        final Relocations.Prepared prepared = new Relocations.Prepared(spot, decision.reply(),
            System.nanoTime() + validity.toNanos());
        spot.admittedJoins.put(m.actor().id(), prepared);
        final Relocations.Prepared old = r.prepared.put(m.actor().id(), prepared);
        if (old != null) {
          old.release(m.actor().id());
        }
        // MEM-27: a preparation whose move never starts is removed once its validity passed.
        rt.relocationScheduler().schedule(() -> {
          if (r.prepared.remove(m.actor().id(), prepared)) {
            prepared.release(m.actor().id());
          }
        }, validity.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        reply = new Reply(m.correlation(), TerminalResult.OK, FailureCode.NONE,
            new ReplyTail.ActorJoinAccepted(ref, 1, Relocations.RECEIVE_CHUNK_LIMIT), answer);
      }
    } catch (SpotkitException e) {
      reply = ReplyErrors.toReply(m.correlation(), e);
    }
    from.send(ReplyCodec.encode(reply));
  }
}
