package dev.spotkit.core;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * The result of a host drain, {@link MeshNode#relocate(RelocateOptions)} (FACTS.md "Host relocation"; spec 000
 * sections 4.2, 6 and 7): what moved, what stayed and why, and whether the node may now shut down.
 *
 * @param outcome {@link Outcome#RELOCATED} when every unit the drain visited moved (or left by itself, see
 *     {@link Reason#LEFT}); {@link Outcome#BLOCKED} when at least one is kept for another reason.
 * @param actors the Entry Spot actors that moved, each on its target (same ActorId and ObjectGeneration), in no
 *     particular order; one counts as moved once the Location Store names its target.
 * @param rooms the User Spots that moved with their members, each on its target: first the PerActor ones (their
 *     shell, then each member as its own unit; a member that did not move is in {@code kept} as
 *     {@link UnitKind#PER_ACTOR_MEMBER} and in {@link SpotRelocationResult#keptMembers()}), in SpotId order, then the
 *     SpotWide ones, in the order their moves ended.
 * @param instanceSpots the Instance Spots that moved, each as one Actor-less unit with its state, unrun queue and
 *     timers (spec 001 section 3; spec 003 section 6), each on its target (same SpotId and ObjectGeneration;
 *     {@link SpotRelocationResult#members()} is 0), in the order their moves ended.
 * @param kept the units that did not move, each with a typed reason, in the order the drain visited them.
 * @param safeToShutdown true when the outcome is RELOCATED and no moved unit's Message Follow window (30 s after its
 *     commit) still runs: with {@link RelocateOptions#awaitSafeToShutdown(boolean)}, or when nothing moved.
 * @param followEndsIn how long, from the result, the last moved unit's Message Follow window still runs (zero when it
 *     ended or nothing moved; at most 30 s): closing the node before then may fail messages peers still send to the
 *     old address (a peer's cached route lives up to 15 s).
 */
public record RelocateResult(Outcome outcome, List<ActorRef> actors, List<SpotRelocationResult> rooms,
    List<SpotRelocationResult> instanceSpots, List<Kept> kept, boolean safeToShutdown, Duration followEndsIn) {

  /** The host relocation outcome (FACTS.md "Host relocation"). */
  public enum Outcome {
    /** Every unit moved: the node owns nothing the drain could move (published state Relocated). */
    RELOCATED,
    /** At least one unit is kept (published state back to Serving, so it serves what it kept). */
    BLOCKED
  }

  /** What kind of unit a {@link Kept} entry is. */
  public enum UnitKind {
    /** An Actor that is a member of this node's Entry Spot. */
    ENTRY_ACTOR,
    /** A SpotWide User Spot with its members (one aggregate). */
    SPOT_WIDE_ROOM,
    /** A PerActor User Spot. */
    PER_ACTOR_SPOT,
    /** An Instance Spot (one Actor-less unit). */
    INSTANCE_SPOT,
    /** An Actor that is a member of a PerActor User Spot of this node. */
    PER_ACTOR_MEMBER
  }

  /** Why a unit did not move. */
  public enum Reason {
    /**
     * No live Serving node that registered the unit's types passed the options (the names of
     * {@link RelocateOptions#drainTo}, the filter, placement weight above 0 for drainAnywhere). It stays here and
     * serves. Error: {@link SpotkitException.Unavailable}.
     */
    NO_TARGET,
    /** The unit, or a member of the room, is registered with DisableRelocation; it stays here and serves. */
    RELOCATION_DISABLED,
    /**
     * Spotkit does not move this kind in a drain. No unit kind uses it any more (PerActor User Spots and their
     * members move since their shell move exists, spec 000 section 7); kept for compatibility. Error:
     * {@link SpotkitException.InvalidOperation}.
     */
    NOT_SUPPORTED,
    /**
     * The move failed before the target's relay-ready reply (target refused it: capacity, missing factory, restore
     * failure, unreachable): it was restored here and serves here, nothing lost.
     */
    TARGET_REFUSED,
    /**
     * The move passed the target's relay-ready reply and did not commit: the unit runs nowhere until its Message
     * Follow window ends (spec 001 section 9, spec 000 section 8). Error: {@link SpotkitException.Unavailable}.
     */
    UNAVAILABLE,
    /** The drain's deadline passed before the move started; it stays here and serves. */
    DEADLINE_EXCEEDED,
    /** This node started closing first; no move starts (spec 001 section 9). */
    SHUTTING_DOWN,
    /**
     * The actor left this node's Entry Spot before its turn came (its own join took it elsewhere or into a room,
     * or it was destroyed), or was still in its own join or move then (nothing was sealed for the drain). Not a
     * blocker: it is no longer an Entry Spot actor here; a room it joined here moves in the rooms' batch.
     */
    LEFT
  }

  /**
   * One unit that did not move.
   *
   * @param kind the unit's kind.
   * @param id the ActorId or SpotId.
   * @param reason why.
   * @param error the typed error with the details (its message names the unit and the cause).
   * @param servingHere whether this node still runs the unit at the result (true for every reason but UNAVAILABLE,
   *     LEFT and, at times, SHUTTING_DOWN).
   */
  public record Kept(UnitKind kind, String id, Reason reason, SpotkitException error, boolean servingHere) {
    /**
     * Checks the parts.
     *
     * @throws NullPointerException when a part is null.
     */
    public Kept {
      Objects.requireNonNull(kind, "kind");
      Objects.requireNonNull(id, "id");
      Objects.requireNonNull(reason, "reason");
      Objects.requireNonNull(error, "error");
    }
  }

  /**
   * Copies the parts.
   *
   * @throws NullPointerException when a part is null.
   * @throws IllegalArgumentException when {@code followEndsIn} is negative.
   */
  public RelocateResult {
    Objects.requireNonNull(outcome, "outcome");
    actors = List.copyOf(Objects.requireNonNull(actors, "actors"));
    rooms = List.copyOf(Objects.requireNonNull(rooms, "rooms"));
    instanceSpots = List.copyOf(Objects.requireNonNull(instanceSpots, "instanceSpots"));
    kept = List.copyOf(Objects.requireNonNull(kept, "kept"));
    Objects.requireNonNull(followEndsIn, "followEndsIn");
    if (followEndsIn.isNegative()) {
      throw new IllegalArgumentException("followEndsIn " + followEndsIn + " must not be negative");
    }
  }

  /**
   * A result in which no Instance Spot moved (the shape before Instance Spots moved in a drain).
   *
   * @param outcome the outcome.
   * @param actors the Entry Spot actors that moved.
   * @param rooms the SpotWide User Spots that moved.
   * @param kept the units that did not move.
   * @param safeToShutdown whether the node may shut down now.
   * @param followEndsIn how long the last Message Follow window still runs.
   * @throws NullPointerException when a part is null.
   * @throws IllegalArgumentException when {@code followEndsIn} is negative.
   */
  public RelocateResult(final Outcome outcome, final List<ActorRef> actors, final List<SpotRelocationResult> rooms,
      final List<Kept> kept, final boolean safeToShutdown, final Duration followEndsIn) {
    this(outcome, actors, rooms, List.of(), kept, safeToShutdown, followEndsIn);
  }

  /**
   * The kept units with this reason.
   *
   * @param reason the reason.
   * @return them, in visiting order; may be empty.
   */
  public List<Kept> kept(final Reason reason) {
    return kept.stream().filter(k -> k.reason() == reason).toList();
  }

  /**
   * Members that moved with the rooms, summed.
   *
   * @return 0 or more.
   */
  public int roomMembers() {
    return rooms.stream().mapToInt(SpotRelocationResult::members).sum();
  }
}
