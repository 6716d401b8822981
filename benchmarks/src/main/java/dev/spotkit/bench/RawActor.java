package dev.spotkit.bench;

import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.agrona.concurrent.ManyToOneConcurrentLinkedQueue;

/**
 * The "physical limit" baseline: one Agrona MPSC queue (the same class an unbounded Spotkit mailbox uses) drained by
 * one dedicated virtual thread. No gates, no scheduling, no permits, no dispatch states: the consumer spins
 * {@value #SPIN_NANOS} ns on an empty queue before it parks, and a producer unparks it only when it has parked.
 *
 * @param <T> message type.
 */
final class RawActor<T> implements AutoCloseable {
    /** Spin before parking; longer than the dispatcher's 5 us so that the baseline is not limited by wake-ups. */
    static final long SPIN_NANOS = 50_000;

    private final ManyToOneConcurrentLinkedQueue<T> queue = new ManyToOneConcurrentLinkedQueue<>();
    private final Consumer<? super T> handler;
    private final Thread thread;

    /**
     * True while the consumer is (about to be) parked. Written by the consumer before its last empty check; read by
     * producers after their offer (Dekker pair: one of the two sees the other).
     */
    private volatile boolean parked;

    /** Set once by {@link #close()}. */
    private volatile boolean stopped;

    RawActor(final String name, final Consumer<? super T> handler) {
        this.handler = Objects.requireNonNull(handler, "handler");
        this.thread = Thread.ofVirtual().name(name).unstarted(this::loop);
    }

    RawActor<T> start() {
        thread.start();
        return this;
    }

    void offer(final T message) {
        queue.offer(message);
        if (parked) { // pairs with the consumer's parked = true followed by its isEmpty re-check
            LockSupport.unpark(thread);
        }
    }

    private void loop() {
        // Bounded by the benchmark trial: ends when close() sets stopped.
        while (!stopped) {
            final T message = queue.poll();
            if (message != null) {
                handler.accept(message);
                continue;
            }
            final long spinUntil = System.nanoTime() + SPIN_NANOS;
            while (queue.isEmpty() && !stopped && System.nanoTime() - spinUntil < 0) {
                Thread.onSpinWait();
            }
            if (queue.isEmpty()) {
                parked = true;
                if (queue.isEmpty() && !stopped) {
                    LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(10));
                }
                parked = false;
            }
        }
    }

    @Override
    public void close() {
        stopped = true;
        LockSupport.unpark(thread);
        try {
            thread.join(java.time.Duration.ofSeconds(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
