package dev.spotkit.relocation.wire;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * A decoded command 52 relocationState whose chunk is a view of the received frame rather than a copy
 * ({@link RelocationCodec#decodeStateView(byte[])}, {@link RelocationCodec#decodeStateView(ByteBuffer)}). The
 * fields are those of {@link RelocationFrame.State}; the chunk is {@code chunkLength()} bytes of the frame's memory:
 * a range of the frame array, or of a buffer (heap or direct, e.g. the NIO view of a transport's receive buffer).
 *
 * <p>Ownership: the view reads the memory the caller decoded it from and holds no copy. It is valid while that
 * memory is neither modified nor given back (a pooled receive buffer must not be released before the view's last
 * use); hand it to {@link ChunkAssembler#onChunk(StateView, long)} at once (the assembler copies the chunk into its
 * own storage before returning, spec 001 section 4.2) and do not keep it. Reads are absolute (no buffer position
 * moves), so the view may be read from any one thread at a time; meant for the single owner that received the frame.
 */
public final class StateView {

  private final RelocationIdentity identity;
  private final Role senderRole;
  private final ObjectIdentity object;
  private final long chunkOrdinal;
  /** Exactly the chunk: position 0, limit {@link #length}; only read with absolute gets. */
  private final ByteBuffer chunk;
  private final int length;

  StateView(final RelocationIdentity identity, final Role senderRole, final ObjectIdentity object,
      final long chunkOrdinal, final ByteBuffer chunk) {
    this.identity = identity;
    this.senderRole = senderRole;
    this.object = object;
    this.chunkOrdinal = chunkOrdinal;
    this.chunk = chunk;
    this.length = chunk.remaining();
  }

  /**
   * Views a chunk held in an array, e.g. to feed an assembler from a {@link RelocationFrame.State} or a slice.
   *
   * @param identity the relocation identity.
   * @param senderRole the sender role.
   * @param object the object.
   * @param chunkOrdinal 0..2^32-1.
   * @param array the array holding the chunk; read, not copied, while the view is used.
   * @param offset where the chunk starts.
   * @param length the chunk's length in bytes.
   * @return the view.
   * @throws IllegalArgumentException when a part is null or the ordinal is outside u32.
   * @throws IndexOutOfBoundsException when the range is not within {@code array}.
   */
  public static StateView of(final RelocationIdentity identity, final Role senderRole, final ObjectIdentity object,
      final long chunkOrdinal, final byte[] array, final int offset, final int length) {
    Fields.present("identity", identity);
    Fields.present("senderRole", senderRole);
    Fields.present("object", object);
    Fields.u32("chunkOrdinal", chunkOrdinal);
    Fields.present("array", array);
    Objects.checkFromIndexSize(offset, length, array.length);
    return new StateView(identity, senderRole, object, chunkOrdinal, ByteBuffer.wrap(array, offset, length).slice());
  }

  /**
   * The view of a decoded command 52 record (its chunk is read in place).
   *
   * @param state the record.
   * @return the view.
   */
  public static StateView of(final RelocationFrame.State state) {
    return new StateView(state.identity(), state.senderRole(), state.object(), state.chunkOrdinal(),
        ByteBuffer.wrap(state.chunkUnsafe()));
  }

  /**
   * The relocation identity.
   *
   * @return the identity.
   */
  public RelocationIdentity identity() {
    return identity;
  }

  /**
   * The sender role.
   *
   * @return normally {@link Role#SOURCE}.
   */
  public Role senderRole() {
    return senderRole;
  }

  /**
   * The object.
   *
   * @return the object identity.
   */
  public ObjectIdentity object() {
    return object;
  }

  /**
   * The chunk ordinal.
   *
   * @return 0..2^32-1.
   */
  public long chunkOrdinal() {
    return chunkOrdinal;
  }

  /**
   * The chunk's length.
   *
   * @return bytes of chunk data.
   */
  public int chunkLength() {
    return length;
  }

  /**
   * The chunk bytes.
   *
   * @return a copy.
   */
  public byte[] chunk() {
    final byte[] copy = new byte[length];
    chunk.get(0, copy);
    return copy;
  }

  /**
   * The same chunk as an immutable record (copies the bytes).
   *
   * @return the command 52 record.
   */
  public RelocationFrame.State toState() {
    return new RelocationFrame.State(identity, senderRole, object, chunkOrdinal, chunk());
  }

  /** Copies the chunk to {@code dst[at, at + chunkLength())}: the assembler's one copy. */
  void copyTo(final byte[] dst, final int at) {
    chunk.get(0, dst, at, length);
  }

  /** Whether the chunk's bytes equal {@code array[from, to)}. */
  boolean sameBytes(final byte[] array, final int from, final int to) {
    return to - from == length && chunk.equals(ByteBuffer.wrap(array, from, to - from));
  }

  @Override
  public String toString() {
    return "StateView[" + identity + ", " + senderRole + ", " + object + ", chunkOrdinal=" + chunkOrdinal + ", "
        + length + " bytes]";
  }
}
