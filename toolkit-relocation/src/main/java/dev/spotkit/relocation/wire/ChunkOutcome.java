package dev.spotkit.relocation.wire;

/**
 * What {@link ChunkAssembler#onChunk} did with one command 52 chunk (spec 001 section 4.3). Switch over it; every
 * case is a record.
 */
public sealed interface ChunkOutcome {

  /**
   * Why a chunk was not linked to this assembly.
   */
  enum DiscardReason {
    /** Another RelocationId, targetAttemptGeneration or coordinator fence (REL-08). */
    OTHER_RELOCATION_IDENTITY,
    /** Same relocation identity on another connection. */
    OTHER_CONNECTION,
    /** The assembly already completed or failed; nothing changes. */
    ASSEMBLY_CLOSED
  }

  /**
   * The chunk was copied into the assembly; more chunks are missing.
   *
   * @param receivedChunks distinct ordinals held, 1..chunkCount-1.
   * @param receivedBytes bytes held, 0..payloadTotalLength.
   */
  record Accepted(long receivedChunks, long receivedBytes) implements ChunkOutcome {
  }

  /**
   * The chunk restated an ordinal already held with the same bytes; nothing changed.
   *
   * @param chunkOrdinal the ordinal.
   */
  record Duplicate(long chunkOrdinal) implements ChunkOutcome {
  }

  /**
   * The last missing chunk arrived, total length and CRC-32C match the manifest: the verified stream. Given
   * exactly once per assembly.
   *
   * @param payload the whole relocation-envelope-v1 stream; the caller owns this array.
   */
  record Complete(byte[] payload) implements ChunkOutcome {
  }

  /**
   * The chunk belongs elsewhere; it was not linked and changed nothing. Report it (a discard is logged).
   *
   * @param reason why.
   * @param identity the relocation identity the chunk carried.
   * @param chunkOrdinal the chunk's ordinal.
   */
  record Discarded(DiscardReason reason, RelocationIdentity identity, long chunkOrdinal) implements ChunkOutcome {
  }

  /**
   * The assembly failed and is closed; the target answers command 40 with command 53 and restores nothing (spec
   * 001 sections 4.3 and 9). Given once; later chunks are {@link DiscardReason#ASSEMBLY_CLOSED}.
   *
   * @param error the typed error: chunk-out-of-range, chunk-beyond-total, chunk-conflict, manifest-conflict,
   *     invalid-field, length-mismatch or checksum-mismatch.
   */
  record Failed(WireFormatException error) implements ChunkOutcome {
  }
}
