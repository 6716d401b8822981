package dev.spotkit.core.internal.runtime;

import dev.spotkit.core.internal.mesh.RouteMesh;
import dev.spotkit.core.internal.mesh.WireDeadlines;
import dev.spotkit.core.wire.Rids;

import dev.spotkit.core.ActorRef;
import dev.spotkit.core.Deadline;
import dev.spotkit.core.OperationId;
import dev.spotkit.core.SpotRef;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.core.location.ObjectKey;
import dev.spotkit.core.mesh.PeerConnection;
import dev.spotkit.core.wire.ActorDestroy;
import dev.spotkit.relocation.wire.ApplicationPayload;
import dev.spotkit.core.wire.FailureCode;
import dev.spotkit.core.wire.OperationKind;
import dev.spotkit.core.wire.Reply;
import dev.spotkit.core.wire.ReplyTail;
import dev.spotkit.core.wire.TerminalResult;
import dev.spotkit.core.wire.UserSpotClose;
import dev.spotkit.core.wire.UserSpotCloseCodec;
import dev.spotkit.core.wire.UserSpotCloseFence;
import dev.spotkit.core.wire.WireActorRef;
import dev.spotkit.core.wire.WireSpotRef;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Destroy and Close of objects owned by another node (spec 000 section 2, spec 002 section 7): the caller
 * resolves the owner from the authority record (absent: false; another generation: StaleGeneration), then
 * sends command 61 (Actor destroy, Spotkit-defined) or command 48 (User Spot close) fixed to the owner node,
 * the AuthorityOwnerGeneration and StoreVersion it read; the owner checks them against its live incarnation
 * and answers with one command 20.
 */
final class RemoteLifecycle {
  private final NodeRuntime rt;

  RemoteLifecycle(final NodeRuntime rt) {
    this.rt = rt;
  }

  /** Destroy of an actor that is not on this node. */
  CompletableFuture<Boolean> destroyActor(final ActorRef ref, final Deadline deadline) {
    final RouteMesh mesh = rt.mesh();
    final Optional<RouteMesh.Located> at = mesh.locate(ObjectKey.actor(ref.id().value()));
    if (at.isEmpty()) {
      return CompletableFuture.completedFuture(false);
    }
    final RouteMesh.Located located = checked(at.get(), ref.generation().value(), "actor '" + ref.id() + "'");
    if (located.owner().equals(rt.nodeRid())) {
      return CompletableFuture.completedFuture(false); // recorded here, but no live cell: on its way out
    }
    final long aog = located.stored().authority().authorityOwnerGeneration().value();
    return mesh.call(located.owner(), located.meshName().value(), correlation -> new ActorDestroy(correlation,
        new WireActorRef(ref.id().value(), located.generation()), Rids.of(located.owner()), aog,
        WireDeadlines.unixMs(deadline)).encode(), OperationKind.ACTOR_DESTROY, deadline, "destroy of actor '"
        + ref.id() + "'").thenApply(reply -> Boolean.parseBoolean(text(reply)));
  }

  /** Close of a User Spot that is not on this node (command 48). */
  CompletableFuture<Boolean> closeSpot(final SpotRef ref, final Deadline deadline) {
    final RouteMesh mesh = rt.mesh();
    final Optional<RouteMesh.Located> at = mesh.locate(ObjectKey.spot(ref.id().value()));
    if (at.isEmpty()) {
      return CompletableFuture.completedFuture(false);
    }
    final RouteMesh.Located located = checked(at.get(), ref.generation().value(), "spot '" + ref.id() + "'");
    if (located.owner().equals(rt.nodeRid())) {
      return CompletableFuture.completedFuture(false);
    }
    final UserSpotCloseFence fence = new UserSpotCloseFence(new WireSpotRef(ref.id().value(), located.generation()),
        Rids.of(located.owner()), located.stored().authority().allocation().descriptorLifecycleGeneration(),
        located.stored().authority().authorityOwnerGeneration().value(), located.stored().version().value());
    final dev.spotkit.relocation.wire.OperationId operation = dev.spotkit.core.wire.OperationIds.wire(
        OperationId.random());
    return mesh.call(located.owner(), located.meshName().value(), correlation -> UserSpotCloseCodec.encode(
        new UserSpotClose(correlation, operation, Rids.of(rt.nodeRid()), rt.store().lifecycleGeneration(), fence,
            WireDeadlines.unixMs(deadline))), OperationKind.USER_SPOT_CLOSE, deadline, "close of spot '" + ref.id()
        + "'").thenApply(reply -> reply.tail() instanceof ReplyTail.UserSpotClosed closed && closed.closed());
  }

  private static RouteMesh.Located checked(final RouteMesh.Located at, final long wanted, final String what) {
    if (at.generation() != wanted) {
      throw new SpotkitException.StaleGeneration("ref of " + what + " has generation " + wanted + " but the live"
          + " incarnation has generation " + at.generation() + "; refused (spec 000 section 2)");
    }
    return at;
  }

  private static String text(final Reply reply) {
    return reply.payload() == null ? "false" : new String(reply.payload().payload(), StandardCharsets.UTF_8);
  }

  // ------------------------------------------------------------------ owner side (on a mesh event loop)

  /** Command 61 on the owner: destroy the live incarnation when it still matches. */
  void onActorDestroy(final PeerConnection from, final byte[] frame) {
    final ActorDestroy m = ActorDestroy.decode(frame);
    CompletableFuture<Boolean> result;
    try {
      final ActorCell cell = rt.actors.get(m.actor().actorId());
      if (!m.targetNodeRid().equals(Rids.of(rt.nodeRid())) || cell == null || cell.storeRecord == null
          || cell.storeRecord.authorityOwnerGeneration() != m.expectedAuthorityOwnerGeneration()) {
        result = CompletableFuture.completedFuture(false); // not this owner's incarnation any more
      } else {
        result = rt.lifecycle().destroyActor(new ActorRef(cell.ref().id(), new dev.spotkit.core.ObjectGeneration(
            m.actor().objectGeneration()), rt.meshName(), rt.nodeRid()),
            WireDeadlines.deadlineOf(m.deadlineUnixMs()));
      }
    } catch (SpotkitException e) {
      result = CompletableFuture.failedFuture(e);
    }
    RouteMesh.answer(from, m.correlation(), result, destroyed -> new Reply(m.correlation(), TerminalResult.OK,
        FailureCode.NONE, ReplyTail.Empty.INSTANCE, new ApplicationPayload("boolean", "application/json",
        String.valueOf(destroyed).getBytes(StandardCharsets.UTF_8))));
  }

  /** Command 48 on the owner (LOC-12): the fence must match the live incarnation and its row. */
  void onUserSpotClose(final PeerConnection from, final byte[] frame) {
    final UserSpotClose m = UserSpotCloseCodec.decode(frame);
    final UserSpotCloseFence fence = m.target();
    CompletableFuture<Boolean> result;
    try {
      final SpotCell cell = rt.spots.get(fence.spot().spotId());
      if (!fence.targetNodeRid().equals(Rids.of(rt.nodeRid()))
          || !m.sourceNodeRid().equals(Rids.of(from.peerRid())) || m.sourceNodeGeneration() != from.peerGeneration()
          || fence.targetNodeGeneration() != rt.store().lifecycleGeneration()
          || cell == null || cell.storeRecord == null
          || cell.storeRecord.authorityOwnerGeneration() != fence.expectedAuthorityOwnerGeneration()
          || !cell.storeVersion.value().equals(fence.expectedStoreVersion())) {
        result = CompletableFuture.completedFuture(false);
      } else {
        result = rt.lifecycle().closeSpot(new SpotRef(cell.ref().id(), new dev.spotkit.core.ObjectGeneration(
            fence.spot().objectGeneration()), rt.meshName(), rt.nodeRid()),
            WireDeadlines.deadlineOf(m.deadlineUnixMs()));
      }
    } catch (SpotkitException e) {
      result = CompletableFuture.failedFuture(e);
    }
    RouteMesh.answer(from, m.correlation(), result, closed -> Reply.ok(m.correlation(),
        new ReplyTail.UserSpotClosed(closed)));
  }
}
