package dev.spotkit.store;

/** What a Location Store key names: the authority kinds of spec 002 section 3.4 ({@code actor}, {@code spot}). */
public enum ObjectKind {
  /** An Actor, keyed by ActorId. */
  ACTOR,
  /** A Spot of any kind (Entry, User, Instance), keyed by SpotId. */
  SPOT
}
