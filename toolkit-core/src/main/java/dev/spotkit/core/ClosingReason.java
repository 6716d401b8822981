package dev.spotkit.core;

/** Why a Spot instance terminates (spec 003 section 3.4); the numeric values are the spec's. */
public enum ClosingReason {
  /** 0: the application closed a User or Instance Spot. */
  EXPLICIT_CLOSE(0),
  /** 1: the node closes without relocation. */
  HOST_SHUTDOWN(1),
  /**
   * 2: the spot moved to another node: the source instance of a moved Instance Spot gets it once the target
   * committed (spec 001 section 8); a SpotWide User Spot's source instance does not get it yet.
   */
  RELOCATION_OUT(2),
  /**
   * 3: an idle Instance Spot is cleaned up (spec 003 section 6.2): only for a registration with
   * {@link InstanceSpotOptions#idleTimeout} (default none), once that time passed since its last work with nothing in
   * progress. Its state is not preserved: save what must be kept in {@code onClosing}.
   */
  IDLE_EVICTED(3);

  private final int value;

  ClosingReason(final int value) {
    this.value = value;
  }

  /**
   * The spec's number.
   *
   * @return 0..3.
   */
  public int value() {
    return value;
  }
}
