package dev.spotkit.mailbox;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Queue;
import java.util.function.Consumer;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.agrona.concurrent.ManyToOneConcurrentLinkedQueue;

/**
 * One Spot's or one Actor's mailbox: an Agrona MPSC queue plus a dispatch state, run by its {@link ExecutionGate}
 * (DESIGN.md "Execution model"). Messages from one producer run in that producer's offer order; two messages of the
 * same gate never run at once.
 *
 * <p>Dispatch states (spec 001 section 4.6): {@link DispatchState#OPEN}; {@link DispatchState#CLOSED}, where offers are
 * accepted and kept but nothing runs; and {@link #openWithBacklog(Collection)}, which puts an ordered backlog before
 * everything queued and opens in one step, so no later offer overtakes the backlog.
 *
 * <p>Thread-safety: {@link #offer}, {@link #close}, {@link #open}, {@link #openWithBacklog}, {@link #dispatchState},
 * {@link #isEmpty} and the getters may be called from any thread; {@link #drainUnrun}, {@link #release} and
 * {@link #moveTo} only inside a turn of this mailbox's gate (a handler of a mailbox on the gate, or a control task).
 *
 * @param <T> message type.
 */
public final class Mailbox<T> {
    private static final int OPEN = 0;
    private static final int CLOSED = 1;
    private static final int RELEASED = 2;
    /** Moved to another gate while OPEN; that gate reopens it (CAS MOVING to OPEN) unless someone closed it. */
    private static final int MOVING = 3;
    private static final VarHandle READY;
    private static final VarHandle PENDING;
    private static final VarHandle DISPATCH;

    static {
        try {
            READY = MethodHandles.lookup().findVarHandle(Mailbox.class, "ready", int.class);
            DISPATCH = MethodHandles.lookup().findVarHandle(Mailbox.class, "dispatch", int.class);
            PENDING = MethodHandles.lookup().findVarHandle(Mailbox.class, "pendingBacklog", ArrayDeque.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Queue<T> queue;
    /**
     * Messages admitted regardless of capacity ({@link #admit}): run after {@link #backlog}, before {@link #queue}.
     * Written by: any producer of {@link #admit} (MPSC). Read by: the gate's worker.
     */
    private final Queue<T> admitted = new ManyToOneConcurrentLinkedQueue<>();
    private final int capacity;
    private final MessageHandler<? super T> handler;
    private final Dispatcher dispatcher;

    /**
     * The gate that runs this mailbox.
     * Written by: the constructor, and {@link #moveTo} inside a turn of the old gate while dispatch is CLOSED.
     * Read by: producers in {@link #offer} (to signal), and workers of either gate (to skip a moved mailbox).
     * Ordering: volatile; the target gate reopens dispatch in a control task, after this write.
     */
    volatile ExecutionGate gate;

    /**
     * OPEN, CLOSED, RELEASED or MOVING (reported as CLOSED).
     * Written by: any thread in {@link #close}, {@link #open}, {@link #openWithBacklog}; the gate's worker in
     * {@link #release}. Read by: producers in {@link #offer}; the worker before every message in {@link #drain}.
     * Ordering: volatile both ends; in {@link #openWithBacklog} the write of OPEN publishes {@link #pendingBacklog}.
     */
    private volatile int dispatch;

    /**
     * An ordered backlog handed over by {@link #openWithBacklog}, not yet moved into {@link #backlog}.
     * Written by: the opener (getAndSet to merge an older pending backlog, then a volatile write before the volatile
     * write of OPEN); the worker takes it with getAndSet in {@link #takePending}.
     * Read by: the worker before every message. Ordering: volatile/getAndSet both ends, so exactly one side gets an
     * older backlog.
     */
    private volatile ArrayDeque<T> pendingBacklog;

    /** Messages that run before {@link #queue}. Owned by the gate's worker; never touched by producers. */
    private ArrayDeque<T> backlog;

    /**
     * 1 while this mailbox sits in a shared gate's ready queue.
     * Written by: producers and the worker (CAS 0 to 1 in {@link #markReady}); the worker (write 0 in
     * {@link #clearReady}) right after polling the mailbox from the ready queue, before it drains.
     * Read by: the same. Ordering: volatile/CAS both ends.
     */
    @SuppressWarnings("unused")
    private volatile int ready;

    /** Where messages that raced in after {@link #release} go. Written once inside a turn, before RELEASED. */
    private Consumer<? super T> lateSink;

    Mailbox(final Dispatcher dispatcher, final ExecutionGate gate, final MessageHandler<? super T> handler,
        final int capacity) {
        if (capacity < 0) {
            throw new IllegalArgumentException("capacity must be 0 (unbounded) or positive: " + capacity);
        }
        this.dispatcher = dispatcher;
        this.gate = gate;
        this.handler = Objects.requireNonNull(handler, "handler");
        if (capacity == 0) {
            this.queue = new ManyToOneConcurrentLinkedQueue<>();
            this.capacity = 0;
        } else {
            final ManyToOneConcurrentArrayQueue<T> bounded = new ManyToOneConcurrentArrayQueue<>(Math.max(2, capacity));
            this.queue = bounded;
            this.capacity = bounded.capacity();
        }
    }

    /**
     * Queues a message. Any thread; never blocks and never throws on a full queue (STYLE.md rule 3).
     *
     * @param message the message; not {@code null}.
     * @return {@link OfferResult#ACCEPTED}; {@link OfferResult#MAILBOX_FULL} when bounded and full (nothing queued);
     *     {@link OfferResult#RELEASED} after {@link #release} (nothing queued).
     * @throws NullPointerException when {@code message} is {@code null}.
     */
    public OfferResult offer(final T message) {
        if (message == null) {
            throw new NullPointerException("message cannot be null");
        }
        final int state = dispatch;
        if (state == RELEASED) {
            return OfferResult.RELEASED;
        }
        if (!queue.offer(message)) {
            return OfferResult.MAILBOX_FULL;
        }
        // A closed mailbox needs no turn; open() signals after its volatile write, pairing with this read.
        final int after = dispatch;
        if (after == OPEN || after == RELEASED) {
            gate.signal(this);
        }
        return OfferResult.ACCEPTED;
    }

    /**
     * Queues a message whatever the capacity: a relocation backlog arriving after the real queue opened (late relay,
     * work diverted to the relocation unit) and a queue restored after a failed move are admitted into the real queue
     * and never fail for capacity (REL-23; spec 001 section 11: no relocation-only capacity gate). Admitted messages
     * run in their admit order, after the backlog of {@link #openWithBacklog} and before every message of
     * {@link #offer} not yet run (they were accepted by the node before those). Any thread; never blocks.
     *
     * @param message the message; not {@code null}.
     * @return {@link OfferResult#ACCEPTED}, or {@link OfferResult#RELEASED} after {@link #release} (nothing queued).
     * @throws NullPointerException when {@code message} is {@code null}.
     */
    public OfferResult admit(final T message) {
        if (message == null) {
            throw new NullPointerException("message cannot be null");
        }
        if (dispatch == RELEASED) {
            return OfferResult.RELEASED;
        }
        admitted.offer(message);
        final int after = dispatch;
        if (after == OPEN || after == RELEASED) {
            gate.signal(this);
        }
        return OfferResult.ACCEPTED;
    }

    /**
     * Seals dispatch: offers are still accepted and kept, no handler runs. Takes effect before the next message; a
     * handler already running finishes its turn (use {@link ExecutionGate#execute} to act at that boundary). No-op
     * when already CLOSED; also cancels the reopen of a mailbox still moving after {@link #moveTo}. Any thread.
     *
     * @throws IllegalStateException when RELEASED.
     */
    public void close() {
        if (dispatch == RELEASED) {
            throw new IllegalStateException("mailbox is released; it cannot be closed");
        }
        dispatch = CLOSED;
    }

    /**
     * Opens dispatch; queued messages run. No-op when already OPEN. Any thread.
     *
     * @throws IllegalStateException when RELEASED.
     */
    public void open() {
        if (dispatch == RELEASED) {
            throw new IllegalStateException("mailbox is released; it cannot be opened");
        }
        dispatch = OPEN;
        gate.signal(this);
    }

    /**
     * In one step, puts {@code backlog} (in its iteration order) before every message queued so far and opens
     * dispatch: no offer made after this call, nor any already queued, runs before the backlog. Capacity does not
     * apply to the backlog (REL-23). Any thread.
     *
     * <p><b>Note:</b> one opener at a time; a backlog still pending from an earlier open stays behind this one.
     *
     * @param backlog messages to run first; not {@code null}, no {@code null} element; copied.
     * @throws IllegalStateException unless the mailbox is CLOSED.
     */
    public void openWithBacklog(final Collection<? extends T> backlog) {
        final ArrayDeque<T> copy = new ArrayDeque<>(backlog);
        final int state = dispatch;
        if (state != CLOSED && state != MOVING) {
            throw new IllegalStateException("openWithBacklog needs a CLOSED mailbox, state is " + dispatchState());
        }
        @SuppressWarnings("unchecked")
        final ArrayDeque<T> older = (ArrayDeque<T>) PENDING.getAndSet(this, null);
        if (older != null) {
            copy.addAll(older); // not yet taken by the worker: it still runs after the new backlog
        }
        pendingBacklog = copy;
        dispatch = OPEN; // publishes pendingBacklog; the worker reads dispatch, then pendingBacklog
        gate.signal(this);
    }

    /**
     * Removes and returns every unrun message in run order (backlog first). Only inside a turn of this mailbox's
     * gate. A message whose offer is still in flight (see the {@link ManyToOneConcurrentArrayQueue} note on
     * {@code poll}) stays queued and runs or drains later; nothing is lost.
     *
     * @return the messages, possibly empty.
     * @throws IllegalStateException when called outside a turn of this mailbox's gate.
     */
    public List<T> drainUnrun() {
        requireInTurn("drainUnrun");
        final List<T> out = new ArrayList<>();
        takePending();
        if (backlog != null) {
            out.addAll(backlog);
            backlog.clear();
        }
        for (T message = admitted.poll(); message != null; message = admitted.poll()) {
            out.add(message);
        }
        // Bounded by the queue's content at entry plus concurrent offers; each pass removes one message.
        for (T message = queue.poll(); message != null; message = queue.poll()) {
            out.add(message);
        }
        return out;
    }

    /**
     * Terminal: later offers return {@link OfferResult#RELEASED}; returns every unrun message in run order. A message
     * whose offer raced with this call is handed to {@code lateSink} on this gate, never dropped silently. Only inside
     * a turn of this mailbox's gate.
     *
     * @param lateSink receives messages that slipped in after the release; not {@code null}.
     * @return the unrun messages, possibly empty.
     * @throws IllegalStateException when called outside a turn of this mailbox's gate.
     */
    public List<T> release(final Consumer<? super T> lateSink) {
        requireInTurn("release");
        this.lateSink = Objects.requireNonNull(lateSink, "lateSink");
        dispatch = RELEASED;
        return drainUnrun();
    }

    /**
     * Moves this mailbox to another gate, keeping its queue and order, e.g. an actor joining a SpotWide room.
     * Only inside a turn of the current gate. Dispatch pauses at once and reopens (if it was OPEN) in a control task of
     * {@code target}, so no message runs on both gates.
     *
     * @param target the new gate; a shared gate from {@link Dispatcher#newGate()} of the same dispatcher.
     * @throws IllegalStateException outside a turn of the current gate, or when RELEASED.
     * @throws IllegalArgumentException when {@code target} belongs to another dispatcher.
     */
    public void moveTo(final ExecutionGate target) {
        requireInTurn("moveTo");
        if (target.dispatcher != dispatcher) {
            throw new IllegalArgumentException("target gate belongs to another dispatcher");
        }
        final int state = dispatch;
        if (state == RELEASED) {
            throw new IllegalStateException("mailbox is released; it cannot move");
        }
        dispatch = state == OPEN ? MOVING : CLOSED;
        gate = target;
        if (state == OPEN) {
            target.execute(this::reopenAfterMove);
        }
    }

    /**
     * Moves this mailbox onto a fresh private gate (e.g. an actor leaving a SpotWide room). Same rules as
     * {@link #moveTo}.
     *
     * @throws IllegalStateException outside a turn of the current gate, or when RELEASED.
     */
    public void moveToOwnGate() {
        final ExecutionGate own = new ExecutionGate(dispatcher, false);
        own.sole = this;
        moveTo(own);
    }

    private void reopenAfterMove() {
        if (DISPATCH.compareAndSet(this, MOVING, OPEN)) {
            gate.signal(this);
        }
    }

    /**
     * Current dispatch state. Any thread.
     *
     * @return OPEN, CLOSED or RELEASED.
     */
    public DispatchState dispatchState() {
        return switch (dispatch) {
            case OPEN -> DispatchState.OPEN;
            case RELEASED -> DispatchState.RELEASED;
            default -> DispatchState.CLOSED;
        };
    }

    /**
     * The gate that runs this mailbox now. Any thread.
     *
     * @return the gate.
     */
    public ExecutionGate gate() {
        return gate;
    }

    /**
     * Capacity of a bounded mailbox.
     *
     * @return 0 when unbounded; otherwise the requested capacity rounded up to a power of two, at least 2.
     */
    public int capacity() {
        return capacity;
    }

    /**
     * Whether nothing is queued. Any thread.
     * <p><b>Note:</b> counts an offer still in flight as queued, which is the safe answer for an idle check; the
     * backlog is only seen exactly from inside a turn.
     *
     * @return {@code true} when no message is queued or pending.
     */
    public boolean isEmpty() {
        final ArrayDeque<T> local = backlog;
        return queue.isEmpty() && admitted.isEmpty() && pendingBacklog == null && (local == null || local.isEmpty());
    }

    /**
     * Messages offered or admitted and not yet taken by the gate's worker: a gauge for metrics, read at scrape time.
     * Any thread; never blocks.
     * <p><b>Note:</b> a racy snapshot, and O(n) in the queued messages for an unbounded mailbox (Agrona's linked
     * queue counts by walking it), O(1) for a bounded one. A backlog handed over by {@link #openWithBacklog} is not
     * counted. Never call it per message; use {@link #isEmpty()} for an idle check.
     *
     * @return 0 or more, at most {@link Integer#MAX_VALUE}.
     */
    public int queuedEstimate() {
        final long sum = (long) queue.size() + admitted.size();
        return (int) Math.min(Integer.MAX_VALUE, sum);
    }

    /** Runs up to {@code budget} messages; returns how many ran. Worker of {@code running}, the current gate, only. */
    int drain(final Worker worker, final ExecutionGate running, final int budget) {
        int ran = 0;
        while (ran < budget && gate == running) { // a handler may move this mailbox: stop at once
            // State first, then the pending backlog: openWithBacklog writes the backlog before OPEN, so a worker that
            // reads OPEN also sees that backlog (reading the backlog first could miss one handed over in between
            // and run a queued message ahead of it). A backlog taken while CLOSED waits in front.
            final int state = dispatch;
            if (pendingBacklog != null) {
                takePending();
            }
            if (state != OPEN) {
                if (state == RELEASED) {
                    drainLate();
                }
                return ran;
            }
            T message = backlog != null && !backlog.isEmpty() ? backlog.poll() : admitted.poll();
            if (message == null) {
                message = queue.poll();
            }
            if (message == null) {
                return ran; // empty, or an offer in flight: its producer signals, or finishTurn re-checks
            }
            ran++;
            invoke(message);
            worker.progressed();
            if (running.hasControl()) {
                return ran;
            }
        }
        return ran;
    }

    private void invoke(final T message) {
        try {
            handler.onMessage(message);
        } catch (VirtualMachineError e) {
            throw e;
        } catch (Throwable t) {
            dispatcher.reportUncaught(this, t);
        }
    }

    private void drainLate() {
        for (T message = admitted.poll(); message != null; message = admitted.poll()) {
            lateSink.accept(message);
        }
        for (T message = queue.poll(); message != null; message = queue.poll()) {
            lateSink.accept(message);
        }
    }

    private void takePending() {
        @SuppressWarnings("unchecked")
        final ArrayDeque<T> pending = (ArrayDeque<T>) PENDING.getAndSet(this, null);
        if (pending == null) {
            return;
        }
        if (backlog != null && !backlog.isEmpty()) {
            pending.addAll(backlog);
        }
        backlog = pending;
    }

    boolean hasRunnableWork() {
        final int state = dispatch;
        if (state == RELEASED) {
            return !queue.isEmpty() || !admitted.isEmpty();
        }
        return state == OPEN && !isEmpty();
    }

    /** Diagnostics for failure reports; a racy snapshot. */
    @Override
    public String toString() {
        return "Mailbox[" + dispatchState() + " ready=" + ready + " queueEmpty=" + queue.isEmpty() + " pending="
            + (pendingBacklog != null) + " gate=" + gate + "]";
    }

    boolean markReady() {
        return ready == 0 && READY.compareAndSet(this, 0, 1);
    }

    void clearReady() {
        ready = 0;
    }

    void resignal() {
        final int state = dispatch;
        if (state == OPEN || state == RELEASED) {
            gate.signal(this);
        }
    }

    private void requireInTurn(final String operation) {
        if (!gate.isCurrentThreadInTurn()) {
            throw new IllegalStateException(operation
                + " may only be called inside a turn of this mailbox's gate (a handler on it, or a control task"
                + " from ExecutionGate.execute)");
        }
    }
}
