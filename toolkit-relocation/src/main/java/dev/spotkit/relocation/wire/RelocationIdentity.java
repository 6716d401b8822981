package dev.spotkit.relocation.wire;

/**
 * The relocation identity of spec 001 section 3, the prefix every relocation body starts with (commands 30, 31,
 * 34, 40, 52, 53). Attribution of a prepare, chunk or CAS is decided only by this value and the connection that
 * carried it (spec 001 sections 3, 4.3 and 11). Layout:
 *
 * <pre>
 *   relocationId             u64 high, u64 low (not both zero)     16 bytes
 *   targetAttemptGeneration  nonzero-u64                            8 bytes
 *   coordinatorFence         see {@link CoordinatorFence}
 * </pre>
 *
 * @param relocationId the RelocationId.
 * @param targetAttemptGeneration the target preparation attempt within the RelocationId, 1..2^63-1.
 * @param coordinatorFence the current-owner value the coordinator expects.
 */
public record RelocationIdentity(RelocationId relocationId, long targetAttemptGeneration,
    CoordinatorFence coordinatorFence) {

  /**
   * Validates.
   *
   * @throws IllegalArgumentException when a part is null or the attempt generation is not positive.
   */
  public RelocationIdentity {
    Fields.present("relocationId", relocationId);
    Fields.positive("targetAttemptGeneration", targetAttemptGeneration);
    Fields.present("coordinatorFence", coordinatorFence);
  }

  void writeTo(final WireOut out) {
    relocationId.writeTo(out);
    out.u64(targetAttemptGeneration);
    coordinatorFence.writeTo(out);
  }

  static RelocationIdentity read(final WireIn in) {
    final RelocationId id = RelocationId.read(in, "relocationId");
    final long attempt = in.nonZeroU64("targetAttemptGeneration");
    final CoordinatorFence fence = CoordinatorFence.read(in, "coordinatorFence");
    return new RelocationIdentity(id, attempt, fence);
  }
}
