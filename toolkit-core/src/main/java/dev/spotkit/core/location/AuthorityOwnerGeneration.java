package dev.spotkit.core.location;

/**
 * The order in which one object's owner changed (spec 002 section 3.2): issued at Reserve and at every owner
 * change from the counter {@code zlink:v11:authority-owner-counter}; relocation within one owner keeps it. A type
 * of its own, so it never swaps with an ObjectGeneration or a LeaseGeneration (LOC-01).
 *
 * @param value 1..2^63-2.
 */
public record AuthorityOwnerGeneration(long value) {

  /**
   * Checks the range.
   *
   * @throws IllegalArgumentException unless 1..2^63-1.
   */
  public AuthorityOwnerGeneration {
    Generations.checkStored("AuthorityOwnerGeneration", value);
  }

  @Override
  public String toString() {
    return Long.toString(value);
  }
}
