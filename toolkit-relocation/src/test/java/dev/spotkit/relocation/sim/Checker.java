package dev.spotkit.relocation.sim;

import dev.spotkit.relocation.Action;
import dev.spotkit.relocation.Frame;
import dev.spotkit.relocation.Message;
import dev.spotkit.relocation.Stage;
import dev.spotkit.relocation.TargetEvent;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Watches the simulated world from outside (actions, handled messages, store owner) and keeps its own history.
 * Invariants, checked after every step: never two owners (both sides dispatching, or the target dispatching while
 * the store does not name it); the source is restored only before the relay-ready reply was accepted; no message
 * is handled twice; on the ordered path the target runs saved work, then the pre-boundary relay, in source order,
 * before anything else, and source-routed work keeps its order (spec 001 section 5.1). At the end of a quiescent
 * run every accepted message is accounted for exactly once on the path that ran it.
 *
 * <p>Target-side checks on every step: the temporary queue is registered once, before the target accepts any
 * chunk, relay or direct work or runs Restore, CAS or dispatch, and no work is accepted after the staging was removed
 * (section 4.3); every CAS carries the unit's key, the version first read and the target's own fence, and every
 * re-read the unit's key (sections 4.5, 6); a Session route commit is sent only while the store names the target,
 * at most once, and only for a bound session. At the end: a bound session got the route commit iff the target
 * opened (none after removal, section 4.5), every direct message ran once or was failed, and every relay record
 * the target accepted on the connection of its final span ran once or was failed, on the fallback path too
 * (sections 4.4, 4.6).
 */
public final class Checker {
  /** How a run ended, for the summary. */
  public enum Outcome {
    /** Target open after a matching cutover. */
    ORDERED,
    /** Target open after the cutover-wait fallback. */
    FALLBACK,
    /** Explicit failure before relay-ready; source restored. */
    SOURCE_RESTORED,
    /** Target removed after the boundary (stale owner, Restore validity expired). */
    TARGET_REMOVED,
    /** The step budget ended first. */
    UNFINISHED
  }

  private final List<Long> acceptedAtSource = new ArrayList<>();
  private final Set<Long> direct = new LinkedHashSet<>();
  private final List<Long> saved = new ArrayList<>();
  private final List<Long> held = new ArrayList<>();
  private final Map<Long, Integer> handledCount = new HashMap<>();
  private final List<Long> targetHandled = new ArrayList<>();
  private final Set<Long> failed = new HashSet<>();
  private final Set<Long> lost = new HashSet<>();
  private final Set<String> logCodes = new LinkedHashSet<>();
  /** Relay records the target accepted (no discard), by the connection they arrived on. */
  private final Map<Long, List<Long>> acceptedRelay = new HashMap<>();
  private final boolean boundSession;
  private int queueRegistrations;
  private boolean stagingRemoved;
  private int commitRoutes;
  private boolean boundaryAccepted;
  private boolean restored;
  private boolean fallback;
  private boolean merged;
  private int releases;
  private long lastSourceHandled;
  private long lastFollowHandled;
  private int otherBetweenChunks;
  private String failure;
  private Outcome outcome = Outcome.UNFINISHED;
  private long trace = 17;

  /** Target log codes that mean the event's chunk, relay or direct work was discarded, not accepted. */
  private static final Set<String> DISCARDS = Set.of("stray_chunk", "relay_before_ready", "stale_relay",
      "late_retransmission", "duplicate_relay", "unknown_relocation");

  /**
   * Creates a checker for one run.
   *
   * @param boundSession whether the run seals a Session binding (the target then owes a route commit).
   */
  public Checker(final boolean boundSession) {
    this.boundSession = boundSession;
  }

  void acceptedAtSource(final long id, final boolean beforeStart) {
    acceptedAtSource.add(id);
  }

  void acceptedDirect(final long id) {
    direct.add(id);
  }

  void held(final long id) {
    held.add(id);
  }

  void captured(final List<Long> ids) {
    saved.addAll(ids);
  }

  void lostInTransport(final long id) {
    lost.add(id);
  }

  void failedExplicitly(final long id) {
    failed.add(id);
  }

  void otherObjectDelivered(final boolean betweenChunks) {
    if (betweenChunks) {
      otherBetweenChunks++;
    }
  }

  private void record(final List<? extends Action> actions) {
    for (final Action a : actions) {
      trace = trace * 31 + a.toString().hashCode();
    }
  }

  void sourceActions(final List<? extends Action> actions, final Stage stageAfter) {
    record(actions);
    boolean restoredHere = false;
    for (final Action a : actions) {
      if (a instanceof Action.RestoreSourceQueue || a instanceof Action.ReopenDispatch) {
        if (boundaryAccepted) {
          fail("source restored or reopened after the relay-ready reply was accepted: " + a);
        }
        restored = true;
        restoredHere = true;
      } else if (a instanceof Action.SendToSessionOwner s && !s.frame().commit() && !restoredHere) {
        fail("session abort sent before the source queue restoration (REL-31)");
      } else if (a instanceof Action.ReleasePayload && ++releases > 1) {
        fail("payload released twice (REL-14)");
      } else if (a instanceof Action.Send s && releases > 0 && !(s.frame() instanceof Frame.Follow)) {
        fail("source sent " + s.frame() + " after its payload was released (REL-14)");
      } else if (a instanceof Action.Send s && s.frame() instanceof Frame.Relay
          && !boundaryAccepted && stageAfter != Stage.FOLLOW_ONLY) {
        fail("relay before the relay-ready reply (REL-03)");
      }
    }
    if (stageAfter == Stage.FOLLOW_ONLY) {
      boundaryAccepted = true;
    }
  }

  void targetActions(final TargetEvent event, final List<Action> actions, final String owner) {
    record(actions);
    checkWorkAccepted(event, actions);
    for (final Action a : actions) {
      checkTargetAction(a, owner);
      if (a instanceof Action.Log l) {
        logCodes.add(l.code());
        if (l.code().equals("cutover_timeout")) {
          fallback = true;
        }
      } else if (a instanceof Action.MergeBacklog) {
        merged = true;
      }
    }
  }

  /** Section 4.3: chunk, relay and direct work is accepted only into a registered, not yet removed, queue. */
  private void checkWorkAccepted(final TargetEvent event, final List<Action> actions) {
    if (!(event instanceof TargetEvent.ChunkArrived || event instanceof TargetEvent.RelayArrived
        || event instanceof TargetEvent.DirectMessageArrived)) {
      return;
    }
    for (final Action a : actions) {
      if (a instanceof Action.FailMessage || a instanceof Action.Log l && DISCARDS.contains(l.code())) {
        return; // Discarded or failed explicitly: not accepted.
      }
    }
    if (queueRegistrations == 0) {
      fail("target accepted " + event.getClass().getSimpleName() + " before registering its temporary queue"
          + " (section 4.3)");
    } else if (stagingRemoved) {
      fail("target accepted " + event.getClass().getSimpleName() + " after its staging was removed");
    }
    if (event instanceof TargetEvent.RelayArrived r) {
      acceptedRelay.computeIfAbsent(r.connectionId(), c -> new ArrayList<>()).add(idOf(r.message()));
    }
  }

  private void checkTargetAction(final Action a, final String owner) {
    switch (a) {
      case Action.RegisterTemporaryQueue r -> {
        if (++queueRegistrations > 1) {
          fail("temporary queue registered twice (section 4.3: the same Restore creates no new queue)");
        }
      }
      case Action.RemoveStaging r -> stagingRemoved = true;
      case Action.RunCas c -> {
        requireQueue(a);
        if (!c.key().equals(Simulator.KEY) || !c.expectedVersion().equals(Simulator.FIRST_READ_VERSION)
            || !c.fence().equals(Simulator.TARGET_FENCE)) {
          fail("CAS " + c + " is not the unit's: key " + Simulator.KEY + ", expected version "
              + Simulator.FIRST_READ_VERSION + " (first read), fence " + Simulator.TARGET_FENCE + " (sections 4.5, 6)");
        }
      }
      case Action.ReReadStore r -> {
        if (!r.key().equals(Simulator.KEY)) {
          fail("re-read of key " + r.key() + ", not the unit's " + Simulator.KEY + " (section 6)");
        }
      }
      case Action.SendToSessionOwner s -> {
        if (!s.frame().commit()) {
          fail("target sent a Session route abort " + s);
        } else if (stagingRemoved) {
          fail("Session route commit after the staging was removed (section 4.5)");
        } else if (!boundSession) {
          fail("Session route commit without a bound session");
        } else if (!owner.equals(Simulator.TARGET_FENCE)) {
          fail("Session route commit while the store names " + owner + " (section 4.6: after the commit)");
        } else if (++commitRoutes > 1) {
          fail("Session route commit sent twice");
        }
      }
      case Action.RunRestore r -> requireQueue(a);
      case Action.MergeBacklog m -> requireQueue(a);
      case Action.OpenDispatch o -> requireQueue(a);
      case Action.DispatchLocal d -> requireQueue(a);
      default -> {
      }
    }
  }

  private void requireQueue(final Action a) {
    if (queueRegistrations == 0) {
      fail("target " + a.getClass().getSimpleName() + " before registering its temporary queue (section 4.3)");
    }
  }

  void handled(final long id, final boolean atSource) {
    trace = trace * 31 + (atSource ? id : -id);
    final int n = handledCount.merge(id, 1, Integer::sum);
    if (n > 1) {
      fail("message " + id + " handled twice");
      return;
    }
    if (atSource) {
      if (id < lastSourceHandled) {
        fail("source handled " + id + " after " + lastSourceHandled);
      }
      lastSourceHandled = id;
      return;
    }
    final int k = targetHandled.size();
    targetHandled.add(id);
    final List<Long> backlog = new ArrayList<>(saved);
    if (!fallback) {
      backlog.addAll(held);
    }
    if (k < backlog.size() && backlog.get(k) != id) {
      fail("target handled " + id + " at position " + k + " where the backlog has " + backlog.get(k)
          + " (saved " + saved + ", held " + held + ")");
    } else if (k >= backlog.size() && !direct.contains(id) && !fallback) {
      if (id < lastFollowHandled) {
        fail("followed message " + id + " handled after " + lastFollowHandled);
      }
      lastFollowHandled = id;
    }
  }

  void afterStep(final boolean sourceOpen, final boolean targetOpen, final String owner, final Stage sourceStage) {
    if (sourceOpen && targetOpen) {
      fail("two owners: source and target both dispatching");
    } else if (targetOpen && !owner.equals(Simulator.TARGET_FENCE)) {
      fail("target dispatching while the store names " + owner);
    } else if (sourceOpen && boundaryAccepted) {
      fail("source dispatching after the relay-ready reply was accepted");
    }
  }

  void atEnd(final boolean healthy, final boolean quiescent, final Stage sourceStage, final Stage targetStage,
      final boolean queuesEmpty) {
    if (healthy && (!quiescent || targetStage != Stage.TARGET_OPEN || fallback)) {
      fail("healthy run did not finish on the ordered path: quiescent=" + quiescent + " target=" + targetStage
          + " fallback=" + fallback + " log=" + logCodes);
      return;
    }
    if (!quiescent) {
      outcome = Outcome.UNFINISHED;
      return;
    }
    if (targetStage == Stage.TARGET_OPEN && boundSession && commitRoutes != 1) {
      fail("target opened with a bound session but sent " + commitRoutes + " Session route commits (section 4.6)");
      return;
    }
    for (final long id : direct) {
      requireOnce(id, "direct");
    }
    if (!acceptedRelay.isEmpty() && (targetStage == Stage.TARGET_OPEN || targetStage == Stage.TARGET_REMOVED)) {
      // A retransmitted batch on a newer connection replaces the span wholly (section 4.4): the final span is the
      // newest connection's. Each of its records must run once or be failed, whatever the path.
      final long last = acceptedRelay.keySet().stream().mapToLong(Long::longValue).max().orElseThrow();
      for (final long id : acceptedRelay.get(last)) {
        requireOnce(id, (fallback ? "fallback" : "ordered") + " relay accepted on connection " + last);
      }
      if (failed()) {
        return;
      }
    }
    if (restored) {
      outcome = Outcome.SOURCE_RESTORED;
      if (!targetHandled.isEmpty()) {
        fail("target handled " + targetHandled + " although the source was restored");
      }
      for (final long id : acceptedAtSource) {
        requireOnce(id, "restored source");
      }
    } else if (targetStage == Stage.TARGET_OPEN) {
      outcome = fallback ? Outcome.FALLBACK : Outcome.ORDERED;
      for (final long id : saved) {
        requireOnce(id, "saved work");
      }
      if (!fallback) {
        for (final long id : held) {
          requireOnce(id, "pre-boundary relay");
        }
        for (final long id : acceptedAtSource) {
          if (!lost.contains(id)) {
            requireOnce(id, "ordered path");
          }
        }
      }
    } else if (targetStage == Stage.TARGET_REMOVED) {
      outcome = Outcome.TARGET_REMOVED;
      if (!targetHandled.isEmpty()) {
        fail("target handled " + targetHandled + " although its staging was removed (REL-18)");
      }
    }
  }

  private void requireOnce(final long id, final String path) {
    final int n = handledCount.getOrDefault(id, 0);
    if (n != 1 && !failed.contains(id)) {
      fail("message " + id + " handled " + n + " times on the " + path + " path");
    }
  }

  private void fail(final String why) {
    if (failure == null) {
      failure = why;
    }
  }

  /**
   * Whether an invariant broke.
   *
   * @return true after the first violation.
   */
  public boolean failed() {
    return failure != null;
  }

  /**
   * The first violation.
   *
   * @return text, or null.
   */
  public String failure() {
    return failure;
  }

  /**
   * How the run ended.
   *
   * @return the outcome.
   */
  public Outcome outcome() {
    return outcome;
  }

  /**
   * Log codes the target emitted.
   *
   * @return codes in first-seen order.
   */
  public Set<String> logCodes() {
    return logCodes;
  }

  /**
   * Other-object frames delivered while chunks were in flight (REL-07).
   *
   * @return count.
   */
  public int otherBetweenChunks() {
    return otherBetweenChunks;
  }

  /**
   * A hash of every action and handled message in order: equal for two runs of the same seed.
   *
   * @return the trace hash.
   */
  public long traceHash() {
    return trace;
  }

  static long idOf(final Message m) {
    return ByteBuffer.wrap(m.body()).getLong();
  }
}
