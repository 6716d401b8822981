package dev.spotkit.relocation;

import dev.spotkit.relocation.wire.RelocationIdentity;
import java.util.Arrays;
import java.util.Objects;

/** An input to a {@link SourceUnit}. Sealed: a unit's switch over its events is exhaustive. */
public sealed interface SourceEvent {
  /** The coordinator chose a target and asks the unit to start; it seals only when budget room exists (5.3). */
  record StartRequested() implements SourceEvent {
  }

  /** The shared in-flight budget released bytes; a waiting unit may seal or send its next chunk. */
  record BudgetChanged() implements SourceEvent {
  }

  /**
   * The answer to {@link Action.CapturePayload}: the encoded relocation-envelope-v1 payload, opaque here, and its
   * CRC-32C (payloadChecksumCrc32c of command 40, spec 001 section 4.2).
   *
   * <p>Ownership: the array is handed to the unit without a copy; it becomes the source's in-memory payload (its
   * command 52 chunks are ranges of it, {@link Frame.StateChunk}) and nobody may modify it afterwards.
   *
   * @param payload the payload bytes; may be empty.
   * @param crc32c CRC-32C of {@code payload} (Castagnoli, as {@link RelayChecksum#ofBytes}), 0..2^32-1; a driver
   *     that computed it while encoding passes it here so the payload is not read again.
   */
  record PayloadCaptured(byte[] payload, long crc32c) implements SourceEvent {
    /**
     * Takes the payload without a copy.
     *
     * @throws NullPointerException when {@code payload} is null (an adapter contract violation).
     * @throws IllegalArgumentException when {@code crc32c} is outside 0..2^32-1.
     */
    public PayloadCaptured {
      Objects.requireNonNull(payload, "payload");
      if (crc32c < 0 || crc32c > 0xFFFF_FFFFL) {
        throw new IllegalArgumentException("crc32c " + crc32c + " is outside 0..4294967295");
      }
    }

    /**
     * Takes the payload without a copy and computes its CRC-32C.
     *
     * @param payload the payload bytes; may be empty; must not be modified afterwards.
     * @throws NullPointerException when {@code payload} is null.
     */
    public PayloadCaptured(final byte[] payload) {
      this(payload, RelayChecksum.ofBytes(Objects.requireNonNull(payload, "payload")));
    }

    @Override
    public boolean equals(final Object o) {
      return o instanceof PayloadCaptured x && x.crc32c == crc32c && Arrays.equals(x.payload, payload);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(payload);
    }

    @Override
    public String toString() {
      return "PayloadCaptured[" + payload.length + " bytes, crc32c=" + crc32c + "]";
    }
  }

  /**
   * Core released the accounted charge of a chunk this unit submitted on its current connection (releases of a
   * replaced connection are not reported: {@link ConnectionLost} already released them).
   *
   * @param ordinal the chunk ordinal.
   */
  record ChunkReleased(int ordinal) implements SourceEvent {
  }

  /**
   * Work arrived at the source's address (mailbox or previous route).
   *
   * @param message the work.
   */
  record MessageArrived(Message message) implements SourceEvent {
  }

  /**
   * The target's command 30 reply arrived.
   *
   * @param identity the identity it carries.
   */
  record RelayReadyArrived(RelocationIdentity identity) implements SourceEvent {
  }

  /**
   * The target's command 53 reply arrived.
   *
   * @param identity the identity it carries.
   * @param code why.
   */
  record FailureArrived(RelocationIdentity identity, FailureCode code) implements SourceEvent {
  }

  /** The ordered connection to the target broke; chunk charges on it are released, sending waits for a new one. */
  record ConnectionLost() implements SourceEvent {
  }

  /**
   * A new ordered connection to the target replaced the previous one.
   *
   * @param connectionId the new connection's number.
   */
  record ConnectionOpened(long connectionId) implements SourceEvent {
  }

  /**
   * Time advanced; the only clock a unit has.
   *
   * @param nowMs the driver's monotonic time in ms; a smaller value than before is ignored.
   */
  record ClockAdvanced(long nowMs) implements SourceEvent {
  }
}
