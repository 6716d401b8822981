package dev.spotkit.core;

import java.time.Duration;
import java.util.Objects;

/**
 * The result of {@link MeshNode#relocateSpot(SpotId, NodeRid)}: a SpotWide User Spot and every member it had at the
 * seal now run on the target node (spec 000 section 7).
 *
 * @param spot the Spot on the target node: same SpotId and ObjectGeneration, the target's MeshName and NodeRid.
 * @param members how many member Actors moved with it (the participants at the seal, less the Spot), 0 or more.
 * @param paused from the seal at the room's turn boundary on the source to the commit's answer there, as measured
 *     on the source's monotonic clock: the longest time a participant handled no message (non-negative).
 */
public record SpotRelocationResult(SpotRef spot, int members, Duration paused) {
  /**
   * Checks the parts.
   *
   * @throws NullPointerException when a part is null.
   * @throws IllegalArgumentException when {@code members} or {@code paused} is negative.
   */
  public SpotRelocationResult {
    Objects.requireNonNull(spot, "spot");
    Objects.requireNonNull(paused, "paused");
    if (members < 0 || paused.isNegative()) {
      throw new IllegalArgumentException("members " + members + " and paused " + paused + " must not be negative");
    }
  }
}
