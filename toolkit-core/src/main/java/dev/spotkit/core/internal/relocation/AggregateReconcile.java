package dev.spotkit.core.internal.relocation;

import dev.spotkit.core.NodeRid;
import dev.spotkit.core.internal.runtime.NodeRuntime;
import dev.spotkit.core.location.AggregateAuthority;
import dev.spotkit.core.location.AuthorityRecord;
import dev.spotkit.core.location.LocationRecords;
import dev.spotkit.core.location.ObjectKey;
import dev.spotkit.core.location.PlacementBatches;
import dev.spotkit.relocation.follow.MessageFollowTable;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The source's reconciliation of a room, Instance Spot or PerActor shell move whose commit call failed past
 * relay-ready (spec 001 section 9, "Cutover submit result is unknown"; spec 000 sections 7 and 8). Not API.
 *
 * <p>The source never guesses and never writes: it reads the Location Store. The first read is immediate; unless
 * it shows the commit, the source refuses the room's held and later work at once ({@link AggregateSeal#abandon},
 * REL-30), and, when that read could not tell ({@link Commit#PENDING}, {@link Commit#UNREADABLE}), keeps reading in
 * the background with the outcomes of the single-actor path ({@code RelocationSource.confirm}): a row still at the
 * sealed version is no answer until the target's commit deadline plus one store call ({@link #COMMIT_BUDGET}), an
 * unreadable store none until the Message Follow duration (30 s) ends. A commit seen later turns the refusing room
 * into a followed one ({@link AggregateSeal#handOver} after the abandon; the caller does that).
 *
 * <p>Blocking: {@link #read} waits for one store call (virtual threads only); {@link #reconcile} returns at once,
 * its reads run on virtual threads and the waits between them on the relocation scheduler. Thread-safety:
 * stateless.
 */
final class AggregateReconcile {
  /** What one read of the Location Store says about the move. */
  enum Commit {
    /** The store names the target with this move (its AggregateId, or a new version of the one row) and generation. */
    COMMITTED,
    /** The row or aggregate is gone: the Spot ended (here or, after a commit, on the target); nothing to follow. */
    ENDED,
    /** Another incarnation, move or version: the target's CAS can never apply. */
    REFUSED,
    /** Still at the version the seal fixed: the target may still be trying its CAS. */
    PENDING,
    /** The read failed or did not answer in time. */
    UNREADABLE
  }

  /**
   * How long after the source's commit call failed a store still at the sealed version is no answer: the target's
   * commit bound ({@link AggregateMoves#STEP_TIMEOUT}, 30 s, for a one-row CAS), the target's re-reads after a lost
   * CAS answer (about 3.2 s, {@code AggregateRestore}) and one more store call in flight (2 s): 35.15 s. A room's
   * CAS is bounded by its attempts rather than by time; the source waits for it this long, no longer.
   */
  static final Duration COMMIT_BUDGET = AggregateMoves.STEP_TIMEOUT.plusMillis(
      AggregateRestore.CONFIRM_FIRST_WAIT_MS * ((1L << AggregateRestore.CONFIRM_TRIES) - 1))
      .plus(AggregateSeal.STORE_TIMEOUT);
  /** First wait between two background reads, ms; doubled after each read up to {@link #MAX_DELAY_MS}. */
  static final long FIRST_DELAY_MS = 5;
  /** Longest wait between two background reads, ms. */
  static final long MAX_DELAY_MS = 200;

  private AggregateReconcile() {
  }

  /**
   * One read of whether the target's CAS of this move committed, comparing node and ObjectGeneration (and, for a
   * room, the move's AggregateId). Never throws: a failing store is {@link Commit#UNREADABLE}.
   *
   * @param rt the source node.
   * @param seal the move's seal (its stored versions and the Spot's ObjectGeneration).
   * @param target the target node.
   * @return the outcome.
   */
  static Commit read(final NodeRuntime rt, final AggregateSeal seal, final NodeRid target) {
    final String spotId = seal.stored().tree().spotId();
    final long generation = seal.spot().generation;
    try {
      if (seal.stored().aggregate() == null) { // an Instance Spot or a PerActor shell: its own row is its authority
        final Optional<LocationRecords.Stored> row = LocationRecords.read(rt.store().store(), ObjectKey.spot(spotId),
            AggregateSeal.STORE_TIMEOUT);
        if (row.isEmpty()) {
          return Commit.ENDED;
        }
        final AuthorityRecord a = row.get().authority();
        if (a.objectGeneration().value() != generation) {
          return Commit.REFUSED;
        }
        if (row.get().version().equals(seal.stored().spotVersion())) {
          return Commit.PENDING;
        }
        // only the target's CAS changes the owner of a sealed row, and it keeps the ObjectGeneration
        return a.allocation().routingIdHex().equals(target.hex()) ? Commit.COMMITTED : Commit.REFUSED;
      }
      final Optional<AggregateAuthority.Stored> aggregate = new AggregateAuthority(rt.store().store(),
          AggregateSeal.STORE_TIMEOUT, PlacementBatches.DEFAULT_ATTEMPTS).read(spotId);
      if (aggregate.isEmpty()) {
        return Commit.ENDED;
      }
      final dev.spotkit.core.location.AggregateRecord record = aggregate.get().record();
      if (record.spotObjectGeneration() != generation) {
        return Commit.REFUSED;
      }
      if (record.aggregateId().equals(seal.aggregateId()) && record.routingIdHex().equals(target.hex())) {
        return Commit.COMMITTED;
      }
      return aggregate.get().version().equals(seal.stored().aggregateVersion()) ? Commit.PENDING : Commit.REFUSED;
    } catch (RuntimeException e) {
      NodeRuntime.LOG.debug("move of spot '{}' to node {}: commit read failed: {}", spotId, target, e.toString());
      return Commit.UNREADABLE;
    }
  }

  /**
   * Keeps reading in the background until the store answers (spec 001 section 9: the source does not guess, it
   * reads the Location Store authority, bounded by the Message Follow duration): {@code outcome} gets
   * {@link Commit#COMMITTED}, {@link Commit#ENDED} or {@link Commit#REFUSED} as read, {@link Commit#PENDING} when
   * the store still showed the sealed version past {@link #COMMIT_BUDGET} (35.15 s after the failed call: the
   * target can no longer commit), {@link Commit#UNREADABLE} when it was still unreadable when Message Follow (30 s
   * after the failed call) ended, or this node closed. Exactly once, on a virtual thread or the
   * scheduler. Returns at once; any thread.
   *
   * @param rt the source node.
   * @param seal the move's seal.
   * @param target the target node.
   * @param failedAtNanos when the commit call failed ({@link System#nanoTime}).
   * @param outcome the final outcome.
   */
  static void reconcile(final NodeRuntime rt, final AggregateSeal seal, final NodeRid target,
      final long failedAtNanos, final Consumer<Commit> outcome) {
    next(rt, seal, target, failedAtNanos + COMMIT_BUDGET.toNanos(),
        failedAtNanos + TimeUnit.MILLISECONDS.toNanos(MessageFollowTable.DEFAULT_DURATION_MS), FIRST_DELAY_MS,
        outcome);
  }

  private static void next(final NodeRuntime rt, final AggregateSeal seal, final NodeRid target,
      final long giveUpAtNanos, final long followEndsAtNanos, final long delayMs, final Consumer<Commit> outcome) {
    try {
      rt.relocationScheduler().schedule(() -> {
        final java.util.concurrent.CompletableFuture<Commit> reading;
        try {
          reading = rt.async(() -> read(rt, seal, target));
        } catch (RuntimeException closing) {
          outcome.accept(Commit.UNREADABLE); // this node closed: its close ends the room here
          return;
        }
        reading.whenComplete((read, failure) -> {
          final Commit commit = failure != null ? Commit.UNREADABLE : read;
          final long now = System.nanoTime();
          if (commit == Commit.COMMITTED || commit == Commit.ENDED || commit == Commit.REFUSED
              || commit == Commit.PENDING && now - giveUpAtNanos > 0
              || commit == Commit.UNREADABLE && now - followEndsAtNanos > 0) {
            outcome.accept(commit);
          } else {
            next(rt, seal, target, giveUpAtNanos, followEndsAtNanos, Math.min(delayMs * 2, MAX_DELAY_MS), outcome);
          }
        });
      }, delayMs, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException closing) {
      outcome.accept(Commit.UNREADABLE); // this node closed: its close ends the room here
    }
  }
}
