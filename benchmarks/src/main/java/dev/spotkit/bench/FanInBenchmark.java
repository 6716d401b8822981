package dev.spotkit.bench;

import dev.spotkit.bench.CreditProducer.Item;
import dev.spotkit.core.ActorContext;
import dev.spotkit.core.ActorHandlers;
import dev.spotkit.core.MeshNode;
import dev.spotkit.core.Target;
import dev.spotkit.mailbox.Dispatcher;
import dev.spotkit.mailbox.Mailbox;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Fan-in: {@code producers} platform threads send {@value #MESSAGES} messages in all to one consumer actor; one op =
 * one message handled. Flow control is the same for every variant: {@link CreditProducer} (at most
 * {@value CreditProducer#WINDOW} unacknowledged per producer, acknowledged every {@value CreditProducer#ACK_EVERY}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 3, jvmArgsAppend = {Jvm.ADD_OPENS, Jvm.NATIVE, Jvm.XMS, Jvm.XMX, Jvm.QUIET_SLF4J})
public class FanInBenchmark {
    /** Messages per invocation, all producers together (2^20: divisible by 1, 2, 4 and the ack period). */
    public static final int MESSAGES = 1 << 20;

    /** Implementation under test. */
    @Param({"raw", "spotkit", "spotkit-mailbox", "pekko", "pekko-tuned"})
    public String impl;

    /** Producer threads. */
    @Param({"1", "2", "4"})
    public int producers;

    private Workload workload;

    /** Builds the consumer and starts the producers. */
    @Setup(Level.Trial)
    public void setUp() {
        if (producers < 1 || MESSAGES % (producers * CreditProducer.ACK_EVERY) != 0) {
            throw new IllegalArgumentException("producers " + producers + " must divide " + MESSAGES
                + " in multiples of " + CreditProducer.ACK_EVERY);
        }
        workload = switch (impl) {
            case "raw" -> new Raw(producers);
            case "spotkit" -> new Spotkit(producers);
            case "spotkit-mailbox" -> new SpotkitMailbox(producers);
            case "pekko", "pekko-tuned" -> new Pekko(producers, PekkoSetting.tuned(impl));
            default -> throw new IllegalArgumentException("unknown impl " + impl);
        };
    }

    /** Stops the producers and the implementation's threads. */
    @TearDown(Level.Trial)
    public void tearDown() {
        workload.close();
    }

    /**
     * One invocation: {@value #MESSAGES} messages.
     *
     * @throws Exception when the messages were not all handled in time.
     */
    @Benchmark
    @OperationsPerInvocation(MESSAGES)
    public void fanIn() throws Exception {
        workload.runOnce();
    }

    /** The consumer's logic, identical in every variant: count, acknowledge, signal the last message. */
    static final class Sink {
        private final Completion done = new Completion();
        /** Cumulative target; written by the harness before the round starts, read by the consumer. */
        private volatile long target;
        /** Messages handled so far, cumulative. Consumer turns only. */
        private long total;

        void onItem(final Item item) {
            item.from().onReceived();
            if (++total == target) {
                done.signal();
            }
        }
    }

    /** The producers plus the shared round logic; subclasses provide the consumer and its send path. */
    abstract static class Base implements Workload {
        final Sink sink = new Sink();
        private final CreditProducer[] producers;
        private final String name;

        Base(final String name, final int count) {
            this.name = name;
            this.producers = new CreditProducer[count];
        }

        /** Starts the producers; call at the end of the subclass constructor, once the send path works. */
        void startProducers(final Consumer<Item> send) {
            for (int i = 0; i < producers.length; i++) {
                producers[i] = new CreditProducer(name + "-producer-" + i, send).start();
            }
        }

        @Override
        public void runOnce() throws Exception {
            sink.done.arm(1);
            sink.target = sink.target + MESSAGES;
            for (CreditProducer p : producers) {
                p.round(MESSAGES / producers.length);
            }
            sink.done.await(name + " fan-in");
        }

        void closeProducers() {
            for (CreditProducer p : producers) {
                if (p != null) {
                    p.close();
                }
            }
        }
    }

    /** One raw queue drained by one virtual thread. */
    static final class Raw extends Base {
        private final RawActor<Item> consumer;

        Raw(final int producers) {
            super("raw", producers);
            consumer = new RawActor<Item>("raw-consumer", sink::onItem).start();
            startProducers(consumer::offer);
        }

        @Override
        public void close() {
            closeProducers();
            consumer.close();
        }
    }

    /** One actor of the public API on a MeshNode ({@link SpotkitApi}); producers send through a Target. */
    static final class Spotkit extends Base {
        private final MeshNode node;

        Spotkit(final int producers) {
            super("spotkit", producers);
            node = SpotkitApi.node("fanin", ConsumerActor::new);
            final Target consumer = node.toActor(SpotkitApi.create(node, "consumer"));
            startProducers(consumer::send);
        }

        private final class ConsumerActor extends SpotkitApi.BenchActor {
            ConsumerActor(final ActorContext ctx) {
                super(ctx);
            }

            @Override
            public void configure(final ActorHandlers on) {
                on.message(Item.class, sink::onItem);
            }
        }

        @Override
        public void close() {
            closeProducers();
            node.close();
        }
    }

    /** One Spotkit mailbox ({@link SpotkitSetting}). */
    static final class SpotkitMailbox extends Base {
        private final Dispatcher dispatcher = SpotkitSetting.newDispatcher("fanin");
        private final Mailbox<Item> consumer;

        SpotkitMailbox(final int producers) {
            super("spotkit-mailbox", producers);
            consumer = SpotkitSetting.spawn(dispatcher, sink::onItem);
            startProducers(item -> SpotkitSetting.send(consumer, item));
        }

        @Override
        public void close() {
            closeProducers();
            dispatcher.close();
        }
    }

    /** One Pekko typed actor ({@link PekkoSetting}). */
    static final class Pekko extends Base {
        private final ActorSystem<Void> system;

        Pekko(final int producers, final boolean tuned) {
            super("pekko", producers);
            final AtomicReference<ActorRef<Item>> consumer = new AtomicReference<>();
            final CountDownLatch ready = new CountDownLatch(1);
            system = PekkoSetting.system(Behaviors.<Void>setup(ctx -> {
                consumer.set(ctx.spawn(Behaviors.<Item>receiveMessage(item -> {
                    sink.onItem(item);
                    return Behaviors.same();
                }), "consumer"));
                ready.countDown();
                return Behaviors.empty();
            }), "fanin", tuned);
            try {
                if (!ready.await(10, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("Pekko guardian did not spawn the consumer in 10 s");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            final ActorRef<Item> ref = consumer.get();
            startProducers(ref::tell);
        }

        @Override
        public void close() {
            closeProducers();
            PekkoSetting.terminate(system);
        }
    }
}
