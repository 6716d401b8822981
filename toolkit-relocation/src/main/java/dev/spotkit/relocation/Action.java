package dev.spotkit.relocation;

import dev.spotkit.relocation.wire.RelocationIdentity;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * What a unit asks its driver to do. The driver performs actions in list order and feeds results back as events;
 * the unit itself performs no I/O. Every switch over actions is exhaustive (sealed).
 */
public sealed interface Action {
  /**
   * Send a frame on a connection.
   *
   * @param connectionId the ordered peer connection, as the driver numbered it.
   * @param frame the frame.
   */
  record Send(long connectionId, Frame frame) implements Action {
  }

  /**
   * Send a one-way command 44 to the Session owner of the bound session (route commit or abort).
   *
   * @param frame the route update.
   */
  record SendToSessionOwner(Frame.SessionRoute frame) implements Action {
  }

  /** Source: stop application dispatch after the current turn (section 4.2); ingress keeps being accepted. */
  record PauseDispatch() implements Action {
  }

  /**
   * Source: capture state, not-yet-executed queue and timers into one payload; answer with
   * {@link SourceEvent.PayloadCaptured}.
   */
  record CapturePayload() implements Action {
  }

  /**
   * Run this work with normal dispatch: the source while it runs, the target once open (or late relay after the
   * fallback merge).
   *
   * @param message the work.
   */
  record DispatchLocal(Message message) implements Action {
  }

  /**
   * Source: explicit failure before the boundary: put the payload's saved work and then the held ingress back
   * into the source queue in original order (section 4.2, 9.4). Always precedes a session abort and the reopen.
   *
   * @param payload the captured payload kept in memory (copied).
   * @param held the ingress hold in acceptance order.
   */
  record RestoreSourceQueue(byte[] payload, List<Message> held) implements Action {
    /**
     * Copies the inputs.
     *
     * @throws NullPointerException when an argument is null.
     */
    public RestoreSourceQueue {
      payload = Objects.requireNonNull(payload, "payload").clone();
      held = List.copyOf(held);
    }

    @Override
    public byte[] payload() {
      return payload.clone();
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
  record ReopenDispatch() implements Action {
  }

  /** Source: the retransmission window ended; free the payload and the boundary batch copy (exactly once). */
  record ReleasePayload() implements Action {
  }

  /**
   * End one message with a typed error, e.g. {@code Unavailable} after Message Follow ended or after the target
   * staging was removed.
   *
   * @param message the work.
   * @param errorKind the error kind name of DESIGN.md "Messaging".
   */
  record FailMessage(Message message, String errorKind) implements Action {
  }

  /** Target: register the temporary queue, before any factory call or chunk (section 4.3). */
  record RegisterTemporaryQueue() implements Action {
  }

  /**
   * Target: run the factory and restore state, saved work and timers from the verified payload, without opening
   * dispatch; answer with {@link TargetEvent.RestoreFinished} or {@link TargetEvent.RestoreFailed}.
   *
   * @param payload the assembled, checksum-verified payload (copied).
   */
  record RunRestore(byte[] payload) implements Action {
    /**
     * Copies the payload.
     *
     * @throws NullPointerException when {@code payload} is null.
     */
    public RunRestore {
      payload = Objects.requireNonNull(payload, "payload").clone();
    }

    @Override
    public byte[] payload() {
      return payload.clone();
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
      implements Action {
  }

  /**
   * Target: read the authority record again; answer with {@link TargetEvent.StoreReadAnswered} or
   * {@link TargetEvent.StoreReadFailed}.
   *
   * @param requestId this request's number.
   * @param key the authority key.
   */
  record ReReadStore(long requestId, String key) implements Action {
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
      implements Action {
    /** Copies the lists. */
    public MergeBacklog {
      savedWork = List.copyOf(savedWork);
      preBoundary = List.copyOf(preBoundary);
      postBoundary = List.copyOf(postBoundary);
    }
  }

  /** Target: switch the temporary route to the regular route and open application dispatch. */
  record OpenDispatch() implements Action {
  }

  /**
   * Target: remove the prepared object, temporary queue (its work is not run) and relocation state.
   *
   * @param reason a short code, e.g. {@code location_update_failed}.
   */
  record RemoveStaging(String reason) implements Action {
  }

  /**
   * Record a log line with a stable code.
   *
   * @param level warning or error.
   * @param code e.g. {@code cutover_timeout}, {@code late_cutover}, {@code location_update_failed}.
   * @param detail human text with the values involved.
   */
  record Log(Level level, String code, String detail) implements Action {
  }

  /** Log levels. */
  enum Level {
    /** Warning. */
    WARNING,
    /** Error. */
    ERROR
  }
}
