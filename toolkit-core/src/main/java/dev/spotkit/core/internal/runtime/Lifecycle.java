package dev.spotkit.core.internal.runtime;

import dev.spotkit.core.ActorRef;
import dev.spotkit.core.ClosingContext;
import dev.spotkit.core.ClosingReason;
import dev.spotkit.core.Deadline;
import dev.spotkit.core.SpotRef;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.core.internal.relocation.Relocations;
import dev.spotkit.core.internal.session.SessionBinder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Endings: spot close (ExplicitClose), actor destroy, aborted creations, and node close (HostShutdown:
 * finish accepted turns, then OnClosing on every spot, then release everything; spec 003 section 3.4, spec
 * 000 section 5).
 */
public final class Lifecycle {
  /** Node close: the session listener's share of the budget. */
  static final int SESSIONS_END_PERCENT = 15;
  /** Node close: accepted turns finish by this share of the budget (from the start). */
  static final int TURNS_END_PERCENT = 45;
  /** Node close: OnClosing(HostShutdown) ends by this share; also the ClosingContext deadline. */
  static final int CLOSING_END_PERCENT = 75;
  /** Node close: the wait for relocations this node started as source ends by this share. */
  static final int RELOCATIONS_END_PERCENT = 85;
  /** Node close: releases end by this share; the rest stops the dispatcher. */
  static final int RELEASE_END_PERCENT = 95;

  private final NodeRuntime rt;

  private final RemoteLifecycle remote;

  Lifecycle(final NodeRuntime rt) {
    this.rt = rt;
    this.remote = new RemoteLifecycle(rt);
  }

  RemoteLifecycle remote() {
    return remote;
  }

  /**
   * Close of a User Spot by ref: false while members remain or an admitted cross-node join has not committed or
   * failed yet (no OnClosing), or when that generation is gone.
   *
   * @param ref the spot.
   * @param deadline the call's deadline (used when the spot is owned by another node).
   * @return the future result.
   */
  public CompletableFuture<Boolean> closeSpot(final SpotRef ref, final Deadline deadline) {
    rt.requireServer("spot close");
    rt.ensureRunning("close spot '" + ref.id() + "'");
    final SpotCell cell = rt.spots.get(ref.id().value());
    if (cell == null && rt.mesh() != null) {
      return remote.closeSpot(ref, deadline);
    }
    if (cell == null || cell.state != CellState.READY && cell.generation != ref.generation().value()) {
      return CompletableFuture.completedFuture(false);
    }
    Messaging.checkGeneration(cell, ref.generation().value());
    if (cell.kind != NodeConfig.SpotKind.USER) {
      throw new SpotkitException.InvalidOperation(cell.describe() + " cannot be closed by the manager: the Entry"
          + " Spot has no close, and an Instance Spot closes only from its own context");
    }
    final CompletableFuture<Boolean> result = new CompletableFuture<>();
    cell.control(() -> {
      if (cell.state != CellState.READY || !cell.members.isEmpty() || !cell.admittedJoins.isEmpty()) {
        result.complete(false);
        return;
      }
      beginClose(cell);
      finishClose(cell, ClosingReason.EXPLICIT_CLOSE);
      result.complete(true);
    });
    return result;
  }

  /**
   * Close from the spot's own turn (UserSpotContext.close / InstanceSpotContext.close).
   *
   * @param cell the spot.
   * @return false while members remain or an admitted cross-node join has not committed or failed yet.
   */
  public boolean closeFromTurn(final SpotCell cell) {
    final Turn turn = Turn.current();
    if (turn == null || !turn.isOpenFor(cell, false)) {
      throw new SpotkitException.InvalidOperation("close() of " + cell.describe() + " was called outside a turn"
          + " of that spot; call it from the spot's own handler, timer or callback (or use"
          + " spots().close(ref) from elsewhere)");
    }
    if (cell.state != CellState.READY) {
      return cell.state == CellState.CLOSING;
    }
    if (!cell.members.isEmpty() || !cell.admittedJoins.isEmpty()) {
      return false; // a member, or an admitted cross-node join not yet committed or failed (spec 000)
    }
    beginClose(cell);
    turn.closeRequested = true;
    return true;
  }

  /** No new admission: unroutable by id, timers stopped. On the spot's gate. */
  private void beginClose(final SpotCell cell) {
    cell.state = CellState.CLOSING;
    rt.closingSpots.put(cell.id, cell); // before it leaves the registry: a GetOrCreate sees one or the other
    rt.spots.remove(cell.id, cell);
    cell.timers.cancelAll();
  }

  /** OnClosing, then release. On the spot's gate, after {@link #beginClose}. */
  void finishClose(final SpotCell cell, final ClosingReason reason) {
    if (cell.state == CellState.GONE) {
      return;
    }
    final ClosingContext closing = new ClosingContext(reason, Deadline.after(rt.config().closeTimeout()));
    cell.runCallback("onClosing of " + cell.describe(), false, () -> {
      cell.spot.onClosing(closing);
      return null;
    });
    release(cell, new SpotkitException.NotFound(cell.describe() + " closed before handling the request"));
  }

  /**
   * Destroys an actor incarnation by ref.
   *
   * @param ref the actor.
   * @param deadline the call's deadline (used when the actor is owned by another node).
   * @return true when destroyed (also an actor whose move from here did not commit: its row goes); false when that
   *     generation is gone; Unavailable while it moves away from here.
   */
  public CompletableFuture<Boolean> destroyActor(final ActorRef ref, final Deadline deadline) {
    rt.requireServer("actor destroy");
    rt.ensureRunning("destroy actor '" + ref.id() + "'");
    final ActorCell cell = rt.actors.get(ref.id().value());
    final Relocations moves = rt.relocations();
    if (cell == null && moves != null) {
      final CompletableFuture<Boolean> moved = moves.destroyMoved(ref); // it moved away, or its move did not commit
      if (moved != null) {
        return moved;
      }
    }
    if (cell == null && rt.mesh() != null) {
      return remote.destroyActor(ref, deadline);
    }
    if (cell == null || cell.state != CellState.READY && cell.generation != ref.generation().value()) {
      return CompletableFuture.completedFuture(false);
    }
    Messaging.checkGeneration(cell, ref.generation().value());
    final CompletableFuture<Boolean> result = new CompletableFuture<>();
    cell.control(() -> {
      if (cell.state != CellState.READY) {
        result.complete(false);
      } else if (cell.barrierActive) {
        result.completeExceptionally(new SpotkitException.Unavailable(cell.describe() + " is running a join"
            + " barrier; destroy it after its onJoinCompleted"));
      } else {
        releaseActor(cell, new SpotkitException.NotFound(cell.describe() + " was destroyed before handling the"
            + " request"));
        result.complete(true);
      }
    });
    return result;
  }

  /**
   * Releases an actor that failed or was declined during creation (on the Entry Spot's gate): registry entry,
   * timers and store record at once, before the creator learns the outcome; the never-opened mailbox is
   * released on its own gate.
   */
  public void abortActor(final ActorCell cell, final SpotkitException error) {
    cell.state = CellState.GONE;
    rt.actors.remove(cell.id, cell);
    cell.timers.cancelAll();
    rt.store().remove(cell);
    final SessionBinder.Link link = cell.session;
    if (link != null) { // a client of a drained node learns why, not just EOF
      SessionBinder.closeNotStarted(rt, link.session());
    }
    final SpotkitException failure = error != null ? error
        : new SpotkitException.NotFound(cell.describe() + " was not created");
    cell.control(() -> release(cell, failure));
  }

  /** Releases a spot whose creation failed or was declined. On its gate. */
  public void abortSpot(final SpotCell cell, final SpotkitException error) {
    release(cell, error != null ? error : new SpotkitException.NotFound(cell.describe() + " was not created"));
  }

  /** On the actor's gate: unroutable, timers, mailbox, store record, membership, session. */
  private void releaseActor(final ActorCell cell, final SpotkitException error) {
    final SpotCell membership = cell.membership;
    if (membership != null) {
      membership.members.remove(cell);
    }
    release(cell, error);
    final SessionBinder.Link link = cell.session;
    if (link != null) {
      link.session().close();
    } else if (cell.binding != null) {
      // A moved session-bound actor ends here: its session on the Session owner closes too (frames to it go
      // one-way and are not answered, so nothing else would tell the Session owner).
      cell.binding.close();
    }
  }

  /**
   * Releases a cell: GONE, out of the registry, timers, mailbox (unrun requests fail with {@code error}), Location
   * Store row, close wait. On its gate.
   */
  void release(final Cell cell, final SpotkitException error) {
    cell.state = CellState.GONE;
    if (cell instanceof ActorCell actor) {
      rt.actors.remove(cell.id, actor);
    } else if (cell instanceof SpotCell spot) {
      rt.spots.remove(cell.id, spot);
    }
    cell.timers.cancelAll();
    if (cell.mailbox.dispatchState() != dev.spotkit.mailbox.DispatchState.RELEASED) {
      Cell.failUnrun(cell.mailbox.release(late -> Cell.failOne(late, error)), error);
    }
    rt.store().remove(cell);
    if (cell instanceof SpotCell spot) {
      rt.closingSpots.remove(spot.id, spot);
      if (spot.idle != null) {
        spot.idle.stop();
      }
      spot.released.complete(null);
    }
  }

  /**
   * The share of the close timeout the session listener gets to stop: 15 %, at least 1 ms.
   *
   * @param closeTimeout the node's close timeout.
   * @return the session listener's close timeout.
   */
  static Duration sessionCloseTimeout(final Duration closeTimeout) {
    final Duration share = closeTimeout.multipliedBy(SESSIONS_END_PERCENT).dividedBy(100);
    return share.isZero() ? Duration.ofMillis(1) : share;
  }

  /**
   * Node close (HostShutdown), steps in order, each bounded by its own checkpoint of the close budget
   * (measured from the start, so time a step leaves unused carries over to the next): sessions stop
   * (15 %); accepted turns finish: a marker behind every accepted message, in parallel (until 45 %);
   * OnClosing(HostShutdown) on every spot, in parallel, with the 75 % checkpoint as its ClosingContext
   * deadline (until 75 %); relocations this node started as source reach their result, committed or not (until
   * 85 %); actors and spots are released, failing their unrun requests with ShuttingDown (until 95 %). A turn
   * stuck in a handler holds only its own gate: the other cells still get OnClosing and are released on time, and
   * the caller fails what the stuck gate still holds once the timer thread stopped.
   *
   * @param deadline the close deadline (now + close timeout).
   */
  void closeNode(final Deadline deadline) {
    final long start = System.nanoTime();
    final long budget = deadline.nanoTime() - start;
    rt.stopSessions();
    final List<ActorCell> actors = new ArrayList<>(rt.actors.values());
    final List<SpotCell> spots = new ArrayList<>(rt.spots.values());
    for (Cell cell : concat(actors, spots)) {
      cell.timers.cancelAll();
    }
    // 1. finish accepted turns: a marker behind every accepted message.
    forEach(concat(actors, spots), checkpoint(start, budget, TURNS_END_PERCENT), "finishing accepted turns",
        (cell, done) -> {
          if (cell.mailbox.offer(new Envelope.Marker(done)) != dev.spotkit.mailbox.OfferResult.ACCEPTED) {
            done.run();
          }
        });
    // 2. OnClosing(HostShutdown) on every spot, membership still valid.
    final Deadline closingDeadline = checkpoint(start, budget, CLOSING_END_PERCENT);
    forEach(spots, closingDeadline, "OnClosing(HostShutdown)", (spot, done) -> spot.control(() -> {
      try {
        if (spot.state == CellState.READY && spot.spot != null) {
          final ClosingContext closing = new ClosingContext(ClosingReason.HOST_SHUTDOWN, closingDeadline);
          spot.runCallback("onClosing of " + spot.describe(), false, () -> {
            spot.spot.onClosing(closing);
            return null;
          });
        }
      } finally {
        done.run();
      }
    }));
    // 3. relocations this node started reach their result (restored, committed or not committed): their target's
    // CAS still conditions on this node's rows and capacity record, which the release and the close remove.
    final Relocations moves = rt.relocations();
    if (moves != null) {
      moves.awaitSources(checkpoint(start, budget, RELOCATIONS_END_PERCENT));
      moves.closeSources(); // the rows of moves that did not commit go with the node, as its actors' rows do
    }
    // 4. release actors, then spots: mailboxes, timers, store records.
    final Deadline releaseDeadline = checkpoint(start, budget, RELEASE_END_PERCENT);
    final SpotkitException stopped = new SpotkitException.ShuttingDown("the node closed before handling the request");
    forEach(actors, releaseDeadline, "releasing actors", (actor, done) -> actor.control(() -> {
      try {
        release(actor, stopped);
      } finally {
        done.run();
      }
    }));
    forEach(spots, releaseDeadline, "releasing spots", (spot, done) -> spot.control(() -> {
      try {
        release(spot, stopped);
      } finally {
        done.run();
      }
    }));
  }

  private static Deadline checkpoint(final long start, final long budget, final int percent) {
    return new Deadline(start + budget / 100 * percent);
  }

  private static List<Cell> concat(final List<? extends Cell> a, final List<? extends Cell> b) {
    final List<Cell> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }

  private interface Step<C> {
    void start(C cell, Runnable done);
  }

  private static <C extends Cell> void forEach(final List<C> cells, final Deadline deadline, final String what,
      final Step<C> step) {
    final CountDownLatch latch = new CountDownLatch(cells.size());
    for (C cell : cells) {
      try {
        step.start(cell, latch::countDown);
      } catch (RuntimeException e) {
        NodeRuntime.LOG.warn("node close: {} failed for {}", what, cell.describe(), e);
        latch.countDown();
      }
    }
    try {
      if (!latch.await(deadline.remaining().toNanos(), TimeUnit.NANOSECONDS)) {
        NodeRuntime.LOG.warn("node close: {} did not finish by the close deadline ({} of {} left)", what,
            latch.getCount(), cells.size());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

}
