package dev.spotkit.core.location;

/**
 * The kind segment of an authority key (spec 002 section 3.4): an Actor, or a Spot of any kind (Entry, User and
 * Instance Spots share {@code spot}, so one SpotId has exactly one authority row).
 */
public enum AuthorityKind {
  /** An Actor, keyed by ActorId. */
  ACTOR("actor"),
  /** A Spot of any kind, keyed by SpotId. */
  SPOT("spot");

  private final String segment;

  AuthorityKind(final String segment) {
    this.segment = segment;
  }

  /**
   * The preimage segment.
   *
   * @return {@code actor} or {@code spot}.
   */
  public String segment() {
    return segment;
  }
}
