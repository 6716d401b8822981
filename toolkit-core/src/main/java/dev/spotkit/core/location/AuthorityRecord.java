package dev.spotkit.core.location;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.spotkit.core.ObjectGeneration;
import dev.spotkit.store.StoreBytes;
import java.io.IOException;
import java.util.Objects;

/**
 * The authority row of one Actor or Spot (spec 002 sections 3.2-3.4), stored at {@code authority\0{actor|spot}\0
 * {Id}} without expiry. Canonical JSON field order: recordVersion, payload (base64), objectGeneration,
 * authorityOwnerGeneration, ownerId, ownerLeaseGeneration, allocation {state, objectKind, stableType, descriptor
 * {meshName, routingIdHex}, descriptorLifecycleGeneration, capacity {actors, spots, spotType or null}},
 * pendingCreation or null.
 *
 * @param payload framework-internal bytes the record carries; written as base64.
 * @param objectGeneration from the store-wide ObjectGeneration sequence.
 * @param authorityOwnerGeneration from the AuthorityOwnerGeneration sequence.
 * @param ownerId the owner's OwnerId.
 * @param ownerLeaseGeneration the owner's LeaseGeneration.
 * @param allocation placement and capacity.
 * @param pendingCreation the creation in progress, or null.
 */
public record AuthorityRecord(StoreBytes payload, ObjectGeneration objectGeneration,
    AuthorityOwnerGeneration authorityOwnerGeneration, String ownerId, LeaseGeneration ownerLeaseGeneration,
    Allocation allocation, PendingCreation pendingCreation) {
  private static final String NAME = "authority record";

  /**
   * Checks for null (only {@code pendingCreation} may be null).
   *
   * @throws NullPointerException when a required part is null.
   */
  public AuthorityRecord {
    Objects.requireNonNull(payload, "payload");
    Objects.requireNonNull(objectGeneration, "objectGeneration");
    Objects.requireNonNull(authorityOwnerGeneration, "authorityOwnerGeneration");
    Objects.requireNonNull(ownerId, "ownerId");
    Objects.requireNonNull(ownerLeaseGeneration, "ownerLeaseGeneration");
    Objects.requireNonNull(allocation, "allocation");
  }

  /** Allocation state (spec 002 section 6.1). */
  public enum State implements RecordJson.WireEnum {
    /** Reserved by a creation or relocation, not yet Active. */
    RESERVED("reserved"),
    /** Active: the object is Ready at its owner. */
    ACTIVE("active");

    private final String wire;

    State(final String wire) {
      this.wire = wire;
    }

    @Override
    public String wire() {
      return wire;
    }
  }

  /**
   * Placement information (spec 002 section 3.3).
   *
   * @param state reserved or active.
   * @param objectKind actor, userSpot or instanceSpot.
   * @param stableType the factory's stable type.
   * @param meshName the target MeshNode's MeshName.
   * @param routingIdHex the target MeshNode's RoutingId, lowercase hex.
   * @param descriptorLifecycleGeneration the target MeshNode's lifecycleGeneration.
   * @param capacity the slots this allocation holds.
   */
  public record Allocation(State state, PlacementKind objectKind, String stableType, String meshName,
      String routingIdHex, long descriptorLifecycleGeneration, Capacity capacity) {
    /**
     * Checks for null.
     *
     * @throws NullPointerException when a part is null.
     */
    public Allocation {
      Objects.requireNonNull(state, "state");
      Objects.requireNonNull(objectKind, "objectKind");
      Objects.requireNonNull(stableType, "stableType");
      Objects.requireNonNull(meshName, "meshName");
      Objects.requireNonNull(routingIdHex, "routingIdHex");
      Objects.requireNonNull(capacity, "capacity");
    }
  }

  /**
   * The capacity bundle of an allocation: {@code {actors, spots, spotType}}.
   *
   * @param actors Actor slots, 0..2^31-1.
   * @param spots Spot slots, 0..2^31-1.
   * @param spotType the Spot kind/stable type slot, or null for an Actor.
   */
  public record Capacity(int actors, int spots, SpotTypeSlot spotType) {
    /**
     * Checks the ranges.
     *
     * @throws IllegalArgumentException when a count is negative.
     */
    public Capacity {
      if (actors < 0 || spots < 0) {
        throw new IllegalArgumentException("capacity slots actors=" + actors + " spots=" + spots
            + " must be 0..2^31-1");
      }
    }

    /**
     * One Actor slot.
     *
     * @return the bundle.
     */
    public static Capacity actor() {
      return new Capacity(1, 0, null);
    }

    /**
     * One Spot slot plus one slot of the Spot's kind and stable type.
     *
     * @param kind userSpot or instanceSpot.
     * @param stableType the stable type.
     * @return the bundle.
     */
    public static Capacity spot(final PlacementKind kind, final String stableType) {
      return new Capacity(0, 1, new SpotTypeSlot(kind, stableType, 1));
    }
  }

  /**
   * Slots of one Spot kind and stable type.
   *
   * @param objectKind userSpot or instanceSpot.
   * @param stableType the stable type.
   * @param count the slots.
   */
  public record SpotTypeSlot(PlacementKind objectKind, String stableType, int count) {
    /**
     * Checks for null.
     *
     * @throws NullPointerException when a part is null.
     */
    public SpotTypeSlot {
      Objects.requireNonNull(objectKind, "objectKind");
      Objects.requireNonNull(stableType, "stableType");
    }
  }

  /**
   * A creation in progress (spec 002 section 7).
   *
   * @param reservationId the reservation.
   * @param requestContentReference {@code inline-v1:} and the request's base64url.
   * @param requestSha256 64 lowercase hex characters.
   * @param requestEncodedSize the request's size in bytes.
   */
  public record PendingCreation(String reservationId, String requestContentReference, String requestSha256,
      int requestEncodedSize) {
    /**
     * Checks for null.
     *
     * @throws NullPointerException when a part is null.
     */
    public PendingCreation {
      Objects.requireNonNull(reservationId, "reservationId");
      Objects.requireNonNull(requestContentReference, "requestContentReference");
      Objects.requireNonNull(requestSha256, "requestSha256");
    }
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
      g.writeStringField("payload", RecordJson.base64(payload.toByteArray()));
      RecordJson.u64(g, "objectGeneration", objectGeneration.value());
      RecordJson.u64(g, "authorityOwnerGeneration", authorityOwnerGeneration.value());
      g.writeStringField("ownerId", ownerId);
      RecordJson.u64(g, "ownerLeaseGeneration", ownerLeaseGeneration.value());
      writeAllocation(g, allocation);
      if (pendingCreation == null) {
        g.writeNullField("pendingCreation");
      } else {
        g.writeObjectFieldStart("pendingCreation");
        g.writeStringField("reservationId", pendingCreation.reservationId());
        g.writeStringField("requestContentReference", pendingCreation.requestContentReference());
        g.writeStringField("requestSha256", pendingCreation.requestSha256());
        g.writeNumberField("requestEncodedSize", pendingCreation.requestEncodedSize());
        g.writeEndObject();
      }
      g.writeEndObject();
    }));
  }

  private static void writeAllocation(final JsonGenerator g, final Allocation a) throws IOException {
    g.writeObjectFieldStart("allocation");
    g.writeStringField("state", a.state().wire());
    g.writeStringField("objectKind", a.objectKind().wire());
    g.writeStringField("stableType", a.stableType());
    g.writeObjectFieldStart("descriptor");
    g.writeStringField("meshName", a.meshName());
    g.writeStringField("routingIdHex", a.routingIdHex());
    g.writeEndObject();
    RecordJson.u64(g, "descriptorLifecycleGeneration", a.descriptorLifecycleGeneration());
    g.writeObjectFieldStart("capacity");
    g.writeNumberField("actors", a.capacity().actors());
    g.writeNumberField("spots", a.capacity().spots());
    final SpotTypeSlot slot = a.capacity().spotType();
    if (slot == null) {
      g.writeNullField("spotType");
    } else {
      g.writeObjectFieldStart("spotType");
      g.writeStringField("objectKind", slot.objectKind().wire());
      g.writeStringField("stableType", slot.stableType());
      g.writeNumberField("count", slot.count());
      g.writeEndObject();
    }
    g.writeEndObject();
    g.writeEndObject();
  }

  /**
   * Reads a stored value.
   *
   * @param bytes the stored bytes.
   * @return the record.
   * @throws RecordDecodeException.UnknownVersion when recordVersion is not 1.
   * @throws RecordDecodeException.Malformed when the shape is wrong.
   */
  public static AuthorityRecord decode(final StoreBytes bytes) {
    return RecordJson.read(NAME, bytes.toByteArray(), n -> {
      final RecordJson.Node a = n.object("allocation");
      final RecordJson.Node d = a.object("descriptor");
      final RecordJson.Node c = a.object("capacity");
      final RecordJson.Node s = c.nullableObject("spotType");
      final RecordJson.Node p = n.nullableObject("pendingCreation");
      final Allocation allocation = new Allocation(a.enumValue("state", State.class),
          a.enumValue("objectKind", PlacementKind.class), a.string("stableType"), d.string("meshName"),
          d.string("routingIdHex"), a.u64("descriptorLifecycleGeneration", 0),
          new Capacity(c.integer("actors", 0, Integer.MAX_VALUE), c.integer("spots", 0, Integer.MAX_VALUE),
              s == null ? null : new SpotTypeSlot(s.enumValue("objectKind", PlacementKind.class),
                  s.string("stableType"), s.integer("count", 0, Integer.MAX_VALUE))));
      final PendingCreation pending = p == null ? null : new PendingCreation(p.string("reservationId"),
          p.string("requestContentReference"), p.string("requestSha256"),
          p.integer("requestEncodedSize", 0, Integer.MAX_VALUE));
      return new AuthorityRecord(StoreBytes.of(n.base64("payload")),
          new ObjectGeneration(n.u64("objectGeneration", 1)),
          new AuthorityOwnerGeneration(n.u64("authorityOwnerGeneration", 1)), n.string("ownerId"),
          new LeaseGeneration(n.u64("ownerLeaseGeneration", 1)), allocation, pending);
    });
  }
}
