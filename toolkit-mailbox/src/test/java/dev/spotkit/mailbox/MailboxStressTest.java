package dev.spotkit.mailbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Bounded stress run (about 3 s): producers offer at random while a controller seals mailboxes, captures their unrun
 * work, reopens them with that work as backlog (what relocation does), and moves them between shared gates.
 * Forbidden: a message lost, run twice, or run out of its producer's order; two turns of one gate at once.
 */
class MailboxStressTest {
    private static final long RUN_NANOS = TimeUnit.SECONDS.toNanos(3);

    record Msg(int producer, long seq) {
    }

    @Test
    void sealCaptureReopenAndMoveUnderLoadLoseNothingAndKeepOrder() throws Exception {
        final int producers = 4;
        final int boxCount = 16;
        final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
        final AtomicLong handled = new AtomicLong();
        try (Dispatcher dispatcher = Dispatcher.builder().workers(2).livePermits(3).build()) {
            final ExecutionGate[] rooms = {dispatcher.newGate(), dispatcher.newGate(), dispatcher.newGate()};
            final java.util.Map<ExecutionGate, AtomicBoolean> busy = new java.util.concurrent.ConcurrentHashMap<>();
            final List<Mailbox<Msg>> boxes = new ArrayList<>();
            for (int b = 0; b < boxCount; b++) {
                final long[] last = new long[producers];
                Arrays.fill(last, -1);
                final Mailbox<Msg>[] self = new Mailbox[1];
                self[0] = dispatcher.newMailbox(rooms[b % rooms.length], m -> {
                    final AtomicBoolean flag = busy.computeIfAbsent(self[0].gate(), g -> new AtomicBoolean());
                    if (!flag.compareAndSet(false, true)) {
                        violations.add("two turns of one gate at once");
                    }
                    if (m.seq() != last[m.producer()] + 1) {
                        violations.add("order: producer " + m.producer() + " expected " + (last[m.producer()] + 1)
                            + " got " + m.seq());
                    }
                    last[m.producer()] = m.seq();
                    handled.incrementAndGet();
                    flag.set(false);
                }, 0);
                boxes.add(self[0]);
            }
            final long end = System.nanoTime() + RUN_NANOS;
            final AtomicLong sent = new AtomicLong();
            final List<Thread> threads = new ArrayList<>();
            for (int p = 0; p < producers; p++) {
                final int producer = p;
                threads.add(Thread.ofPlatform().start(() -> {
                    final long[] seq = new long[boxCount];
                    final java.util.Random rnd = new java.util.Random(producer);
                    while (System.nanoTime() < end) {
                        final int b = rnd.nextInt(boxCount);
                        if (boxes.get(b).offer(new Msg(producer, seq[b]++)) != OfferResult.ACCEPTED) {
                            violations.add("offer refused");
                        }
                        sent.incrementAndGet();
                    }
                }));
            }
            threads.add(Thread.ofPlatform().start(() -> controller(boxes, rooms, end, violations)));
            for (Thread t : threads) {
                t.join(TimeUnit.SECONDS.toMillis(30));
            }
            for (Mailbox<Msg> box : boxes) {
                if (box.dispatchState() == DispatchState.CLOSED) {
                    box.open();
                }
            }
            try {
                Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> handled.get() >= sent.get());
            } catch (org.awaitility.core.ConditionTimeoutException e) {
                throw new AssertionError("stuck: handled=" + handled + " sent=" + sent + " permits="
                    + dispatcher.permits().available() + " workers=" + dispatcher.workerCount() + " violations="
                    + violations + " boxes=" + boxes, e);
            }
            assertThat(violations).isEmpty();
            assertThat(handled.get()).isEqualTo(sent.get());
        }
    }

    /** Seal, capture, reopen-with-backlog and move, at random, until the end of the run. */
    private static void controller(final List<Mailbox<Msg>> boxes, final ExecutionGate[] rooms, final long end,
        final ConcurrentLinkedQueue<String> violations) {
        final java.util.Random rnd = new java.util.Random(42);
        while (System.nanoTime() < end) {
            final Mailbox<Msg> box = boxes.get(rnd.nextInt(boxes.size()));
            final CompletableFuture<Void> step = new CompletableFuture<>();
            box.close();
            final int action = rnd.nextInt(3);
            box.gate().execute(() -> {
                try {
                    if (action == 0) {
                        box.openWithBacklog(box.drainUnrun()); // capture, then restore as backlog
                    } else if (action == 1) {
                        box.open();
                        box.moveTo(rooms[rnd.nextInt(rooms.length)]);
                    } else {
                        box.open();
                    }
                } catch (RuntimeException e) {
                    violations.add("controller: " + e);
                } finally {
                    step.complete(null);
                }
            });
            try {
                step.get(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                violations.add("controller step timed out: " + e);
                return;
            }
        }
    }
}
