package dev.spotkit.relocation;

import java.util.Objects;

/**
 * The relocation identity that binds a Restore request, its chunks, relay, cutover and the target's CAS to one
 * move (spec 001 section 3): RelocationId, targetAttemptGeneration and coordinator fence. Attribution is by
 * equality of all three plus the connection that carried the frame, never by arrival order (section 11).
 *
 * @param id the RelocationId.
 * @param targetAttemptGeneration non-zero; compared for equality only, never ordered (spec 002 section 8.1).
 * @param coordinatorFence the current-owner value the coordinator expects, opaque here (non-empty).
 */
public record RelocationIdentity(RelocationId id, long targetAttemptGeneration, String coordinatorFence) {
  /**
   * Validates the identity.
   *
   * @throws IllegalArgumentException when the attempt generation is zero or the fence is empty.
   * @throws NullPointerException when {@code id} or {@code coordinatorFence} is null.
   */
  public RelocationIdentity {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(coordinatorFence, "coordinatorFence");
    if (targetAttemptGeneration == 0) {
      throw new IllegalArgumentException("targetAttemptGeneration must be non-zero (spec 001 section 3)");
    }
    if (coordinatorFence.isEmpty()) {
      throw new IllegalArgumentException("coordinatorFence must be non-empty (spec 001 section 3)");
    }
  }
}
