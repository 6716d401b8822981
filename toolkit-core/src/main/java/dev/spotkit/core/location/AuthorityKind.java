package dev.spotkit.core.location;

/**
 * The kind segment of an authority key (spec 002 section 3.4): an Actor, or a Spot of any kind (Entry, User and
 * Instance Spots share {@code spot}, so one SpotId has exactly one authority row).
 */
public enum AuthorityKind {
  /** An Actor, keyed by ActorId. */
  ACTOR("actor", 'a'),
  /** A Spot of any kind, keyed by SpotId. */
  SPOT("spot", 's');

  private final String segment;
  private final char wireTag;

  AuthorityKind(final String segment, final char wireTag) {
    this.segment = segment;
    this.wireTag = wireTag;
  }

  /**
   * The preimage segment.
   *
   * @return {@code actor} or {@code spot}.
   */
  public String segment() {
    return segment;
  }

  /**
   * The tag of the wire authority key ({@code zla1:a:} / {@code zla1:s:}).
   *
   * @return {@code a} or {@code s}.
   */
  public char wireTag() {
    return wireTag;
  }
}
