package dev.spotkit.relocation;

import dev.spotkit.relocation.wire.RelocationIdentity;
import java.util.Arrays;
import java.util.Objects;

/**
 * A relocation frame a unit asks its driver to send, by meaning; the byte codec (package {@code .wire}) turns it
 * into the command body named by {@link #command()}. Only {@link RelayReady} and {@link Failed} are replies;
 * chunks, relay, cutover, follow and session route are one-way (spec 001 section 13, REL-05).
 */
public sealed interface Frame {
  /**
   * The wire command number of the frame (FACTS.md "Wire").
   *
   * @return e.g. 34 for cutover.
   */
  int command();

  /**
   * Command 40: the Restore request and payload manifest.
   *
   * @param identity the relocation identity.
   * @param objectId the object being moved.
   * @param totalLength payload bytes, 0..
   * @param chunkCount number of command 52 chunks, at least 1.
   * @param crc32c CRC-32C of the whole payload, unsigned 32-bit in a long.
   */
  record Prepare(RelocationIdentity identity, String objectId, long totalLength, int chunkCount, long crc32c)
      implements Frame {
    @Override
    public int command() {
      return 40;
    }
  }

  /**
   * Command 52: one state chunk, any byte boundary, as a range of the source's payload (spec 001 section 4.2):
   * bytes {@code [offset, offset + length)} of {@code stream}, without a copy.
   *
   * <p>Ownership: {@code stream} is the unit's in-memory payload, shared by every chunk of the move and kept until
   * the retransmission window ends; nobody may modify it. A driver sends the range as it is (e.g. a frame head
   * followed by the range, {@code RelocationCodec.encodeStateHead}); {@link #bytes()} copies it.
   *
   * @param identity the relocation identity.
   * @param ordinal chunk ordinal from 0.
   * @param stream the array holding the chunk (the whole payload); read only.
   * @param offset where the chunk starts in {@code stream}, 0..stream.length.
   * @param length the chunk's bytes, 0..stream.length - offset.
   */
  record StateChunk(RelocationIdentity identity, int ordinal, byte[] stream, int offset, int length)
      implements Frame {
    /**
     * Checks the range; nothing is copied.
     *
     * @throws NullPointerException when {@code identity} or {@code stream} is null.
     * @throws IndexOutOfBoundsException when the range does not lie within {@code stream}.
     */
    public StateChunk {
      Objects.requireNonNull(identity, "identity");
      Objects.requireNonNull(stream, "stream");
      Objects.checkFromIndexSize(offset, length, stream.length);
    }

    /**
     * A chunk that is a whole array: {@code StateChunk(identity, ordinal, bytes, 0, bytes.length)}; the array is
     * taken without a copy and must not be modified afterwards.
     *
     * @param identity the relocation identity.
     * @param ordinal chunk ordinal from 0.
     * @param bytes the chunk bytes.
     * @throws NullPointerException when an argument is null.
     */
    public StateChunk(final RelocationIdentity identity, final int ordinal, final byte[] bytes) {
      this(identity, ordinal, Objects.requireNonNull(bytes, "bytes"), 0, bytes.length);
    }

    /**
     * The chunk's bytes.
     *
     * @return a new array with a copy of the range, {@link #length()} bytes.
     */
    public byte[] bytes() {
      return Arrays.copyOfRange(stream, offset, offset + length);
    }

    @Override
    public boolean equals(final Object o) {
      return o instanceof StateChunk x && x.identity.equals(identity) && x.ordinal == ordinal
          && Arrays.equals(x.stream, x.offset, x.offset + x.length, stream, offset, offset + length);
    }

    @Override
    public int hashCode() {
      int h = 1;
      for (int i = offset; i < offset + length; i++) {
        h = 31 * h + stream[i];
      }
      return Objects.hash(identity, ordinal) * 31 + h;
    }

    @Override
    public String toString() {
      return "StateChunk[" + identity + ", ordinal=" + ordinal + ", " + length
          + " bytes, crc32c=" + RelayChecksum.ofBytes(bytes()) + "]";
    }

    @Override
    public int command() {
      return 52;
    }
  }

  /**
   * Command 30 (reply): temporary queue and Restore ready; not relocation completion.
   *
   * @param identity the relocation identity.
   */
  record RelayReady(RelocationIdentity identity) implements Frame {
    @Override
    public int command() {
      return 30;
    }
  }

  /**
   * Command 53 (reply): explicit failure before relay-ready.
   *
   * @param identity the relocation identity.
   * @param code why.
   */
  record Failed(RelocationIdentity identity, FailureCode code) implements Frame {
    @Override
    public int command() {
      return 53;
    }
  }

  /**
   * Command 31: one ingress-hold record relayed before the cutover boundary.
   *
   * @param identity the relocation identity.
   * @param message the held work.
   */
  record Relay(RelocationIdentity identity, Message message) implements Frame {
    @Override
    public int command() {
      return 31;
    }
  }

  /**
   * Command 34: the one-way cutover boundary.
   *
   * @param identity the relocation identity (carries the RelocationId).
   * @param recordCount relay records sent before the boundary, 0..
   * @param crc32c {@link RelayChecksum#of} of those records.
   */
  record Cutover(RelocationIdentity identity, long recordCount, long crc32c) implements Frame {
    @Override
    public int command() {
      return 34;
    }
  }

  /**
   * Command 50: Message Follow of work that reached the old address after the boundary (section 10).
   *
   * @param identity the relocation identity whose committed route is followed.
   * @param objectId the object.
   * @param message the work, operation identity, reply route and deadline unchanged.
   */
  record Follow(RelocationIdentity identity, String objectId, Message message) implements Frame {
    @Override
    public int command() {
      return 50;
    }
  }

  /**
   * Command 44: one-way session route update (commit) or abort to the Session owner (section 7).
   *
   * @param identity the relocation identity.
   * @param commit true: apply the target route; false: abort, release the matching seal to the source route.
   */
  record SessionRoute(RelocationIdentity identity, boolean commit) implements Frame {
    @Override
    public int command() {
      return 44;
    }
  }
}
