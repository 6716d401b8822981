package dev.spotkit.mailbox;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import org.agrona.concurrent.ManyToOneConcurrentLinkedQueue;

/**
 * The unit the {@link Dispatcher} schedules: one turn at a time, across every {@link Mailbox} on the gate and its
 * control tasks (DESIGN.md "Execution model", FACTS.md "Gates"). An Entry Spot actor and a PerActor actor own a
 * private gate (one mailbox); a SpotWide User Spot and its member actors share one gate, so the room and its members
 * never run two handlers at once, while each actor's payload still lands in the actor's own mailbox.
 *
 * <p>A turn runs a bounded burst of control tasks first (the lifecycle lane), then application messages up to the
 * dispatcher's fairness bound ({@link Dispatcher.Builder#turnBatch(int)}), stopping early when a control task
 * arrives. Thread-safety: every public method may be called from any thread.
 */
public final class ExecutionGate {
    /** At most this many control tasks run in a row before application messages get a turn (FACTS.md "Gates"). */
    static final int CONTROL_BURST = 8;

    private static final int IDLE = 0;
    private static final int SCHEDULED = 1;
    private static final VarHandle STATE;
    private static final VarHandle RUNNER;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(ExecutionGate.class, "state", int.class);
            RUNNER = MethodHandles.lookup().findVarHandle(ExecutionGate.class, "runner", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final Dispatcher dispatcher;

    /**
     * IDLE or SCHEDULED; SCHEDULED is the one token that lets a single worker run the gate.
     * Written by: any producer in {@link #schedule()} (CAS IDLE to SCHEDULED); the running worker in
     * {@link #finishTurn(Worker)} (volatile write back to IDLE).
     * Read by: producers in {@link #schedule()}.
     * Ordering: volatile/CAS both ends; the IDLE write is followed by the worker's work re-check, pairing with the
     * producer's enqueue-then-read-state, so one of the two always sees the other (no lost wake-up).
     */
    @SuppressWarnings("unused")
    private volatile int state;

    /** Lifecycle lane. MPSC: any thread offers, the running worker polls. */
    private final ManyToOneConcurrentLinkedQueue<Runnable> control = new ManyToOneConcurrentLinkedQueue<>();

    /** Mailboxes with work, for a shared gate; {@code null} for a private gate. MPSC like {@link #control}. */
    private final ManyToOneConcurrentLinkedQueue<Mailbox<?>> ready;

    /** The one mailbox of a private gate; {@code null} for a shared gate. Set once before the gate is published. */
    Mailbox<?> sole;

    /**
     * Set when the permit pool handed this gate a permit before scheduling it.
     * Written by: the thread releasing a permit ({@link PermitPool}), before it publishes the gate to a run queue.
     * Read by: the worker that takes the gate from that queue; the queue's offer/poll orders the two.
     */
    boolean permitHeld;

    /**
     * Thread running a turn of this gate, or {@code null}.
     * Written by: the worker at the start and end of a turn (setOpaque). Read by: {@link #isCurrentThreadInTurn()}
     * (any thread, getOpaque). Ordering: opaque/opaque; only the comparison with the caller's own thread matters,
     * and per-variable coherence means a thread always sees its own last write (null after its turn) or a later one,
     * so no fence is paid per turn.
     */
    @SuppressWarnings("unused")
    private Thread runner;

    ExecutionGate(final Dispatcher dispatcher, final boolean shared) {
        this.dispatcher = dispatcher;
        this.ready = shared ? new ManyToOneConcurrentLinkedQueue<>() : null;
    }

    /**
     * Queues a task on the lifecycle lane: it runs exclusively with every mailbox of this gate (no handler of the gate
     * runs at the same time), before application messages (at most {@value #CONTROL_BURST} tasks in a row), and also
     * while the gate's mailboxes are {@link DispatchState#CLOSED}. Tasks run in offer order per producer. A task
     * that throws is reported to the uncaught handler and the next task runs. Any thread.
     *
     * @param controlTask task to run; not {@code null}.
     * @throws NullPointerException when {@code controlTask} is {@code null}.
     */
    public void execute(final Runnable controlTask) {
        control.offer(Objects.requireNonNull(controlTask, "controlTask"));
        schedule();
    }

    /**
     * Whether the calling thread is running a turn (a message handler or a control task) of this gate. Any thread.
     *
     * @return {@code true} only inside such a turn.
     */
    public boolean isCurrentThreadInTurn() {
        return RUNNER.getOpaque(this) == Thread.currentThread();
    }

    /** Called by a mailbox after an accepted offer or a reopen. */
    void signal(final Mailbox<?> mailbox) {
        if (ready != null && mailbox.markReady()) {
            ready.offer(mailbox);
        }
        schedule();
    }

    void schedule() {
        if (state == IDLE && STATE.compareAndSet(this, IDLE, SCHEDULED)) {
            dispatcher.submit(this);
        }
    }

    /** Runs one turn on the calling worker. Only the holder of the SCHEDULED token calls this. */
    void runTurn(final Worker worker, final int batch) {
        RUNNER.setOpaque(this, Thread.currentThread());
        try {
            for (int i = 0; i < CONTROL_BURST; i++) {
                final Runnable task = control.poll();
                if (task == null) {
                    break;
                }
                runControl(worker, task);
            }
            if (ready == null) {
                final Mailbox<?> mailbox = sole;
                if (mailbox != null && mailbox.gate == this) {
                    mailbox.drain(worker, this, batch);
                }
            } else {
                runShared(worker, batch);
            }
        } finally {
            RUNNER.setOpaque(this, (Thread) null);
        }
    }

    private void runShared(final Worker worker, final int batch) {
        int budget = batch;
        // Bounded: every pass either runs a message or removes one entry from the ready queue.
        for (int pass = 0; pass < batch * 2 && budget > 0; pass++) {
            final Mailbox<?> mailbox = ready.poll();
            if (mailbox == null) {
                return;
            }
            mailbox.clearReady();
            if (mailbox.gate != this) {
                mailbox.resignal(); // moved to another gate while it waited here
                continue;
            }
            budget -= mailbox.drain(worker, this, budget);
            if (mailbox.hasRunnableWork() && mailbox.markReady()) {
                ready.offer(mailbox);
            }
            if (!control.isEmpty()) {
                return;
            }
        }
    }

    private void runControl(final Worker worker, final Runnable task) {
        try {
            task.run();
        } catch (VirtualMachineError e) {
            throw e;
        } catch (Throwable t) {
            dispatcher.reportUncaught(null, t);
        }
        worker.progressed();
    }

    /** Diagnostics for failure reports; a racy snapshot. */
    @Override
    public String toString() {
        return "ExecutionGate@" + Integer.toHexString(System.identityHashCode(this)) + "[" + (state == IDLE ? "idle"
            : "scheduled") + (ready == null ? " private" : " shared") + " controlEmpty=" + control.isEmpty() + "]";
    }

    boolean hasControl() {
        return !control.isEmpty();
    }

    /** Gives the token back; reschedules (on the shared queue) when work arrived or remains. Worker only. */
    void finishTurn(final Worker worker) {
        state = IDLE;
        if (hasWork() && STATE.compareAndSet(this, IDLE, SCHEDULED)) {
            dispatcher.pushShared(this);
        }
    }

    private boolean hasWork() {
        if (!control.isEmpty()) {
            return true;
        }
        if (ready != null) {
            return !ready.isEmpty();
        }
        final Mailbox<?> mailbox = sole;
        return mailbox != null && mailbox.gate == this && mailbox.hasRunnableWork();
    }
}
