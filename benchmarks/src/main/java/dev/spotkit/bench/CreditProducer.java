package dev.spotkit.bench;

import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * A fan-in producer: a platform thread that, per round, sends a fixed count of messages to one consumer through a
 * variant-specific sink, never more than {@value #WINDOW} unacknowledged. The consumer acknowledges every
 * {@value #ACK_EVERY} messages of this producer ({@link #ack}), so no variant can get ahead by filling memory. The
 * same class, window and acknowledgement rule serve every variant.
 */
final class CreditProducer implements AutoCloseable {
    /** Messages of one producer in flight (sent, not yet acknowledged) at most. */
    static final int WINDOW = 4_096;
    /** The consumer acknowledges after this many messages of one producer; a power of two. */
    static final int ACK_EVERY = 512;
    private static final int SPIN_TRIES = 256;

    /** A fan-in message: who sent it and its sequence number for that producer. */
    record Item(CreditProducer from, long seq) {
    }

    private final Consumer<Item> sink;
    private final Semaphore go = new Semaphore(0);
    private final Thread thread;
    private volatile int perRound;
    private volatile boolean stopped;

    /** Messages sent so far. Producer thread only. */
    private long sent;

    /** Consumer side: messages of this producer handled so far. Written only inside the consumer's turns. */
    private long received;

    /** Highest acknowledged count. Written by the consumer ({@link #ack}); read by the producer when out of credit. */
    private volatile long acked;

    /** True while the producer is (about to be) parked for credit; Dekker pair with {@link #acked}. */
    private volatile boolean waiting;

    CreditProducer(final String name, final Consumer<Item> sink) {
        this.sink = sink;
        this.thread = Thread.ofPlatform().daemon().name(name).unstarted(this::loop);
    }

    CreditProducer start() {
        thread.start();
        return this;
    }

    /** Starts one round of {@code count} sends (returns at once). Harness thread. */
    void round(final int count) {
        perRound = count;
        go.release();
    }

    /** Consumer side, inside the consumer's turn: counts one message and acknowledges every {@value #ACK_EVERY}. */
    void onReceived() {
        final long r = ++received;
        if ((r & (ACK_EVERY - 1)) == 0) {
            acked = r; // read by awaitCredit()
            if (waiting) {
                LockSupport.unpark(thread);
            }
        }
    }

    private void loop() {
        // Bounded by the benchmark trial: ends when close() sets stopped.
        while (!stopped) {
            try {
                if (!go.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                    continue;
                }
            } catch (InterruptedException e) {
                return;
            }
            final int count = perRound;
            for (int i = 0; i < count; i++) {
                if (sent - acked >= WINDOW) {
                    awaitCredit();
                }
                sink.accept(new Item(this, sent++));
            }
        }
    }

    private void awaitCredit() {
        // Bounded by the consumer's progress; the park has a timeout so a stop is seen within 1 ms.
        for (int i = 0; i < SPIN_TRIES && sent - acked >= WINDOW; i++) {
            Thread.onSpinWait();
        }
        while (sent - acked >= WINDOW && !stopped) {
            waiting = true;
            if (sent - acked >= WINDOW) { // re-check after publishing waiting (pairs with onReceived)
                LockSupport.parkNanos(this, 1_000_000);
            }
            waiting = false;
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
