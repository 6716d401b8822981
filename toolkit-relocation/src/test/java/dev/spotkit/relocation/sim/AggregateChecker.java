package dev.spotkit.relocation.sim;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Watches the aggregate world from outside and keeps its own history. After every step: never two owners for any
 * participant (room or member): at most one node dispatches it, and a node runs a participant's message only while
 * the Location Store names that node its owner (so no participant is visible on the target before the CAS); every
 * member of the room has the room's owner (members follow the aggregate; no split owner); the room's membership does
 * not change while it is sealed; the inventory is the membership at the seal; no participant dispatches on the source
 * once the relay-ready reply was accepted. Per message: handled at most once, and per sender, participant and path
 * (through the source, or directly to the target) in send order. At the end of a quiescent run: every accepted message
 * ran once, or ended with a typed error, or was lost in transport or with a killed target (the failure scope); a move
 * that failed before relay-ready left every participant on the source, serving, with the Location Store unchanged in
 * owner (all or nothing); a committed move has every participant open on its live target with its captured state.
 */
public final class AggregateChecker {
  /** How a run ended. */
  public enum Outcome {
    /** The CAS applied and the target opened the whole room. */
    COMMITTED,
    /** The CAS applied and the target was killed afterwards: the room is unavailable (failure scope). */
    COMMITTED_TARGET_KILLED,
    /** A failure before relay-ready: every participant restored on the source. */
    RESTORED,
    /** Past relay-ready, not committed: the source refuses with typed errors (no source restore). */
    ABANDONED,
    /** The seal never happened (an arriving join kept it off until the permit wait ended). */
    NOT_SEALED,
    /** The step budget ended first. */
    UNFINISHED
  }

  private final Map<Long, Integer> handledCount = new HashMap<>();
  private final Set<Long> accepted = new LinkedHashSet<>();
  private final Set<Long> failedTyped = new LinkedHashSet<>();
  private final Set<Long> lostInTransport = new LinkedHashSet<>();
  private final Map<String, Integer> lastSeq = new HashMap<>();
  private final Map<String, Integer> handledPer = new HashMap<>();
  private final Set<String> membership = new TreeSet<>();
  private final Map<String, Integer> marks = new LinkedHashMap<>();
  private boolean sealed;
  /** Whether the seal's inventory is compared with the room directly (off: only its consequences are checked). */
  private boolean inventoryCheck = true;
  private boolean boundaryAccepted;
  private boolean targetKilled;
  private boolean targetHandledAny;
  private String failure;
  private Outcome outcome = Outcome.UNFINISHED;
  private long trace = 17;

  void mark(final String what) {
    marks.merge(what, 1, Integer::sum);
  }

  void member(final String key, final boolean joined) {
    if (sealed) {
      fail("membership of the room changed while sealed: " + key + (joined ? " joined" : " left")
          + " (spec 000 section 7 step 1)");
    }
    if (joined) {
      membership.add(key);
    } else {
      membership.remove(key);
    }
  }

  void withoutInventoryCheck() {
    inventoryCheck = false;
  }

  void sealed(final List<String> inventory) {
    sealed = true;
    if (!inventoryCheck) {
      return;
    }
    final Set<String> expected = new TreeSet<>(membership);
    expected.add(AggregateWorld.SPOT);
    if (!expected.equals(new TreeSet<>(inventory))) {
      fail("inventory " + new TreeSet<>(inventory) + " is not the room at its seal " + expected
          + " (spec 000 section 7: every current member at seal time)");
    }
  }

  void unsealed() {
    sealed = false;
  }

  void boundaryAccepted() {
    boundaryAccepted = true;
  }

  void targetKilled() {
    targetKilled = true;
  }

  void accepted(final long id) {
    accepted.add(id);
  }

  void failedTyped(final long id) {
    failedTyped.add(id);
  }

  void lostInTransport(final long id) {
    lostInTransport.add(id);
  }

  /**
   * A node runs a message of a participant.
   *
   * @param node the node running it.
   * @param key the participant.
   * @param m the message.
   * @param storeOwner the participant's owner in the Location Store now.
   */
  void handled(final String node, final String key, final AggregateWorld.Msg m, final String storeOwner) {
    trace = trace * 31 + m.id() * (node.equals(AggregateStore.A) ? 1 : -1);
    if (!node.equals(storeOwner)) {
      fail(node + " ran message " + m.id() + " of " + key + " while the Location Store names " + storeOwner
          + (node.equals(AggregateStore.B) ? " (visible on the target before the CAS)" : ""));
    }
    if (handledCount.merge(m.id(), 1, Integer::sum) > 1) {
      fail("message " + m.id() + " of " + key + " handled twice");
    }
    final String path = m.sender() + "|" + key + "|" + m.viaTarget();
    final Integer last = lastSeq.put(path, m.seq());
    if (last != null && last > m.seq()) {
      fail("sender " + m.sender() + " to " + key + (m.viaTarget() ? " (direct)" : " (through the source)")
          + ": message seq " + m.seq() + " ran after seq " + last + " (reordered)");
    }
    handledPer.merge(key, 1, Integer::sum);
    if (node.equals(AggregateStore.B)) {
      targetHandledAny = true;
    }
  }

  /**
   * Checks run after every step.
   *
   * @param w the world.
   */
  void afterStep(final AggregateWorld w) {
    if (failure != null) {
      return;
    }
    final String roomOwner = w.store().ownerOf(AggregateWorld.SPOT);
    for (final String m : membership) {
      final String o = w.store().ownerOf(m);
      if (!roomOwner.equals(o)) {
        fail("split owner: the room is owned by " + roomOwner + " but its member " + m + " by " + o
            + " (members follow the aggregate; MEM-36)");
        return;
      }
    }
    for (final String key : w.keysEverSeen()) {
      final boolean a = w.dispatchingOnSource(key);
      final boolean b = w.dispatchingOnTarget(key);
      if (a && b) {
        fail("two owners: " + key + " dispatching on the source and on the target");
        return;
      }
      if (b && !AggregateStore.B.equals(w.store().ownerOf(key))) {
        fail(key + " open on the target while the Location Store names " + w.store().ownerOf(key)
            + " (visible before the CAS)");
        return;
      }
      if (a && boundaryAccepted && w.inventory().contains(key)) {
        fail(key + " dispatching on the source after the relay-ready reply was accepted (spec 000 section 8)");
        return;
      }
    }
    if (w.store().commits > 1) {
      fail("the aggregate CAS applied " + w.store().commits + " times for one move (MEM-21)");
    }
  }

  /**
   * Checks at the end of a run.
   *
   * @param w the world.
   * @param quiescent whether the run came to rest.
   * @param healthy whether the scenario had no faults.
   */
  void atEnd(final AggregateWorld w, final boolean quiescent, final boolean healthy) {
    if (failure != null) {
      return;
    }
    outcome = quiescent ? w.outcome() : Outcome.UNFINISHED;
    if (healthy && outcome != Outcome.COMMITTED) {
      fail("healthy run did not commit: outcome " + outcome);
      return;
    }
    if (!quiescent) {
      return;
    }
    for (final long id : accepted) {
      final int n = handledCount.getOrDefault(id, 0);
      if (n > 0 && failedTyped.contains(id)) {
        fail("message " + id + " (" + w.describe(id) + ") ran and also ended with a typed error");
        return;
      }
      final boolean accounted = n == 1 || n == 0 && (failedTyped.contains(id) || lostInTransport.contains(id));
      if (!accounted && !(n == 0 && targetKilled && boundaryAccepted)) {
        fail("message " + id + " (" + w.describe(id) + ") handled " + n + " times and not failed: lost");
        return;
      }
    }
    switch (outcome) {
      case RESTORED, NOT_SEALED -> {
        if (targetHandledAny) {
          fail("the target ran work although the move failed before relay-ready");
        }
        for (final String key : w.inventory()) {
          if (!w.dispatchingOnSource(key) || !AggregateStore.A.equals(w.store().ownerOf(key))) {
            fail("all or nothing: " + key + " is not back on the source, serving, after a failure before"
                + " relay-ready (owner " + w.store().ownerOf(key) + ")");
            return;
          }
        }
        checkStates(w, false);
      }
      case ABANDONED -> {
        if (AggregateStore.B.equals(w.store().owner)) {
          // The source stopped waiting and abandoned, the target's CAS applied afterwards: the room must live there.
          mark("abandoned_but_target_committed");
          requireServedOnTarget(w);
        }
      }
      case COMMITTED -> {
        if (requireServedOnTarget(w)) {
          checkStates(w, true);
        }
      }
      default -> {
      }
    }
  }

  /** Every participant of a committed room is open on its live target. */
  private boolean requireServedOnTarget(final AggregateWorld w) {
    if (!w.target.alive()) {
      return true;
    }
    for (final String key : w.inventory()) {
      if (!w.dispatchingOnTarget(key)) {
        fail("the Location Store names the target for " + key + " but the live target does not serve it"
            + " (the committed room is lost)");
        return false;
      }
    }
    return true;
  }

  /** Each participant's state (a count of the messages it ran) travelled with it: capture, restore, continue. */
  private void checkStates(final AggregateWorld w, final boolean onTarget) {
    for (final String key : w.inventory()) {
      final int state = w.stateOf(key, onTarget);
      final int ran = handledPer.getOrDefault(key, 0);
      if (state != ran) {
        fail(key + " has state " + state + " on the " + (onTarget ? "target" : "source") + " but ran " + ran
            + " messages (state not captured or restored)");
        return;
      }
    }
  }

  void fail(final String why) {
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
   * Coverage marks: how often each interesting interleaving or fault happened.
   *
   * @return counts by name.
   */
  public Map<String, Integer> marks() {
    return marks;
  }

  /**
   * A hash of every handled message in order: equal for two runs of the same seed.
   *
   * @return the trace hash.
   */
  public long traceHash() {
    return trace;
  }
}
