package dev.spotkit.mailbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Many producers, many mailboxes, random offers. Forbidden outcomes: a message lost, a message run twice, a
 * producer's messages run out of order on one mailbox, two turns of one gate at once.
 */
class MailboxConcurrencyTest {
    private Dispatcher dispatcher;

    @AfterEach
    void tearDown() {
        if (dispatcher != null) {
            dispatcher.close();
        }
    }

    /** A message: producer id and that producer's sequence number for the target mailbox. */
    record Msg(int producer, long seq) {
    }

    /** Per-mailbox checker: records overlap, order and count. */
    static final class Checker implements MessageHandler<Msg> {
        final AtomicInteger inside;
        final long[] lastSeq;
        final AtomicLong handled;
        final ConcurrentLinkedQueue<String> violations;

        Checker(final AtomicInteger inside, final int producers, final AtomicLong handled,
            final ConcurrentLinkedQueue<String> violations) {
            this.inside = inside;
            this.lastSeq = new long[producers];
            java.util.Arrays.fill(lastSeq, -1);
            this.handled = handled;
            this.violations = violations;
        }

        @Override
        public void onMessage(final Msg m) {
            if (inside.incrementAndGet() != 1) {
                violations.add("two turns of one gate at once");
            }
            if (m.seq() != lastSeq[m.producer()] + 1) {
                violations.add("producer " + m.producer() + " expected seq " + (lastSeq[m.producer()] + 1)
                    + " got " + m.seq());
            }
            lastSeq[m.producer()] = m.seq();
            if (ThreadLocalRandom.current().nextInt(512) == 0) {
                Thread.yield(); // widen the window for an overlapping turn
            }
            inside.decrementAndGet();
            handled.incrementAndGet();
        }
    }

    private long runProducers(final List<Mailbox<Msg>> boxes, final int producers, final int perProducer)
        throws InterruptedException {
        final CountDownLatch start = new CountDownLatch(1);
        final List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            final int producer = p;
            final Thread.Builder builder = (p % 2 == 0) ? Thread.ofPlatform() : Thread.ofVirtual();
            threads.add(builder.start(() -> {
                final long[] seq = new long[boxes.size()];
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                final ThreadLocalRandom rnd = ThreadLocalRandom.current();
                for (int i = 0; i < perProducer; i++) {
                    final int box = rnd.nextInt(boxes.size());
                    assertThat(boxes.get(box).offer(new Msg(producer, seq[box]++))).isEqualTo(OfferResult.ACCEPTED);
                }
            }));
        }
        start.countDown();
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(30));
        }
        return (long) producers * perProducer;
    }

    @Test
    void manyProducersManyPrivateMailboxesLoseNothingKeepFifoAndNeverOverlap() throws Exception {
        dispatcher = Dispatcher.builder().workers(2).build();
        final int producers = 6;
        final AtomicLong handled = new AtomicLong();
        final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
        final List<Mailbox<Msg>> boxes = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            boxes.add(dispatcher.newMailbox(new Checker(new AtomicInteger(), producers, handled, violations)));
        }
        final long sent = runProducers(boxes, producers, 50_000);
        org.awaitility.Awaitility.await().atMost(30, TimeUnit.SECONDS).until(() -> handled.get() >= sent);
        assertThat(violations).isEmpty();
        assertThat(handled.get()).isEqualTo(sent);
        assertThat(boxes).allMatch(Mailbox::isEmpty);
    }

    @Test
    void sharedGateRunsOneTurnAtATimeAcrossItsMailboxes() throws Exception {
        dispatcher = Dispatcher.builder().workers(2).build();
        final int producers = 4;
        final AtomicLong handled = new AtomicLong();
        final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
        final List<Mailbox<Msg>> boxes = new ArrayList<>();
        for (int room = 0; room < 4; room++) {
            final ExecutionGate gate = dispatcher.newGate();
            final AtomicInteger insideRoom = new AtomicInteger(); // one counter per gate: overlap across members
            for (int member = 0; member < 8; member++) {
                boxes.add(dispatcher.newMailbox(gate, new Checker(insideRoom, producers, handled, violations), 0));
            }
        }
        final long sent = runProducers(boxes, producers, 40_000);
        org.awaitility.Awaitility.await().atMost(30, TimeUnit.SECONDS).until(() -> handled.get() >= sent);
        assertThat(violations).isEmpty();
        assertThat(handled.get()).isEqualTo(sent);
    }

    @Test
    void actorsMessagingEachOtherFromInsideTurnsLoseNothing() throws Exception {
        // Exercises the run-next slot: every handler forwards to a random peer until a hop budget is spent.
        dispatcher = Dispatcher.builder().workers(2).build();
        final int actors = 100;
        final int tokens = 50;
        final int hopsPerToken = 2_000;
        final AtomicLong hops = new AtomicLong();
        final CountDownLatch done = new CountDownLatch(tokens);
        final List<Mailbox<int[]>> boxes = new ArrayList<>();
        for (int i = 0; i < actors; i++) {
            boxes.add(dispatcher.newMailbox((int[] token) -> {
                hops.incrementAndGet();
                if (--token[0] == 0) {
                    done.countDown();
                } else {
                    boxes.get(ThreadLocalRandom.current().nextInt(actors)).offer(token);
                }
            }));
        }
        for (int t = 0; t < tokens; t++) {
            boxes.get(t % actors).offer(new int[] {hopsPerToken});
        }
        assertThat(done.await(30, TimeUnit.SECONDS)).as("every token finished its hops").isTrue();
        assertThat(hops.get()).isEqualTo((long) tokens * hopsPerToken);
    }
}
