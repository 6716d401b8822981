package dev.spotkit.bench;

import dev.spotkit.mailbox.Dispatcher;
import dev.spotkit.mailbox.Mailbox;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * "A handler that blocks for 200 ms delays other ready actors by at most a few ms": measured, not unit-tested. One
 * dispatcher with the benchmark setting ({@link SpotkitSetting}); the delay of a message is the time from its offer
 * to the start of its handler, recorded in an HdrHistogram. Scenarios:
 * <ol>
 *   <li>{@code baseline}: a paced stream (one message every ~{@value #PACE_MICROS} us, round robin over
 *       {@value #ACTORS} actors), nothing blocks;</li>
 *   <li>{@code one-blocker}: the same stream while one actor's handler sleeps {@value #BLOCK_MS} ms every
 *       {@value #BLOCK_EVERY_MS} ms;</li>
 *   <li>{@code two-blockers}: the same, with two actors blocking at once, so both core workers are stuck and the
 *       watchdog must start extra workers;</li>
 *   <li>{@code stranded-run-next}: a handler sends to a victim actor, then blocks: the victim sits in the blocked
 *       worker's run-next slot until the watchdog moves it;</li>
 *   <li>{@code burst-while-spinning}: from outside, a blocking message and a victim message are offered back to
 *       back while one worker is in its spin window and the other is parked.</li>
 * </ol>
 * Run: {@code java --add-opens=java.base/jdk.internal.misc=ALL-UNNAMED -cp benchmarks.jar
 * dev.spotkit.bench.BlockingHandlerProbe}. Prints one line per scenario (microseconds).
 */
public final class BlockingHandlerProbe {
    static final int ACTORS = 64;
    static final long PACE_MICROS = 100;
    static final long BLOCK_MS = 200;
    static final long BLOCK_EVERY_MS = 400;
    static final int STREAM_SECONDS = 4;
    static final int TRIALS = 20;

    /** A timed message: nanoTime at offer. */
    record Stamp(long sentAt) {
    }

    private final Dispatcher dispatcher = SpotkitSetting.newDispatcher("probe");
    private final ConcurrentHistogram others = new ConcurrentHistogram(TimeUnit.SECONDS.toNanos(10), 3);
    private final ConcurrentHistogram victims = new ConcurrentHistogram(TimeUnit.SECONDS.toNanos(10), 3);
    private final List<Mailbox<Stamp>> actors = new ArrayList<>();
    private final Mailbox<Stamp> victim;
    private final Mailbox<Stamp> blockerA;
    private final Mailbox<Stamp> blockerB;
    private final Mailbox<Stamp> sendThenBlock;
    private final Mailbox<Stamp> ticker;
    private volatile long tickerRanAt;

    private BlockingHandlerProbe() {
        for (int i = 0; i < ACTORS; i++) {
            actors.add(SpotkitSetting.spawn(dispatcher, (Stamp s) -> others.recordValue(delay(s))));
        }
        victim = SpotkitSetting.spawn(dispatcher, (Stamp s) -> victims.recordValue(delay(s)));
        blockerA = SpotkitSetting.spawn(dispatcher, (Stamp s) -> Thread.sleep(BLOCK_MS));
        blockerB = SpotkitSetting.spawn(dispatcher, (Stamp s) -> Thread.sleep(BLOCK_MS));
        sendThenBlock = SpotkitSetting.spawn(dispatcher, (Stamp s) -> {
            SpotkitSetting.send(victim, new Stamp(System.nanoTime()));
            Thread.sleep(BLOCK_MS);
        });
        ticker = SpotkitSetting.spawn(dispatcher, (Stamp s) -> tickerRanAt = System.nanoTime());
    }

    private static long delay(final Stamp s) {
        return Math.max(0, System.nanoTime() - s.sentAt());
    }

    /**
     * Runs every scenario once and prints the table.
     *
     * @param args ignored.
     * @throws Exception when interrupted.
     */
    public static void main(final String[] args) throws Exception {
        final BlockingHandlerProbe probe = new BlockingHandlerProbe();
        try {
            probe.stream(1); // warm-up, not reported
            System.out.println("scenario               count    p50_us    p99_us  p99.9_us    max_us  n>100ms");
            print("baseline", probe.stream(0));
            print("one-blocker", probe.stream(1));
            print("two-blockers", probe.stream(2));
            print("stranded-run-next", probe.strandedRunNext());
            print("burst-while-spinning", probe.burstWhileSpinning());
        } finally {
            probe.dispatcher.close();
        }
    }

    private static void print(final String name, final Histogram h) {
        final long slow = h.getCountBetweenValues(TimeUnit.MILLISECONDS.toNanos(100), h.getHighestTrackableValue());
        System.out.println(String.format(Locale.ROOT, "%-20s %7d %9.1f %9.1f %9.1f %9.1f %8d", name, h.getTotalCount(),
            h.getValueAtPercentile(50) / 1e3, h.getValueAtPercentile(99) / 1e3, h.getValueAtPercentile(99.9) / 1e3,
            h.getMaxValue() / 1e3, slow));
    }

    /** The paced stream for {@value #STREAM_SECONDS} s, with {@code blockers} actors blocking periodically. */
    private Histogram stream(final int blockers) {
        others.reset();
        final long start = System.nanoTime();
        final long end = start + TimeUnit.SECONDS.toNanos(STREAM_SECONDS);
        long nextBlock = start;
        int i = 0;
        // Bounded by time: STREAM_SECONDS.
        while (System.nanoTime() < end) {
            final long now = System.nanoTime();
            if (blockers > 0 && now >= nextBlock) {
                SpotkitSetting.send(blockerA, new Stamp(now));
                if (blockers > 1) {
                    SpotkitSetting.send(blockerB, new Stamp(now));
                }
                nextBlock = now + TimeUnit.MILLISECONDS.toNanos(BLOCK_EVERY_MS);
            }
            SpotkitSetting.send(actors.get(i++ % ACTORS), new Stamp(System.nanoTime()));
            LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(PACE_MICROS));
        }
        sleepMs(BLOCK_MS + 50);
        return others.copy();
    }

    /** A handler sends to the victim (into its worker's run-next slot) and then blocks. */
    private Histogram strandedRunNext() {
        victims.reset();
        for (int t = 0; t < TRIALS; t++) {
            SpotkitSetting.send(sendThenBlock, new Stamp(System.nanoTime()));
            sleepMs(BLOCK_MS + 50);
        }
        return victims.copy();
    }

    /**
     * A ticker message wakes one worker; right after its handler ran (the worker is now in its spin window, the other
     * worker parked) a blocking message and a victim message are offered back to back from this thread.
     */
    private Histogram burstWhileSpinning() {
        victims.reset();
        for (int t = 0; t < TRIALS; t++) {
            sleepMs(20); // both workers parked
            final long before = tickerRanAt;
            SpotkitSetting.send(ticker, new Stamp(System.nanoTime()));
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
            // Bounded by the 1 s deadline.
            while (tickerRanAt == before && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            SpotkitSetting.send(blockerA, new Stamp(System.nanoTime()));
            SpotkitSetting.send(victim, new Stamp(System.nanoTime()));
            sleepMs(BLOCK_MS + 50);
        }
        return victims.copy();
    }

    private static void sleepMs(final long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
