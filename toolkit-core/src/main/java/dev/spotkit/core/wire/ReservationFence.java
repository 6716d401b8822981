package dev.spotkit.core.wire;

import dev.spotkit.relocation.wire.Rid;
import dev.spotkit.relocation.wire.WireIn;
import dev.spotkit.relocation.wire.WireOut;

/**
 * The placement reservation a coordinator secured before sending command 47 or 49 ({@code
 * object-reservation-fence}; spec 002 section 7, spec 000 section 2): the target checks each value against
 * the Creating record it reads from the Location Store before it runs a factory.
 *
 * @param reservationId the reservation's id, text8.
 * @param expectedStoreVersion StoreVersion of the Creating record, UTF-8 1..4096 bytes.
 * @param objectGeneration ObjectGeneration issued by Reserve, non-zero.
 * @param authorityOwnerGeneration AuthorityOwnerGeneration issued by Reserve, non-zero.
 * @param targetNodeRid the target node the reservation names.
 * @param targetNodeGeneration the target's lifecycle (host run) generation, non-zero.
 * @param targetOwnerId the target's OwnerId, text8.
 * @param targetOwnerLeaseGeneration the target's LeaseGeneration, non-zero.
 * @param pendingCapacityDelta capacity units reserved, 1..4294967295 (nonzero-u32).
 */
public record ReservationFence(String reservationId, String expectedStoreVersion, long objectGeneration,
    long authorityOwnerGeneration, Rid targetNodeRid, long targetNodeGeneration, String targetOwnerId,
    long targetOwnerLeaseGeneration, long pendingCapacityDelta) {

  /** Largest nonzero-u32. */
  static final long U32_MAX = 0xFFFF_FFFFL;

  /**
   * Validates the values.
   *
   * @throws dev.spotkit.core.SpotkitException.InvalidOperation naming the bad field.
   */
  public ReservationFence {
    Checks.RULES.text8("reservationId", reservationId);
    Checks.RULES.storeVersion("expectedStoreVersion", expectedStoreVersion);
    Checks.RULES.positive("objectGeneration", objectGeneration);
    Checks.RULES.positive("authorityOwnerGeneration", authorityOwnerGeneration);
    Checks.RULES.present("targetNodeRid", targetNodeRid);
    Checks.RULES.positive("targetNodeGeneration", targetNodeGeneration);
    Checks.RULES.text8("targetOwnerId", targetOwnerId);
    Checks.RULES.positive("targetOwnerLeaseGeneration", targetOwnerLeaseGeneration);
    Checks.RULES.u32("pendingCapacityDelta", pendingCapacityDelta, 1, U32_MAX);
  }

  static ReservationFence read(final WireIn in, final String f) {
    final String reservationId = in.text8(f + ".reservationId");
    final String storeVersion = in.storeVersion(f + ".expectedStoreVersion");
    final long objectGeneration = in.nonZeroU64(f + ".objectGeneration");
    final long authorityOwnerGeneration = in.nonZeroU64(f + ".authorityOwnerGeneration");
    final Rid targetNodeRid = in.rid(f + ".targetNodeRid");
    final long targetNodeGeneration = in.nonZeroU64(f + ".targetNodeGeneration");
    final String targetOwnerId = in.text8(f + ".targetOwnerId");
    final long leaseGeneration = in.nonZeroU64(f + ".targetOwnerLeaseGeneration");
    final long delta = in.u32(f + ".pendingCapacityDelta", 1, U32_MAX);
    return new ReservationFence(reservationId, storeVersion, objectGeneration, authorityOwnerGeneration,
        targetNodeRid, targetNodeGeneration, targetOwnerId, leaseGeneration, delta);
  }

  void writeTo(final WireOut out) {
    out.text8(reservationId);
    out.storeVersion(expectedStoreVersion);
    out.u64(objectGeneration);
    out.u64(authorityOwnerGeneration);
    out.rid(targetNodeRid);
    out.u64(targetNodeGeneration);
    out.text8(targetOwnerId);
    out.u64(targetOwnerLeaseGeneration);
    out.u32(pendingCapacityDelta);
  }
}
