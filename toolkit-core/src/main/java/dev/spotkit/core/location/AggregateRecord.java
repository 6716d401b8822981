package dev.spotkit.core.location;

import dev.spotkit.store.StoreBytes;
import java.util.Objects;

/**
 * The aggregate authority of a SpotWide User Spot (spec 000 section 7; spec 002 section 8.1 "SpotWide User Spot
 * whole-move record"), stored at {@link LocationKeys#aggregate} without expiry. It holds only what the spec lists:
 * the AggregateId and generation of the last committed move, the participant count, the inventory root and digest
 * ({@link InventoryTree}), and the owner. A member Actor whose row points at the aggregate ({@link AggregatePointer})
 * has this record's owner as its owner, so one CAS of this record moves the Spot and every such member
 * ({@link AggregateAuthority#commit}).
 *
 * <p>Canonical JSON field order: recordVersion, spotId, stableType, spotObjectGeneration, aggregateId (32 lowercase
 * hex, non-zero),
 * aggregateGeneration, participantCount, inventoryRoot, inventoryDigest, ownerId, ownerLeaseGeneration,
 * authorityOwnerGeneration, descriptor {meshName, routingIdHex}, descriptorLifecycleGeneration. 64-bit values are
 * decimal strings.
 *
 * @param spotId the SpotId.
 * @param stableType the Spot's stable type (its capacity slot type).
 * @param spotObjectGeneration the ObjectGeneration of the Spot incarnation this aggregate belongs to: a record left by
 *     an earlier incarnation of the same SpotId (not removed because its node stopped abruptly) is replaced, never
 *     followed.
 * @param aggregateId the 128-bit id of the move that produced this state, as 32 lowercase hex, never all zero.
 * @param aggregateGeneration 1 when the aggregate was first recorded, plus one per committed move.
 * @param participantCount the entries of the inventory: the Spot and its member Actors.
 * @param inventoryRoot the SHA-256 of the inventory's root chunk.
 * @param inventoryDigest the inventory's digest ({@link InventoryTree}).
 * @param ownerId the owner host run's OwnerId.
 * @param ownerLeaseGeneration the owner's LeaseGeneration.
 * @param authorityOwnerGeneration the AuthorityOwnerGeneration of the last owner change (shared with the Spot row).
 * @param meshName the owner node's MeshName.
 * @param routingIdHex the owner node's RoutingId, lowercase hex.
 * @param descriptorLifecycleGeneration the owner node's lifecycle generation.
 */
public record AggregateRecord(String spotId, String stableType, long spotObjectGeneration, String aggregateId,
    long aggregateGeneration,
    int participantCount, String inventoryRoot, String inventoryDigest, String ownerId,
    LeaseGeneration ownerLeaseGeneration, AuthorityOwnerGeneration authorityOwnerGeneration, String meshName,
    String routingIdHex, long descriptorLifecycleGeneration) {
  private static final String NAME = "aggregate record";

  /**
   * Checks the parts.
   *
   * @throws NullPointerException when a part is null.
   * @throws IllegalArgumentException when the AggregateId is not 32 lowercase hex or is zero, or a count is below 1.
   */
  public AggregateRecord {
    Objects.requireNonNull(spotId, "spotId");
    Objects.requireNonNull(stableType, "stableType");
    Objects.requireNonNull(aggregateId, "aggregateId");
    Objects.requireNonNull(inventoryRoot, "inventoryRoot");
    Objects.requireNonNull(inventoryDigest, "inventoryDigest");
    Objects.requireNonNull(ownerId, "ownerId");
    Objects.requireNonNull(ownerLeaseGeneration, "ownerLeaseGeneration");
    Objects.requireNonNull(authorityOwnerGeneration, "authorityOwnerGeneration");
    Objects.requireNonNull(meshName, "meshName");
    Objects.requireNonNull(routingIdHex, "routingIdHex");
    if (!aggregateId.matches("[0-9a-f]{32}") || aggregateId.matches("0{32}")) {
      throw new IllegalArgumentException("AggregateId '" + aggregateId + "' must be 32 lowercase hex digits, not"
          + " all zero (a non-zero 128-bit value, spec 000 section 7)");
    }
    if (aggregateGeneration < 1 || participantCount < 1 || spotObjectGeneration < 1) {
      throw new IllegalArgumentException("aggregate of Spot '" + spotId + "' has generation " + aggregateGeneration
          + ", " + participantCount + " participants and spot generation " + spotObjectGeneration + "; each must be at"
          + " least 1");
    }
  }

  /**
   * The owner this record names, as a placement target.
   *
   * @return the owner host run.
   */
  public PlacementBatches.Target owner() {
    return new PlacementBatches.Target(meshName, routingIdHex, descriptorLifecycleGeneration, ownerId,
        ownerLeaseGeneration);
  }

  /**
   * The canonical JSON bytes.
   *
   * @return the value to store.
   */
  public StoreBytes encode() {
    return StoreBytes.of(RecordJson.write(g -> {
      g.writeStartObject();
      g.writeNumberField("recordVersion", RecordJson.RECORD_VERSION);
      g.writeStringField("spotId", spotId);
      g.writeStringField("stableType", stableType);
      RecordJson.u64(g, "spotObjectGeneration", spotObjectGeneration);
      g.writeStringField("aggregateId", aggregateId);
      RecordJson.u64(g, "aggregateGeneration", aggregateGeneration);
      g.writeNumberField("participantCount", participantCount);
      g.writeStringField("inventoryRoot", inventoryRoot);
      g.writeStringField("inventoryDigest", inventoryDigest);
      g.writeStringField("ownerId", ownerId);
      RecordJson.u64(g, "ownerLeaseGeneration", ownerLeaseGeneration.value());
      RecordJson.u64(g, "authorityOwnerGeneration", authorityOwnerGeneration.value());
      g.writeObjectFieldStart("descriptor");
      g.writeStringField("meshName", meshName);
      g.writeStringField("routingIdHex", routingIdHex);
      g.writeEndObject();
      RecordJson.u64(g, "descriptorLifecycleGeneration", descriptorLifecycleGeneration);
      g.writeEndObject();
    }));
  }

  /**
   * Reads a stored value.
   *
   * @param bytes the stored bytes.
   * @return the record.
   * @throws RecordDecodeException.UnknownVersion when recordVersion is not 1.
   * @throws RecordDecodeException.Malformed when the shape is wrong.
   */
  public static AggregateRecord decode(final StoreBytes bytes) {
    return RecordJson.read(NAME, bytes.toByteArray(), n -> {
      final RecordJson.Node d = n.object("descriptor");
      try {
        return new AggregateRecord(n.string("spotId"), n.string("stableType"), n.u64("spotObjectGeneration", 1),
            n.string("aggregateId"),
            n.u64("aggregateGeneration", 1), n.integer("participantCount", 1, Integer.MAX_VALUE),
            n.string("inventoryRoot"), n.string("inventoryDigest"), n.string("ownerId"),
            new LeaseGeneration(n.u64("ownerLeaseGeneration", 1)),
            new AuthorityOwnerGeneration(n.u64("authorityOwnerGeneration", 1)), d.string("meshName"),
            d.string("routingIdHex"), n.u64("descriptorLifecycleGeneration", 0));
      } catch (IllegalArgumentException e) {
        throw new RecordDecodeException.Malformed(NAME + ": " + e.getMessage(), e);
      }
    });
  }
}
