package dev.spotkit.store;

/** Authority state of a record (spec 000 section 2): Missing has no record at all. */
public enum RecordState {
  /** Reserved by the one creator that won the Missing to Creating write; not routable. */
  CREATING,
  /** Created and initialized; receives messages. */
  READY
}
