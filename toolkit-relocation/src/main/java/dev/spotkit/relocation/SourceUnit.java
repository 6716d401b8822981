package dev.spotkit.relocation;

import dev.spotkit.relocation.wire.RelocationIdentity;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The source side of one relocation unit (spec 001 sections 4.1, 4.2, 4.4, 5.3, 10): seal, capture, manifest and
 * chunks within the in-flight budget, ingress hold, relay plus one-way cutover after the relay-ready reply,
 * retransmission of the whole pre-boundary batch on a new connection within the retransmission window, and
 * Message Follow afterwards. It never writes the Location Store.
 *
 * <h2>Driving this machine</h2>
 * <ol>
 *   <li>Create it with the identity, the connection id and the shared {@link InFlightBudget} of the peer.</li>
 *   <li>Feed every input as a {@link SourceEvent} to {@link #handle}; perform the returned actions in order and
 *       feed their results back as events ({@link Action.CapturePayload} is answered by
 *       {@link SourceEvent.PayloadCaptured}).</li>
 *   <li>Feed {@link SourceEvent.ClockAdvanced} at least when {@link #nextDeadlineMs()} has passed; a spurious tick
 *       does nothing.</li>
 *   <li>When the budget releases bytes, feed {@link SourceEvent.BudgetChanged} to units with
 *       {@link #isWaitingForBudget()}.</li>
 * </ol>
 * Note: not thread-safe; one driver calls it serially (an actor loop or one lock, spec 001 section 11).
 */
public final class SourceUnit {
  private final RelocationIdentity identity;
  private final String objectId;
  private final RelocationSettings settings;
  private final InFlightBudget budget;
  private final int chunkBytes;
  private final boolean boundSession;
  private final List<Message> hold = new ArrayList<>();
  private final Map<Integer, Integer> inFlight = new TreeMap<>();
  private Stage stage = Stage.SOURCE_RUNNING;
  private long nowMs;
  private long connectionId;
  private boolean startPending;
  private boolean started;
  private byte[] payload;
  /** CRC-32C of {@link #payload}, given with it ({@link SourceEvent.PayloadCaptured#crc32c()}). */
  private long payloadCrc32c;
  private int chunkCount;
  private int nextChunk;
  private long windowEndsMs = Long.MAX_VALUE;
  private long followEndsMs = Long.MAX_VALUE;
  private boolean payloadReleased;
  private boolean connectionUp = true;

  /**
   * Creates the unit in {@link Stage#SOURCE_RUNNING}.
   *
   * @param identity the relocation identity.
   * @param objectId the object being moved.
   * @param connectionId the ordered connection to the target.
   * @param settings timing and size settings.
   * @param budget the budget of that peer connection (shared with other units of the node).
   * @param boundSession whether a Session binding is sealed for this object (abort on explicit failure).
   * @param nowMs the driver's current time in ms.
   */
  public SourceUnit(final RelocationIdentity identity, final String objectId, final long connectionId,
      final RelocationSettings settings, final InFlightBudget budget, final boolean boundSession, final long nowMs) {
    this.identity = Objects.requireNonNull(identity, "identity");
    this.objectId = Objects.requireNonNull(objectId, "objectId");
    this.settings = Objects.requireNonNull(settings, "settings");
    this.budget = Objects.requireNonNull(budget, "budget");
    this.connectionId = connectionId;
    this.boundSession = boundSession;
    this.nowMs = nowMs;
    this.chunkBytes = settings.effectiveChunkBytes(budget.effectiveLimitBytes());
  }

  /**
   * Consumes one event.
   *
   * @param event the input.
   * @return the actions to perform, in order (possibly empty).
   * @throws IllegalTransition when the event needs an edge the table lacks (e.g. a second start); no change.
   */
  public List<SourceAction> handle(final SourceEvent event) {
    final List<SourceAction> out = new ArrayList<>();
    switch (event) {
      case SourceEvent.StartRequested s -> onStart(out);
      case SourceEvent.BudgetChanged b -> onBudget(out);
      case SourceEvent.PayloadCaptured p -> onCaptured(p.payload(), p.crc32c(), out);
      case SourceEvent.ChunkReleased r -> onChunkReleased(r.ordinal(), out);
      case SourceEvent.MessageArrived m -> onMessage(m.message(), out);
      case SourceEvent.RelayReadyArrived r -> onRelayReady(r.identity(), out);
      case SourceEvent.FailureArrived f -> onFailure(f.identity(), f.code(), out);
      case SourceEvent.ConnectionLost l -> {
        connectionUp = false;
        releaseAllChunks();
      }
      case SourceEvent.ConnectionOpened c -> onConnection(c.connectionId(), out);
      case SourceEvent.ClockAdvanced c -> onClock(c.nowMs(), out);
    }
    return out;
  }

  private void onStart(final List<SourceAction> out) {
    Transitions.next(stage, Trigger.SEAL); // Throws IllegalTransition outside SourceRunning.
    if (startPending) {
      throw new IllegalTransition(stage, Trigger.SEAL, Transitions.allowed(stage));
    }
    if (started) {
      throw new IllegalStateException("SourceUnit " + identity + " was already started; a unit is single-use: "
          + "create a new SourceUnit with a new targetAttemptGeneration for another attempt");
    }
    started = true;
    startPending = true;
    onBudget(out);
  }

  private void onBudget(final List<SourceAction> out) {
    if (startPending && stage == Stage.SOURCE_RUNNING) {
      // Section 5.3: a new unit waits before its seal while the budget is full; its object keeps serving.
      if (budget.hasRoomFor(chunkBytes)) {
        startPending = false;
        move(Trigger.SEAL);
        out.add(new Action.PauseDispatch());
        out.add(new Action.CapturePayload());
      }
    } else if (stage == Stage.SOURCE_PAUSED) {
      pumpChunks(out);
    }
  }

  private void onCaptured(final byte[] bytes, final long crc32c, final List<SourceAction> out) {
    if (stage != Stage.SOURCE_PAUSED || payload != null) {
      throw new IllegalStateException("PayloadCaptured is only valid once, in SourcePaused; stage "
          + stage.specName() + (payload != null ? ", payload already captured" : ""));
    }
    payload = bytes;
    payloadCrc32c = crc32c;
    chunkCount = Math.max(1, (int) ((bytes.length + (long) chunkBytes - 1) / chunkBytes));
    sendManifest(out);
  }

  private void sendManifest(final List<SourceAction> out) {
    if (!connectionUp) {
      return; // Sent again on the next ConnectionOpened.
    }
    out.add(new Action.Send(connectionId, new Frame.Prepare(identity, objectId, payload.length, chunkCount,
        payloadCrc32c)));
    nextChunk = 0;
    pumpChunks(out);
  }

  private void pumpChunks(final List<SourceAction> out) {
    while (connectionUp && payload != null && nextChunk < chunkCount) {
      final int from = nextChunk * chunkBytes;
      final int to = Math.min(payload.length, from + chunkBytes);
      if (!budget.tryCharge(to - from)) {
        return; // Section 5.3: the next chunk waits for room; the unit is never failed by the budget.
      }
      inFlight.put(nextChunk, to - from);
      // A range of the payload, not a copy: the driver writes it out as it is (section 4.2).
      out.add(new Action.Send(connectionId, new Frame.StateChunk(identity, nextChunk, payload, from, to - from)));
      nextChunk++;
    }
  }

  private void onChunkReleased(final int ordinal, final List<SourceAction> out) {
    final Integer bytes = inFlight.remove(ordinal);
    if (bytes != null) {
      budget.release(bytes);
    }
    onBudget(out);
  }

  private void releaseAllChunks() {
    for (final int bytes : inFlight.values()) {
      budget.release(bytes);
    }
    inFlight.clear();
  }

  private void onMessage(final Message message, final List<SourceAction> out) {
    switch (stage) {
      case SOURCE_RUNNING -> out.add(new Action.DispatchLocal(message));
      case SOURCE_PAUSED -> hold.add(message); // Ingress hold: no record-count or byte bound (section 4.2).
      case FOLLOW_ONLY -> {
        if (nowMs < followEndsMs) {
          out.add(new Action.Send(connectionId, new Frame.Follow(identity, objectId, message)));
        } else {
          out.add(new Action.FailMessage(message, "Unavailable"));
        }
      }
      default -> throw new IllegalStateException("source unit in target stage " + stage.specName());
    }
  }

  private void onRelayReady(final RelocationIdentity from, final List<SourceAction> out) {
    if (!identity.equals(from)) {
      out.add(warn("unknown_relocation", "relay-ready for " + from + " ignored by " + identity));
      return;
    }
    if (stage != Stage.SOURCE_PAUSED || payload == null) {
      out.add(warn("duplicate_relay_ready", "relay-ready in stage " + stage.specName() + " changes nothing"));
      return;
    }
    move(Trigger.RELAY_READY_ACCEPTED); // The irreversible boundary: no source restoration from here on.
    sendBatchAndCutover(out);
    move(Trigger.CUTOVER_SUBMITTED);
    windowEndsMs = nowMs + settings.cutoverWaitMs();
    followEndsMs = nowMs + settings.followDurationMs();
  }

  private void sendBatchAndCutover(final List<SourceAction> out) {
    for (final Message m : hold) {
      out.add(new Action.Send(connectionId, new Frame.Relay(identity, m)));
    }
    out.add(new Action.Send(connectionId, new Frame.Cutover(identity, hold.size(), RelayChecksum.of(hold))));
  }

  private void onFailure(final RelocationIdentity from, final FailureCode code, final List<SourceAction> out) {
    if (!identity.equals(from)) {
      out.add(warn("unknown_relocation", "failure " + code + " for " + from + " ignored by " + identity));
      return;
    }
    if (stage != Stage.SOURCE_PAUSED) {
      // REL-30: after the relay-ready reply is accepted a failure never reopens source dispatch.
      out.add(warn("late_failure", "failure " + code + " in stage " + stage.specName() + " changes nothing"));
      return;
    }
    move(Trigger.EXPLICIT_FAILURE);
    releaseAllChunks();
    out.add(new Action.RestoreSourceQueue(payload == null ? new byte[0] : payload, hold));
    if (boundSession) {
      out.add(new Action.SendToSessionOwner(new Frame.SessionRoute(identity, false))); // After restoration.
    }
    out.add(new Action.ReopenDispatch());
    payload = null;
    hold.clear();
  }

  private void onConnection(final long newConnection, final List<SourceAction> out) {
    connectionId = newConnection;
    connectionUp = true;
    releaseAllChunks(); // Charges of the broken connection are gone with it.
    if (stage == Stage.SOURCE_PAUSED && payload != null) {
      sendManifest(out); // Restore retry from source memory: the same identity, the same payload.
    } else if (stage == Stage.FOLLOW_ONLY && !payloadReleased && nowMs < windowEndsMs) {
      sendBatchAndCutover(out); // Section 4.4: the whole pre-boundary batch and the cutover again.
    }
  }

  private void onClock(final long t, final List<SourceAction> out) {
    nowMs = Math.max(nowMs, t);
    if (stage == Stage.FOLLOW_ONLY && !payloadReleased && nowMs >= windowEndsMs) {
      payloadReleased = true; // REL-14: exactly once; no retransmission afterwards.
      payload = null;
      hold.clear();
      releaseAllChunks();
      out.add(new Action.ReleasePayload());
    }
  }

  private void move(final Trigger trigger) {
    stage = Transitions.next(stage, trigger);
  }

  private static SourceAction warn(final String code, final String detail) {
    return new Action.Log(Action.Level.WARNING, code, detail);
  }

  /**
   * The current stage.
   *
   * @return the stage.
   */
  public Stage stage() {
    return stage;
  }

  /**
   * Whether the unit waits for budget room before its seal or before its next chunk.
   *
   * @return true while waiting.
   */
  public boolean isWaitingForBudget() {
    return startPending && stage == Stage.SOURCE_RUNNING
        || stage == Stage.SOURCE_PAUSED && payload != null && nextChunk < chunkCount;
  }

  /**
   * The earliest time a {@link SourceEvent.ClockAdvanced} changes something.
   *
   * @return ms, or {@link Long#MAX_VALUE} when no timer is armed.
   */
  public long nextDeadlineMs() {
    return stage == Stage.FOLLOW_ONLY && !payloadReleased ? windowEndsMs : Long.MAX_VALUE;
  }

  /**
   * The chunk size this unit uses (section 4.2).
   *
   * @return bytes.
   */
  public int chunkBytes() {
    return chunkBytes;
  }

  /**
   * The relocation identity.
   *
   * @return the identity.
   */
  public RelocationIdentity identity() {
    return identity;
  }
}
