package dev.spotkit.relocation.wire;

/**
 * What {@link ChunkAssembler#onPrepare} did with a command 40 that arrived while an assembly exists (spec 001
 * section 4.3, REL-09).
 */
public sealed interface PrepareOutcome {

  /** Same relocation identity and connection, identical manifest: use the existing progress, create nothing. */
  record Restated() implements PrepareOutcome {
  }

  /**
   * Another relocation identity or connection: not linked to this assembly. Whether it replaces this assembly
   * (REL-32) is the state machine's decision.
   *
   * @param identity the identity the frame carried.
   */
  record Unrelated(RelocationIdentity identity) implements PrepareOutcome {
  }

  /**
   * Same relocation identity with another length, count, checksum or other field: an explicit conflict. The
   * existing assembly is neither reused nor overwritten; it is closed as failed.
   *
   * @param error a {@link WireError#MANIFEST_CONFLICT} naming the first differing field.
   */
  record Conflict(WireFormatException error) implements PrepareOutcome {
  }
}
