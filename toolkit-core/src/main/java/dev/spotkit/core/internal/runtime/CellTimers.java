package dev.spotkit.core.internal.runtime;

import dev.spotkit.core.Deadline;

import dev.spotkit.core.OnTick;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.mailbox.OfferResult;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Named periodic timers of one cell. The node's scheduler thread only offers a tick to the cell's mailbox; the
 * tick runs as a turn of the cell. While a tick is queued, later ones are skipped (no pile-up). A second timer
 * with the same name replaces the first. Thread-safe.
 */
public final class CellTimers {

  /** One timer. */
  public static final class Entry {
    public final String name;
    public final OnTick tick;
    public final long periodNanos;
    /** Ticks delivered so far (the schedule cursor a move carries). Written in the cell's turn. */
    public volatile long delivered;
    /** When the next tick is due, System.nanoTime() based. */
    public volatile long nextAtNanos;
    /** Set while a tick of this timer sits in the mailbox. Scheduler sets, the cell's turn clears. */
    public final AtomicBoolean queued = new AtomicBoolean();
    volatile boolean cancelled;
    volatile ScheduledFuture<?> future;

    Entry(final String name, final OnTick tick, final long periodNanos) {
      this.name = name;
      this.tick = tick;
      this.periodNanos = periodNanos;
    }

    void cancel() {
      cancelled = true;
      final ScheduledFuture<?> f = future;
      if (f != null) {
        f.cancel(false);
      }
    }
  }

  private static final long MIN_PERIOD_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  private final Cell cell;
  private final ScheduledExecutorService scheduler;
  private final ConcurrentHashMap<String, Entry> timers = new ConcurrentHashMap<>();

  CellTimers(final Cell cell, final ScheduledExecutorService scheduler) {
    this.cell = cell;
    this.scheduler = scheduler;
  }

  /**
   * Starts or replaces a timer.
   *
   * @param name 1..255 UTF-8 bytes.
   * @param period 1 ms..365 days ({@link Deadline#MAX_TIMEOUT}).
   * @param tick the callback.
   */
  public void every(final String name, final Duration period, final OnTick tick) {
    every(name, period, tick, period, 0, false);
  }

  /**
   * Starts or replaces a timer whose first tick comes after {@code firstDelay} (a timer resumed after a move).
   * @param name 1..255 UTF-8 bytes.
   * @param period 1 ms..365 days.
   * @param tick the callback.
   * @param firstDelay delay of the first tick, 0..period.
   * @param delivered ticks already delivered before (the moved schedule cursor).
   * @param tickQueued true when a tick of this timer already waits in the cell's queue (a moved pending tick):
   *     the timer starts marked queued, so no tick of it is queued before that one ran.
   */
  public void every(final String name, final Duration period, final OnTick tick, final Duration firstDelay,
      final long delivered, final boolean tickQueued) {
    Ids.requireValid("timer name", name);
    if (period == null || period.compareTo(Duration.ofNanos(MIN_PERIOD_NANOS)) < 0
        || period.compareTo(Deadline.MAX_TIMEOUT) > 0) {
      throw new SpotkitException.InvalidOperation("timer '" + name + "' period " + period
          + " is outside 1 ms.." + Deadline.MAX_TIMEOUT + "; use e.g. Duration.ofMillis(100)");
    }
    if (tick == null) {
      throw new SpotkitException.InvalidOperation("timer '" + name + "' needs a tick callback");
    }
    if (cell.state == CellState.GONE || cell.state == CellState.CLOSING) {
      throw new SpotkitException.InvalidOperation("timer '" + name + "' cannot start: " + cell.describe()
          + " is closed");
    }
    final long nanos = period.toNanos();
    final long first = Math.max(0, Math.min(nanos, firstDelay.toNanos()));
    final Entry entry = new Entry(name, tick, nanos);
    entry.delivered = delivered;
    entry.nextAtNanos = System.nanoTime() + first;
    entry.queued.set(tickQueued); // before the schedule starts: a first fire at once must see the pending tick
    final Entry old = timers.put(name, entry);
    if (old != null) {
      old.cancel();
    }
    try {
      entry.future = scheduler.scheduleAtFixedRate(() -> fire(entry), first, nanos, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      timers.remove(name, entry);
      throw new SpotkitException.ShuttingDown("timer '" + name + "' cannot start: the node is closing");
    }
    if (entry.cancelled) {
      entry.cancel(); // a concurrent cancel saw the entry before its future was set
    }
  }

  /**
   * Cancels a timer.
   *
   * @param name the timer.
   * @return true when it was running.
   */
  public boolean cancel(final String name) {
    final Entry entry = timers.remove(name);
    if (entry == null) {
      return false;
    }
    entry.cancel();
    return true;
  }

  /**
   * Running timer names.
   *
   * @return a snapshot.
   */
  public Set<String> names() {
    return Set.copyOf(timers.keySet());
  }

  /** The running timers (a snapshot), for a move's capture. */
  public java.util.List<Entry> entries() {
    return java.util.List.copyOf(timers.values());
  }

  /** The entry of a running timer, or null. */
  public Entry entry(final String name) {
    return timers.get(name);
  }

  /**
   * Whether no timer is registered (any thread; a racy snapshot, exact on the cell's gate between turns).
   *
   * @return true when none runs.
   */
  public boolean isEmpty() {
    return timers.isEmpty();
  }

  public void cancelAll() {
    for (String name : timers.keySet()) {
      cancel(name);
    }
  }

  /**
   * Queues one tick of the timer {@code name} now, ahead of its schedule (the test kit's timer control); its period
   * goes on as before. No second tick is queued while one is still waiting in the mailbox. Any thread.
   *
   * @param name the timer's name.
   * @return true when a tick of the registered timer was queued now or one is already waiting; false when no timer of
   *     that name is registered, the node admits no work (past its owner lease's local admission deadline, LOC-04),
   *     or the object's mailbox took no tick (it is being released).
   */
  public boolean fireNow(final String name) {
    final Entry entry = timers.get(name);
    if (entry == null || entry.cancelled || !cell.rt.admits()) {
      return false;
    }
    return fire(entry) || entry.queued.get();
  }

  /** Queues a tick of {@code entry}; true when this call queued it. */
  private boolean fire(final Entry entry) {
    if (entry.cancelled || !cell.rt.admits() || !entry.queued.compareAndSet(false, true)) {
      return false; // past the lease's local admission deadline no timer callback starts (LOC-04); the next tick may
    }
    entry.nextAtNanos = System.nanoTime() + entry.periodNanos;
    final OfferResult result = cell.offerEnvelope(new Envelope.Tick(entry));
    if (result != OfferResult.ACCEPTED) {
      entry.queued.set(false);
      if (result == OfferResult.RELEASED) {
        timers.remove(entry.name, entry);
        entry.cancel();
      }
      return false;
    }
    return true;
  }

  /** Runs a delivered tick unless the timer was cancelled or replaced meanwhile. In the cell's turn. */
  boolean accept(final Entry entry) {
    entry.queued.set(false);
    final boolean live = !entry.cancelled && timers.get(entry.name) == entry;
    if (live) {
      entry.delivered++;
    }
    return live;
  }
}
