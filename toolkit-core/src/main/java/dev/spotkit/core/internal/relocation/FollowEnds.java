package dev.spotkit.core.internal.relocation;

import dev.spotkit.core.NodeRid;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.core.internal.runtime.NodeRuntime;
import dev.spotkit.core.location.LocationRecords;
import dev.spotkit.core.location.ObjectKey;
import java.util.Optional;

/**
 * The early end of a Message Follow whose committed target is gone for good, shared by a moved actor's follow
 * ({@link RelocationSource}) and a moved room's participants ({@link AggregateFollow}: SpotWide rooms and their
 * members, a PerActor shell). Not API.
 *
 * <p>Once the move's ordered connection closed, a follow re-routes each message through the Location Store by ref
 * (the moved incarnation's ObjectGeneration), so work for the moved incarnation never reaches a later one. When the
 * target died after its commit, the store names it until its owner lease lapsed and crash recovery swept its row
 * ({@code MeshNode.Builder#recreateAfterOwnerLoss}); until then the object is unavailable (spec 000 section 8,
 * spec 001 section 9) and so is every re-routed message. After that the row is gone or holds a new incarnation
 * (a higher ObjectGeneration): the follow has nothing left to follow, and kept for the rest of its 30 s (spec 002
 * section 7.3) it would answer every sender here StaleGeneration or NotFound. {@link #afterRerouteFailed} ends it
 * then, so later work resolves by the Location Store with its own address, as any sender's: by id it reaches the
 * new incarnation, by an old ref it is refused StaleGeneration. An Instance Spot's follow ends on the same
 * condition through its crash recovery, which also sweeps ({@code AggregateMoves#followInstance}).
 */
final class FollowEnds {

  private FollowEnds() {
  }

  /**
   * A followed message could not be re-routed to the moved incarnation: reads its row once and, when that
   * incarnation ended (row gone, or another ObjectGeneration in it), runs {@code end} and answers the message
   * {@link SpotkitException.Unavailable} (a resend resolves by the Location Store; the message itself does not say
   * whether its sender addressed the object by id or by ref, so it is not delivered to the new incarnation). While
   * the row still holds the moved incarnation (its owner may be alive, or its lease has not lapsed yet), or the
   * store does not answer, the follow goes on and {@code failure} is the answer. Blocks for one store read of at
   * most {@link Relocations#STORE_CALL_TIMEOUT}; virtual threads only.
   *
   * @param rt the node.
   * @param key the object's authority key.
   * @param generation the moved incarnation's ObjectGeneration.
   * @param describe the object with its generation ({@code Cell#describe}), for messages.
   * @param target the node the move committed to, for messages.
   * @param failure why the re-route failed.
   * @param end ends the follow (removes what routes work here into it); runs at most once per call.
   * @return the error for the message: {@code failure}, or the Unavailable saying the follow ended.
   */
  static SpotkitException afterRerouteFailed(final NodeRuntime rt, final ObjectKey key, final long generation,
      final String describe, final NodeRid target, final SpotkitException failure, final Runnable end) {
    final Optional<LocationRecords.Stored> row;
    try {
      row = LocationRecords.read(rt.store().store(), key, Relocations.STORE_CALL_TIMEOUT);
    } catch (RuntimeException unreadable) {
      failure.addSuppressed(unreadable);
      return failure; // unknown: the follow goes on (spec 001 section 9: no guess)
    }
    if (row.isPresent() && row.get().authority().objectGeneration().value() == generation) {
      return failure; // the moved incarnation still owns the row: unavailable while its owner's lease runs
    }
    end.run();
    final String now = row.isEmpty() ? "its location record is gone"
        : "its location record holds generation " + row.get().authority().objectGeneration().value();
    NodeRuntime.LOG.info("{} moved to node {}, which cannot be reached, and {}: its Message Follow ended early,"
        + " senders resolve it by the Location Store", describe, target, now);
    return new SpotkitException.Unavailable(describe + " moved to node " + target + ", which cannot be reached,"
        + " and " + now + ": its Message Follow here ended; send again to resolve it by the Location Store (spec"
        + " 000 section 8)", failure);
  }
}
