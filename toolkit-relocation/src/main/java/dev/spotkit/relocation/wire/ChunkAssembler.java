package dev.spotkit.relocation.wire;

import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32C;

/**
 * The target side of the chunk transfer (spec 001 sections 3, 4.2, 4.3 and 9; REL-06 to REL-10): one assembly per
 * command 40, attributed only by the relocation identity ({@link RelocationIdentity}: RelocationId,
 * targetAttemptGeneration, coordinator fence) and the connection that carried the command 40. Not thread-safe:
 * drive it from the unit's single owner, like the rest of the relocation state.
 *
 * <h2>Driving it</h2>
 * <ol>
 *   <li>{@link #start} with the decoded command 40 and its connection id, after registering the temporary queue.
 *       A manifest beyond the receiver's limit is refused before anything is allocated.</li>
 *   <li>Every command 52 on that connection goes to {@link #onChunk}; every further command 40 to
 *       {@link #onPrepare}. Frames of other identities or connections come back {@code Discarded}/{@code
 *       Unrelated} and change nothing (messages of other objects may interleave, REL-07).</li>
 *   <li>{@link ChunkOutcome.Complete} carries the verified stream exactly once; decode it with
 *       {@link RelocationEnvelopeCodec}. {@link ChunkOutcome.Failed} or {@link PrepareOutcome.Conflict} means
 *       answer with command 53 and restore nothing; the assembly drops its buffers and stays closed.</li>
 * </ol>
 *
 * <h2>Guarantees</h2>
 * <ul>
 *   <li>Each chunk is copied into a buffer of the assembly at once, so the receive buffer can be released.</li>
 *   <li>No payload is given until every ordinal 0..chunkCount-1 is present and the bytes total
 *       payloadTotalLength and their CRC-32C equals payloadChecksumCrc32c.</li>
 *   <li>Memory is bounded by the manifest: bytes held never exceed payloadTotalLength (a chunk that would pass it
 *       fails the assembly), payloadTotalLength never exceeds the receiver's limit, and nothing is sized from
 *       payloadChunkCount (chunks are kept in a sorted map of received ordinals only).</li>
 * </ul>
 */
public final class ChunkAssembler {

  private static final String NAME = "assembly";

  private final RelocationFrame.Prepare manifest;
  private final long connectionId;
  private final TreeMap<Long, byte[]> chunks = new TreeMap<>();
  private long receivedBytes;
  private boolean closed;
  private boolean completed;

  private ChunkAssembler(final RelocationFrame.Prepare manifest, final long connectionId) {
    this.manifest = manifest;
    this.connectionId = connectionId;
  }

  /**
   * Opens an assembly for a command 40.
   *
   * @param manifest the decoded command 40.
   * @param connectionId the id of the connection that carried it (the transport's own numbering).
   * @param maxPayloadBytes the largest stream this receiver accepts, in bytes (its runtime memory limit), at
   *     least 1.
   * @return the assembly, holding nothing yet.
   * @throws RelocationWireException {@code oversized} when payloadTotalLength exceeds {@code maxPayloadBytes} or
   *     2^31-9 (one Java array); {@code invalid-field} when payloadTotalLength is 0, payloadChunkCount is 0 or
   *     payloadChunkCount exceeds payloadTotalLength (every chunk carries at least one byte).
   * @throws IllegalArgumentException when {@code maxPayloadBytes} is below 1.
   */
  public static ChunkAssembler start(final RelocationFrame.Prepare manifest, final long connectionId,
      final long maxPayloadBytes) {
    Fields.present("manifest", manifest);
    if (maxPayloadBytes < 1) {
      throw new IllegalArgumentException("maxPayloadBytes " + maxPayloadBytes + " must be at least 1");
    }
    final long limit = Math.min(maxPayloadBytes, Integer.MAX_VALUE - 8);
    final long total = manifest.payloadTotalLength();
    if (total > limit) {
      throw error(RelocationWireError.OVERSIZED, "payloadTotalLength", total + " bytes", "at most " + limit
          + " bytes");
    }
    if (total == 0) {
      throw error(RelocationWireError.INVALID_FIELD, "payloadTotalLength", "0 bytes", "at least 1 byte");
    }
    final long count = manifest.payloadChunkCount();
    if (count == 0 || count > total) {
      throw error(RelocationWireError.INVALID_FIELD, "payloadChunkCount", "value " + count, "1.." + total
          + " (payloadTotalLength)");
    }
    return new ChunkAssembler(manifest, connectionId);
  }

  private static RelocationWireException error(final RelocationWireError error, final String field,
      final String value, final String limit) {
    return new RelocationWireException(NAME, error, field, -1, value, limit);
  }

  /**
   * The command 40 this assembly was opened with.
   *
   * @return the manifest.
   */
  public RelocationFrame.Prepare manifest() {
    return manifest;
  }

  /**
   * The connection the command 40 arrived on.
   *
   * @return the connection id.
   */
  public long connectionId() {
    return connectionId;
  }

  /**
   * Distinct chunk ordinals held.
   *
   * @return 0..payloadChunkCount; 0 after completion or failure (buffers are dropped).
   */
  public long receivedChunks() {
    return chunks.size();
  }

  /**
   * Bytes held.
   *
   * @return 0..payloadTotalLength.
   */
  public long receivedBytes() {
    return receivedBytes;
  }

  /**
   * Whether the assembly gave its payload.
   *
   * @return true after {@link ChunkOutcome.Complete}.
   */
  public boolean isComplete() {
    return completed;
  }

  /**
   * Whether the assembly failed.
   *
   * @return true after {@link ChunkOutcome.Failed} or {@link PrepareOutcome.Conflict}.
   */
  public boolean isFailed() {
    return closed && !completed;
  }

  private boolean ours(final RelocationIdentity identity, final long connection) {
    return identity.equals(manifest.identity()) && connection == connectionId;
  }

  /**
   * Handles a command 40 that arrived after {@link #start}.
   *
   * @param prepare the decoded command 40.
   * @param connection the connection it arrived on.
   * @return {@code Unrelated} for another identity or connection; {@code Restated} when identical (existing
   *     progress is kept, REL-09); otherwise {@code Conflict}, which closes this assembly as failed.
   */
  public PrepareOutcome onPrepare(final RelocationFrame.Prepare prepare, final long connection) {
    if (!ours(prepare.identity(), connection)) {
      return new PrepareOutcome.Unrelated(prepare.identity());
    }
    if (prepare.equals(manifest)) {
      return new PrepareOutcome.Restated();
    }
    final String field = prepare.payloadTotalLength() != manifest.payloadTotalLength() ? "payloadTotalLength"
        : prepare.payloadChecksumCrc32c() != manifest.payloadChecksumCrc32c() ? "payloadChecksumCrc32c"
        : prepare.payloadChunkCount() != manifest.payloadChunkCount() ? "payloadChunkCount" : "manifest";
    fail();
    return new PrepareOutcome.Conflict(error(RelocationWireError.MANIFEST_CONFLICT, field,
        "restatement differs from the first command 40", "the first declared values"));
  }

  /**
   * Handles one command 52.
   *
   * @param state the decoded chunk; its bytes are copied into the assembly's own buffer before this returns.
   * @param connection the connection it arrived on.
   * @return the outcome, see {@link ChunkOutcome}.
   */
  public ChunkOutcome onChunk(final RelocationFrame.State state, final long connection) {
    final long ordinal = state.chunkOrdinal();
    if (!state.identity().equals(manifest.identity())) {
      return new ChunkOutcome.Discarded(ChunkOutcome.DiscardReason.OTHER_RELOCATION_IDENTITY, state.identity(),
          ordinal);
    }
    if (connection != connectionId) {
      return new ChunkOutcome.Discarded(ChunkOutcome.DiscardReason.OTHER_CONNECTION, state.identity(), ordinal);
    }
    if (closed) {
      return new ChunkOutcome.Discarded(ChunkOutcome.DiscardReason.ASSEMBLY_CLOSED, state.identity(), ordinal);
    }
    final byte[] data = state.chunkUnsafe();
    if (!state.object().equals(manifest.object())) {
      return failed(RelocationWireError.MANIFEST_CONFLICT, "object", "chunk " + ordinal + " names "
          + state.object(), manifest.object().toString());
    }
    if (ordinal >= manifest.payloadChunkCount()) {
      return failed(RelocationWireError.CHUNK_OUT_OF_RANGE, "chunkOrdinal", "value " + ordinal, "0.."
          + (manifest.payloadChunkCount() - 1));
    }
    final byte[] held = chunks.get(ordinal);
    if (held != null) {
      if (Arrays.equals(held, data)) {
        return new ChunkOutcome.Duplicate(ordinal);
      }
      return failed(RelocationWireError.CHUNK_CONFLICT, "chunk", "ordinal " + ordinal + " restated with other "
          + "bytes", "the bytes first received");
    }
    if (data.length == 0) {
      return failed(RelocationWireError.INVALID_FIELD, "chunk.length", "chunk " + ordinal + " is empty",
          "at least 1 byte");
    }
    if (receivedBytes + data.length > manifest.payloadTotalLength()) {
      return failed(RelocationWireError.CHUNK_BEYOND_TOTAL, "chunk.length", (receivedBytes + data.length)
          + " bytes with chunk " + ordinal, "at most " + manifest.payloadTotalLength() + " (payloadTotalLength)");
    }
    chunks.put(ordinal, Arrays.copyOf(data, data.length));
    receivedBytes += data.length;
    if (chunks.size() < manifest.payloadChunkCount()) {
      return new ChunkOutcome.Accepted(chunks.size(), receivedBytes);
    }
    return finish();
  }

  private ChunkOutcome finish() {
    if (receivedBytes != manifest.payloadTotalLength()) {
      return failed(RelocationWireError.LENGTH_MISMATCH, "payloadTotalLength", receivedBytes + " bytes in "
          + chunks.size() + " chunks", manifest.payloadTotalLength() + " bytes");
    }
    final byte[] payload = new byte[(int) receivedBytes];
    final CRC32C crc = new CRC32C();
    int at = 0;
    for (Map.Entry<Long, byte[]> e : chunks.entrySet()) {
      final byte[] c = e.getValue();
      System.arraycopy(c, 0, payload, at, c.length);
      at += c.length;
    }
    crc.update(payload, 0, payload.length);
    if (crc.getValue() != manifest.payloadChecksumCrc32c()) {
      return failed(RelocationWireError.CHECKSUM_MISMATCH, "payloadChecksumCrc32c", String.format("0x%08x",
          crc.getValue()), String.format("0x%08x", manifest.payloadChecksumCrc32c()));
    }
    chunks.clear();
    closed = true;
    completed = true;
    return new ChunkOutcome.Complete(payload);
  }

  private ChunkOutcome failed(final RelocationWireError error, final String field, final String value,
      final String limit) {
    fail();
    return new ChunkOutcome.Failed(error(error, field, value, limit));
  }

  private void fail() {
    chunks.clear();
    receivedBytes = 0;
    closed = true;
  }
}
