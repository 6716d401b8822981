package dev.spotkit.core.location;

/**
 * Which run of a host an owner lease belongs to (spec 002 section 3.1): issued once per host run from the
 * counter {@code zlink:v11:owner-counter}; renewals and release keep it. A type of its own, so it never swaps
 * with an ObjectGeneration or an AuthorityOwnerGeneration (LOC-01).
 *
 * @param value 1..2^63-2.
 */
public record LeaseGeneration(long value) {

  /**
   * Checks the range.
   *
   * @throws IllegalArgumentException unless 1..2^63-1.
   */
  public LeaseGeneration {
    Generations.checkStored("LeaseGeneration", value);
  }

  @Override
  public String toString() {
    return Long.toString(value);
  }
}
