package dev.spotkit.mailbox;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The shared live-job permit pool: the spec's Application Job Queue limit (spec 001 section 6). A gate turn that
 * runs handlers holds one permit (a worker keeps it across back-to-back turns while nobody waits, and returns it
 * before it idles); a gate that is ready but finds no permit waits in this pool's wait list while
 * holding none, and is handed the next released permit directly. Messages waiting in a mailbox or a backlog never
 * hold permits, so a backlog larger than the limit still runs in order (REL-23).
 */
public final class PermitPool {
    private final int limit;

    /**
     * Permits not held by a running turn.
     * Written by: workers in {@link #tryAcquire()} and {@link #release()}.
     * Read by: the same, and {@link #available()} (any thread).
     * Ordering: volatile (CAS), sequentially consistent with {@link #waiters}.
     */
    private final AtomicInteger available;

    /**
     * The most permits held at once since the last {@link #takeHighWater()}.
     * Written by: workers in {@link #tryAcquire()} (a racy max: a lost update may under-report one acquire) and
     * {@link #takeHighWater()}. Read by: any thread. Ordering: volatile.
     */
    private volatile int highWater;

    /** Gates waiting for a permit, in arrival order. Lock-free, linearizable offer and poll. */
    private final ConcurrentLinkedQueue<ExecutionGate> waiters = new ConcurrentLinkedQueue<>();

    PermitPool(final int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("livePermits must be >= 1: " + limit);
        }
        this.limit = limit;
        this.available = new AtomicInteger(limit);
    }

    /**
     * The limit this pool was built with.
     *
     * @return permits in all, 1..{@link Integer#MAX_VALUE}; {@link Integer#MAX_VALUE} means unlimited.
     */
    public int limit() {
        return limit;
    }

    /**
     * Permits free right now. Any thread.
     * <p><b>Note:</b> a snapshot that may change before the caller looks at it.
     *
     * @return 0..{@link #limit()}.
     */
    public int available() {
        return available.get();
    }

    /**
     * The most permits held at once since the previous call, the permits held now included; then starts a new period
     * from the permits held now. Metrics read it once per scrape (spec 001 section 6: the live job count). Any thread.
     *
     * @return 0..{@link #limit()}; 0 for an unlimited pool, which never counts its permits.
     */
    public int takeHighWater() {
        final int now = limit - available.get();
        final int max = Math.max(highWater, now);
        highWater = now;
        return max;
    }

    boolean hasWaiters() {
        return !waiters.isEmpty();
    }

    boolean unlimited() {
        return limit == Integer.MAX_VALUE;
    }

    boolean tryAcquire() {
        int current = available.get();
        while (current > 0) {
            if (available.compareAndSet(current, current - 1)) {
                final int held = limit - current + 1;
                if (held > highWater) {
                    highWater = held;
                }
                return true;
            }
            current = available.get();
        }
        return false;
    }

    /**
     * Parks a gate that found no permit, then re-checks the counter: a release that ran between the failed acquire
     * and the enqueue saw no waiter and returned its permit to the counter, so it is taken here for the oldest
     * waiter (lost-wake-up guard; pairs with the re-check in {@link #release()}).
     *
     * @return a gate that now holds a permit and must be scheduled, or {@code null}.
     */
    ExecutionGate await(final ExecutionGate gate) {
        waiters.offer(gate);
        return handOffIfWaiting();
    }

    /**
     * Returns a permit; hands it straight to the oldest waiter when there is one.
     *
     * @return the gate that received the permit and must be scheduled, or {@code null}.
     */
    ExecutionGate release() {
        final ExecutionGate next = waiters.poll();
        if (next != null) {
            next.permitHeld = true;
            return next;
        }
        available.incrementAndGet();
        // A waiter enqueued after the poll above may have missed this permit: re-check (pairs with await).
        return handOffIfWaiting();
    }

    private ExecutionGate handOffIfWaiting() {
        // Each pass that polls null means another thread took a waiter (progress); the bound only guards against
        // a pathological livelock, after which the permit stays in the counter for the next release's re-check.
        for (int pass = 0; pass < 64; pass++) {
            if (waiters.isEmpty() || !tryAcquire()) {
                return null;
            }
            final ExecutionGate next = waiters.poll();
            if (next != null) {
                next.permitHeld = true;
                return next;
            }
            available.incrementAndGet();
        }
        return null;
    }
}
