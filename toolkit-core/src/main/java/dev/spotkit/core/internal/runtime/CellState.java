package dev.spotkit.core.internal.runtime;

/** Lifecycle of a cell. */
public enum CellState {
  /** Built, mailbox closed; not routable by id. */
  STAGING,
  /** Created and initialized; routable. */
  READY,
  /** Close started; no new admission. */
  CLOSING,
  /** Released. */
  GONE
}
