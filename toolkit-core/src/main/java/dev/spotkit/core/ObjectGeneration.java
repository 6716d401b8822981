package dev.spotkit.core;

/**
 * Distinguishes incarnations re-created under the same logical id: a non-zero 63-bit value issued from the
 * Location Store's store-wide monotonic sequence, kept across membership and owner changes of the same
 * incarnation (spec 000 section 1; LOC-27). A ref with another generation than the live object's is stale
 * and is refused, never misrouted.
 *
 * @param value 1..2^63-1.
 */
public record ObjectGeneration(long value) {

  /**
   * Validates the value.
   *
   * @throws SpotkitException.InvalidOperation unless 1..2^63-1.
   */
  public ObjectGeneration {
    if (value <= 0) {
      throw new SpotkitException.InvalidOperation("ObjectGeneration " + value + " must be in 1..2^63-1");
    }
  }

  @Override
  public String toString() {
    return Long.toString(value);
  }
}
