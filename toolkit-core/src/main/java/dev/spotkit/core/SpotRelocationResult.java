package dev.spotkit.core;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The result of {@link MeshNode#relocateSpot(SpotId, NodeRid)} (spec 000 section 7): a SpotWide User Spot and every
 * member it had at the seal now run on the target node; or a PerActor User Spot's authority moved to the target and
 * then each of its members moved as its own unit; or an Instance Spot moved as one Actor-less unit.
 *
 * @param spot the Spot on the target node: same SpotId and ObjectGeneration, the target's MeshName and NodeRid.
 * @param members how many member Actors moved with it, 0 or more: for a SpotWide room the participants at the seal
 *     less the Spot; for a PerActor User Spot the members whose own move committed ({@code movedMembers().size()}).
 * @param paused from the seal at the room's turn boundary on the source to the commit's answer there, as measured
 *     on the source's monotonic clock: the longest time a participant handled no message (non-negative). For a
 *     PerActor User Spot it is the Spot's own pause (its members pause one by one, each only for its own move).
 * @param movedMembers the member Actors that moved, each with the target's NodeRid (same ActorId and
 *     ObjectGeneration), in no particular order; empty for an Instance Spot.
 * @param keptMembers the members of a PerActor User Spot whose own move did not commit, by ActorId, each with its
 *     typed error (the target refused it before relay-ready: it stays on the source node, owned there alone, and
 *     serves there; or it passed relay-ready without a commit: Unavailable). Always empty for a SpotWide room and an
 *     Instance Spot (they move all or nothing). While it is not empty the source keeps the Spot's shell open for the
 *     kept members (no {@link ClosingReason#RELOCATION_OUT} yet).
 */
public record SpotRelocationResult(SpotRef spot, int members, Duration paused, List<ActorRef> movedMembers,
    Map<ActorId, SpotkitException> keptMembers) {
  /**
   * Checks and copies the parts.
   *
   * @throws NullPointerException when a part is null.
   * @throws IllegalArgumentException when {@code members} or {@code paused} is negative.
   */
  public SpotRelocationResult {
    Objects.requireNonNull(spot, "spot");
    Objects.requireNonNull(paused, "paused");
    movedMembers = List.copyOf(Objects.requireNonNull(movedMembers, "movedMembers"));
    keptMembers = Map.copyOf(Objects.requireNonNull(keptMembers, "keptMembers"));
    if (members < 0 || paused.isNegative()) {
      throw new IllegalArgumentException("members " + members + " and paused " + paused + " must not be negative");
    }
  }

  /**
   * A result without the member lists (the shape before PerActor User Spots moved).
   *
   * @param spot the Spot on the target node.
   * @param members how many member Actors moved with it.
   * @param paused the pause.
   * @throws NullPointerException when a part is null.
   * @throws IllegalArgumentException when {@code members} or {@code paused} is negative.
   */
  public SpotRelocationResult(final SpotRef spot, final int members, final Duration paused) {
    this(spot, members, paused, List.of(), Map.of());
  }
}
