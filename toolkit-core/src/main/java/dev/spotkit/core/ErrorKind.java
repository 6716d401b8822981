package dev.spotkit.core;

/** The kinds of {@link SpotkitException}, one per nested type (DESIGN.md "Messaging"). */
public enum ErrorKind {
  /** {@link SpotkitException.NotFound}. */
  NOT_FOUND,
  /** {@link SpotkitException.Unavailable}. */
  UNAVAILABLE,
  /** {@link SpotkitException.CapacityExceeded}. */
  CAPACITY_EXCEEDED,
  /** {@link SpotkitException.DeadlineExceeded}. */
  DEADLINE_EXCEEDED,
  /** {@link SpotkitException.TypeMismatch}. */
  TYPE_MISMATCH,
  /** {@link SpotkitException.AlreadyExists}. */
  ALREADY_EXISTS,
  /** {@link SpotkitException.ShuttingDown}. */
  SHUTTING_DOWN,
  /** {@link SpotkitException.NotConfigured}. */
  NOT_CONFIGURED,
  /** {@link SpotkitException.GenerationExhausted}. */
  GENERATION_EXHAUSTED,
  /** {@link SpotkitException.DataLost}. */
  DATA_LOST,
  /** {@link SpotkitException.InternalFailure}. */
  INTERNAL_FAILURE,
  /** {@link SpotkitException.InvalidOperation}. */
  INVALID_OPERATION,
  /** {@link SpotkitException.StaleGeneration} (also an InvalidOperation). */
  STALE_GENERATION,
  /** {@link SpotkitException.Rejected}. */
  REJECTED
}
