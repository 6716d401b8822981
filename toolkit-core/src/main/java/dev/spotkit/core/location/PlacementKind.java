package dev.spotkit.core.location;

/**
 * The object kind of a placement capability or an authority allocation (spec 002 section 3.4): {@code actor},
 * {@code userSpot} or {@code instanceSpot}. An Entry Spot's actors count as {@code actor}.
 */
public enum PlacementKind implements RecordJson.WireEnum {
  /** An Actor. */
  ACTOR("actor"),
  /** A User Spot. */
  USER_SPOT("userSpot"),
  /** An Instance Spot. */
  INSTANCE_SPOT("instanceSpot"),
  /**
   * Spotkit-only: the Entry Spot's own authority row. Spec 002 section 3.4 lists no allocation kind for it (it
   * takes no capacity); Spotkit records it with capacity 0 so the Entry Spot has an authority row like every
   * Spot. Never used in a placement capability.
   */
  ENTRY_SPOT("entrySpot");

  private final String wire;

  PlacementKind(final String wire) {
    this.wire = wire;
  }

  /**
   * The JSON spelling.
   *
   * @return e.g. {@code userSpot}.
   */
  @Override
  public String wire() {
    return wire;
  }
}
