package dev.spotkit.mailbox;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * One dispatcher worker, run on a virtual thread. It drains scheduled gates, keeps a "run next" slot for the gate the
 * current turn just woke (Go's runnext, Tokio's LIFO slot: a ping-pong hop runs on the same worker right after the
 * sender's turn), looks at the shared queue first every {@value #SHARED_FIRST_EVERY}th pick so a pair bouncing in the
 * slot cannot starve the rest, and spins briefly before it parks.
 */
final class Worker implements Runnable {
    /** Every this many picks the shared queue is polled before the run-next slot. */
    static final int SHARED_FIRST_EVERY = 64;

    /**
     * A worker busy for this long without parking yields its carrier once (checked every {@value #SHARED_FIRST_EVERY}
     * picks): 1 ms. Virtual threads are not preempted, so without it a saturated dispatcher keeps every other virtual
     * thread of the JVM (store calls, session I/O, relocation steps, user futures) off the carriers for as long as
     * the overload lasts.
     */
    static final long YIELD_AFTER_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private static final VarHandle PROGRESS;
    private static final VarHandle IN_TURN;

    static {
        try {
            PROGRESS = MethodHandles.lookup().findVarHandle(Worker.class, "progress", long.class);
            IN_TURN = MethodHandles.lookup().findVarHandle(Worker.class, "inTurn", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final Dispatcher dispatcher;
    /** Core workers never retire; extra workers (started while handlers block) retire when idle. */
    final boolean core;
    Thread thread;

    /**
     * Gate to run next on this worker.
     * Written by: this worker (set in {@link Dispatcher#submit}, take in {@link #pick}); the watchdog (steal).
     * Read by: the same. Ordering: atomic getAndSet both ends, so a gate is taken by exactly one of them.
     */
    final AtomicReference<ExecutionGate> runNext = new AtomicReference<>();

    /**
     * Messages and control tasks run so far.
     * Written by: this worker only, setOpaque after each. Read by: the watchdog with getOpaque, to spot a worker
     * stuck in one handler. Ordering: opaque/opaque; only change, not order, matters.
     */
    @SuppressWarnings("unused")
    private long progress;
    private long progressLocal;

    /**
     * Whether this worker is inside a gate turn.
     * Written by: this worker around each turn (setOpaque). Read by: the watchdog and, on this worker's own thread,
     * {@link Dispatcher#submit} (getOpaque). Ordering: opaque/opaque; the watchdog tolerates a stale read for one
     * tick, and the worker always sees its own writes, so no fence is paid per turn.
     */
    @SuppressWarnings("unused")
    private boolean inTurn;

    /** Watchdog bookkeeping: progress seen at its last tick. Watchdog thread only. */
    long lastSeenProgress = -1;

    private int picks;

    /** {@link System#nanoTime()} when this worker last parked or yielded. Worker-confined. */
    private long lastYield = System.nanoTime();

    /**
     * Whether this worker holds a live-job permit. Worker-confined. A worker keeps its permit across back-to-back
     * turns (one CAS pair per busy period instead of per turn) and gives it back when it goes idle or when a gate
     * waits for one, so only running or about-to-run turns ever hold permits.
     */
    private boolean holdsPermit;

    Worker(final Dispatcher dispatcher, final boolean core) {
        this.dispatcher = dispatcher;
        this.core = core;
    }

    boolean inTurn() {
        return (boolean) IN_TURN.getOpaque(this);
    }

    void progressed() {
        PROGRESS.setOpaque(this, ++progressLocal);
    }

    long progressOpaque() {
        return (long) PROGRESS.getOpaque(this);
    }

    @Override
    public void run() {
        Dispatcher.CURRENT.set(this);
        try {
            while (!dispatcher.closed) {
                final ExecutionGate gate = pick();
                if (gate != null) {
                    runGate(gate);
                } else if (!idle()) {
                    return;
                }
            }
        } finally {
            releasePermit();
            dispatcher.workerExited(this);
        }
    }

    private ExecutionGate pick() {
        if (++picks == SHARED_FIRST_EVERY) {
            picks = 0;
            yieldWhenBusyTooLong();
            final ExecutionGate fromShared = takeShared();
            if (fromShared != null) {
                return fromShared;
            }
        }
        if (runNext.getPlain() != null) {
            final ExecutionGate next = runNext.getAndSet(null);
            if (next != null) {
                return next;
            }
        }
        return takeShared();
    }

    /**
     * Gives the carrier to the other virtual threads waiting for one when this worker ran {@link #YIELD_AFTER_NANOS}
     * without parking. With nobody waiting, {@link Thread#yield()} returns at once on the same carrier.
     */
    private void yieldWhenBusyTooLong() {
        final long now = System.nanoTime();
        if (now - lastYield >= YIELD_AFTER_NANOS) {
            lastYield = now;
            Thread.yield();
        }
    }

    /**
     * Polls the shared queue; when more work remains behind the taken gate, makes sure some other worker looks
     * for it (Go's rule: whoever takes work and leaves work behind wakes a peer unless one is spinning). Without
     * this, a burst that a spinning worker starts on would wait behind that worker's turn, even if it blocks.
     */
    private ExecutionGate takeShared() {
        final ExecutionGate gate = dispatcher.shared.poll();
        if (gate != null && !dispatcher.shared.isEmpty()) {
            dispatcher.wakeIfNeeded();
        }
        return gate;
    }

    private void runGate(final ExecutionGate gate) {
        final PermitPool permits = dispatcher.permits;
        final boolean limited = !permits.unlimited();
        if (limited && !takePermit(gate, permits)) {
            return; // the gate waits in the pool, keeping its SCHEDULED token and holding no permit
        }
        IN_TURN.setOpaque(this, true);
        try {
            gate.runTurn(this, dispatcher.turnBatch);
        } finally {
            IN_TURN.setOpaque(this, false);
            if (limited && permits.hasWaiters()) {
                releasePermit(); // someone waits: do not sit on a permit between turns
            }
            gate.finishTurn(this);
        }
    }

    /** Makes this worker hold exactly one permit for the gate's turn; false when the gate had to wait. */
    private boolean takePermit(final ExecutionGate gate, final PermitPool permits) {
        if (gate.permitHeld) {
            gate.permitHeld = false; // the permit was handed to this gate: the worker carries it now
            if (holdsPermit) {
                releasePermit();
            }
            holdsPermit = true;
            return true;
        }
        if (holdsPermit || permits.tryAcquire()) {
            holdsPermit = true;
            return true;
        }
        final ExecutionGate handedOff = permits.await(gate);
        if (handedOff != null) {
            dispatcher.pushShared(handedOff);
        }
        return false;
    }

    private void releasePermit() {
        if (!holdsPermit) {
            return;
        }
        holdsPermit = false;
        final ExecutionGate handedOff = dispatcher.permits.release();
        if (handedOff != null) {
            dispatcher.pushShared(handedOff);
        }
    }

    /**
     * Spins for the configured time, then parks until woken. Returns {@code false} when this extra worker should
     * retire (idle too long, or the dispatcher closed).
     */
    private boolean idle() {
        final Dispatcher d = dispatcher;
        releasePermit();
        d.spinning.incrementAndGet();
        final long spinUntil = System.nanoTime() + d.spinNanos;
        // Bounded by time: spinNanos (default 5 us).
        do {
            if (!d.shared.isEmpty() || runNext.getPlain() != null) {
                d.spinning.decrementAndGet();
                return true;
            }
            Thread.onSpinWait();
        } while (System.nanoTime() - spinUntil < 0);
        d.idle.push(this);
        d.spinning.decrementAndGet();
        // Re-check after leaving the spinning count: a producer that saw spinning > 0 did not wake anyone
        // (pairs with the spinning read in Dispatcher.wakeIfNeeded).
        if (!d.shared.isEmpty() || runNext.get() != null || d.closed) {
            d.idle.remove(this);
            return !d.closed;
        }
        if (core) {
            LockSupport.park(d);
        } else {
            LockSupport.parkNanos(d, TimeUnit.MILLISECONDS.toNanos(Dispatcher.EXTRA_WORKER_IDLE_MS));
        }
        lastYield = System.nanoTime();
        final boolean removed = d.idle.remove(this); // still listed: woken by timeout or spuriously
        if (!core && removed && d.shared.isEmpty()) {
            return !d.retire(this);
        }
        return !d.closed;
    }
}
