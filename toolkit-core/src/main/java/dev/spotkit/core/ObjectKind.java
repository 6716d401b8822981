package dev.spotkit.core;

/**
 * The kind of object an operator query asks about (spec 002 section 7.4): lookup by id distinguishes Actor and
 * Spot, and a paged list requires one of them as its filter. Entry, User and Instance Spots are all
 * {@link #SPOT}: one SpotId has exactly one location.
 */
public enum ObjectKind {
  /** An Actor, found by its ActorId. */
  ACTOR,
  /** A Spot of any kind (Entry, User or Instance), found by its SpotId. */
  SPOT
}
