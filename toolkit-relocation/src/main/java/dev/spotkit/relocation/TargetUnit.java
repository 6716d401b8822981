package dev.spotkit.relocation;

import dev.spotkit.relocation.wire.ChunkAssembler;
import dev.spotkit.relocation.wire.ChunkOutcome;
import dev.spotkit.relocation.wire.RelocationFrame;
import dev.spotkit.relocation.wire.RelocationIdentity;
import dev.spotkit.relocation.wire.WireError;
import dev.spotkit.relocation.wire.WireFormatException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The target side of one relocation unit (spec 001 sections 4.3-4.6, 6, 9): temporary queue first, chunk
 * assembly with CRC-32C, Restore, relay-ready reply, the three spans (saved work, pre-boundary relay,
 * post-boundary), cutover or the cutover-wait fallback, the target-only CAS loop bounded by Restore validity, and
 * the ordered backlog merge before dispatch opens. Usually reached through {@link TargetUnits}, which routes
 * frames by identity.
 *
 * <p>Command 52 chunks are assembled by the wire's {@link ChunkAssembler} (one copy per chunk, CRC-32C verified
 * before anything is restored). This unit decides attribution to a connection: chunks count on the connection of
 * the latest identical command 40 (REL-09 lets a restatement move the transfer), and the assembler is fed its own
 * connection for them; its failures become {@link FailureCode#CHECKSUM_MISMATCH} (checksum, total length, bytes
 * beyond the total: data lost) or {@link FailureCode#MANIFEST_CONFLICT} (every other chunk or manifest error).
 *
 * <h2>Driving this machine</h2>
 * <ol>
 *   <li>Create it, then feed the {@link TargetEvent.RestoreRequested} that created it.</li>
 *   <li>Feed each further input to {@link #handle}; perform the actions in order; answer {@link Action.RunRestore},
 *       {@link Action.RunCas} and {@link Action.ReReadStore} with their events; once the relay-ready reply of an
 *       {@link Action.Send} is written, feed {@link TargetEvent.RelayReadySent}: the cutover wait starts only
 *       then.</li>
 *   <li>Feed {@link TargetEvent.ClockAdvanced} at least when {@link #nextDeadlineMs()} has passed; a spurious tick
 *       does nothing.</li>
 * </ol>
 * Events after a terminal stage ({@link Stage#TARGET_REMOVED}, {@link Stage#TARGET_OPEN}) change nothing except
 * that direct work is dispatched (open) or failed {@code Unavailable} (removed). Note: not thread-safe.
 */
public final class TargetUnit {
  /** The largest payload a target assembles: one Java array. */
  private static final long MAX_PAYLOAD_BYTES = Integer.MAX_VALUE - 8;

  private final RelocationIdentity identity;
  private final RelocationSettings settings;
  private final List<Message> savedWork = new ArrayList<>();
  private final List<Message> preBoundary = new ArrayList<>();
  private final List<Message> postBoundary = new ArrayList<>();
  private Stage stage = Stage.TARGET_RESTORING;
  private TargetEvent.RestoreRequested manifest;
  private long nowMs;
  /** The unit's clock when the first Restore arrived, ms: Restore validity is {@code deadlineMs} minus this. */
  private long restoreArrivedMs;
  /** The assembly of command 52 chunks; null before the manifest is accepted and after it ended. */
  private ChunkAssembler assembly;
  private boolean restoreRunning;
  /** When the first relay-ready reply went out ({@link TargetEvent.RelayReadySent}); MAX until then. */
  private long relayReadySentMs = Long.MAX_VALUE;
  private long spanConnection = -1;
  private boolean cutoverAccepted;
  private boolean merged;
  /** A cutover arrived after the fallback merge (late_cutover): the span's relay, sent before it, is all here. */
  private boolean lateCutoverSeen;
  private long nextRequestId = 1;
  private long outstandingRequest;
  private long retryAtMs = Long.MAX_VALUE;
  private FailureCode failureSent;

  /**
   * Creates the unit in {@link Stage#TARGET_RESTORING}; nothing is registered until the Restore request is fed.
   *
   * @param identity the relocation identity.
   * @param settings the settings.
   * @param nowMs the driver's current time in ms.
   */
  public TargetUnit(final RelocationIdentity identity, final RelocationSettings settings, final long nowMs) {
    this.identity = Objects.requireNonNull(identity, "identity");
    this.settings = Objects.requireNonNull(settings, "settings");
    this.nowMs = nowMs;
  }

  /**
   * Consumes one event.
   *
   * @param event the input.
   * @return the actions to perform, in order.
   * @throws IllegalArgumentException when an identity-bound event carries another identity (route with
   *     {@link TargetUnits}).
   */
  public List<TargetAction> handle(final TargetEvent event) {
    final List<TargetAction> out = new ArrayList<>();
    switch (event) {
      case TargetEvent.RestoreRequested r -> onRestore(checked(r.identity(), r), out);
      case TargetEvent.ChunkArrived c -> onChunk(checked(c.identity(), c), out);
      case TargetEvent.RestoreFinished f -> onRestored(checked(f.identity(), f), out);
      case TargetEvent.RestoreFailed f -> onRestoreFailed(checked(f.identity(), f).code(), f.reason(), out);
      case TargetEvent.RelayArrived r -> onRelay(checked(r.identity(), r), out);
      case TargetEvent.CutoverArrived c -> onCutover(checked(c.identity(), c), out);
      case TargetEvent.CasAnswered a -> onCasAnswer(checked(a.identity(), a), out);
      case TargetEvent.CasIndeterminate i -> onUnsure(checked(i.identity(), i).requestId(), "cas_indeterminate", out);
      case TargetEvent.StoreReadAnswered a -> onRead(checked(a.identity(), a), out);
      case TargetEvent.StoreReadFailed f -> onUnsure(checked(f.identity(), f).requestId(), "read_failed", out);
      case TargetEvent.DirectMessageArrived d -> onDirect(d.message(), out);
      case TargetEvent.ClockAdvanced c -> onClock(c.nowMs(), out);
      case TargetEvent.RelayReadySent s -> onReadySent(checked(s.identity(), s), out);
    }
    return out;
  }

  private <T> T checked(final RelocationIdentity other, final T event) {
    if (!identity.equals(other)) {
      throw new IllegalArgumentException("event for " + other + " fed to the unit of " + identity
          + "; route frames with TargetUnits");
    }
    return event;
  }

  private boolean terminal() {
    return stage == Stage.TARGET_REMOVED || stage == Stage.TARGET_OPEN || stage == Stage.OWNER_COMMITTED;
  }

  private void onRestore(final TargetEvent.RestoreRequested r, final List<TargetAction> out) {
    if (manifest == null) {
      manifest = r;
      restoreArrivedMs = nowMs;
      try {
        assembly = ChunkAssembler.start(r.prepare(), r.connectionId(), MAX_PAYLOAD_BYTES);
      } catch (final WireFormatException e) {
        fail(FailureCode.MANIFEST_CONFLICT, "bad manifest: " + e.getMessage(), out);
        return;
      }
      out.add(new Action.RegisterTemporaryQueue()); // Section 4.3: before factory, lookup or any chunk.
      return;
    }
    if (!manifest.prepare().equals(r.prepare())) {
      // REL-09: neither reuse nor overwrite; explicit conflict failure (only possible before relay-ready).
      if (stage == Stage.TARGET_RESTORING) {
        fail(FailureCode.MANIFEST_CONFLICT, "Restore " + describe(r.prepare()) + " differs from first "
            + describe(manifest.prepare()), out);
      } else {
        out.add(log(Action.Level.ERROR, "restore_conflict", "conflicting Restore after relay-ready ignored"));
      }
      return;
    }
    if (r.connectionId() < manifest.connectionId()) {
      // A copy still buffered on a connection the source already left: never takes attribution back (section 5.1
      // gives no order across connections; connection ids of one peer increase).
      out.add(warn("stale_restore", "Restore on older connection " + r.connectionId() + " than "
          + manifest.connectionId() + " discarded"));
      return;
    }
    // REL-09: the same Restore again uses the existing progress; it may come on a new connection.
    manifest = new TargetEvent.RestoreRequested(manifest.prepare(), manifest.objectId(), r.connectionId(),
        manifest.deadlineMs(), manifest.plan(), manifest.boundSession());
    if (stage == Stage.TARGET_REMOVED && failureSent != null) {
      // The explicit failure may have been lost with a connection: the same Restore gets the same answer.
      out.add(new Action.Send(r.connectionId(), new Frame.Failed(identity, failureSent)));
    } else if (stage != Stage.TARGET_RESTORING && stage != Stage.TARGET_REMOVED) {
      // The reply may have been lost with a connection; the source is still holding. Past relay-ready this target
      // never sends a failure, so repeating the reply is the only answer that cannot restore the source wrongly.
      out.add(new Action.Send(r.connectionId(), new Frame.RelayReady(identity)));
    }
  }

  private static String describe(final RelocationFrame.Prepare p) {
    return "length " + p.payloadTotalLength() + "/chunks " + p.payloadChunkCount() + "/crc "
        + p.payloadChecksumCrc32c();
  }

  private void onChunk(final TargetEvent.ChunkArrived c, final List<TargetAction> out) {
    final long ordinal = c.chunk().chunkOrdinal();
    if (stage != Stage.TARGET_RESTORING || assembly == null || restoreRunning
        || c.connectionId() != manifest.connectionId()) {
      out.add(warn("stray_chunk", "chunk " + ordinal + " on connection " + c.connectionId() + " in stage "
          + stage.specName() + " discarded"));
      return;
    }
    // Attributed here (connection of the latest identical command 40); the assembler checks identity and object.
    switch (assembly.onChunk(c.chunk(), assembly.connectionId())) {
      case ChunkOutcome.Accepted a -> {
      }
      case ChunkOutcome.Duplicate d -> {
        // A resent chunk of the same identity with the same bytes: progress already has it.
      }
      case ChunkOutcome.Discarded d -> out.add(warn("stray_chunk", "chunk " + ordinal + " discarded: "
          + d.reason()));
      case ChunkOutcome.Failed f -> {
        assembly = null;
        // REL-10: no restore from the assembly, no CAS, no retry; an explicit failure reply.
        fail(dataLost(f.error().error()) ? FailureCode.CHECKSUM_MISMATCH : FailureCode.MANIFEST_CONFLICT,
            f.error().getMessage(), out);
      }
      case ChunkOutcome.Complete done -> {
        assembly = null;
        restoreRunning = true;
        out.add(new Action.RunRestore(done.payload()));
      }
    }
  }

  /**
   * Whether an assembly error means the bytes that arrived are not the stream the manifest describes (its
   * checksum or its total length): reported as data lost (command 53 code 35); every other chunk error is a
   * manifest conflict.
   */
  private static boolean dataLost(final WireError error) {
    return error == WireError.CHECKSUM_MISMATCH || error == WireError.LENGTH_MISMATCH
        || error == WireError.CHUNK_BEYOND_TOTAL;
  }

  private void onRestored(final TargetEvent.RestoreFinished f, final List<TargetAction> out) {
    if (stage != Stage.TARGET_RESTORING || !restoreRunning) {
      out.add(warn("late_restore_result", "Restore result in stage " + stage.specName() + " ignored"));
      return;
    }
    restoreRunning = false;
    if (f.deadlineMs() < manifest.deadlineMs()) {
      // Section 4.5: the CAS retries end at the absolute deadline the Restore operation carries, as-is.
      manifest = new TargetEvent.RestoreRequested(manifest.prepare(), manifest.objectId(), manifest.connectionId(),
          f.deadlineMs(), manifest.plan(), manifest.boundSession());
    }
    if (nowMs >= manifest.deadlineMs()) {
      fail(FailureCode.DEADLINE, "Restore validity " + validityMs() + " ms passed", out);
      return;
    }
    savedWork.addAll(f.savedWork()); // The dispatch-closed saved-work span (section 4.3).
    move(Trigger.RESTORED); // the cutover wait starts when the driver reports the reply sent (RelayReadySent)
    out.add(new Action.Send(manifest.connectionId(), new Frame.RelayReady(identity)));
  }

  /**
   * The transport wrote the first relay-ready reply: the cutover wait starts here (spec 001 section 4.4, "starting
   * from when it sends that reply"), not when the unit asked for the send (a lane or an event loop that is behind
   * sends late, and that delay must not count against the source).
   */
  private void onReadySent(final TargetEvent.RelayReadySent s, final List<TargetAction> out) {
    if (relayReadySentMs != Long.MAX_VALUE || stage != Stage.RELAY_READY) {
      return;
    }
    relayReadySentMs = s.sentAtMs();
  }

  /** When the cutover wait ends, ms: MAX until the reply was sent ({@link TargetEvent.RelayReadySent}). */
  private long cutoverWaitEndsMs() {
    return relayReadySentMs == Long.MAX_VALUE ? Long.MAX_VALUE : relayReadySentMs + settings.cutoverWaitMs();
  }

  /** The Restore validity this unit was given, ms (the deadline less the clock when its Restore arrived). */
  private long validityMs() {
    return manifest.deadlineMs() - restoreArrivedMs;
  }

  private void onRestoreFailed(final FailureCode code, final String reason, final List<TargetAction> out) {
    if (stage != Stage.TARGET_RESTORING || !restoreRunning) {
      out.add(warn("late_restore_result", "Restore failure in stage " + stage.specName() + " ignored"));
      return;
    }
    fail(code, reason, out);
  }

  /** Explicit failure before relay-ready: reply 53, remove staging. */
  private void fail(final FailureCode code, final String detail, final List<TargetAction> out) {
    move(Trigger.STAGING_REMOVED);
    out.add(log(Action.Level.ERROR, "relocation_failed", code + ": " + detail));
    failureSent = code;
    // The staging goes before the reply: once the source learns of the failure (and its caller may send here at
    // once), this node no longer takes the object's messages into a temporary queue that would only fail them.
    removeStaging(new Action.RemoveStaging(Action.Removal.EXPLICIT_FAILURE, code), out);
    out.add(new Action.Send(manifest.connectionId(), new Frame.Failed(identity, code)));
  }

  private void removeStaging(final Action.RemoveStaging removal, final List<TargetAction> out) {
    out.add(removal);
    assembly = null;
    for (final List<Message> span : List.of(savedWork, preBoundary, postBoundary)) {
      for (final Message m : span) {
        out.add(new Action.FailMessage(m, "Unavailable")); // Staged work is not run (REL-18, REL-20).
      }
    }
    savedWork.clear();
    preBoundary.clear();
    postBoundary.clear();
    outstandingRequest = 0;
    retryAtMs = Long.MAX_VALUE;
  }

  /**
   * Ends an unfinished preparation because a newer identity for the same object won (spec 000 section 4.2).
   * Only valid before the relay-ready reply.
   *
   * @return the actions: failure reply to the old source and staging removal.
   * @throws IllegalTransition when the unit is past {@link Stage#TARGET_RESTORING}.
   */
  public List<TargetAction> supersede() {
    final List<TargetAction> out = new ArrayList<>();
    if (stage != Stage.TARGET_RESTORING) {
      throw new IllegalTransition(stage, Trigger.STAGING_REMOVED, Transitions.allowed(stage));
    }
    fail(FailureCode.SUPERSEDED, "a newer relocation identity for the same object arrived", out);
    return out;
  }

  private void onRelay(final TargetEvent.RelayArrived r, final List<TargetAction> out) {
    final Message message = r.message();
    if (stage == Stage.TARGET_RESTORING) {
      out.add(log(Action.Level.ERROR, "relay_before_ready", "relay before the relay-ready reply discarded"));
      return;
    }
    if (stage == Stage.TARGET_REMOVED) {
      out.add(new Action.FailMessage(message, "Unavailable"));
      return;
    }
    if (merged) {
      if (spanConnection == -1 || spanConnection == r.connectionId()) {
        // Late relay after the fallback merge: order against new target work is not guaranteed (section 4.4).
        spanConnection = r.connectionId();
        out.add(new Action.DispatchLocal(message));
      } else {
        out.add(warn("late_retransmission", "retransmitted relay after the backlog merge discarded"));
      }
      return;
    }
    if (cutoverAccepted) {
      // REL-13: the span was verified by cutover; a later retransmission is not staged again.
      out.add(warn("duplicate_relay", "relay after the accepted cutover discarded"));
      return;
    }
    if (spanConnection != -1 && r.connectionId() < spanConnection) {
      // Read late from a connection the span already left: its batch is retransmitted whole on the newer one.
      out.add(warn("stale_relay", "relay on older connection " + r.connectionId() + " than the span's "
          + spanConnection + " discarded"));
      return;
    }
    if (r.connectionId() != spanConnection) {
      // REL-13: a retransmitted batch on a new connection wholly replaces the partial span; no per-record dedup.
      if (!preBoundary.isEmpty()) {
        out.add(warn("relay_span_replaced", preBoundary.size() + " relay records from connection " + spanConnection
            + " replaced by the batch on connection " + r.connectionId()));
      }
      preBoundary.clear();
      spanConnection = r.connectionId();
    }
    preBoundary.add(message);
  }

  private void onCutover(final TargetEvent.CutoverArrived c, final List<TargetAction> out) {
    if (stage == Stage.TARGET_RESTORING) {
      out.add(log(Action.Level.ERROR, "cutover_before_ready", "cutover before the relay-ready reply discarded"));
      return;
    }
    if (cutoverAccepted || stage != Stage.RELAY_READY) {
      // REL-27: after the fallback, or a duplicate: a warning only, no change of owner or queue.
      if (merged && !cutoverAccepted) {
        lateCutoverSeen = true;
      }
      out.add(warn("late_cutover", "cutover in stage " + stage.specName() + " changes nothing (unit clock " + nowMs
          + " ms; relay-ready reply sent at " + relayReadySentMs + " ms)"));
      return;
    }
    if (spanConnection != -1 && c.connectionId() < spanConnection) {
      out.add(warn("stale_cutover", "cutover on older connection " + c.connectionId() + " than the span's "
          + spanConnection + " discarded"));
      return;
    }
    final boolean sameConnection = spanConnection == -1 || spanConnection == c.connectionId();
    final long crc = RelayChecksum.of(preBoundary);
    if (!sameConnection || c.recordCount() != preBoundary.size() || c.crc32c() != crc) {
      out.add(log(Action.Level.ERROR, "cutover_mismatch", "cutover declares " + c.recordCount() + " records / crc "
          + c.crc32c() + " on connection " + c.connectionId() + "; received " + preBoundary.size() + " / crc " + crc
          + " on connection " + spanConnection + "; waiting for a retransmission or the cutover wait"));
      return;
    }
    spanConnection = c.connectionId();
    cutoverAccepted = true;
    move(Trigger.CUTOVER);
    runCas(out);
  }

  private void runCas(final List<TargetAction> out) {
    final TargetEvent.CasPlan plan = manifest.plan();
    outstandingRequest = nextRequestId++;
    retryAtMs = Long.MAX_VALUE;
    out.add(new Action.RunCas(outstandingRequest, identity, plan.key(), plan.expectedVersion(),
        plan.targetFence()));
  }

  private void reRead(final List<TargetAction> out) {
    outstandingRequest = nextRequestId++;
    retryAtMs = Long.MAX_VALUE;
    out.add(new Action.ReReadStore(outstandingRequest, manifest.plan().key()));
  }

  private boolean acceptAnswer(final long requestId, final List<TargetAction> out) {
    if (terminal()) {
      // REL-21: a late store answer for a terminal RelocationId reactivates nothing.
      out.add(warn("late_store_answer", "store answer " + requestId + " in stage " + stage.specName() + " ignored"));
      return false;
    }
    if (requestId == 0 || requestId != outstandingRequest) {
      out.add(warn("stale_store_answer", "answer to request " + requestId + ", outstanding " + outstandingRequest));
      return false;
    }
    outstandingRequest = 0;
    return true;
  }

  private void onCasAnswer(final TargetEvent.CasAnswered a, final List<TargetAction> out) {
    if (!acceptAnswer(a.requestId(), out)) {
      return;
    }
    switch (a.outcome()) {
      case APPLIED -> commit(out);
      case CONFLICT -> {
        move(Trigger.STORE_UNSURE);
        reRead(out); // Confirm: converge if this target is already owner, else end as stale at once.
      }
      case TRANSIENT -> scheduleRetry(out);
    }
  }

  private void onUnsure(final long requestId, final String code, final List<TargetAction> out) {
    if (acceptAnswer(requestId, out)) {
      scheduleRetry(out);
    }
  }

  private void scheduleRetry(final List<TargetAction> out) {
    move(Trigger.STORE_UNSURE);
    retryAtMs = nowMs + settings.storeRetryBackoffMs();
    if (settings.storeRetryBackoffMs() == 0) {
      reRead(out);
    }
  }

  private void onRead(final TargetEvent.StoreReadAnswered a, final List<TargetAction> out) {
    if (!acceptAnswer(a.requestId(), out)) {
      return;
    }
    final TargetEvent.CasPlan plan = manifest.plan();
    if (plan.targetFence().equals(a.ownerFence())) {
      commit(out); // REL-19: this target is already recorded as owner.
    } else if (plan.expectedVersion().equals(a.version())) {
      runCas(out); // The source values still match: the same CAS, same fence, same expected version.
    } else {
      out.add(warn("relocation_stale", "store shows owner " + a.ownerFence() + " at version " + a.version()
          + ", expected " + plan.expectedVersion()));
      move(Trigger.STAGING_REMOVED);
      removeStaging(new Action.RemoveStaging(Action.Removal.STALE, null), out);
    }
  }

  private void commit(final List<TargetAction> out) {
    move(Trigger.CAS_APPLIED);
    out.add(new Action.MergeBacklog(savedWork, preBoundary, postBoundary));
    merged = true;
    savedWork.clear();
    preBoundary.clear();
    postBoundary.clear();
    out.add(new Action.OpenDispatch());
    move(Trigger.BACKLOG_OPENED);
    if (manifest.boundSession()) {
      out.add(new Action.SendToSessionOwner(new Frame.SessionRoute(identity, true)));
    }
  }

  private void onDirect(final Message message, final List<TargetAction> out) {
    switch (stage) {
      case TARGET_OPEN -> out.add(new Action.DispatchLocal(message));
      case TARGET_REMOVED -> out.add(new Action.FailMessage(message, "Unavailable"));
      default -> postBoundary.add(message); // The temporary queue; no handler runs (section 4.3).
    }
  }

  private void onClock(final long t, final List<TargetAction> out) {
    nowMs = Math.max(nowMs, t);
    if (manifest == null || terminal()) {
      return;
    }
    if (nowMs >= manifest.deadlineMs()) {
      if (stage == Stage.TARGET_RESTORING) {
        fail(FailureCode.DEADLINE, "Restore validity " + validityMs() + " ms passed", out);
      } else {
        // REL-20: owner not confirmed by Restore validity: error, staging removed, no session route update.
        out.add(log(Action.Level.ERROR, "location_update_failed", "owner not confirmed by Restore validity "
            + validityMs() + " ms"));
        move(Trigger.STAGING_REMOVED);
        removeStaging(new Action.RemoveStaging(Action.Removal.LOCATION_UPDATE_FAILED, null), out);
      }
      return;
    }
    if (stage == Stage.RELAY_READY && nowMs >= cutoverWaitEndsMs()) {
      out.add(warn("cutover_timeout", "no cutover " + settings.cutoverWaitMs() + " ms after the relay-ready reply"
          + " was sent (at " + relayReadySentMs + " ms, now " + nowMs + " ms); proceeding"));
      move(Trigger.CUTOVER_WAIT_ELAPSED); // FACTS.md: CutoverFallback proceeds.
      runCas(out);
    } else if (stage == Stage.STORE_RETRY && outstandingRequest == 0 && nowMs >= retryAtMs) {
      reRead(out);
    }
  }

  private void move(final Trigger trigger) {
    stage = Transitions.next(stage, trigger);
  }

  private static TargetAction warn(final String code, final String detail) {
    return log(Action.Level.WARNING, code, detail);
  }

  private static TargetAction log(final Action.Level level, final String code, final String detail) {
    return new Action.Log(level, code, detail);
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
   * The relocation identity.
   *
   * @return the identity.
   */
  public RelocationIdentity identity() {
    return identity;
  }

  /**
   * Whether the unit is finished ({@link Stage#TARGET_OPEN} or {@link Stage#TARGET_REMOVED}).
   *
   * @return true when terminal.
   */
  /**
   * Whether relay of this unit's span may still arrive late: the backlog was merged by the cutover-wait fallback
   * (spec 001 section 4.4, CutoverFallback) and neither the cutover nor a retransmission of it arrived since. Late
   * relay then runs behind the merged backlog ({@link Action.DispatchLocal}); the driver keeps the unit known
   * while this holds, so that relay is not discarded as belonging to no relocation.
   *
   * @return true from the fallback merge until a late cutover arrives.
   */
  public boolean awaitsLateRelay() {
    return merged && !cutoverAccepted && !lateCutoverSeen;
  }

  public boolean isTerminal() {
    return terminal();
  }

  /**
   * The earliest time a {@link TargetEvent.ClockAdvanced} changes something.
   *
   * @return ms, or {@link Long#MAX_VALUE} when no timer is armed.
   */
  public long nextDeadlineMs() {
    if (manifest == null || terminal()) {
      return Long.MAX_VALUE;
    }
    long next = manifest.deadlineMs();
    if (stage == Stage.RELAY_READY) {
      next = Math.min(next, cutoverWaitEndsMs());
    }
    if (stage == Stage.STORE_RETRY && outstandingRequest == 0) {
      next = Math.min(next, retryAtMs);
    }
    return next;
  }
}
