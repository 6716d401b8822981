package dev.spotkit.relocation.wire;

/**
 * One command 52 relocationState frame in two parts, for a transport that writes them back to back without
 * joining them ({@link ChunkPlan#stateFrameParts}): {@code head} (framework head, identity, sender role, object,
 * chunkOrdinal and the chunk's u32 length) followed by {@code length} bytes of {@code stream} from
 * {@code offset}. Together they are byte for byte {@link RelocationCodec#encode} of the same
 * {@link RelocationFrame.State}.
 *
 * <p>Ownership: {@code head} is a new array for this frame. {@code stream} is the plan's own stream, shared and
 * not copied: read it (and send it), never modify it.
 *
 * @param head the frame's first bytes; the caller's.
 * @param stream the plan's whole stream; shared, read only.
 * @param offset where the chunk starts in {@code stream}.
 * @param length the chunk's length in bytes.
 */
public record StateFrameParts(byte[] head, byte[] stream, int offset, int length) {

  /**
   * The frame's total length.
   *
   * @return head.length + length.
   */
  public int frameLength() {
    return head.length + length;
  }

  @Override
  public String toString() {
    return "StateFrameParts[head " + head.length + " bytes, stream[" + offset + ", " + (offset + length) + ")]";
  }
}
