package dev.spotkit.core.location;

import dev.spotkit.store.StoreBytes;
import java.util.Objects;

/**
 * The owner lease of one host run (spec 002 section 3.1), stored at {@code owner-lease\0{OwnerId}} with the
 * lease TTL as the store retention. Canonical JSON: {@code {"recordVersion":1,"ownerId":...,
 * "leaseGeneration":"..."}}.
 *
 * @param ownerId the host run's non-reusable OwnerId.
 * @param leaseGeneration the run's LeaseGeneration.
 */
public record OwnerLeaseRecord(String ownerId, LeaseGeneration leaseGeneration) {
  private static final String NAME = "owner lease record";

  /**
   * Checks for null.
   *
   * @throws NullPointerException when a part is null.
   */
  public OwnerLeaseRecord {
    Objects.requireNonNull(ownerId, "ownerId");
    Objects.requireNonNull(leaseGeneration, "leaseGeneration");
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
      g.writeStringField("ownerId", ownerId);
      RecordJson.u64(g, "leaseGeneration", leaseGeneration.value());
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
  public static OwnerLeaseRecord decode(final StoreBytes bytes) {
    return RecordJson.read(NAME, bytes.toByteArray(), n -> new OwnerLeaseRecord(n.string("ownerId"),
        new LeaseGeneration(n.u64("leaseGeneration", 1))));
  }
}
