package dev.spotkit.relocation;

import dev.spotkit.relocation.wire.RelocationIdentity;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/** An input to a {@link TargetUnit} (through {@link TargetUnits}). Sealed: switches over it are exhaustive. */
public sealed interface TargetEvent {
  /**
   * What the target read from the Location Store before Restore and will CAS (spec 002 sections 8, 9.1).
   *
   * @param key the authority key.
   * @param expectedVersion the first-read StoreVersion showing the source as owner.
   * @param targetFence the owner value the target writes; a re-read showing it means this target is owner.
   */
  record CasPlan(String key, String expectedVersion, String targetFence) {
  }

  /**
   * Command 40 arrived.
   *
   * @param identity the relocation identity.
   * @param objectId the object.
   * @param connectionId the connection that carried it; chunks must come on the same one.
   * @param totalLength payload bytes, 0..
   * @param chunkCount chunks, at least 1.
   * @param crc32c payload CRC-32C, unsigned 32-bit.
   * @param deadlineMs the Restore operation's absolute deadline in ms (Restore validity; never extended).
   * @param plan the CAS this target will run.
   * @param boundSession whether a Session binding is sealed for this object (send command 44 after commit).
   */
  record RestoreRequested(RelocationIdentity identity, String objectId, long connectionId, long totalLength,
      int chunkCount, long crc32c, long deadlineMs, CasPlan plan, boolean boundSession) implements TargetEvent {
  }

  /**
   * Command 52 arrived.
   *
   * @param identity the identity it carries.
   * @param connectionId the connection that carried it.
   * @param ordinal chunk ordinal.
   * @param bytes chunk bytes (copied).
   */
  record ChunkArrived(RelocationIdentity identity, long connectionId, int ordinal, byte[] bytes)
      implements TargetEvent {
    /**
     * Copies the bytes.
     *
     * @throws NullPointerException when {@code bytes} is null.
     */
    public ChunkArrived {
      bytes = Objects.requireNonNull(bytes, "bytes").clone();
    }

    @Override
    public byte[] bytes() {
      return bytes.clone();
    }

    @Override
    public boolean equals(final Object o) {
      return o instanceof ChunkArrived x && x.identity.equals(identity) && x.connectionId == connectionId
          && x.ordinal == ordinal
          && Arrays.equals(x.bytes, bytes);
    }

    @Override
    public int hashCode() {
      return Objects.hash(identity, connectionId, ordinal) * 31 + Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
      return "ChunkArrived[" + identity + ", connection=" + connectionId + ", ordinal=" + ordinal + ", "
          + bytes.length + " bytes]";
    }
  }

  /**
   * The answer to {@link Action.RunRestore}: the factory and Restore finished.
   *
   * @param identity the identity.
   * @param savedWork the restored saved work in payload order (the saved-work span).
   */
  record RestoreFinished(RelocationIdentity identity, List<Message> savedWork) implements TargetEvent {
    /** Copies the list. */
    public RestoreFinished {
      savedWork = List.copyOf(savedWork);
    }
  }

  /**
   * The answer to {@link Action.RunRestore}: the factory or Restore failed.
   *
   * @param identity the identity.
   * @param reason human text.
   */
  record RestoreFailed(RelocationIdentity identity, String reason) implements TargetEvent {
  }

  /**
   * Command 31 arrived.
   *
   * @param identity the identity it carries.
   * @param connectionId the connection that carried it.
   * @param message the relayed work.
   */
  record RelayArrived(RelocationIdentity identity, long connectionId, Message message) implements TargetEvent {
  }

  /**
   * Command 34 arrived.
   *
   * @param identity the identity it carries.
   * @param connectionId the connection that carried it.
   * @param recordCount the declared pre-boundary record count.
   * @param crc32c the declared relay CRC-32C.
   */
  record CutoverArrived(RelocationIdentity identity, long connectionId, long recordCount, long crc32c)
      implements TargetEvent {
  }

  /** The definite answers of a CAS. */
  enum CasOutcome {
    /** Applied: this target is owner. */
    APPLIED,
    /** Condition mismatch: nothing changed. */
    CONFLICT,
    /** A retryable store error: nothing changed. */
    TRANSIENT
  }

  /**
   * A CAS answer arrived.
   *
   * @param identity the identity of the CAS.
   * @param requestId the {@link Action.RunCas#requestId()}.
   * @param outcome the answer.
   */
  record CasAnswered(RelocationIdentity identity, long requestId, CasOutcome outcome) implements TargetEvent {
  }

  /**
   * The driver gave up waiting for a CAS answer (lost, timed out, cancelled after start): outcome unknown.
   *
   * @param identity the identity of the CAS.
   * @param requestId the request.
   */
  record CasIndeterminate(RelocationIdentity identity, long requestId) implements TargetEvent {
  }

  /**
   * A re-read answered.
   *
   * @param identity the identity.
   * @param requestId the {@link Action.ReReadStore#requestId()}.
   * @param ownerFence the owner value now stored.
   * @param version the StoreVersion now stored.
   */
  record StoreReadAnswered(RelocationIdentity identity, long requestId, String ownerFence, String version)
      implements TargetEvent {
  }

  /**
   * A re-read failed or was lost.
   *
   * @param identity the identity.
   * @param requestId the request.
   */
  record StoreReadFailed(RelocationIdentity identity, long requestId) implements TargetEvent {
  }

  /**
   * Work for the object arrived at the target directly or by Message Follow (post-boundary).
   *
   * @param objectId the object.
   * @param message the work.
   */
  record DirectMessageArrived(String objectId, Message message) implements TargetEvent {
  }

  /**
   * Time advanced; the only clock a unit has.
   *
   * @param nowMs the driver's monotonic time in ms; a smaller value than before is ignored.
   */
  record ClockAdvanced(long nowMs) implements TargetEvent {
  }
}
