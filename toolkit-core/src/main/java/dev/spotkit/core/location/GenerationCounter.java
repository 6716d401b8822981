package dev.spotkit.core.location;

/**
 * The three store-wide generation counters (spec 002 section 3.2; FACTS.md "Redis layout"). Each is a record at
 * its own logical key holding the next value to issue, so the three sequences never mix (LOC-01).
 */
public enum GenerationCounter {
  /** ObjectGeneration: one per object (re-)creation. */
  OBJECT(LocationKeys.OBJECT_COUNTER, "ObjectGeneration"),
  /** AuthorityOwnerGeneration: one per Reserve and per owner change. */
  AUTHORITY_OWNER(LocationKeys.AUTHORITY_OWNER_COUNTER, "AuthorityOwnerGeneration"),
  /** LeaseGeneration: one per host run. */
  OWNER_LEASE(LocationKeys.OWNER_COUNTER, "LeaseGeneration");

  private final LogicalKey key;
  private final String generationName;

  GenerationCounter(final LogicalKey key, final String generationName) {
    this.key = key;
    this.generationName = generationName;
  }

  /**
   * The counter's logical key.
   *
   * @return e.g. {@code zlink:v11:object-counter}.
   */
  public LogicalKey key() {
    return key;
  }

  /**
   * The name of the generation it issues, for messages.
   *
   * @return e.g. {@code ObjectGeneration}.
   */
  public String generationName() {
    return generationName;
  }
}
