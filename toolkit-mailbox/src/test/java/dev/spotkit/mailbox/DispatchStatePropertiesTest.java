package dev.spotkit.mailbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import org.awaitility.Awaitility;

/**
 * Random sequences of offer / close / open / open-with-backlog against a model of the run order: the backlog goes
 * before everything still unrun, closed runs nothing, nothing is lost or run twice.
 */
class DispatchStatePropertiesTest {
    private static Dispatcher dispatcher;

    @BeforeContainer
    static void start() {
        dispatcher = Dispatcher.builder().workers(2).build();
    }

    @AfterContainer
    static void stop() {
        dispatcher.close();
    }

    /** 0..5 = offer, 6 = close, 7 = open, 8 = open with a backlog of fresh numbers. */
    @Provide
    Arbitrary<List<Integer>> operations() {
        return Arbitraries.integers().between(0, 8).list().ofMinSize(1).ofMaxSize(60);
    }

    @Property(tries = 200)
    void runOrderMatchesTheModel(@ForAll("operations") final List<Integer> ops) throws Exception {
        final List<Integer> ran = Collections.synchronizedList(new ArrayList<>());
        final Mailbox<Integer> box = dispatcher.newMailbox(ran::add);
        final List<Integer> model = new ArrayList<>(); // everything in expected run order
        final List<Integer> unrun = new ArrayList<>(); // offered while closed, in order
        boolean closed = false;
        int next = 0;
        for (int op : ops) {
            if (op <= 5) {
                final int m = next++;
                assertThat(box.offer(m)).isEqualTo(OfferResult.ACCEPTED);
                if (closed) {
                    unrun.add(m);
                } else {
                    model.add(m);
                }
            } else if (op == 6 && !closed) {
                box.close();
                barrier(box); // the boundary: whatever was open-queued has run or stays queued
                final List<Integer> snapshot = List.copyOf(ran);
                // messages queued while open but not yet run stay ahead of later ones
                final List<Integer> stillQueued = model.subList(snapshot.size(), model.size());
                unrun.addAll(0, stillQueued);
                model.subList(snapshot.size(), model.size()).clear();
                assertThat(snapshot).containsExactlyElementsOf(model);
                closed = true;
            } else if (op == 7 && closed) {
                box.open();
                model.addAll(unrun);
                unrun.clear();
                closed = false;
            } else if (op == 8 && closed) {
                final List<Integer> backlog = List.of(next++, next++, next++);
                box.openWithBacklog(backlog);
                model.addAll(backlog);
                model.addAll(unrun);
                unrun.clear();
                closed = false;
            }
        }
        if (closed) {
            box.open();
            model.addAll(unrun);
        }
        Awaitility.await().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1)).atMost(10, TimeUnit.SECONDS)
            .until(() -> ran.size() >= model.size());
        barrier(box);
        assertThat(ran).containsExactlyElementsOf(model);
    }

    private static void barrier(final Mailbox<?> box) throws Exception {
        final CompletableFuture<Void> done = new CompletableFuture<>();
        box.gate().execute(() -> done.complete(null));
        done.get(10, TimeUnit.SECONDS);
    }
}
