package dev.spotkit.relocation.wire;

import java.util.Arrays;
import java.util.OptionalLong;
import java.util.zip.CRC32C;

/**
 * The source side of the chunk transfer (spec 001 sections 4.2 and 5.3): one encoded relocation-envelope-v1
 * stream, the command 40 manifest values that describe it, and its command 52 chunks. The plan keeps the stream
 * (the source's in-memory payload, kept until the retransmission window ends): its own copy ({@link #of}), the
 * array handed over ({@link #adopt}) or the stream it encoded itself ({@link #encode}). Chunks go out either as
 * copies ({@link #chunk}, {@link #stateFrame}) or as ranges of that one array ({@link #stateFrameParts}, nothing
 * copied). Immutable; any thread.
 *
 * <p>Chunk size (one chunk's data bytes) is fixed when the plan is made, because command 40 declares the chunk
 * count before any chunk is sent: {@link #chunkSize(long, OptionalLong, OptionalLong)} = the smallest of the
 * RelocationPayloadChunkLimit setting (default {@value #DEFAULT_CHUNK_LIMIT_BYTES} bytes), the receive chunk
 * limit the target advertised ({@value #UNNEGOTIATED_CHUNK_BYTES} bytes when no reply negotiated one, e.g.
 * JoinEntrySpot), and the in-flight budget left. Every chunk but the last holds exactly chunkSize bytes.
 *
 * <p>CRC-32C: Castagnoli, reflected, init and final xor 0xFFFFFFFF ({@link CRC32C}), over the whole stream.
 */
public final class ChunkPlan {

  /** Default RelocationPayloadChunkLimit: 256 KiB = 262144 bytes. */
  public static final int DEFAULT_CHUNK_LIMIT_BYTES = 256 * 1024;
  /** Chunk size when no receive limit was negotiated: 32 KiB = 32768 bytes. */
  public static final int UNNEGOTIATED_CHUNK_BYTES = 32 * 1024;

  private final byte[] stream;
  private final int chunkSize;
  private final long chunkCount;
  private final long checksum;

  private ChunkPlan(final byte[] stream, final int chunkSize, final long checksum) {
    this.stream = stream;
    this.chunkSize = chunkSize;
    this.chunkCount = (stream.length + (long) chunkSize - 1) / chunkSize;
    this.checksum = checksum;
  }

  /**
   * The effective chunk size of spec 001 section 4.2.
   *
   * @param chunkLimitSetting RelocationPayloadChunkLimit in bytes, at least 1.
   * @param advertisedReceiveLimit the target's advertised receive chunk limit in bytes (at least 1), or empty when
   *     no reply negotiated one, in which case {@value #UNNEGOTIATED_CHUNK_BYTES} is used in its place.
   * @param inFlightBudgetLeft bytes of the in-flight budget left (at least 1), or empty when no budget applies
   *     (the setting is 0). A full budget is not an input: the caller waits before the seal (spec 001 5.3).
   * @return the chunk size in bytes, 1..2^31-1.
   * @throws IllegalArgumentException when a present value is below 1.
   */
  public static int chunkSize(final long chunkLimitSetting, final OptionalLong advertisedReceiveLimit,
      final OptionalLong inFlightBudgetLeft) {
    long size = atLeastOne("chunkLimitSetting", chunkLimitSetting);
    size = Math.min(size, advertisedReceiveLimit.isPresent()
        ? atLeastOne("advertisedReceiveLimit", advertisedReceiveLimit.getAsLong()) : UNNEGOTIATED_CHUNK_BYTES);
    if (inFlightBudgetLeft.isPresent()) {
      size = Math.min(size, atLeastOne("inFlightBudgetLeft", inFlightBudgetLeft.getAsLong()));
    }
    return (int) Math.min(size, Integer.MAX_VALUE);
  }

  private static long atLeastOne(final String field, final long value) {
    if (value < 1) {
      throw new IllegalArgumentException(field + " " + value + " bytes must be at least 1");
    }
    return value;
  }

  /**
   * Plans the transfer of one stream.
   *
   * @param stream the encoded relocation-envelope-v1 stream, at least 1 byte; copied.
   * @param chunkSize bytes per chunk, at least 1 (see {@link #chunkSize}).
   * @return the plan.
   * @throws IllegalArgumentException when the stream is empty, the chunk size is below 1, or the chunk count
   *     would exceed 2^32-1.
   */
  public static ChunkPlan of(final byte[] stream, final int chunkSize) {
    Fields.present("stream", stream);
    return adopt(stream.clone(), chunkSize);
  }

  /**
   * Plans the transfer of a stream the caller hands over, without copying it: the plan keeps {@code stream}
   * itself as the source's in-memory payload. Use it for a freshly encoded stream nobody else holds (the result of
   * {@link RelocationEnvelopeCodec#encode}).
   *
   * @param stream the encoded relocation-envelope-v1 stream, at least 1 byte; from this call on it belongs to the
   *     plan and must never be modified.
   * @param chunkSize bytes per chunk, at least 1 (see {@link #chunkSize}).
   * @return the plan.
   * @throws IllegalArgumentException as {@link #of}.
   */
  public static ChunkPlan adopt(final byte[] stream, final int chunkSize) {
    check(stream, chunkSize);
    return new ChunkPlan(stream, chunkSize, crc32c(stream));
  }

  /**
   * Encodes an envelope ({@link RelocationEnvelopeCodec#encode}: one array of exact size) and plans its transfer,
   * computing the CRC-32C while encoding: each large bulk write (an application state) is checksummed block by
   * block right after the block is copied, so the stream is written once and not read again from memory. The
   * plan's stream and values are exactly those of {@code adopt(RelocationEnvelopeCodec.encode(envelope),
   * chunkSize)}.
   *
   * @param envelope the captured envelope.
   * @param chunkSize bytes per chunk, at least 1 (see {@link #chunkSize}).
   * @return the plan, holding the only reference to the encoded stream.
   * @throws IllegalArgumentException as {@link #of}, or when the stream would exceed one array.
   */
  public static ChunkPlan encode(final RelocationEnvelope envelope, final int chunkSize) {
    Fields.present("envelope", envelope);
    final WireOut out = RelocationEnvelopeCodec.encodeChecksummedWriter(envelope);
    final byte[] stream = out.toByteArray();
    check(stream, chunkSize);
    return new ChunkPlan(stream, chunkSize, out.crc32c());
  }

  private static void check(final byte[] stream, final int chunkSize) {
    Fields.present("stream", stream);
    if (stream.length == 0) {
      throw new IllegalArgumentException("stream is empty; a relocation-envelope-v1 stream is at least 1 byte");
    }
    atLeastOne("chunkSize", chunkSize);
    if ((stream.length + (long) chunkSize - 1) / chunkSize > Fields.U32_MAX) {
      throw new IllegalArgumentException("chunk count exceeds 4294967295");
    }
  }

  /**
   * CRC-32C of bytes.
   *
   * @param bytes the input.
   * @return the checksum, 0..2^32-1 (CRC-32C("123456789") = 0xE3069283).
   */
  public static long crc32c(final byte[] bytes) {
    final CRC32C crc = new CRC32C();
    crc.update(bytes, 0, bytes.length);
    return crc.getValue();
  }

  /**
   * payloadTotalLength of command 40.
   *
   * @return the stream length in bytes.
   */
  public long totalLength() {
    return stream.length;
  }

  /**
   * payloadChunkCount of command 40.
   *
   * @return ceil(totalLength / chunkSize), 1..2^32-1.
   */
  public long chunkCount() {
    return chunkCount;
  }

  /**
   * payloadChecksumCrc32c of command 40.
   *
   * @return CRC-32C of the whole stream, 0..2^32-1.
   */
  public long checksumCrc32c() {
    return checksum;
  }

  /**
   * The chunk size.
   *
   * @return bytes per chunk (the last chunk may be shorter).
   */
  public int chunkSize() {
    return chunkSize;
  }

  /**
   * One chunk's data.
   *
   * @param ordinal 0..chunkCount-1.
   * @return a copy of bytes [ordinal * chunkSize, min(totalLength, (ordinal + 1) * chunkSize)).
   * @throws IllegalArgumentException when the ordinal is out of range.
   */
  public byte[] chunk(final long ordinal) {
    final int from = chunkOffset(ordinal);
    return Arrays.copyOfRange(stream, from, from + chunkLength(ordinal));
  }

  /**
   * Where one chunk starts in the stream.
   *
   * @param ordinal 0..chunkCount-1.
   * @return ordinal * chunkSize.
   * @throws IllegalArgumentException when the ordinal is out of range.
   */
  public int chunkOffset(final long ordinal) {
    if (ordinal < 0 || ordinal >= chunkCount) {
      throw new IllegalArgumentException("chunk ordinal " + ordinal + " must be in 0.." + (chunkCount - 1));
    }
    return (int) (ordinal * chunkSize);
  }

  /**
   * One chunk's length.
   *
   * @param ordinal 0..chunkCount-1.
   * @return chunkSize, or what is left of the stream for the last chunk.
   * @throws IllegalArgumentException when the ordinal is out of range.
   */
  public int chunkLength(final long ordinal) {
    final int from = chunkOffset(ordinal);
    return (int) Math.min(stream.length - (long) from, chunkSize);
  }

  /**
   * One command 52 frame as two parts, without copying the chunk: a new head (up to and including the chunk's
   * length field, {@link RelocationCodec#encodeStateHead}) and the chunk as a range of the plan's own stream.
   * Sent back to back they are byte for byte {@code RelocationCodec.encode(stateFrame(identity, object,
   * ordinal))}.
   *
   * @param identity the relocation identity of the command 40 this plan's values went into.
   * @param object the object.
   * @param ordinal 0..chunkCount-1.
   * @return the parts, sender role {@link Role#SOURCE}; the stream inside is shared and must not be modified.
   * @throws IllegalArgumentException when the ordinal is out of range.
   */
  public StateFrameParts stateFrameParts(final RelocationIdentity identity, final ObjectIdentity object,
      final long ordinal) {
    final int from = chunkOffset(ordinal);
    final int length = chunkLength(ordinal);
    return new StateFrameParts(RelocationCodec.encodeStateHead(identity, Role.SOURCE, object, ordinal, length),
        stream, from, length);
  }

  /**
   * The command 52 body of one chunk.
   *
   * @param identity the relocation identity of the command 40 this plan's values went into.
   * @param object the object.
   * @param ordinal 0..chunkCount-1.
   * @return the frame, sender role {@link Role#SOURCE}.
   * @throws IllegalArgumentException when the ordinal is out of range.
   */
  public RelocationFrame.State stateFrame(final RelocationIdentity identity, final ObjectIdentity object,
      final long ordinal) {
    return new RelocationFrame.State(identity, Role.SOURCE, object, ordinal, chunk(ordinal));
  }
}
