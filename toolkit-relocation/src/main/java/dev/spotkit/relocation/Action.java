package dev.spotkit.relocation;

import dev.spotkit.relocation.wire.RelocationIdentity;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * What a unit asks its driver to do. The driver performs actions in list order and feeds results back as events;
 * the unit itself performs no I/O. A source unit answers with {@link SourceAction}s, a target unit with
 * {@link TargetAction}s: each side's driver switches exhaustively over its own sealed type, with no {@code default}
 * branch, so an action added to one side is a compile error in that side's driver. {@link Send},
 * {@link SendToSessionOwner}, {@link DispatchLocal}, {@link FailMessage} and {@link Log} belong to both sides.
 */
public sealed interface Action permits SourceAction, TargetAction {
  /**
   * Send a frame on a connection.
   *
   * @param connectionId the ordered peer connection, as the driver numbered it.
   * @param frame the frame.
   */
  record Send(long connectionId, Frame frame) implements SourceAction, TargetAction {
  }

  /**
   * Send a one-way command 44 to the Session owner of the bound session (route commit or abort).
   *
   * @param frame the route update.
   */
  record SendToSessionOwner(Frame.SessionRoute frame) implements SourceAction, TargetAction {
  }

  /** Source: stop application dispatch after the current turn (section 4.2); ingress keeps being accepted. */
  record PauseDispatch() implements SourceAction {
  }

  /**
   * Source: capture state, not-yet-executed queue and timers into one payload; answer with
   * {@link SourceEvent.PayloadCaptured}.
   */
  record CapturePayload() implements SourceAction {
  }

  /**
   * Run this work with normal dispatch: the source while it runs, the target once open (or late relay after the
   * fallback merge).
   *
   * @param message the work.
   */
  record DispatchLocal(Message message) implements SourceAction, TargetAction {
  }

  /**
   * Source: explicit failure before the boundary: put the payload's saved work and then the held ingress back
   * into the source queue in original order (section 4.2, 9.4). Always precedes a session abort and the reopen.
   *
   * @param payload the captured payload kept in memory: the unit's own array, not a copy; read only.
   * @param held the ingress hold in acceptance order.
   */
  record RestoreSourceQueue(byte[] payload, List<Message> held) implements SourceAction {
    /**
     * Takes the payload without a copy (nobody may modify it) and copies the list.
     *
     * @throws NullPointerException when an argument is null.
     */
    public RestoreSourceQueue {
      Objects.requireNonNull(payload, "payload");
      held = List.copyOf(held);
    }

    @Override
    public boolean equals(final Object o) {
      return o instanceof RestoreSourceQueue x && Arrays.equals(x.payload, payload) && x.held.equals(held);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(payload) * 31 + held.hashCode();
    }

    @Override
    public String toString() {
      return "RestoreSourceQueue[" + payload.length + " bytes, crc32c=" + RelayChecksum.ofBytes(payload)
          + ", held=" + held + "]";
    }
  }

  /** Source: start application dispatch again (only after {@link RestoreSourceQueue}). */
  record ReopenDispatch() implements SourceAction {
  }

  /** Source: the retransmission window ended; free the payload and the boundary batch copy (exactly once). */
  record ReleasePayload() implements SourceAction {
  }

  /**
   * End one message with a typed error, e.g. {@code Unavailable} after Message Follow ended or after the target
   * staging was removed.
   *
   * @param message the work.
   * @param errorKind the error kind name of DESIGN.md "Messaging".
   */
  record FailMessage(Message message, String errorKind) implements SourceAction, TargetAction {
  }

  /** Target: register the temporary queue, before any factory call or chunk (section 4.3). */
  record RegisterTemporaryQueue() implements TargetAction {
  }

  /**
   * Target: run the factory and restore state, saved work and timers from the verified payload, without opening
   * dispatch; answer with {@link TargetEvent.RestoreFinished} or {@link TargetEvent.RestoreFailed}.
   *
   * @param payload the assembled, checksum-verified payload: the assembly's own buffer, handed over without a copy
   *     (the assembler dropped its reference); the driver owns it and may decode it in place
   *     ({@code RelocationEnvelopeCodec.decodeOwned}), so nobody may modify it.
   */
  record RunRestore(byte[] payload) implements TargetAction {
    /**
     * Takes the payload without a copy.
     *
     * @throws NullPointerException when {@code payload} is null.
     */
    public RunRestore {
      Objects.requireNonNull(payload, "payload");
    }

    @Override
    public boolean equals(final Object o) {
      return o instanceof RunRestore x && Arrays.equals(x.payload, payload);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(payload);
    }

    @Override
    public String toString() {
      return "RunRestore[" + payload.length + " bytes, crc32c=" + RelayChecksum.ofBytes(payload) + "]";
    }
  }

  /**
   * Target: run the Location Store CAS; answer with {@link TargetEvent.CasAnswered} or
   * {@link TargetEvent.CasIndeterminate} carrying {@code requestId}.
   *
   * @param requestId this request's number, unique within the unit.
   * @param identity the relocation identity the CAS is bound to.
   * @param key the authority key.
   * @param expectedVersion the first-read source StoreVersion (the same on every retry).
   * @param fence the target fence to write (the same on every retry).
   */
  record RunCas(long requestId, RelocationIdentity identity, String key, String expectedVersion, String fence)
      implements TargetAction {
  }

  /**
   * Target: read the authority record again; answer with {@link TargetEvent.StoreReadAnswered} or
   * {@link TargetEvent.StoreReadFailed}.
   *
   * @param requestId this request's number.
   * @param key the authority key.
   */
  record ReReadStore(long requestId, String key) implements TargetAction {
  }

  /**
   * Target: move the backlog into the real queue in this order: saved work, pre-boundary relay, post-boundary
   * work (section 4.6). Items hold no job permit until runnable.
   *
   * @param savedWork restored saved work, payload order.
   * @param preBoundary the pre-boundary relay span, relay order.
   * @param postBoundary work that reached the temporary queue after the boundary, arrival order.
   */
  record MergeBacklog(List<Message> savedWork, List<Message> preBoundary, List<Message> postBoundary)
      implements TargetAction {
    /** Copies the lists. */
    public MergeBacklog {
      savedWork = List.copyOf(savedWork);
      preBoundary = List.copyOf(preBoundary);
      postBoundary = List.copyOf(postBoundary);
    }
  }

  /** Target: switch the temporary route to the regular route and open application dispatch. */
  record OpenDispatch() implements TargetAction {
  }

  /**
   * Target: remove the prepared object, temporary queue (its work is not run) and relocation state.
   *
   * @param reason why (spec 001 sections 4.5, 6, 9).
   * @param failure the command 53 code sent, for {@link Removal#EXPLICIT_FAILURE}; null otherwise.
   */
  record RemoveStaging(Removal reason, FailureCode failure) implements TargetAction {
    /**
     * Validates.
     *
     * @throws NullPointerException when {@code reason} is null, or {@code failure} is null for an explicit failure.
     * @throws IllegalArgumentException when {@code failure} is given for another reason.
     */
    public RemoveStaging {
      Objects.requireNonNull(reason, "reason");
      if ((reason == Removal.EXPLICIT_FAILURE) != (failure != null)) {
        throw new IllegalArgumentException("a failure code goes with EXPLICIT_FAILURE only: " + reason + "/"
            + failure);
      }
    }
  }

  /** Why a target removed its staging. */
  enum Removal {
    /**
     * An explicit failure (command 53) before the relay-ready reply: the source restores itself and keeps serving
     * (spec 001 section 9).
     */
    EXPLICIT_FAILURE,
    /** The store showed another valid owner or generation past relay-ready: ended as stale at once (section 6). */
    STALE,
    /** Past relay-ready, the owner was not confirmed by Restore validity: {@code location_update_failed}. */
    LOCATION_UPDATE_FAILED;

    /**
     * Whether the removal happened past the irreversible boundary, so the source does not serve again and the actor
     * is unavailable here until Message Follow ends (spec 001 sections 4.4, 9).
     *
     * @return true for {@link #STALE} and {@link #LOCATION_UPDATE_FAILED}.
     */
    public boolean pastRelayReady() {
      return this != EXPLICIT_FAILURE;
    }
  }

  /**
   * Record a log line with a stable code.
   *
   * @param level warning or error.
   * @param code e.g. {@code cutover_timeout}, {@code late_cutover}, {@code location_update_failed}.
   * @param detail human text with the values involved.
   */
  record Log(Level level, String code, String detail) implements SourceAction, TargetAction {
  }

  /** Log levels. */
  enum Level {
    /** Warning. */
    WARNING,
    /** Error. */
    ERROR
  }
}
