package dev.spotkit.core.location;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Objects;

/**
 * One participant of a SpotWide User Spot aggregate as its inventory lists it (spec 000 section 7; spec 002 sections
 * 1.2 and 8.1 "relocation target list"): which object moves, never its state or messages.
 *
 * <p>Inventory order ({@link #ORDER}) is the spec's: object kind, global key (UTF-8 bytes, unsigned), ObjectGeneration,
 * owner fence, policy.
 *
 * @param objectKind {@link PlacementKind#USER_SPOT} for the Spot, {@link PlacementKind#ACTOR} for a member; or
 *     {@link PlacementKind#INSTANCE_SPOT} for the one entry of an Instance Spot's move, whose inventory is built in
 *     memory only and never stored (spec 001 section 3: one Actor-less unit).
 * @param id the SpotId or ActorId, UTF-8 1..255 bytes.
 * @param objectGeneration the participant's ObjectGeneration, 1..2^63-2.
 * @param ownerFence the AuthorityOwnerGeneration the participant's row had when the inventory was taken, at least 1.
 * @param policy the participant's relocation policy.
 */
public record InventoryEntry(PlacementKind objectKind, String id, long objectGeneration, long ownerFence,
    MeshNodeDescriptorRecord.Policy policy) {

  /** The spec's sort order of inventory entries. */
  public static final Comparator<InventoryEntry> ORDER = Comparator.comparing(InventoryEntry::objectKind)
      .thenComparing((a, b) -> Arrays.compareUnsigned(a.id.getBytes(StandardCharsets.UTF_8),
          b.id.getBytes(StandardCharsets.UTF_8)))
      .thenComparingLong(InventoryEntry::objectGeneration)
      .thenComparingLong(InventoryEntry::ownerFence)
      .thenComparing(InventoryEntry::policy);

  /**
   * Checks the parts.
   *
   * @throws NullPointerException when a part is null.
   * @throws IllegalArgumentException when the kind is not an Actor, User Spot or Instance Spot, the id is empty or
   *     longer than 255 UTF-8 bytes, or a generation is not positive.
   */
  public InventoryEntry {
    Objects.requireNonNull(objectKind, "objectKind");
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(policy, "policy");
    if (objectKind == PlacementKind.ENTRY_SPOT) {
      throw new IllegalArgumentException("an aggregate inventory lists the User Spot and its Actors, or one Instance"
          + " Spot, not "
          + objectKind.wire());
    }
    final int bytes = id.getBytes(StandardCharsets.UTF_8).length;
    if (bytes < 1 || bytes > 255) {
      throw new IllegalArgumentException("inventory id '" + id + "' is " + bytes + " UTF-8 bytes; ids are 1..255");
    }
    if (objectGeneration < 1 || ownerFence < 1) {
      throw new IllegalArgumentException("inventory entry " + id + " has objectGeneration " + objectGeneration
          + " and ownerFence " + ownerFence + "; both must be at least 1");
    }
  }
}
