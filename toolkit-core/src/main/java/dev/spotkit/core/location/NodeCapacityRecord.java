package dev.spotkit.core.location;

import dev.spotkit.store.StoreBytes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The usage of one MeshNode (spec 002 sections 3.3, 4 and 6), stored without expiry at the Spotkit-defined key
 * {@link LocationKeys#nodeCapacity(String, byte[])}. It is the source of truth for usage: Reserve, Commit, Abort
 * and Delete ({@link PlacementBatches}) check its StoreVersion and rewrite it in the same all-or-nothing batch
 * as the authority row. The descriptor's {@code capacity} is only the operator copy.
 *
 * <p>Canonical JSON (same rules as the other records, {@link RecordJson}): {@code {"recordVersion":1,
 * "actors":{"active":..,"reserved":..,"limit":..},"spots":{..},"spotTypes":[{"objectKind":..,"stableType":..,
 * "active":..,"reserved":..,"limit":..}]}}, counts and limits as JSON numbers, {@code spotTypes} sorted by
 * objectKind wire name, then stableType in code point order, each pair once. Entry Spots are not counted (spec
 * 002 section 4); an Entry Spot's Actors count as Actors.
 *
 * <p>Limits: 0 means no limit; a positive limit is 1..2^31-1. {@code active + reserved} may stand above a limit
 * that was lowered later (a Ready object or a completed reservation is never cancelled); it only blocks new
 * reservations. Immutable; any thread.
 *
 * @param actors Actor usage (the Entry Spot's Actors included).
 * @param spots User and Instance Spot usage.
 * @param spotTypes usage per Spot kind and stable type, canonical order.
 */
public record NodeCapacityRecord(Slots actors, Slots spots, List<TypeSlots> spotTypes) {
  private static final String NAME = "node capacity record";
  private static final Comparator<TypeSlots> TYPE_ORDER = Comparator
      .comparing((TypeSlots t) -> t.objectKind().wire()).thenComparing(TypeSlots::stableType,
          LocationOrder.CODE_POINTS);

  /**
   * Sorts the types and checks that each (kind, stable type) appears once and is a Spot kind.
   *
   * @throws IllegalArgumentException when a pair repeats or a kind is not userSpot/instanceSpot.
   */
  public NodeCapacityRecord {
    Objects.requireNonNull(actors, "actors");
    Objects.requireNonNull(spots, "spots");
    final List<TypeSlots> sorted = new ArrayList<>(spotTypes);
    sorted.sort(TYPE_ORDER);
    for (int i = 0; i < sorted.size(); i++) {
      final TypeSlots t = sorted.get(i);
      if (t.objectKind() != PlacementKind.USER_SPOT && t.objectKind() != PlacementKind.INSTANCE_SPOT) {
        throw new IllegalArgumentException("node capacity spotTypes entry '" + t.stableType() + "' has kind "
            + t.objectKind().wire() + "; only userSpot and instanceSpot have per-type slots");
      }
      if (i > 0 && TYPE_ORDER.compare(sorted.get(i - 1), t) == 0) {
        throw new IllegalArgumentException("node capacity lists " + t.objectKind().wire() + " type '"
            + t.stableType() + "' twice");
      }
    }
    spotTypes = List.copyOf(sorted);
  }

  /**
   * Usage of one capacity class.
   *
   * @param active slots of Ready objects, 0..2^31-1.
   * @param reserved slots secured by reservations not yet committed or aborted, 0..2^31-1.
   * @param limit 0 for no limit, else 1..2^31-1.
   */
  public record Slots(int active, int reserved, int limit) {
    /** No usage, no limit. */
    public static final Slots NONE = new Slots(0, 0, 0);

    /**
     * Checks the ranges.
     *
     * @throws IllegalArgumentException when a value is negative.
     */
    public Slots {
      if (active < 0 || reserved < 0 || limit < 0) {
        throw new IllegalArgumentException("capacity slots active=" + active + " reserved=" + reserved + " limit="
            + limit + " must each be 0..2^31-1 (limit 0: no limit)");
      }
    }

    /**
     * Whether {@code n} more slots fit: {@code active + reserved + n <= limit}, or, with no limit, the sum stays
     * within 2^31-1.
     *
     * @param n slots wanted, 0..2^31-1; 0 always fits.
     * @return whether they fit.
     */
    public boolean hasRoom(final int n) {
      final long after = (long) active + reserved + n;
      return n == 0 || after <= (limit == 0 ? Integer.MAX_VALUE : limit);
    }

    /**
     * Slots still free.
     *
     * @return {@code limit - active - reserved} (0 when at or over the limit), or 2^31-1 minus the use when
     *     there is no limit.
     */
    public long remaining() {
      return Math.max(0, (limit == 0 ? (long) Integer.MAX_VALUE : limit) - active - (long) reserved);
    }

    Slots reserve(final int n) {
      return new Slots(active, Math.addExact(reserved, n), limit);
    }

    Slots commit(final int n) {
      return new Slots(Math.addExact(active, n), minus(reserved, n, "reserved"), limit);
    }

    Slots release(final int n) {
      return new Slots(active, minus(reserved, n, "reserved"), limit);
    }

    Slots retire(final int n) {
      return new Slots(minus(active, n, "active"), reserved, limit);
    }

    Slots withLimit(final int newLimit) {
      return new Slots(active, reserved, newLimit);
    }

    private static int minus(final int value, final int n, final String what) {
      if (value < n) {
        throw new IllegalStateException("capacity " + what + " " + value + " is below the " + n
            + " slots being returned; the node capacity record and the authority rows disagree");
      }
      return value - n;
    }
  }

  /**
   * Usage of one Spot kind and stable type.
   *
   * @param objectKind userSpot or instanceSpot.
   * @param stableType the stable type, UTF-8 1..255 bytes.
   * @param slots its usage and limit.
   */
  public record TypeSlots(PlacementKind objectKind, String stableType, Slots slots) {
    /**
     * Checks for null.
     *
     * @throws NullPointerException when a part is null.
     */
    public TypeSlots {
      Objects.requireNonNull(objectKind, "objectKind");
      Objects.requireNonNull(stableType, "stableType");
      Objects.requireNonNull(slots, "slots");
    }
  }

  /**
   * A record with no usage and the limits a node publishes in its descriptor: Actor and Spot limits from
   * {@code capacity.actors/spots.limit}, a per-type entry for every userSpot/instanceSpot capability with its
   * {@code limit}.
   *
   * @param descriptor the node's descriptor.
   * @return the record to store at startup (see {@link PlacementBatches#publishLimits}).
   */
  public static NodeCapacityRecord limitsOf(final MeshNodeDescriptorRecord.Descriptor descriptor) {
    final List<TypeSlots> types = new ArrayList<>();
    for (MeshNodeDescriptorRecord.Capability c : descriptor.objectCapabilities()) {
      if (c.objectKind() == PlacementKind.USER_SPOT || c.objectKind() == PlacementKind.INSTANCE_SPOT) {
        types.add(new TypeSlots(c.objectKind(), c.stableType(), new Slots(0, 0, c.limit())));
      }
    }
    return new NodeCapacityRecord(new Slots(0, 0, descriptor.actors().limit()),
        new Slots(0, 0, descriptor.spots().limit()), types);
  }

  /**
   * This usage with the limits of {@code limits}: counts are kept, limits replaced, types of either side kept
   * (a type only here keeps its counts and gets limit 0).
   *
   * @param limits the new limits (its counts are ignored).
   * @return the merged record.
   */
  public NodeCapacityRecord withLimitsOf(final NodeCapacityRecord limits) {
    final TreeMap<TypeSlots, TypeSlots> merged = new TreeMap<>(TYPE_ORDER);
    spotTypes.forEach(t -> merged.put(t, new TypeSlots(t.objectKind(), t.stableType(), t.slots().withLimit(0))));
    for (TypeSlots t : limits.spotTypes()) {
      final TypeSlots old = merged.get(t);
      merged.put(t, new TypeSlots(t.objectKind(), t.stableType(),
          (old == null ? Slots.NONE : old.slots()).withLimit(t.slots().limit())));
    }
    return new NodeCapacityRecord(actors.withLimit(limits.actors().limit()),
        spots.withLimit(limits.spots().limit()), List.copyOf(merged.values()));
  }

  /**
   * The usage of one Spot type.
   *
   * @param kind userSpot or instanceSpot.
   * @param stableType the stable type.
   * @return its slots, or {@link Slots#NONE} when the record has no entry for it.
   */
  public Slots spotType(final PlacementKind kind, final String stableType) {
    return spotTypes.stream().filter(t -> t.objectKind() == kind && t.stableType().equals(stableType))
        .map(TypeSlots::slots).findFirst().orElse(Slots.NONE);
  }

  /**
   * Why {@code bundle} does not fit, or empty when it does.
   *
   * @param bundle the slots one allocation secures.
   * @return e.g. {@code "actors 5 active + 0 reserved + 1 > limit 5"}.
   */
  public Optional<String> whyFull(final AuthorityRecord.Capacity bundle) {
    if (!actors.hasRoom(bundle.actors())) {
      return Optional.of(describe("actors", actors, bundle.actors()));
    }
    if (!spots.hasRoom(bundle.spots())) {
      return Optional.of(describe("spots", spots, bundle.spots()));
    }
    final AuthorityRecord.SpotTypeSlot slot = bundle.spotType();
    if (slot != null) {
      final Slots type = spotType(slot.objectKind(), slot.stableType());
      if (!type.hasRoom(slot.count())) {
        return Optional.of(describe(slot.objectKind().wire() + " type '" + slot.stableType() + "'", type,
            slot.count()));
      }
    }
    return Optional.empty();
  }

  private static String describe(final String what, final Slots s, final int n) {
    return what + " " + s.active() + " active + " + s.reserved() + " reserved + " + n + " wanted > limit "
        + (s.limit() == 0 ? "2^31-1 (no limit set)" : Integer.toString(s.limit()));
  }

  /**
   * The bundle moved from free to reserved.
   *
   * @param bundle the allocation's slots.
   * @return the new record.
   * @throws IllegalStateException when the bundle does not fit (check {@link #whyFull} first).
   */
  public NodeCapacityRecord reserve(final AuthorityRecord.Capacity bundle) {
    whyFull(bundle).ifPresent(why -> {
      throw new IllegalStateException("capacity bundle does not fit: " + why);
    });
    return apply(bundle, Slots::reserve);
  }

  /**
   * The bundle moved from reserved to active (Commit).
   *
   * @param bundle the allocation's slots.
   * @return the new record.
   * @throws IllegalStateException when fewer slots are reserved than the bundle holds.
   */
  public NodeCapacityRecord commit(final AuthorityRecord.Capacity bundle) {
    return apply(bundle, Slots::commit);
  }

  /**
   * The bundle's reserved slots returned (Abort).
   *
   * @param bundle the allocation's slots.
   * @return the new record.
   * @throws IllegalStateException when fewer slots are reserved than the bundle holds.
   */
  public NodeCapacityRecord release(final AuthorityRecord.Capacity bundle) {
    return apply(bundle, Slots::release);
  }

  /**
   * The bundle's active slots returned (Delete).
   *
   * @param bundle the allocation's slots.
   * @return the new record.
   * @throws IllegalStateException when fewer slots are active than the bundle holds.
   */
  public NodeCapacityRecord retire(final AuthorityRecord.Capacity bundle) {
    return apply(bundle, Slots::retire);
  }

  private interface SlotChange {
    Slots apply(Slots slots, int n);
  }

  private NodeCapacityRecord apply(final AuthorityRecord.Capacity bundle, final SlotChange change) {
    final List<TypeSlots> types = new ArrayList<>(spotTypes);
    final AuthorityRecord.SpotTypeSlot slot = bundle.spotType();
    if (slot != null && slot.count() > 0) {
      final Slots old = spotType(slot.objectKind(), slot.stableType());
      types.removeIf(t -> t.objectKind() == slot.objectKind() && t.stableType().equals(slot.stableType()));
      types.add(new TypeSlots(slot.objectKind(), slot.stableType(), change.apply(old, slot.count())));
    }
    return new NodeCapacityRecord(change.apply(actors, bundle.actors()), change.apply(spots, bundle.spots()),
        types);
  }

  /**
   * The canonical JSON bytes.
   *
   * @return the value to store, well below the 1 MiB value limit for up to 1,024 types.
   */
  public StoreBytes encode() {
    return StoreBytes.of(RecordJson.write(g -> {
      g.writeStartObject();
      g.writeNumberField("recordVersion", RecordJson.RECORD_VERSION);
      writeSlots(g, "actors", actors);
      writeSlots(g, "spots", spots);
      g.writeArrayFieldStart("spotTypes");
      for (TypeSlots t : spotTypes) {
        g.writeStartObject();
        g.writeStringField("objectKind", t.objectKind().wire());
        g.writeStringField("stableType", t.stableType());
        g.writeNumberField("active", t.slots().active());
        g.writeNumberField("reserved", t.slots().reserved());
        g.writeNumberField("limit", t.slots().limit());
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeEndObject();
    }));
  }

  private static void writeSlots(final com.fasterxml.jackson.core.JsonGenerator g, final String name,
      final Slots s) throws java.io.IOException {
    g.writeObjectFieldStart(name);
    g.writeNumberField("active", s.active());
    g.writeNumberField("reserved", s.reserved());
    g.writeNumberField("limit", s.limit());
    g.writeEndObject();
  }

  /**
   * Reads a stored value.
   *
   * @param bytes the stored bytes.
   * @return the record.
   * @throws RecordDecodeException.UnknownVersion when recordVersion is not 1.
   * @throws RecordDecodeException.Malformed when the shape is wrong or a type repeats.
   */
  public static NodeCapacityRecord decode(final StoreBytes bytes) {
    return RecordJson.read(NAME, bytes.toByteArray(), n -> {
      final List<TypeSlots> types = new ArrayList<>();
      for (RecordJson.Node t : n.array("spotTypes")) {
        types.add(new TypeSlots(t.enumValue("objectKind", PlacementKind.class), t.string("stableType"), slots(t)));
      }
      try {
        return new NodeCapacityRecord(slots(n.object("actors")), slots(n.object("spots")), types);
      } catch (IllegalArgumentException e) {
        throw new RecordDecodeException.Malformed(NAME + ": " + e.getMessage(), e);
      }
    });
  }

  private static Slots slots(final RecordJson.Node n) {
    return new Slots(n.integer("active", 0, Integer.MAX_VALUE), n.integer("reserved", 0, Integer.MAX_VALUE),
        n.integer("limit", 0, Integer.MAX_VALUE));
  }
}
