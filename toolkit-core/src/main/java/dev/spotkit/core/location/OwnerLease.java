package dev.spotkit.core.location;

import dev.spotkit.core.SpotkitException;
import dev.spotkit.store.Condition;
import dev.spotkit.store.LocationStore;
import dev.spotkit.store.Mutation;
import dev.spotkit.store.ReadResult;
import dev.spotkit.store.StoreException;
import dev.spotkit.store.StoreVersion;
import dev.spotkit.store.WriteBatch;
import dev.spotkit.store.WriteResult;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The owner lease of one host run and its local admission deadline (spec 002 sections 3.1 and 5; LOC-03,
 * LOC-04). Each MeshNode with a Location Store holds one for its run.
 *
 * <p><b>Deadline formula.</b> For every successful store answer about the lease (the acquire or renew write,
 * or a re-read), with {@code sent} the local monotonic time (the injected {@code nanoTime}) taken just before
 * the request was sent:
 * <pre>{@code
 * deadline = sent + (expiresAt - StoreNow) - fencingMargin
 * }</pre>
 * For a write, {@code expiresAt - StoreNow} is exactly the TTL (the retention counts from the batch's StoreNow);
 * for a read it is {@code Found.expiresAtMillis - Found.now}. It is conservative: the store applied the request
 * at some instant after {@code sent}, so the store-side expiry is at least {@code expiresAt - StoreNow} after
 * {@code sent} on any clock running at the same rate, whatever the network delay on either leg; the local clock
 * is never compared with the store's wall clock, only differences of one clock are used; and the fencing
 * margin absorbs clock-rate drift and the time between a check and the work it admits. A deadline only
 * moves forward, and only from an answer of the current attempt: a late answer of an abandoned attempt is
 * ignored, and a late answer of the current attempt yields a deadline counted from its (old) send time, so it
 * restores admission only when it is still fresh enough.
 *
 * <p><b>Errors.</b> {@link #admit(String)} throws {@link SpotkitException.Unavailable}, not ShuttingDown: the
 * host is not stopping, the store connection is (for now) unconfirmed, and a fresh renewal restores admission;
 * callers treat it as retryable later. One warning line is logged when admission stops, and again only after
 * it was restored and stops anew.
 *
 * <p><b>Lost answers.</b> A call that may have applied ({@link StoreException.Indeterminate}, or abandoned
 * after the renew timeout) is never guessed: the lease key is re-read and the record compared (OwnerId and
 * LeaseGeneration) before the next conditional write; the version read is then the one to expect.
 *
 * <p><b>Driving.</b> {@link #acquire()} blocks (a virtual thread at startup). {@link #renewNow()} never
 * blocks; tests call it and move the injected clocks. {@link #startRenewing(ScheduledExecutorService)} is the
 * optional scheduler hook calling {@link #tick()}.
 *
 * <p>Thread-safety: any thread; one monitor guards the state.
 */
public final class OwnerLease {
  /** How often {@link #awaitAdmission} looks again, in ms. */
  public static final long ADMISSION_POLL_MS = 5;

  private static final Logger LOG = LoggerFactory.getLogger(OwnerLease.class);
  private static final int ACQUIRE_ATTEMPTS = 8;

  private enum State { NEW, HELD, LOST }

  private record Attempt(long id, long sentNanos, CompletableFuture<Boolean> result) {
  }

  private final LocationStore store;
  private final String ownerId;
  private final String key;
  private final LeaseSettings settings;
  private final LongSupplier nanoTime;

  private State state = State.NEW;
  private OwnerLeaseRecord record;
  private StoreVersion version;
  private boolean versionKnown;
  private long deadlineNanos;
  /**
   * The deadline while the lease is HELD, for the lock-free {@link #admitsNow()}; {@code held = false} once
   * LOST. Written under the monitor, read by any thread.
   */
  private volatile long fastDeadlineNanos;
  private volatile boolean fastHeld;
  private boolean stopped = true;
  private boolean everAdmitted;
  private int admissionStops;
  private long lastSentNanos;
  private long nextAttempt;
  private Attempt inFlight;
  /** Told when admission stops or resumes (node events); set before renewals start, or null. */
  private volatile java.util.function.Consumer<Boolean> admissionHook;
  /** Told the result of each renewal (metrics); set before renewals start, or null. */
  private volatile java.util.function.Consumer<Boolean> renewalHook;
  /** Run once when the lease is found lost for good; set before renewals start. */
  private volatile Runnable lostHook;

  /**
   * A lease not yet acquired.
   *
   * @param store the Location Store.
   * @param ownerId this host run's non-reusable OwnerId.
   * @param settings the checked settings.
   * @param nanoTime the local monotonic clock in nanoseconds, e.g. {@code System::nanoTime}.
   */
  public OwnerLease(final LocationStore store, final String ownerId, final LeaseSettings settings,
      final LongSupplier nanoTime) {
    this.store = Objects.requireNonNull(store, "store");
    this.ownerId = Objects.requireNonNull(ownerId, "ownerId");
    this.key = LocationKeys.ownerLease(ownerId).preimage();
    this.settings = Objects.requireNonNull(settings, "settings");
    this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
  }

  /**
   * Issues a LeaseGeneration and writes the owner-lease record with the TTL as retention, in one conditional
   * batch (counter unchanged, lease key absent). A lost answer is resolved by re-reading the lease key.
   *
   * @return the issued LeaseGeneration.
   * @throws SpotkitException.GenerationExhausted when the counter is exhausted.
   * @throws SpotkitException.Unavailable when the store fails or keeps conflicting.
   * @throws SpotkitException.InvalidOperation when called twice.
   */
  public LeaseGeneration acquire() {
    synchronized (this) {
      if (state != State.NEW) {
        throw new SpotkitException.InvalidOperation("owner lease " + ownerId + " was already acquired");
      }
    }
    final String counterKey = GenerationCounter.OWNER_LEASE.key().preimage();
    for (int i = 0; i < ACQUIRE_ATTEMPTS; i++) {
      final Generations.Issued next = Generations.prepare(GenerationCounter.OWNER_LEASE,
          StoreCalls.await(store.read(counterKey), settings.renewTimeout(), "read of " + counterKey));
      final OwnerLeaseRecord mine = new OwnerLeaseRecord(ownerId, next.leaseGeneration());
      final WriteBatch batch = WriteBatch.of(List.of(next.condition(), new Condition.ExpectAbsent(key)),
          List.of(next.advance(), Mutation.Put.expiring(key, mine.encode(), settings.ttl())));
      final long sent = nanoTime.getAsLong();
      final WriteResult result;
      try {
        result = StoreCalls.await(store.write(batch), settings.renewTimeout(), "acquire of " + printableKey());
      } catch (SpotkitException.Unavailable e) {
        if (!(e.getCause() instanceof StoreException.Indeterminate)) {
          throw e;
        }
        final long readSent = nanoTime.getAsLong();
        final ReadResult read = StoreCalls.await(store.read(key), settings.renewTimeout(),
            "re-read of " + printableKey());
        synchronized (this) {
          record = mine;
          if (read instanceof ReadResult.Found found && isMine(found)) {
            held(found.version(), readSent, remainingMillis(found));
            return mine.leaseGeneration();
          }
          record = null;
        }
        continue;
      }
      if (result instanceof WriteResult.Applied applied) {
        synchronized (this) {
          record = mine;
          held(applied.version(key), sent, settings.ttl().toMillis());
          return mine.leaseGeneration();
        }
      }
    }
    throw new SpotkitException.Unavailable("owner lease " + printableKey() + " could not be acquired: "
        + ACQUIRE_ATTEMPTS + " conditional writes in a row conflicted; retry later");
  }

  /**
   * Starts one renewal unless one is in flight and within the renew timeout; a renewal in flight longer than the
   * renew timeout is abandoned (it may have applied, so the next one re-reads first). Never blocks.
   *
   * @return completes with true when a fresh store answer confirmed the lease (the deadline was recomputed
   *     from it, which restores admission only when that answer is fresh enough), false when not (store
   *     failure, abandoned, or lease lost); never exceptionally.
   * @throws SpotkitException.InvalidOperation before {@link #acquire()}.
   */
  public CompletionStage<Boolean> renewNow() {
    final Attempt attempt;
    synchronized (this) {
      if (state == State.NEW) {
        throw new SpotkitException.InvalidOperation("owner lease " + ownerId + " is renewed before it was acquired");
      }
      if (state == State.LOST) {
        return CompletableFuture.completedFuture(false);
      }
      final long now = nanoTime.getAsLong();
      if (inFlight != null) {
        if (now - inFlight.sentNanos() < settings.renewTimeout().toNanos()) {
          return inFlight.result();
        }
        LOG.warn("owner lease {} renewal got no answer within {} ms; abandoned, re-reading before the next write",
            printableKey(), settings.renewTimeout().toMillis());
        inFlight.result().complete(false);
        versionKnown = false;
      }
      attempt = new Attempt(++nextAttempt, now, new CompletableFuture<>());
      inFlight = attempt;
      lastSentNanos = now;
    }
    final CompletionStage<Boolean> run = versionKnown() ? write(attempt) : reread(attempt, true);
    run.whenComplete((ok, failure) -> {
      finish(attempt, failure == null && ok);
      final java.util.function.Consumer<Boolean> hook = renewalHook;
      if (hook != null) {
        hook.accept(failure == null && ok);
      }
    });
    return attempt.result();
  }

  /**
   * Registers what to run, once, when a store answer shows this lease is gone for good (the record is missing
   * or names another run: the store was restarted empty, or no renewal applied within the TTL). A lost lease is
   * never revived by a later renewal; the node holding it must stop (spec 002 section 5). Runs on the thread of
   * the store answer; it must not block for long.
   *
   * @param hook the action, e.g. a fail-stop of the node; null removes it.
   */
  public void onLost(final Runnable hook) {
    this.lostHook = hook;
  }

  /**
   * Registers what to tell after each renewal ({@link #renewNow()}) ended: true when a fresh store answer confirmed
   * the lease, false when not (for metrics). Runs on the thread of the store answer, under no lock; it must not
   * block.
   *
   * @param hook the observer; null removes it.
   */
  public void onRenewal(final java.util.function.Consumer<Boolean> hook) {
    this.renewalHook = hook;
  }

  /**
   * Registers what to tell when this lease stops admitting new work (false: the local admission deadline passed, or
   * the lease was lost without an {@link #onLost} hook) and when it admits again after a stop (true). Not told for
   * the first admission after {@link #acquire()}, nor for a loss an {@link #onLost} hook reports. Runs on the thread
   * that noticed (a renewal's store answer, or a caller of {@link #admit}), under this lease's monitor: it must not
   * block.
   *
   * @param hook the observer; null removes it.
   */
  public void onAdmission(final java.util.function.Consumer<Boolean> hook) {
    this.admissionHook = hook;
  }

  /**
   * Whether the lease was found lost for good (see {@link #onLost}).
   *
   * @return true once lost; never false again.
   */
  public synchronized boolean isLost() {
    return state == State.LOST;
  }

  /**
   * One scheduler step: abandons and restarts a renewal past the renew timeout, or starts one when the renew
   * interval has passed since the last one was sent.
   */
  public void tick() {
    final boolean due;
    synchronized (this) {
      if (state != State.HELD) {
        return;
      }
      final long now = nanoTime.getAsLong();
      due = inFlight != null ? now - inFlight.sentNanos() >= settings.renewTimeout().toNanos()
          : now - lastSentNanos >= settings.renewInterval().toNanos();
    }
    if (due) {
      renewNow();
    }
  }

  /**
   * The optional scheduler hook: calls {@link #tick()} every quarter of the shorter of renew interval and renew
   * timeout.
   *
   * @param scheduler the scheduler; the caller owns it.
   * @return the scheduled task; cancel it to stop renewing.
   */
  public ScheduledFuture<?> startRenewing(final ScheduledExecutorService scheduler) {
    final Duration shorter = settings.renewInterval().compareTo(settings.renewTimeout()) < 0
        ? settings.renewInterval() : settings.renewTimeout();
    final long period = Math.max(1, shorter.toMillis() / 4);
    return scheduler.scheduleWithFixedDelay(this::tick, period, period, TimeUnit.MILLISECONDS);
  }

  /**
   * Admits one piece of new work (descriptor publishing, object message or timer start, store confirmation of a
   * factory or restore, relocation change or capacity reservation) only while the deadline has not passed.
   *
   * @param what the work, for the message.
   * @throws SpotkitException.Unavailable naming the deadline once it passed or the lease was lost.
   */
  public synchronized void admit(final String what) {
    final long now = nanoTime.getAsLong();
    if (!check(now)) {
      final String why = switch (state) {
        case NEW -> "is not acquired yet";
        case LOST -> "was lost (the store no longer holds " + record + ")";
        case HELD -> "passed its local admission deadline " + (now - deadlineNanos) / 1_000_000
            + " ms ago (deadline at monotonic " + deadlineNanos + " ns, now " + now + " ns)";
      };
      throw new SpotkitException.Unavailable("owner lease " + printableKey() + " " + why + "; " + what
          + " is refused until a renewal answers in time (spec 002 section 5)");
    }
  }

  /**
   * Lock-free check for hot paths (every message send): true while the lease is held and its local admission
   * deadline has not passed. When it answers false, call {@link #admit(String)} for the typed error and the
   * log line.
   *
   * @return whether new work is admitted now.
   */
  public boolean admitsNow() {
    return fastHeld && nanoTime.getAsLong() - fastDeadlineNanos < 0;
  }

  /**
   * Waits on the calling thread until this lease admits new work again (a renewal answered in time), looking every
   * {@value #ADMISSION_POLL_MS} ms (virtual-thread friendly: parks, holds no monitor). For work that was accepted
   * while admission held and must not start after it lapsed (LOC-04), e.g. a queued object message.
   *
   * @param keepWaiting asked before each look; false ends the wait (e.g. the node started closing).
   * @return true once {@link #admitsNow()}; false when the lease was lost for good, {@code keepWaiting} answered false
   *     or the thread was interrupted first (its interrupt status stays set).
   */
  public boolean awaitAdmission(final java.util.function.BooleanSupplier keepWaiting) {
    while (!admitsNow()) {
      if (isLost() || !keepWaiting.getAsBoolean() || Thread.currentThread().isInterrupted()) {
        return false;
      }
      java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(ADMISSION_POLL_MS));
    }
    return true;
  }

  /**
   * Whether new work is admitted now.
   *
   * @return true while the lease is held and the local admission deadline has not passed.
   */
  public synchronized boolean isAdmitting() {
    return check(nanoTime.getAsLong());
  }

  /**
   * The local admission deadline on the injected monotonic clock.
   *
   * @return nanoseconds; meaningless before {@link #acquire()}.
   */
  public synchronized long deadlineNanos() {
    return deadlineNanos;
  }

  /**
   * The held record.
   *
   * @return the record, or null before {@link #acquire()}.
   */
  public synchronized OwnerLeaseRecord record() {
    return record;
  }

  /**
   * How many times admission stopped (one warning line each).
   *
   * @return the count.
   */
  public synchronized int admissionStops() {
    return admissionStops;
  }

  private synchronized boolean check(final long now) {
    final boolean admitting = state == State.HELD && now - deadlineNanos < 0;
    if (admitting) {
      if (stopped) {
        if (everAdmitted) {
          LOG.info("owner lease {} admits new work again until monotonic {} ns", printableKey(), deadlineNanos);
          tellAdmission(true);
        }
        stopped = false;
        everAdmitted = true;
      }
    } else if (!stopped) {
      stopped = true;
      admissionStops++;
      if (state == State.LOST && lostHook != null) { // the hook's owner says it in one line of its own
        LOG.debug("owner lease {} stops admitting new work: the lease was lost", printableKey());
        return admitting;
      }
      LOG.warn("owner lease {} stops admitting new work: {} (deadline at monotonic {} ns, now {} ns)",
          printableKey(), state == State.LOST ? "the lease was lost" : "local admission deadline passed",
          deadlineNanos, now);
      tellAdmission(false);
    }
    return admitting;
  }

  /** Tells the admission hook, if any; it must not block (it runs under this monitor). */
  private void tellAdmission(final boolean admitting) {
    final java.util.function.Consumer<Boolean> hook = admissionHook;
    if (hook != null) {
      try {
        hook.accept(admitting);
      } catch (RuntimeException e) {
        LOG.warn("owner lease {}: the admission hook threw", printableKey(), e);
      }
    }
  }

  private synchronized boolean versionKnown() {
    return versionKnown;
  }

  private CompletionStage<Boolean> write(final Attempt attempt) {
    final StoreVersion expected;
    final OwnerLeaseRecord mine;
    synchronized (this) {
      expected = version;
      mine = record;
    }
    final WriteBatch batch = WriteBatch.of(List.of(new Condition.ExpectVersion(key, expected)),
        List.of(Mutation.Put.expiring(key, mine.encode(), settings.ttl())));
    final CompletionStage<WriteResult> call;
    try {
      call = store.write(batch);
    } catch (RuntimeException e) {
      return CompletableFuture.completedFuture(false);
    }
    return call.handle((result, failure) -> new Object[] {result, failure}).thenCompose(pair -> {
      final Throwable failure = unwrap((Throwable) pair[1]);
      if (failure == null && pair[0] instanceof WriteResult.Applied applied) {
        synchronized (this) {
          if (current(attempt)) {
            held(applied.version(key), attempt.sentNanos(), settings.ttl().toMillis());
          }
        }
        return CompletableFuture.completedFuture(true);
      }
      if (failure instanceof StoreException.Unavailable) {
        return CompletableFuture.completedFuture(false);
      }
      // Conflict or Indeterminate: whether and what applied is unknown; re-read, never guess.
      synchronized (this) {
        if (current(attempt)) {
          versionKnown = false;
        }
      }
      return reread(attempt, false);
    });
  }

  private CompletionStage<Boolean> reread(final Attempt attempt, final boolean thenWrite) {
    final long sent = nanoTime.getAsLong();
    final CompletionStage<ReadResult> call;
    try {
      call = store.read(key);
    } catch (RuntimeException e) {
      return CompletableFuture.completedFuture(false);
    }
    return call.handle((result, failure) -> {
      if (failure != null) {
        return false;
      }
      synchronized (this) {
        if (!current(attempt) || state != State.HELD) {
          return false;
        }
        if (result instanceof ReadResult.Found found && isMine(found)) {
          held(found.version(), sent, remainingMillis(found));
          return true;
        }
        state = State.LOST;
        fastHeld = false;
        versionKnown = false;
        check(nanoTime.getAsLong());
      }
      final Runnable hook = lostHook; // outside the monitor: the hook may take its time
      if (hook != null) {
        try {
          hook.run();
        } catch (RuntimeException e) {
          LOG.error("owner lease {}: the lease-lost hook threw", printableKey(), e);
        }
      }
      return false;
    }).thenCompose(ok -> ok && thenWrite ? write(attempt) : CompletableFuture.completedFuture(ok));
  }

  private synchronized void finish(final Attempt attempt, final boolean ok) {
    if (current(attempt)) {
      inFlight = null;
    }
    attempt.result().complete(ok);
    check(nanoTime.getAsLong());
  }

  private boolean current(final Attempt attempt) {
    return inFlight == attempt;
  }

  /** Records a fresh answer; caller holds the monitor. */
  private void held(final StoreVersion newVersion, final long sentNanos, final long remainingMillis) {
    final long candidate = sentNanos + remainingMillis * 1_000_000L - settings.fencingMargin().toNanos();
    if (state == State.NEW) {
      lastSentNanos = sentNanos;
    }
    if (state != State.HELD || candidate - deadlineNanos > 0) {
      deadlineNanos = candidate;
    }
    state = State.HELD;
    fastDeadlineNanos = deadlineNanos;
    fastHeld = true;
    version = newVersion;
    versionKnown = true;
    check(nanoTime.getAsLong());
  }

  private boolean isMine(final ReadResult.Found found) {
    try {
      return OwnerLeaseRecord.decode(found.value()).equals(record);
    } catch (RecordDecodeException e) {
      return false;
    }
  }

  private static long remainingMillis(final ReadResult.Found found) {
    // A lease record always has a retention; one without is treated as expiring now (conservative).
    return found.expiresAtMillis().orElse(found.now().epochMillis()) - found.now().epochMillis();
  }

  private static Throwable unwrap(final Throwable failure) {
    return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
  }

  private String printableKey() {
    return "owner-lease/" + ownerId;
  }
}
