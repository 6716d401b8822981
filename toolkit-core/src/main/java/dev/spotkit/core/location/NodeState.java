package dev.spotkit.core.location;

/** The published state of a MeshNode, ClientServer server or fanout publisher (spec 002 section 3.4). */
public enum NodeState implements RecordJson.WireEnum {
  /** Starting up. */
  PREPARING("preparing"),
  /** Accepting placements and traffic. */
  SERVING("serving"),
  /** Moving its objects away. */
  RELOCATING("relocating"),
  /** Every object moved. */
  RELOCATED("relocated"),
  /** Finishing accepted work. */
  DRAINING("draining"),
  /** Stopped. */
  STOPPED("stopped"),
  /** Failed. */
  ERROR("error");

  private final String wire;

  NodeState(final String wire) {
    this.wire = wire;
  }

  @Override
  public String wire() {
    return wire;
  }
}
