package dev.spotkit.relocation;

import dev.spotkit.relocation.wire.RelocationCodec;
import dev.spotkit.relocation.wire.RelocationFrame;
import dev.spotkit.relocation.wire.RelocationIdentity;
import dev.spotkit.relocation.wire.StateView;
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
   * Command 40 arrived, decoded by the wire codec.
   *
   * @param prepare the decoded command 40 (identity, fences, object and the payload manifest).
   * @param objectId the driver's key for the object (routes direct work and supersession in {@link TargetUnits}).
   * @param connectionId the connection that carried it; chunks must come on the same one.
   * @param deadlineMs the Restore operation's absolute deadline in ms (Restore validity; never extended).
   * @param plan the CAS this target will run.
   * @param boundSession whether a Session binding is sealed for this object (send command 44 after commit).
   */
  record RestoreRequested(RelocationFrame.Prepare prepare, String objectId, long connectionId, long deadlineMs,
      CasPlan plan, boolean boundSession) implements TargetEvent {
    /**
     * Validates.
     *
     * @throws NullPointerException when {@code prepare} is null.
     */
    public RestoreRequested {
      Objects.requireNonNull(prepare, "prepare");
    }

    /**
     * The relocation identity the command 40 carries.
     *
     * @return {@code prepare().identity()}.
     */
    public RelocationIdentity identity() {
      return prepare.identity();
    }
  }

  /**
   * Command 52 arrived, read in place from the received frame ({@link RelocationCodec#decodeStateView(byte[])},
   * {@link RelocationCodec#decodeStateView(java.nio.ByteBuffer)}). The view is only read while
   * {@link TargetUnits#handle} runs (the assembler copies the chunk), so the driver may release or reuse the frame's
   * array or receive buffer once {@code handle} returns, whatever it returned; do not keep the event. Equality is by
   * view identity.
   *
   * @param connectionId the connection that carried it.
   * @param chunk the decoded chunk.
   */
  record ChunkArrived(long connectionId, StateView chunk) implements TargetEvent {
    /**
     * Validates.
     *
     * @throws NullPointerException when {@code chunk} is null.
     */
    public ChunkArrived {
      Objects.requireNonNull(chunk, "chunk");
    }

    /**
     * A chunk event from a decoded command 52 record (its bytes are read in place, not copied).
     *
     * @param connectionId the connection that carried it.
     * @param state the decoded command 52.
     * @return the event.
     */
    public static ChunkArrived of(final long connectionId, final RelocationFrame.State state) {
      return new ChunkArrived(connectionId, StateView.of(state));
    }

    /**
     * The relocation identity the chunk carries.
     *
     * @return {@code chunk().identity()}.
     */
    public RelocationIdentity identity() {
      return chunk.identity();
    }
  }

  /**
   * The answer to {@link Action.RunRestore}: the factory and Restore finished.
   *
   * @param identity the identity.
   * @param savedWork the restored saved work in payload order (the saved-work span).
   * @param deadlineMs the absolute deadline the Restore operation carries in its payload (spec 001 section 4.5: the
   *     CAS retries use it as-is), on the driver's clock in ms, or {@link Long#MAX_VALUE} when it carries none.
   *     It only shortens the unit's Restore validity ({@link RestoreRequested#deadlineMs()}), never extends it.
   */
  record RestoreFinished(RelocationIdentity identity, List<Message> savedWork, long deadlineMs)
      implements TargetEvent {
    /** Copies the list. */
    public RestoreFinished {
      savedWork = List.copyOf(savedWork);
    }

    /**
     * A Restore whose payload carries no deadline: validity stays the one its {@link RestoreRequested} gave.
     *
     * @param identity the identity.
     * @param savedWork the restored saved work in payload order.
     */
    public RestoreFinished(final RelocationIdentity identity, final List<Message> savedWork) {
      this(identity, savedWork, Long.MAX_VALUE);
    }
  }

  /**
   * The answer to {@link Action.RunRestore}: the factory or Restore failed, or the driver refused the Restore; the
   * unit answers command 53 with {@code code} (spec 001 section 4.3).
   *
   * @param identity the identity.
   * @param reason human text.
   * @param code the command 53 failure code to send; null means {@link FailureCode#RESTORE_FAILED}.
   */
  record RestoreFailed(RelocationIdentity identity, String reason, FailureCode code) implements TargetEvent {
    /** Defaults a null code to {@link FailureCode#RESTORE_FAILED}. */
    public RestoreFailed {
      code = code == null || code == FailureCode.UNRECOGNIZED ? FailureCode.RESTORE_FAILED : code;
    }

    /**
     * A factory or Restore failure: command 53 with {@link FailureCode#RESTORE_FAILED}.
     *
     * @param identity the identity.
     * @param reason human text.
     */
    public RestoreFailed(final RelocationIdentity identity, final String reason) {
      this(identity, reason, FailureCode.RESTORE_FAILED);
    }
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
   * The transport wrote the unit's relay-ready reply (command 30): the cutover wait of spec 001 section 4.4 runs
   * from here ("starting from when it sends that reply"), not from when the unit asked for the send; until it comes
   * the unit judges no cutover wait (Restore validity still ends it). Feed it once the {@link Action.Send} of the
   * reply is written. Only the first one after a Restore counts; a repeated reply (a repeated Restore) does not
   * move the start.
   *
   * @param identity the identity of the reply.
   * @param sentAtMs when the transport wrote the reply, in the driver's monotonic ms.
   */
  record RelayReadySent(RelocationIdentity identity, long sentAtMs) implements TargetEvent {
  }

  /**
   * Time advanced; the only clock a unit has.
   *
   * @param nowMs the driver's monotonic time in ms; a smaller value than before is ignored.
   */
  record ClockAdvanced(long nowMs) implements TargetEvent {
  }
}
