package dev.spotkit.mailbox;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiConsumer;

/**
 * Runs mailboxes on a few virtual worker threads (DESIGN.md "Execution model"). An offer that moves a gate from idle
 * to scheduled hands it to the dispatcher: into the current worker's run-next slot when the offer comes from inside
 * a turn, otherwise into the shared queue, waking a parked worker only when no worker is already looking for work
 * (Go's rule: no unpark storms). A worker spins {@link Builder#spinNanos} before it parks.
 *
 * <p>Handlers may block. A watchdog (one platform daemon thread) looks every {@link Builder#stallNanos}: a worker that
 * made no progress for that long has its run-next gate moved to the shared queue, and while blocked workers leave
 * fewer than {@link Builder#workers} free ones, extra workers start (up to {@link Builder#maxWorkers}); extra workers
 * retire after {@value #EXTRA_WORKER_IDLE_MS} ms idle.
 *
 * <p>Thread-safety: every public method may be called from any thread.
 */
public final class Dispatcher implements AutoCloseable {
    /** An extra worker idle this long retires. */
    static final long EXTRA_WORKER_IDLE_MS = 200;

    static final ThreadLocal<Worker> CURRENT = new ThreadLocal<>();

    final ConcurrentLinkedQueue<ExecutionGate> shared = new ConcurrentLinkedQueue<>();
    final ConcurrentLinkedDeque<Worker> idle = new ConcurrentLinkedDeque<>();
    /** Workers spinning for work. Any worker increments/decrements; producers read it. Volatile (atomic). */
    final AtomicInteger spinning = new AtomicInteger();
    final PermitPool permits;
    final int turnBatch;
    final long spinNanos;
    /** Set once by {@link #close()}; read by workers each loop. */
    volatile boolean closed;

    private final CopyOnWriteArrayList<Worker> workers = new CopyOnWriteArrayList<>();
    private final int coreWorkers;
    private final int maxWorkers;
    private final long stallNanos;
    private final String name;
    private final BiConsumer<Mailbox<?>, Throwable> uncaught;
    private final Thread watchdog;
    private final AtomicInteger workerSeq = new AtomicInteger();

    private Dispatcher(final Builder b) {
        this.coreWorkers = b.workers;
        this.maxWorkers = Math.max(b.maxWorkers, b.workers);
        this.turnBatch = b.turnBatch;
        this.spinNanos = b.spinNanos;
        this.stallNanos = b.stallNanos;
        this.name = b.name;
        this.uncaught = b.uncaught;
        this.permits = new PermitPool(b.livePermits);
        for (int i = 0; i < coreWorkers; i++) {
            startWorker(true);
        }
        this.watchdog = Thread.ofPlatform().daemon().name(name + "-watchdog").start(this::watch);
    }

    /**
     * A builder with the defaults: workers = available processors, maxWorkers 256, turnBatch 64, unlimited live
     * permits, spin 5 us, stall 1 ms.
     *
     * @return a new builder.
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * A gate several mailboxes share (a SpotWide room and its member actors): one turn at a time across them. Any
     * thread.
     *
     * @return a new shared gate.
     */
    public ExecutionGate newGate() {
        return new ExecutionGate(this, true);
    }

    /**
     * An unbounded mailbox on a private gate of its own. Any thread.
     *
     * @param handler runs each message; not {@code null}.
     * @param <T> message type.
     * @return a new OPEN mailbox.
     */
    public <T> Mailbox<T> newMailbox(final MessageHandler<? super T> handler) {
        final ExecutionGate own = new ExecutionGate(this, false);
        final Mailbox<T> mailbox = new Mailbox<>(this, own, handler, 0);
        own.sole = mailbox;
        return mailbox;
    }

    /**
     * A mailbox on the given shared gate. Any thread.
     *
     * @param gate a gate from {@link #newGate()} of this dispatcher.
     * @param handler runs each message; not {@code null}.
     * @param capacity 0 for unbounded; otherwise 1..2^30, rounded up to a power of two, at least 2.
     * @param <T> message type.
     * @return a new OPEN mailbox.
     * @throws IllegalArgumentException when the gate is private or of another dispatcher, or capacity is negative.
     */
    public <T> Mailbox<T> newMailbox(final ExecutionGate gate, final MessageHandler<? super T> handler,
        final int capacity) {
        if (gate.dispatcher != this || gate.sole != null) {
            throw new IllegalArgumentException("gate must be a shared gate from this dispatcher's newGate()");
        }
        return new Mailbox<>(this, gate, handler, capacity);
    }

    /**
     * The shared live-job permit pool (Application Job Queue limit).
     *
     * @return the pool.
     */
    public PermitPool permits() {
        return permits;
    }

    /**
     * Workers alive now (core plus extra). Any thread; a snapshot.
     *
     * @return 1..maxWorkers.
     */
    public int workerCount() {
        return workers.size();
    }

    /**
     * Stops the workers and the watchdog: running turns finish, queued work no longer runs. Waits up to 5 s for the
     * workers to end. Idempotent; any thread except a worker of this dispatcher (which would wait for itself: it
     * returns without waiting).
     */
    @Override
    public void close() {
        close(java.time.Duration.ofSeconds(5));
    }

    /**
     * Stops the workers and the watchdog like {@link #close()}, waiting at most {@code timeout} for the workers to
     * end (a worker stuck in a handler keeps running that handler; it just is not waited for). Idempotent: a later
     * call only waits. Any thread; from a worker of this dispatcher it returns without waiting.
     *
     * @param timeout how long to wait for workers, 0 or more.
     * @return {@code true} when every worker ended within the timeout.
     * @throws IllegalArgumentException when {@code timeout} is negative.
     */
    public boolean close(final java.time.Duration timeout) {
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must be 0 or more: " + timeout);
        }
        closed = true;
        watchdog.interrupt();
        final long deadline = System.nanoTime() + timeout.toNanos();
        final boolean self = CURRENT.get() != null && CURRENT.get().dispatcher == this;
        for (Worker w : List.copyOf(workers)) {
            LockSupport.unpark(w.thread);
        }
        for (Worker w : List.copyOf(workers)) {
            final long left = deadline - System.nanoTime();
            if (self || left <= 0) {
                return workers.isEmpty();
            }
            try {
                w.thread.join(java.time.Duration.ofNanos(left));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return workers.isEmpty();
    }

    void submit(final ExecutionGate gate) {
        final Worker current = CURRENT.get();
        if (current != null && current.dispatcher == this && current.inTurn()) {
            final ExecutionGate displaced = current.runNext.getAndSet(gate);
            if (displaced != null) {
                pushShared(displaced);
            }
            return;
        }
        pushShared(gate);
    }

    void pushShared(final ExecutionGate gate) {
        shared.offer(gate);
        wakeIfNeeded();
    }

    void wakeIfNeeded() {
        // Pairs with Worker.idle(): push to idle, leave the spinning count, re-check the shared queue.
        if (spinning.get() == 0) {
            final Worker parked = idle.poll();
            if (parked != null) {
                LockSupport.unpark(parked.thread);
            }
        }
    }

    void reportUncaught(final Mailbox<?> mailbox, final Throwable failure) {
        try {
            uncaught.accept(mailbox, failure);
        } catch (RuntimeException ignored) {
            // the uncaught handler itself failed; nothing else can be told
        }
    }

    private void startWorker(final boolean core) {
        if (closed) {
            return; // close() listed the workers it waits for; a worker started now would run after it
        }
        final Worker worker = new Worker(this, core);
        // The thread is set before the worker is listed: close() joins every listed worker's thread.
        worker.thread = Thread.ofVirtual().name(name + "-worker-" + workerSeq.incrementAndGet()).unstarted(worker);
        workers.add(worker);
        worker.thread.start();
    }

    boolean retire(final Worker worker) {
        return !worker.core && workers.size() > coreWorkers && workers.remove(worker);
    }

    void workerExited(final Worker worker) {
        workers.remove(worker);
    }

    private void watch() {
        // Bounded by the dispatcher's life: ends when closed or interrupted by close().
        while (!closed && !Thread.currentThread().isInterrupted()) {
            LockSupport.parkNanos(this, stallNanos);
            int stalled = 0;
            for (Worker w : workers) {
                final long seen = w.progressOpaque();
                if (w.inTurn() && seen == w.lastSeenProgress) {
                    stalled++;
                    final ExecutionGate stranded = w.runNext.getAndSet(null);
                    if (stranded != null) {
                        pushShared(stranded);
                    }
                }
                w.lastSeenProgress = seen;
            }
            if (shared.isEmpty()) {
                continue;
            }
            if (!idle.isEmpty()) {
                wakeIfNeeded(); // safety net: work waits while a worker sleeps (e.g. its waker's turn blocked)
                continue;
            }
            // Keep as many unblocked workers as core workers: start the missing ones at once, so a crowd of
            // handlers that block together ramps up in a few ticks, not one worker per tick.
            final int missing = Math.min(coreWorkers - (workers.size() - stalled), maxWorkers - workers.size());
            for (int i = 0; i < missing; i++) {
                startWorker(false);
            }
        }
    }

    /** Dispatcher settings. Not thread-safe; build once. */
    public static final class Builder {
        private int workers = Math.max(1, Runtime.getRuntime().availableProcessors());
        private int maxWorkers = 256;
        private int turnBatch = 64;
        private int livePermits = Integer.MAX_VALUE;
        private long spinNanos = 5_000;
        private long stallNanos = 1_000_000;
        private String name = "spotkit";
        private BiConsumer<Mailbox<?>, Throwable> uncaught = (m, t) -> t.printStackTrace();

        private Builder() {
        }

        /**
         * Core virtual worker threads.
         *
         * @param n 1..4096; default available processors.
         * @return this builder.
         */
        public Builder workers(final int n) {
            this.workers = requireRange("workers", n, 1, 4096);
            return this;
        }

        /**
         * Upper bound on workers, counting extra ones started while handlers block.
         *
         * @param n 1..65536; default 256; raised to {@code workers} when lower.
         * @return this builder.
         */
        public Builder maxWorkers(final int n) {
            this.maxWorkers = requireRange("maxWorkers", n, 1, 65_536);
            return this;
        }

        /**
         * Fairness bound: messages one gate runs per turn before others get a go.
         *
         * @param n 1..65536; default 64.
         * @return this builder.
         */
        public Builder turnBatch(final int n) {
            this.turnBatch = requireRange("turnBatch", n, 1, 65_536);
            return this;
        }

        /**
         * Application Job Queue limit: gate turns running at once.
         *
         * @param n 1..{@link Integer#MAX_VALUE} ({@link Integer#MAX_VALUE} = unlimited, the default).
         * @return this builder.
         */
        public Builder livePermits(final int n) {
            this.livePermits = requireRange("livePermits", n, 1, Integer.MAX_VALUE);
            return this;
        }

        /**
         * How long an idle worker spins before it parks.
         *
         * @param ns 0..10_000_000 ns; default 5_000.
         * @return this builder.
         */
        public Builder spinNanos(final long ns) {
            this.spinNanos = requireRange("spinNanos", ns, 0, 10_000_000);
            return this;
        }

        /**
         * Watchdog period: a worker with no progress this long counts as blocked.
         *
         * @param ns 100_000..1_000_000_000 ns; default 1_000_000.
         * @return this builder.
         */
        public Builder stallNanos(final long ns) {
            this.stallNanos = requireRange("stallNanos", ns, 100_000, 1_000_000_000);
            return this;
        }

        /**
         * Receives a handler's or control task's exception (the mailbox is {@code null} for a control task).
         *
         * @param handler not {@code null}; default prints the stack trace.
         * @return this builder.
         */
        public Builder uncaughtHandler(final BiConsumer<Mailbox<?>, Throwable> handler) {
            this.uncaught = Objects.requireNonNull(handler, "handler");
            return this;
        }

        /**
         * Thread name prefix.
         *
         * @param prefix not {@code null}; default "spotkit".
         * @return this builder.
         */
        public Builder name(final String prefix) {
            this.name = Objects.requireNonNull(prefix, "prefix");
            return this;
        }

        /**
         * Starts the workers and the watchdog.
         *
         * @return a running dispatcher.
         */
        public Dispatcher build() {
            return new Dispatcher(this);
        }

        private static int requireRange(final String what, final int value, final int min, final int max) {
            if (value < min || value > max) {
                throw new IllegalArgumentException(what + " " + value + " outside " + min + ".." + max);
            }
            return value;
        }

        private static long requireRange(final String what, final long value, final long min, final long max) {
            if (value < min || value > max) {
                throw new IllegalArgumentException(what + " " + value + " outside " + min + ".." + max);
            }
            return value;
        }
    }
}
