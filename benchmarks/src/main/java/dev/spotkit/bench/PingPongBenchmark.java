package dev.spotkit.bench;

import dev.spotkit.core.ActorContext;
import dev.spotkit.core.ActorHandlers;
import dev.spotkit.core.MeshNode;
import dev.spotkit.core.Target;
import dev.spotkit.mailbox.Dispatcher;
import dev.spotkit.mailbox.Mailbox;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
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
 * Ping-pong: two actors bounce one ball {@value #HOPS} times; one op = one hop (one message sent by one actor and
 * handled by the other). Every hop allocates a new {@link Ball}, in every variant.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 3, jvmArgsAppend = {Jvm.ADD_OPENS, Jvm.NATIVE, Jvm.XMS, Jvm.XMX, Jvm.QUIET_SLF4J})
public class PingPongBenchmark {
    /** Hops per invocation. */
    public static final int HOPS = 200_000;

    /** Implementation under test. */
    @Param({"raw", "spotkit", "spotkit-metrics", "spotkit-mailbox", "pekko", "pekko-tuned"})
    public String impl;

    private Workload workload;

    /** Builds the two actors of the chosen implementation. */
    @Setup(Level.Trial)
    public void setUp() {
        workload = switch (impl) {
            case "raw" -> new Raw();
            case "spotkit" -> new Spotkit(false);
            case "spotkit-metrics" -> new Spotkit(true); // the same, with a SimpleMeterRegistry
            case "spotkit-mailbox" -> new SpotkitMailbox();
            case "pekko", "pekko-tuned" -> new Pekko(PekkoSetting.tuned(impl));
            default -> throw new IllegalArgumentException("unknown impl " + impl);
        };
    }

    /** Stops the implementation's threads. */
    @TearDown(Level.Trial)
    public void tearDown() {
        workload.close();
    }

    /**
     * One invocation: {@value #HOPS} hops.
     *
     * @throws Exception when the hops did not finish in time.
     */
    @Benchmark
    @OperationsPerInvocation(HOPS)
    public void pingPong() throws Exception {
        workload.runOnce();
    }

    /** The ball: hops still to go. */
    record Ball(int remaining) {
    }

    /** One player's logic, identical in every variant: count the hop, return the next ball or signal the end. */
    static final class Player {
        private final Completion done;
        private long hops;

        Player(final Completion done) {
            this.done = done;
        }

        Ball onBall(final Ball ball) {
            hops++;
            if (ball.remaining() == 0) {
                done.signal();
                return null;
            }
            return new Ball(ball.remaining() - 1);
        }

        long hops() {
            return hops;
        }
    }

    /** Two raw queues, each drained by its own virtual thread: every hop crosses threads. */
    static final class Raw implements Workload {
        private final Completion done = new Completion();
        private final RawActor<Ball> a;
        private final RawActor<Ball> b;

        Raw() {
            final Player pa = new Player(done);
            final Player pb = new Player(done);
            final RawActor<?>[] partner = new RawActor<?>[2];
            a = new RawActor<>("raw-a", ball -> forward(pa.onBall(ball), partner[1]));
            b = new RawActor<>("raw-b", ball -> forward(pb.onBall(ball), partner[0]));
            partner[0] = a;
            partner[1] = b;
            a.start();
            b.start();
        }

        @SuppressWarnings("unchecked")
        private static void forward(final Ball next, final RawActor<?> to) {
            if (next != null) {
                ((RawActor<Ball>) to).offer(next);
            }
        }

        @Override
        public void runOnce() throws Exception {
            done.arm(1);
            a.offer(new Ball(HOPS - 1));
            done.await("raw ping-pong");
        }

        @Override
        public void close() {
            a.close();
            b.close();
        }
    }

    /** Tells a player who its partner is; sent once, before the first ball. */
    record Partner(dev.spotkit.core.ActorRef ref) {
    }

    /** Two actors of the public API on one MeshNode ({@link SpotkitApi}). */
    static final class Spotkit implements Workload {
        private final Completion done = new Completion();
        private final MeshNode node;
        private final Target a;

        Spotkit(final boolean metrics) {
            node = SpotkitApi.node("pingpong", PlayerActor::new, metrics);
            final dev.spotkit.core.ActorRef refA = SpotkitApi.create(node, "a");
            final dev.spotkit.core.ActorRef refB = SpotkitApi.create(node, "b");
            a = node.toActor(refA);
            a.send(new Partner(refB));
            node.toActor(refB).send(new Partner(refA));
        }

        private final class PlayerActor extends SpotkitApi.BenchActor {
            private final Player logic = new Player(done);
            private Target partner;

            PlayerActor(final ActorContext ctx) {
                super(ctx);
            }

            @Override
            public void configure(final ActorHandlers on) {
                on.message(Partner.class, p -> partner = ctx.toActor(p.ref()))
                    .message(Ball.class, ball -> {
                        final Ball next = logic.onBall(ball);
                        if (next != null) {
                            partner.send(next);
                        }
                    });
            }
        }

        @Override
        public void runOnce() throws Exception {
            done.arm(1);
            a.send(new Ball(HOPS - 1));
            done.await("spotkit ping-pong");
        }

        @Override
        public void close() {
            node.close();
        }
    }

    /** Two Spotkit mailboxes on one dispatcher ({@link SpotkitSetting}). */
    static final class SpotkitMailbox implements Workload {
        private final Completion done = new Completion();
        private final Dispatcher dispatcher = SpotkitSetting.newDispatcher("pingpong");
        private final Mailbox<Ball> a;
        private final Mailbox<Ball> b;

        SpotkitMailbox() {
            final Player pa = new Player(done);
            final Player pb = new Player(done);
            final AtomicReferenceArray<Mailbox<Ball>> refs = new AtomicReferenceArray<>(2);
            a = SpotkitSetting.spawn(dispatcher, ball -> forward(pa.onBall(ball), refs.getPlain(1)));
            b = SpotkitSetting.spawn(dispatcher, ball -> forward(pb.onBall(ball), refs.getPlain(0)));
            refs.set(0, a);
            refs.set(1, b);
        }

        private static void forward(final Ball next, final Mailbox<Ball> to) {
            if (next != null) {
                SpotkitSetting.send(to, next);
            }
        }

        @Override
        public void runOnce() throws Exception {
            done.arm(1);
            SpotkitSetting.send(a, new Ball(HOPS - 1));
            done.await("spotkit-mailbox ping-pong");
        }

        @Override
        public void close() {
            dispatcher.close();
        }
    }

    /** Two Pekko typed actors on the default dispatcher ({@link PekkoSetting}). */
    static final class Pekko implements Workload {
        private final Completion done = new Completion();
        private final ActorSystem<Void> system;
        private final AtomicReferenceArray<ActorRef<Ball>> refs = new AtomicReferenceArray<>(2);

        Pekko(final boolean tuned) {
            final CountDownLatch ready = new CountDownLatch(1);
            system = PekkoSetting.system(Behaviors.<Void>setup(ctx -> {
                refs.set(0, ctx.spawn(player(1), "a"));
                refs.set(1, ctx.spawn(player(0), "b"));
                ready.countDown();
                return Behaviors.empty();
            }), "pingpong", tuned);
            try {
                if (!ready.await(10, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("Pekko guardian did not spawn the players in 10 s");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }

        private org.apache.pekko.actor.typed.Behavior<Ball> player(final int partner) {
            final Player logic = new Player(done);
            return Behaviors.receiveMessage(ball -> {
                final Ball next = logic.onBall(ball);
                if (next != null) {
                    refs.getPlain(partner).tell(next);
                }
                return Behaviors.same();
            });
        }

        @Override
        public void runOnce() throws Exception {
            done.arm(1);
            refs.get(0).tell(new Ball(HOPS - 1));
            done.await("pekko ping-pong");
        }

        @Override
        public void close() {
            PekkoSetting.terminate(system);
        }
    }
}
