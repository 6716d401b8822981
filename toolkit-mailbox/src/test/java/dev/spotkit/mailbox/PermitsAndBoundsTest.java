package dev.spotkit.mailbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The live-job permit pool, bounded mailboxes, and handlers that block. */
class PermitsAndBoundsTest {
    private Dispatcher dispatcher;

    @AfterEach
    void tearDown() {
        if (dispatcher != null) {
            dispatcher.close();
        }
    }

    @Test
    void permitPoolCapsConcurrentTurnsAndWaitingTurnsHoldNoPermit() throws Exception {
        dispatcher = Dispatcher.builder().workers(2).maxWorkers(16).livePermits(2).build();
        final AtomicInteger running = new AtomicInteger();
        final AtomicInteger maxRunning = new AtomicInteger();
        final CountDownLatch twoRunning = new CountDownLatch(2);
        final CountDownLatch unblock = new CountDownLatch(1);
        final AtomicLong done = new AtomicLong();
        final List<Mailbox<Integer>> boxes = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            boxes.add(dispatcher.newMailbox(n -> {
                maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
                twoRunning.countDown();
                unblock.await(10, TimeUnit.SECONDS); // blocks: extra workers start, permits must still cap
                running.decrementAndGet();
                done.incrementAndGet();
            }));
        }
        boxes.forEach(b -> b.offer(1));
        assertThat(twoRunning.await(10, TimeUnit.SECONDS)).isTrue();
        // Give the watchdog time to start extra workers; none of them may run a third turn.
        Awaitility.await().pollDelay(20, TimeUnit.MILLISECONDS).atMost(5, TimeUnit.SECONDS)
            .until(() -> dispatcher.workerCount() >= 2);
        assertThat(running.get()).isEqualTo(2);
        assertThat(dispatcher.permits().available()).isZero();
        unblock.countDown();
        Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> done.get() == 6);
        assertThat(maxRunning.get()).isEqualTo(2);
        Awaitility.await().atMost(5, TimeUnit.SECONDS).until(() -> dispatcher.permits().available() == 2);
    }

    @Test
    void theHighWaterReadsTheMostPermitsHeldSinceTheLastReadThenStartsFromThoseHeldNow() {
        final PermitPool pool = new PermitPool(5);
        assertThat(pool.takeHighWater()).isZero();
        assertThat(pool.tryAcquire()).isTrue();
        assertThat(pool.tryAcquire()).isTrue();
        assertThat(pool.tryAcquire()).isTrue();
        assertThat(pool.release()).isNull();
        assertThat(pool.release()).isNull();
        assertThat(pool.takeHighWater()).as("three were held at once").isEqualTo(3);
        assertThat(pool.takeHighWater()).as("one is still held").isEqualTo(1);
        assertThat(pool.release()).isNull();
        assertThat(pool.takeHighWater()).as("the one held at the last read").isEqualTo(1);
        assertThat(pool.takeHighWater()).isZero();
    }

    @Test
    void boundedMailboxRejectsWithMailboxFullWithoutBlockingAndDropsNothingAccepted() throws Exception {
        dispatcher = Dispatcher.builder().workers(1).build();
        final CountDownLatch unblock = new CountDownLatch(1);
        final AtomicLong handled = new AtomicLong();
        final ExecutionGate gate = dispatcher.newGate();
        final Mailbox<Integer> box = dispatcher.newMailbox(gate, n -> {
            if (n == 0) {
                unblock.await(10, TimeUnit.SECONDS);
            }
            handled.incrementAndGet();
        }, 8);
        assertThat(box.capacity()).isEqualTo(8);
        int accepted = 0;
        int full = 0;
        for (int i = 0; i < 100; i++) {
            final OfferResult r = box.offer(i);
            if (r == OfferResult.ACCEPTED) {
                accepted++;
            } else {
                assertThat(r).isEqualTo(OfferResult.MAILBOX_FULL);
                full++;
            }
        }
        assertThat(full).isPositive();
        assertThat(accepted).isBetween(8, 9); // 8 queued, plus message 0 if the worker already took it
        unblock.countDown();
        final int expected = accepted;
        Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> handled.get() == expected);
        assertThat(box.offer(1000)).isEqualTo(OfferResult.ACCEPTED);
    }

    @Test
    void aHandlerThatBlocksDoesNotStopOtherReadyMailboxesEvenWithOneWorker() throws Exception {
        dispatcher = Dispatcher.builder().workers(1).build();
        final CountDownLatch blocked = new CountDownLatch(1);
        final CountDownLatch unblock = new CountDownLatch(1);
        final Mailbox<Integer> sleeper = dispatcher.newMailbox(n -> {
            blocked.countDown();
            unblock.await(20, TimeUnit.SECONDS);
        });
        final CountDownLatch othersDone = new CountDownLatch(50);
        final List<Mailbox<Integer>> others = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            others.add(dispatcher.newMailbox(n -> othersDone.countDown()));
        }
        sleeper.offer(1);
        assertThat(blocked.await(10, TimeUnit.SECONDS)).isTrue();
        others.forEach(b -> b.offer(1));
        try {
            assertThat(othersDone.await(10, TimeUnit.SECONDS)).as("others ran while one handler blocked").isTrue();
        } finally {
            unblock.countDown();
        }
    }

    @Test
    void aMailboxWokenByABlockedTurnIsNotStrandedInItsRunNextSlot() throws Exception {
        dispatcher = Dispatcher.builder().workers(1).build();
        final CountDownLatch pongRan = new CountDownLatch(1);
        final CountDownLatch unblock = new CountDownLatch(1);
        final Mailbox<Integer> pong = dispatcher.newMailbox(n -> pongRan.countDown());
        final Mailbox<Integer> ping = dispatcher.newMailbox(n -> {
            pong.offer(1); // lands in this worker's run-next slot
            unblock.await(20, TimeUnit.SECONDS); // then the turn blocks
        });
        ping.offer(1);
        try {
            assertThat(pongRan.await(10, TimeUnit.SECONDS)).as("watchdog moved the run-next mailbox").isTrue();
        } finally {
            unblock.countDown();
        }
    }

    @Test
    void aBurstThatStartsOnASpinningWorkerIsNotHeldBehindABlockingTurn() throws Exception {
        // Two gates become ready while a worker spins; the first one's handler blocks. The second must be
        // taken by another worker at once, not after the block (lost wake-up regression, seen 6 in 120 probes).
        dispatcher = Dispatcher.builder().workers(2).build();
        for (int trial = 0; trial < 500; trial++) {
            final CountDownLatch otherRan = new CountDownLatch(1);
            final Mailbox<Integer> blocker = dispatcher.newMailbox(n -> otherRan.await(2, TimeUnit.SECONDS));
            final Mailbox<Integer> other = dispatcher.newMailbox(n -> otherRan.countDown());
            blocker.offer(1);
            other.offer(1);
            assertThat(otherRan.await(1, TimeUnit.SECONDS)).as("trial %d: the second gate ran while the first blocked",
                trial).isTrue();
        }
    }

    @Test
    void aThrowingHandlerIsReportedAndTheNextMessageRuns() throws Exception {
        final List<Throwable> reported = java.util.Collections.synchronizedList(new ArrayList<>());
        dispatcher = Dispatcher.builder().workers(1).uncaughtHandler((m, t) -> reported.add(t)).build();
        final CountDownLatch second = new CountDownLatch(1);
        final Mailbox<Integer> box = dispatcher.newMailbox(n -> {
            if (n == 1) {
                throw new IllegalStateException("boom " + n);
            }
            second.countDown();
        });
        box.offer(1);
        box.offer(2);
        assertThat(second.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(reported).singleElement().satisfies(t -> assertThat(t).hasMessage("boom 1"));
    }
}
