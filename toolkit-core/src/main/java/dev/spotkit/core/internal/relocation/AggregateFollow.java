package dev.spotkit.core.internal.relocation;

import dev.spotkit.core.ActorRef;
import dev.spotkit.core.NodeRid;
import dev.spotkit.core.ObjectGeneration;
import dev.spotkit.core.SpotId;
import dev.spotkit.core.SpotRef;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.core.internal.runtime.ActorCell;
import dev.spotkit.core.internal.runtime.Address;
import dev.spotkit.core.internal.runtime.Cell;
import dev.spotkit.core.internal.runtime.Envelope;
import dev.spotkit.core.internal.runtime.Messaging;
import dev.spotkit.core.internal.runtime.NodeRuntime;
import dev.spotkit.core.internal.runtime.SpotCell;
import dev.spotkit.core.location.ObjectKey;
import dev.spotkit.core.mesh.PeerConnection;
import dev.spotkit.core.wire.ApplicationMessage;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Message Follow of the participants of a SpotWide aggregate that moved away (spec 000 section 9): what their GONE
 * cells still receive goes to the target on the move's ordered connection, and through the mesh's routing once that
 * connection closed. Holds each participant's address only, never its cell.
 */
final class AggregateFollow {

  private AggregateFollow() {
  }

  /**
   * Where a participant's later work follows: its address on the target, its description for errors, and, once the
   * move's connection closed, the tail of its re-routed work (written under the cell's ingress lock).
   */
  record Target(ObjectKey key, ApplicationMessage.TargetKind kind, String id, long generation,
      String describe, Address address, AtomicReference<CompletableFuture<Void>> rerouted) {
  }

  /** Where {@code c}'s later work follows, with {@code rerouted} as the tail of its re-routed work. */
  static Target target(final Cell c, final AtomicReference<CompletableFuture<Void>> rerouted) {
    final ApplicationMessage.TargetKind kind = c instanceof SpotCell ? ApplicationMessage.TargetKind.SPOT
        : ApplicationMessage.TargetKind.ACTOR;
    return new Target(c.key, kind, c.id, c.generation, c.describe(), address(c), rerouted);
  }

  /** The participant by ref (its ObjectGeneration), so a re-routed message never reaches a later incarnation. */
  private static Address address(final Cell c) {
    final ObjectGeneration generation = new ObjectGeneration(c.generation);
    return c instanceof ActorCell a
        ? new Address.ActorByRef(new ActorRef(a.actorId, generation, c.runtime().meshName(), c.runtime().nodeRid()))
        : new Address.SpotByRef(new SpotRef(new SpotId(c.id), generation, c.runtime().meshName(),
            c.runtime().nodeRid()));
  }

  /**
   * One envelope of a moved participant to its target, under the cell's ingress lock: on the move's ordered
   * connection while it is open; once it closed (the target restarted its listener, a network cut), through the
   * mesh's routing to the owner the Location Store names, dialled off this lock, one message after the other in
   * the order they came (spec 000 section 9: Message Follow loses nothing it can still deliver).
   */
  static void follow(final NodeRuntime rt, final PeerConnection connection,
      final Target to, final Envelope e) {
    switch (e) {
      case Envelope.Msg msg -> {
        rt.metrics().followForward();
        if (to.rerouted().get() == null && connection.isOpen()) {
          try {
            rt.mesh().sendOn(connection, to.key(), to.kind(), to.id(), to.generation(), 1, msg);
            return;
          } catch (SpotkitException.Unavailable closedMeanwhile) {
            // re-routed below, behind nothing: this is the first message the closed connection refused
          }
        }
        final CompletableFuture<Void> before = to.rerouted().get();
        to.rerouted().set((before == null ? CompletableFuture.<Void>completedFuture(null) : before)
            .handle((v, ignored) -> null).thenCompose(v -> rt.async(() -> {
              reroute(rt, to, connection.peerRid(), msg);
              return null;
            })));
      }
      case Envelope.Marker marker -> marker.task().run();
      case Envelope.Tick tick -> { }
      case Envelope.Frame frame -> follow(rt, connection, to, frame.link().leaving(frame));
    }
  }

  /**
   * Sends a followed message through the mesh's routing (store lookup, dial); a failure is the sender's. When the
   * moved incarnation is gone for good (its target died after the commit and crash recovery swept its row), the
   * follow ends here ({@link FollowEnds}).
   */
  private static void reroute(final NodeRuntime rt, final Target to, final NodeRid target, final Envelope.Msg msg) {
    try {
      rt.mesh().forward(to.address(), msg);
    } catch (SpotkitException rerouteFailed) {
      final SpotkitException failure = FollowEnds.afterRerouteFailed(rt, to.key(), to.generation(), to.describe(),
          target, rerouteFailed, () -> endFollow(rt, to, target));
      if (msg.reply() != null) {
        msg.reply().fail(failure);
      } else {
        rt.deadLetters().record("aggregate-follow", "one-way message for " + to.describe() + " dropped: "
            + failure.getMessage());
      }
    }
  }

  /** Removes the participant's follow of its move to {@code target} (not a later one's): work goes by the store. */
  private static void endFollow(final NodeRuntime rt, final Target to, final NodeRid target) {
    rt.relocations().aggregateFollows.computeIfPresent(Messaging.followKey(to.address()), (k, followed) ->
        followed.target().equals(target) && followed.generation() == to.generation() ? null : followed);
  }
}
