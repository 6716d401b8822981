package dev.spotkit.mailbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A dispatcher whose workers never run out of work must still leave the carriers to the JVM's other virtual threads
 * now and then: virtual threads are not preempted, and a node's store calls, session I/O and relocation steps run
 * on virtual threads beside the workers.
 */
class SaturatedDispatcherTest {
    private Dispatcher dispatcher;
    private final AtomicBoolean stop = new AtomicBoolean();

    @AfterEach
    void tearDown() {
        stop.set(true);
        if (dispatcher != null) {
            dispatcher.close();
        }
    }

    @Test
    void anotherVirtualThreadRunsWhileEveryWorkerStaysBusy() throws Exception {
        final int carriers = Runtime.getRuntime().availableProcessors();
        dispatcher = Dispatcher.builder().workers(carriers).maxWorkers(carriers).build();
        final AtomicLong turns = new AtomicLong();
        final List<Mailbox<Integer>> boxes = new ArrayList<>();
        final int boxCount = 4 * carriers;
        for (int i = 0; i < boxCount; i++) {
            final int self = i;
            boxes.add(dispatcher.newMailbox(n -> {
                final long until = System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(20); // CPU work, no parking
                while (System.nanoTime() < until) {
                    Thread.onSpinWait();
                }
                turns.incrementAndGet();
                if (!stop.get()) {
                    boxes.get(self).offer(n + 1); // always more work: the workers never park
                }
            }));
        }
        boxes.forEach(b -> b.offer(0));
        // Every carrier is now held by a busy worker; a newly started virtual thread needs one of them.
        final long before = turns.get();
        final CountDownLatch ran = new CountDownLatch(1);
        Thread.ofVirtual().name("probe").start(ran::countDown);
        // 20 s: the property is "runs at all while saturated" (before the workers yielded it never ran); 5 s was passed
        // once in CI with every core busy twice over
        assertThat(ran.await(20, TimeUnit.SECONDS))
            .as("a virtual thread got a carrier while the dispatcher was saturated").isTrue();
        assertThat(turns.get()).as("the workers were busy meanwhile").isGreaterThan(before);
    }
}
