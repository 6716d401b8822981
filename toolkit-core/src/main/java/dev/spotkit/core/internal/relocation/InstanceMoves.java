package dev.spotkit.core.internal.relocation;

import dev.spotkit.core.ClosingContext;
import dev.spotkit.core.ClosingReason;
import dev.spotkit.core.Deadline;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.core.internal.runtime.NodeConfig;
import dev.spotkit.core.internal.runtime.NodeRuntime;
import dev.spotkit.core.internal.runtime.SpotCell;
import dev.spotkit.core.location.AggregateAuthority;
import dev.spotkit.core.location.AuthorityRecord;
import dev.spotkit.core.location.InventoryEntry;
import dev.spotkit.core.location.InventoryTree;
import dev.spotkit.core.location.LocationRecords;
import dev.spotkit.core.location.ObjectKey;
import dev.spotkit.core.location.PlacementBatches;
import dev.spotkit.core.location.PlacementKind;
import java.util.List;
import java.util.Map;

/**
 * The Location Store side of an Instance Spot move (spec 001 sections 3 and 8 "Instance Spot", spec 003 section 6,
 * REL-01, SPOT-07), which otherwise runs the SpotWide aggregate move ({@link AggregateSeal}, {@link AggregateMoves},
 * {@link AggregateRestore}) with the Instance Spot as its only participant and no member. Not API.
 *
 * <p>Unlike a room, an Instance Spot move writes no aggregate record, no inventory chunk and no member pointer: the
 * Instance Spot's own authority row is its whole authority. The source's seal only reads that row and fixes its
 * StoreVersion (nothing is written, so a restore has nothing to clean); the participant inventory of one entry is
 * built in memory, only to give the manifest and the envelope the same participant order as a room's. The target
 * alone changes the row, with the same one-row, target-only CAS an Actor move uses
 * ({@link PlacementBatches#relocate}): only while the row is still at the sealed version, it names the target as
 * owner with the next AuthorityOwnerGeneration, keeps its ObjectGeneration and moves the row's own capacity bundle
 * (one {@code instanceSpot} slot of its stable type) from the source node to the target node. Idle eviction or a
 * close of the moved Instance Spot therefore removes the row exactly as for one that never moved.
 *
 * <p>The shell of a PerActor User Spot (spec 000 section 7) moves on the same one-row path ({@link #UNIT_PER_ACTOR}):
 * its Spot authority row changes owner with that one CAS, same SpotId and ObjectGeneration; its members keep their
 * own rows and move afterwards, each as its own unit ({@link PerActorMoves}).
 *
 * <p>Blocking: every call waits for its store calls; virtual threads only. Thread-safety: stateless.
 */
final class InstanceMoves {
  /** The manifest's unit kind (command 54): a SpotWide User Spot with its members. */
  static final int UNIT_ROOM = 0;
  /** The manifest's unit kind (command 54): one Instance Spot, no member. */
  static final int UNIT_INSTANCE = 1;
  /**
   * The manifest's unit kind (command 54): the runtime-private shell of a PerActor User Spot, no member (its members
   * move one by one afterwards, {@link PerActorMoves}).
   */
  static final int UNIT_PER_ACTOR = 2;

  private InstanceMoves() {
  }

  /**
   * Whether {@code spot} moves as an Instance Spot (one Actor-less unit).
   *
   * @param spot the Spot.
   * @return true for an Instance Spot.
   */
  static boolean isInstance(final SpotCell spot) {
    return spot.kind == NodeConfig.SpotKind.INSTANCE;
  }

  /**
   * Whether {@code spot} moves by its own row only (an Instance Spot, or a PerActor User Spot's shell): no aggregate
   * record, inventory chunk or member pointer is written.
   *
   * @param spot the Spot.
   * @return true for an Instance Spot or a PerActor User Spot.
   */
  static boolean isOneRow(final SpotCell spot) {
    return isInstance(spot) || PerActorMoves.isPerActor(spot);
  }

  /**
   * The manifest's unit kind of {@code spot}.
   *
   * @param spot the Spot.
   * @return {@link #UNIT_ROOM}, {@link #UNIT_INSTANCE} or {@link #UNIT_PER_ACTOR}.
   */
  static int unitKind(final SpotCell spot) {
    return isInstance(spot) ? UNIT_INSTANCE : PerActorMoves.isPerActor(spot) ? UNIT_PER_ACTOR : UNIT_ROOM;
  }

  /** The row kind a one-row unit of {@code unitKind} must have. */
  private static PlacementKind rowKind(final int unitKind) {
    return unitKind == UNIT_PER_ACTOR ? PlacementKind.USER_SPOT : PlacementKind.INSTANCE_SPOT;
  }

  /**
   * The source's seal step of an Instance Spot or a PerActor User Spot's shell: reads its row and checks that this
   * node owns it, Ready, of the Spot's kind. Writes nothing.
   *
   * @param rt the source node.
   * @param spot the Instance Spot or PerActor User Spot.
   * @param entry its inventory entry (kind INSTANCE_SPOT or USER_SPOT).
   * @return the row's version (as both versions) and the one-entry inventory, held in memory only.
   * @throws SpotkitException.NotFound when the row is missing.
   * @throws SpotkitException.InvalidOperation when the row is not a Ready Spot of that kind owned by this node.
   * @throws SpotkitException.Unavailable when the store fails.
   */
  static AggregateAuthority.Sealed seal(final NodeRuntime rt, final SpotCell spot, final InventoryEntry entry) {
    final LocationRecords.Stored row = LocationRecords.read(rt.store().store(), ObjectKey.spot(spot.id),
        AggregateSeal.STORE_TIMEOUT).orElseThrow(() -> new SpotkitException.NotFound(spot.describe()
        + " has no location record"));
    final AuthorityRecord a = row.authority();
    if (a.allocation().objectKind() != rowKind(unitKind(spot))
        || a.allocation().state() != AuthorityRecord.State.ACTIVE) {
      throw new SpotkitException.InvalidOperation("spot '" + spot.id + "' is a " + a.allocation().objectKind().wire()
          + " in state " + a.allocation().state().wire() + "; only a Ready " + rowKind(unitKind(spot)).wire()
          + " moves as one row");
    }
    final String ownerId = rt.store().ownerLease().record().ownerId();
    if (!a.ownerId().equals(ownerId) || a.objectGeneration().value() != spot.generation) {
      throw new SpotkitException.InvalidOperation(spot.describe() + " is recorded with owner " + a.ownerId()
          + " and generation " + a.objectGeneration().value() + ", not this node's " + ownerId + "; only its owner"
          + " moves it");
    }
    return new AggregateAuthority.Sealed(row.version(), row.version(), null,
        InventoryTree.build(spot.id, List.of(entry)), Map.of());
  }

  /**
   * The target's view of the unit before Restore: the Instance Spot's row, which must still be the one the source
   * sealed (same version, a Ready Instance Spot).
   *
   * @param rt the target node.
   * @param sealed what the manifest fixed.
   * @param unitKind {@link #UNIT_INSTANCE} or {@link #UNIT_PER_ACTOR}.
   * @return the row.
   * @throws SpotkitException.Unavailable when the row changed since the seal (the source keeps the Spot).
   * @throws SpotkitException.NotFound when the row is missing.
   */
  static LocationRecords.Stored sealedRow(final NodeRuntime rt, final AggregateAuthority.Sealed sealed,
      final int unitKind) {
    final String spotId = sealed.tree().spotId();
    final LocationRecords.Stored row = LocationRecords.read(rt.store().store(), ObjectKey.spot(spotId),
        AggregateSeal.STORE_TIMEOUT).orElseThrow(() -> new SpotkitException.NotFound("instance spot '" + spotId
        + "' has no location record"));
    if (!row.version().equals(sealed.spotVersion()) || row.authority().allocation().objectKind()
        != rowKind(unitKind) || sealed.tree().count() != 1) {
      throw new SpotkitException.Unavailable("the row of spot '" + spotId + "' changed since its source"
          + " sealed it, or the manifest names members; it stays on its source");
    }
    return row;
  }

  /**
   * The one-entry inventory of a sealed Instance Spot or PerActor User Spot shell, from its row.
   *
   * @param row the row ({@link #sealedRow}).
   * @param spotId the SpotId.
   * @return the entry list.
   */
  static List<InventoryEntry> inventory(final LocationRecords.Stored row, final String spotId) {
    final AuthorityRecord a = row.authority();
    return List.of(new InventoryEntry(a.allocation().objectKind(), spotId, a.objectGeneration().value(),
        a.authorityOwnerGeneration().value(), dev.spotkit.core.location.MeshNodeDescriptorRecord.Policy.RECREATE));
  }

  /**
   * The target-only CAS of an Instance Spot move, or of a PerActor User Spot's authority (spec 000 section 7: same
   * SpotId and ObjectGeneration): {@link PlacementBatches#relocate} on its row, bounded by the
   * move's step timeout.
   *
   * @param rt the target node.
   * @param sealed what the manifest fixed (the row's version).
   * @param payload the row's payload, kept as it is.
   * @return Committed (with no aggregate record: {@code record()} and {@code previousInventoryRoot()} are null),
   *     Changed or LeaseInvalid.
   * @throws SpotkitException.CapacityExceeded when this node has no room for the Instance Spot.
   * @throws SpotkitException.Unavailable when the store fails.
   */
  static AggregateAuthority.Outcome commit(final NodeRuntime rt, final AggregateAuthority.Sealed sealed,
      final dev.spotkit.store.StoreBytes payload) {
    final String spotId = sealed.tree().spotId();
    final PlacementBatches batches = new PlacementBatches(rt.store().store(), AggregateSeal.STORE_TIMEOUT,
        PlacementBatches.DEFAULT_ATTEMPTS, Deadline.after(AggregateMoves.STEP_TIMEOUT));
    final PlacementBatches.Outcome outcome = batches.relocate(ObjectKey.spot(spotId), sealed.spotVersion(),
        rt.store().self(), payload, null);
    return switch (outcome) {
      case PlacementBatches.Outcome.Done done -> new AggregateAuthority.Outcome.Committed(null,
          done.version().orElseThrow(), done.now(), null);
      case PlacementBatches.Outcome.LeaseInvalid invalid -> new AggregateAuthority.Outcome.LeaseInvalid(
          invalid.why());
      default -> new AggregateAuthority.Outcome.Changed("the row of spot '" + spotId + "' is not at the"
          + " sealed version: " + outcome);
    };
  }

  /**
   * After the hand-over on the source (the target committed; spec 001 section 8 "Instance Spot", spec 003 section
   * 3.4): {@code OnClosing(RELOCATION_OUT)} of the source instance, as a turn of its cell; a throwing callback is
   * logged. On the Spot's gate.
   *
   * @param rt the source node.
   * @param spot the Instance Spot's source cell (GONE, following).
   */
  static void closedRelocatedOut(final NodeRuntime rt, final SpotCell spot) {
    final ClosingContext closing = new ClosingContext(ClosingReason.RELOCATION_OUT,
        Deadline.after(rt.config().closeTimeout()));
    spot.runCallback("onClosing(RELOCATION_OUT) of " + spot.describe(), false, () -> {
      spot.spot.onClosing(closing);
      return null;
    });
  }
}
