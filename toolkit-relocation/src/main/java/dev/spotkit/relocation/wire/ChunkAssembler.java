package dev.spotkit.relocation.wire;

import java.util.Arrays;
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
 *   <li>Each chunk is copied into storage of the assembly at once, before {@link #onChunk} returns, so the receive
 *       buffer (the frame array or buffer a {@link StateView} reads) can be released or reused. No reference to it
 *       is kept.</li>
 *   <li>One copy per chunk in the usual order: the assembly keeps one stream buffer sized ahead of the bytes
 *       placed, to min(payloadTotalLength, max(64 KiB, 16 x bytes placed)) (payloadTotalLength was checked against
 *       the receiver's limit by {@link #start}). A payload of up to 16 chunks (every chunk but the last full) is
 *       placed in one buffer of exactly payloadTotalLength, allocated when ordinal 0 arrives and never regrown; a
 *       larger one is regrown (one copy of the bytes placed so far) when it fills, to 16 times those bytes; a
 *       manifest announcing a huge total makes the receiver hold at most 16 times the bytes actually sent (at
 *       least 64 KiB). A chunk whose ordinal is the next one missing is copied
 *       straight into it at the end of the bytes placed so far. A chunk that arrives before its predecessors
 *       (the spec allows any split, so its offset is unknown until they arrive) is copied into a buffer of its
 *       own and moved into the stream buffer once they did. The CRC-32C is computed incrementally over the
 *       stream buffer in ordinal order.</li>
 *   <li>No payload is given until every ordinal 0..chunkCount-1 is present and the bytes total
 *       payloadTotalLength and their CRC-32C equals payloadChecksumCrc32c. {@link ChunkOutcome.Complete} hands
 *       over the stream buffer itself (the assembly drops its reference).</li>
 *   <li>Memory is bounded by the manifest: chunk bytes received never exceed payloadTotalLength (a chunk that would
 *       pass it fails the assembly), payloadTotalLength never exceeds the receiver's limit, and nothing is sized
 *       from payloadChunkCount (out-of-order chunks are kept in a sorted map of received ordinals only; the
 *       offsets of placed chunks grow with the chunks received). Memory held is payloadTotalLength when chunks
 *       arrive in order, at most twice that when they arrive out of order.</li>
 * </ul>
 */
public final class ChunkAssembler {
  /** Smallest size of the stream buffer: 64 KiB, or the total when smaller. */
  private static final int INITIAL_STREAM_BYTES = 64 * 1024;
  /**
   * How far ahead of the bytes received the stream buffer is sized: {@value} times the bytes placed (at most the
   * total). Usual payloads (up to 16 chunks) are thus placed in one buffer of exactly payloadTotalLength, sized
   * when ordinal 0 arrives, and never regrown or copied again; a larger one grows at most a few times (x16 each);
   * a manifest that announces a huge total still makes the receiver hold only a bounded multiple of what was sent.
   */
  private static final long SIZE_AHEAD_FACTOR = 16;

  private static final String NAME = "assembly";

  private final RelocationFrame.Prepare manifest;
  private final long connectionId;
  /** Chunks that arrived before a predecessor, each in its own copy, until they can be placed. */
  private final TreeMap<Long, byte[]> early = new TreeMap<>();
  private final CRC32C crc = new CRC32C();
  /** The stream buffer (grows with the bytes placed, at most payloadTotalLength); null before ordinal 0 and after. */
  private byte[] stream;
  /** Bytes placed in {@link #stream}, i.e. the start of the next ordinal's chunk. */
  private int placed;
  /** Chunks placed in {@link #stream}: ordinals 0..placedChunks-1. */
  private int placedChunks;
  /** Start offset in {@link #stream} of each placed ordinal (grows with the chunks received). */
  private int[] offsets = new int[16];
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
   * @throws WireFormatException {@code oversized} when payloadTotalLength exceeds {@code maxPayloadBytes} or
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
      throw error(WireError.OVERSIZED, "payloadTotalLength", total + " bytes", "at most " + limit
          + " bytes");
    }
    if (total == 0) {
      throw error(WireError.INVALID_FIELD, "payloadTotalLength", "0 bytes", "at least 1 byte");
    }
    final long count = manifest.payloadChunkCount();
    if (count == 0 || count > total) {
      throw error(WireError.INVALID_FIELD, "payloadChunkCount", "value " + count, "1.." + total
          + " (payloadTotalLength)");
    }
    return new ChunkAssembler(manifest, connectionId);
  }

  private static WireFormatException error(final WireError error, final String field,
      final String value, final String limit) {
    return new WireFormatException(NAME, error, field, -1, value, limit);
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
    return closed ? 0 : placedChunks + early.size();
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
    return new PrepareOutcome.Conflict(error(WireError.MANIFEST_CONFLICT, field,
        "restatement differs from the first command 40", "the first declared values"));
  }

  /**
   * Handles one command 52 record; the same as {@link #onChunk(StateView, long)} with its view.
   *
   * @param state the decoded chunk; its bytes are copied into the assembly's own storage before this returns.
   * @param connection the connection it arrived on.
   * @return the outcome, see {@link ChunkOutcome}.
   */
  public ChunkOutcome onChunk(final RelocationFrame.State state, final long connection) {
    return onChunk(StateView.of(state), connection);
  }

  /**
   * Handles one command 52, read in place from the received frame ({@link RelocationCodec#decodeStateView(byte[])},
   * {@link RelocationCodec#decodeStateView(java.nio.ByteBuffer)}).
   *
   * @param state the decoded chunk; its bytes are copied into the assembly's own storage before this returns (one
   *     copy, or two for a chunk that arrives before its predecessors), and neither the view nor the frame memory
   *     it reads is kept: the caller may release a pooled receive buffer as soon as this returns, whatever the
   *     outcome.
   * @param connection the connection it arrived on.
   * @return the outcome, see {@link ChunkOutcome}.
   */
  public ChunkOutcome onChunk(final StateView state, final long connection) {
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
    final int length = state.chunkLength();
    if (!state.object().equals(manifest.object())) {
      return failed(WireError.MANIFEST_CONFLICT, "object", "chunk " + ordinal + " names "
          + state.object(), manifest.object().toString());
    }
    if (ordinal >= manifest.payloadChunkCount()) {
      return failed(WireError.CHUNK_OUT_OF_RANGE, "chunkOrdinal", "value " + ordinal, "0.."
          + (manifest.payloadChunkCount() - 1));
    }
    final boolean held = ordinal < placedChunks || early.containsKey(ordinal);
    if (held) {
      if (sameAsHeld(ordinal, state)) {
        return new ChunkOutcome.Duplicate(ordinal);
      }
      return failed(WireError.CHUNK_CONFLICT, "chunk", "ordinal " + ordinal + " restated with other "
          + "bytes", "the bytes first received");
    }
    if (length == 0) {
      return failed(WireError.INVALID_FIELD, "chunk.length", "chunk " + ordinal + " is empty",
          "at least 1 byte");
    }
    if (receivedBytes + length > manifest.payloadTotalLength()) {
      return failed(WireError.CHUNK_BEYOND_TOTAL, "chunk.length", (receivedBytes + length)
          + " bytes with chunk " + ordinal, "at most " + manifest.payloadTotalLength() + " (payloadTotalLength)");
    }
    if (ordinal == placedChunks) {
      state.copyTo(stream(length), placed); // the chunk's one copy, straight out of the received frame
      place(length);
      for (byte[] next = early.remove((long) placedChunks); next != null; next = early.remove((long) placedChunks)) {
        System.arraycopy(next, 0, stream(next.length), placed, next.length);
        place(next.length);
      }
    } else {
      early.put(ordinal, state.chunk());
    }
    receivedBytes += length;
    if (receivedChunks() < manifest.payloadChunkCount()) {
      return new ChunkOutcome.Accepted(receivedChunks(), receivedBytes);
    }
    return finish();
  }

  /** Whether the held chunk {@code ordinal} equals the chunk {@code state} views. */
  private boolean sameAsHeld(final long ordinal, final StateView state) {
    if (ordinal < placedChunks) {
      final int i = (int) ordinal;
      final int start = offsets[i];
      final int end = i + 1 < placedChunks ? offsets[i + 1] : placed;
      return state.sameBytes(stream, start, end);
    }
    final byte[] held = early.get(ordinal);
    return state.sameBytes(held, 0, held.length);
  }

  /**
   * The stream buffer with room for the next ordinal's {@code length} bytes at {@link #placed}; the caller copies
   * them there, then calls {@link #place}.
   */
  private byte[] stream(final int length) {
    final long total = manifest.payloadTotalLength(); // checked against the receiver's limit in start
    if (stream == null || placed + length > stream.length) {
      // Sized ahead of the bytes received (SIZE_AHEAD_FACTOR times them, at most the total), never from the
      // manifest alone: a manifest announcing a huge total makes the receiver hold a bounded multiple of what was
      // sent.
      final long wanted = Math.min(total, Math.max(INITIAL_STREAM_BYTES,
          SIZE_AHEAD_FACTOR * (placed + (long) length)));
      stream = stream == null ? new byte[(int) wanted] : Arrays.copyOf(stream, (int) wanted);
    }
    return stream;
  }

  /** Counts the {@code length} bytes just copied to {@link #placed} as the next ordinal, adds them to the CRC-32C. */
  private void place(final int length) {
    if (placedChunks == offsets.length) {
      offsets = Arrays.copyOf(offsets, offsets.length * 2);
    }
    offsets[placedChunks++] = placed;
    crc.update(stream, placed, length);
    placed += length;
  }

  private ChunkOutcome finish() {
    if (receivedBytes != manifest.payloadTotalLength()) {
      return failed(WireError.LENGTH_MISMATCH, "payloadTotalLength", receivedBytes + " bytes in "
          + receivedChunks() + " chunks", manifest.payloadTotalLength() + " bytes");
    }
    if (crc.getValue() != manifest.payloadChecksumCrc32c()) {
      return failed(WireError.CHECKSUM_MISMATCH, "payloadChecksumCrc32c", String.format("0x%08x",
          crc.getValue()), String.format("0x%08x", manifest.payloadChecksumCrc32c()));
    }
    final byte[] payload = stream;
    drop();
    closed = true;
    completed = true;
    return new ChunkOutcome.Complete(payload);
  }

  private ChunkOutcome failed(final WireError error, final String field, final String value,
      final String limit) {
    fail();
    return new ChunkOutcome.Failed(error(error, field, value, limit));
  }

  private void fail() {
    drop();
    receivedBytes = 0;
    closed = true;
  }

  private void drop() {
    early.clear();
    stream = null;
    offsets = new int[0];
  }
}
