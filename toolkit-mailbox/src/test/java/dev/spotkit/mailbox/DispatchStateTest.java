package dev.spotkit.mailbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Open, closed, and "prepend this ordered backlog and open" as one step (spec 001 section 4.6). */
class DispatchStateTest {
    private final Dispatcher dispatcher = Dispatcher.builder().workers(2).build();

    @AfterEach
    void tearDown() {
        dispatcher.close();
    }

    private static List<Integer> synchronizedList() {
        return Collections.synchronizedList(new ArrayList<>());
    }

    /** Runs a task as a control task of the mailbox's gate and waits for its result. */
    private static <R> R onGate(final Mailbox<?> mailbox, final java.util.function.Supplier<R> task) throws Exception {
        final CompletableFuture<R> result = new CompletableFuture<>();
        mailbox.gate().execute(() -> result.complete(task.get()));
        return result.get(10, TimeUnit.SECONDS);
    }

    @Test
    void closedMailboxAcceptsAndKeepsButRunsNothingUntilOpened() throws Exception {
        final List<Integer> ran = synchronizedList();
        final Mailbox<Integer> box = dispatcher.newMailbox(ran::add);
        box.close();
        for (int i = 0; i < 100; i++) {
            assertThat(box.offer(i)).isEqualTo(OfferResult.ACCEPTED);
        }
        // A control task runs while closed; after it, a handler would have had every chance to run.
        assertThat(onGate(box, () -> ran.size())).isZero();
        assertThat(box.dispatchState()).isEqualTo(DispatchState.CLOSED);
        assertThat(box.isEmpty()).isFalse();
        box.open();
        Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> ran.size() == 100);
        assertThat(ran).containsExactlyElementsOf(range(0, 100));
    }

    @Test
    void closeTakesEffectAtTheNextMessageBoundary() throws Exception {
        final List<Integer> ran = synchronizedList();
        final CountDownLatch inFirst = new CountDownLatch(1);
        final CountDownLatch releaseFirst = new CountDownLatch(1);
        final Mailbox<Integer> box = dispatcher.newMailbox(i -> {
            if (i == 0) {
                inFirst.countDown();
                releaseFirst.await(10, TimeUnit.SECONDS);
            }
            ran.add(i);
        });
        box.offer(0);
        box.offer(1);
        box.offer(2);
        assertThat(inFirst.await(10, TimeUnit.SECONDS)).isTrue();
        box.close();
        releaseFirst.countDown();
        assertThat(onGate(box, () -> List.copyOf(ran))).containsExactly(0); // the running turn finished, no more
        box.open();
        Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> ran.size() == 3);
        assertThat(ran).containsExactly(0, 1, 2);
    }

    @Test
    void openWithBacklogRunsTheBacklogBeforeQueuedAndLaterOffers() throws Exception {
        final List<Integer> ran = synchronizedList();
        final Mailbox<Integer> box = dispatcher.newMailbox(ran::add);
        box.close();
        for (int i = 1000; i < 1100; i++) {
            box.offer(i); // accepted while closed: the "temporary queue" part, runs after the backlog
        }
        // Offers racing with the open must never overtake the backlog.
        final CountDownLatch go = new CountDownLatch(1);
        final Thread racer = Thread.ofPlatform().start(() -> {
            try {
                go.await();
            } catch (InterruptedException e) {
                return;
            }
            for (int i = 2000; i < 3000; i++) {
                box.offer(i);
            }
        });
        go.countDown();
        box.openWithBacklog(range(0, 500));
        racer.join(10_000);
        Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> ran.size() == 1600);
        assertThat(ran.subList(0, 500)).containsExactlyElementsOf(range(0, 500));
        final List<Integer> rest = ran.subList(500, ran.size());
        assertThat(rest.stream().filter(i -> i < 2000)).containsExactlyElementsOf(range(1000, 1100));
        assertThat(rest.stream().filter(i -> i >= 2000)).containsExactlyElementsOf(range(2000, 3000));
    }

    @Test
    void admitQueuesPastCapacityAfterTheBacklogAndBeforeLaterOffers() throws Exception {
        final List<Integer> ran = synchronizedList();
        final Mailbox<Integer> box = dispatcher.newMailbox(dispatcher.newGate(), ran::add, 4);
        box.close();
        for (int i = 0; i < 4; i++) {
            assertThat(box.offer(1000 + i)).isEqualTo(OfferResult.ACCEPTED);
        }
        assertThat(box.offer(1004)).isEqualTo(OfferResult.MAILBOX_FULL);
        box.openWithBacklog(range(0, 10));
        for (int i = 0; i < 500; i++) { // a late relay of 500 into a mailbox of 4: never refused
            assertThat(box.admit(100 + i)).isEqualTo(OfferResult.ACCEPTED);
        }
        Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> ran.size() == 514);
        assertThat(ran.subList(0, 10)).containsExactlyElementsOf(range(0, 10));
        assertThat(ran.stream().filter(i -> i >= 100 && i < 600)).containsExactlyElementsOf(range(100, 600));
        assertThat(ran.stream().filter(i -> i >= 1000)).containsExactlyElementsOf(range(1000, 1004));
    }

    @Test
    void openWithBacklogNeedsAClosedMailbox() {
        final Mailbox<Integer> box = dispatcher.newMailbox(i -> { });
        assertThatThrownBy(() -> box.openWithBacklog(List.of(1)))
            .isInstanceOf(IllegalStateException.class)
            .hasMessage("openWithBacklog needs a CLOSED mailbox, state is OPEN");
    }

    @Test
    void drainUnrunReturnsBacklogThenQueueInOrderAndOnlyInsideATurn() throws Exception {
        final Mailbox<Integer> box = dispatcher.newMailbox(i -> { });
        box.close();
        box.offer(7);
        box.offer(8);
        assertThatThrownBy(box::drainUnrun).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("only be called inside a turn");
        assertThat(onGate(box, box::drainUnrun)).containsExactly(7, 8);
        assertThat(box.isEmpty()).isTrue();
    }

    @Test
    void releaseReturnsUnrunRefusesLaterOffersAndSendsRacersToTheLateSink() throws Exception {
        final List<Integer> late = synchronizedList();
        final Mailbox<Integer> box = dispatcher.newMailbox(i -> { });
        box.close();
        box.offer(1);
        box.offer(2);
        assertThat(onGate(box, () -> box.release(late::add))).containsExactly(1, 2);
        assertThat(box.dispatchState()).isEqualTo(DispatchState.RELEASED);
        assertThat(box.offer(3)).isEqualTo(OfferResult.RELEASED);
        assertThat(late).isEmpty();
        assertThatThrownBy(box::open).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void controlTasksRunBeforeQueuedMessagesAndExclusivelyWithTheGate() throws Exception {
        final List<String> ran = Collections.synchronizedList(new ArrayList<>());
        final ExecutionGate gate = dispatcher.newGate();
        final Mailbox<String> a = dispatcher.newMailbox(gate, ran::add, 0);
        a.close();
        a.offer("m1");
        a.offer("m2");
        gate.execute(() -> ran.add("control"));
        a.open();
        Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> ran.size() == 3);
        assertThat(ran).containsExactly("control", "m1", "m2");
    }

    @Test
    void moveToAnotherGateKeepsOrderAndNeverRunsOnBoth() throws Exception {
        final List<Integer> ran = synchronizedList();
        final ExecutionGate room = dispatcher.newGate();
        final java.util.concurrent.atomic.AtomicReference<Mailbox<Integer>> self =
            new java.util.concurrent.atomic.AtomicReference<>();
        final Mailbox<Integer> box = dispatcher.newMailbox(i -> {
            ran.add(i);
            if (i == 10) {
                self.get().moveTo(room); // from inside its own turn, like a join commit
            }
            if (i == 20) {
                self.get().moveToOwnGate();
            }
            assertThat(self.get().gate().isCurrentThreadInTurn() || i == 10 || i == 20).isTrue();
        });
        self.set(box);
        for (int i = 0; i < 40; i++) {
            box.offer(i);
        }
        Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> ran.size() == 40);
        assertThat(ran).containsExactlyElementsOf(range(0, 40));
        assertThat(box.gate()).isNotSameAs(room);
    }

    @Test
    void closeAfterAMoveWinsOverTheTargetsPendingReopen() throws Exception {
        final List<Integer> ran = synchronizedList();
        final ExecutionGate from = dispatcher.newGate();
        final ExecutionGate to = dispatcher.newGate();
        final Mailbox<Integer> box = dispatcher.newMailbox(from, ran::add, 0);
        final CompletableFuture<Void> moved = new CompletableFuture<>();
        from.execute(() -> {
            box.moveTo(to);
            box.close(); // e.g. a seal right after a join commit
            moved.complete(null);
        });
        moved.get(10, TimeUnit.SECONDS);
        box.offer(1);
        assertThat(onGate(box, () -> List.copyOf(ran))).isEmpty(); // runs after the target's reopen task
        assertThat(box.dispatchState()).isEqualTo(DispatchState.CLOSED);
        assertThat(box.gate()).isSameAs(to);
        box.open();
        Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> ran.size() == 1);
    }

    static List<Integer> range(final int from, final int to) {
        final List<Integer> out = new ArrayList<>();
        for (int i = from; i < to; i++) {
            out.add(i);
        }
        return out;
    }
}
