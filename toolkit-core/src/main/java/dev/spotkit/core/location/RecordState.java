package dev.spotkit.core.location;

/** The one-node runtime's view of an authority row's state (spec 000 section 2): Missing has no row at all. */
public enum RecordState {
  /** Reserved by the one creator that won the Missing to Creating write; not routable (allocation reserved). */
  CREATING,
  /** Created and initialized; receives messages (allocation active). */
  READY
}
