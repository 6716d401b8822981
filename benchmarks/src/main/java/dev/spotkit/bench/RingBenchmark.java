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
import org.apache.pekko.actor.typed.Behavior;
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
 * Ring: {@value #SIZE} actors, each forwarding a token to the next; {@code tokens} tokens share {@value #HOPS} hops
 * per invocation; one op = one hop. Every hop allocates a new {@link Token} and bumps the receiving node's counter.
 *
 * <p>The raw variant has no actors to schedule: it keeps the {@value #SIZE} node states and hands every hop across
 * two virtual threads (even nodes on one, odd nodes on the other), so each hop is one queue offer and one poll
 * across threads plus the same node-state update.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 3, jvmArgsAppend = {Jvm.ADD_OPENS, Jvm.NATIVE, Jvm.XMS, Jvm.XMX, Jvm.QUIET_SLF4J})
public class RingBenchmark {
    /** Actors in the ring. */
    public static final int SIZE = 1_000;
    /** Hops per invocation, all tokens together. */
    public static final int HOPS = 200_000;

    /** Implementation under test. */
    @Param({"raw", "spotkit", "spotkit-mailbox", "pekko", "pekko-tuned"})
    public String impl;

    /** Tokens circulating at once (the same for every implementation); must divide {@value #HOPS}. */
    @Param({"1"})
    public int tokens;

    private Workload workload;

    /** Builds the ring of the chosen implementation. */
    @Setup(Level.Trial)
    public void setUp() {
        if (tokens < 1 || HOPS % tokens != 0 || tokens > SIZE) {
            throw new IllegalArgumentException("tokens " + tokens + " must divide " + HOPS + " and be <= " + SIZE);
        }
        workload = switch (impl) {
            case "raw" -> new Raw(tokens);
            case "spotkit" -> new Spotkit(tokens);
            case "spotkit-mailbox" -> new SpotkitMailbox(tokens);
            case "pekko", "pekko-tuned" -> new Pekko(tokens, PekkoSetting.tuned(impl));
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
    public void ring() throws Exception {
        workload.runOnce();
    }

    /** A token: the node it is addressed to and the hops it still has to make. */
    record Token(int node, int remaining) {
    }

    /** One node's logic, identical in every variant. */
    static final class Node {
        private final int index;
        private final Completion done;
        private long hops;

        Node(final int index, final Completion done) {
            this.index = index;
            this.done = done;
        }

        Token onToken(final Token token) {
            hops++;
            if (token.remaining() == 0) {
                done.signal();
                return null;
            }
            return new Token(next(index), token.remaining() - 1);
        }

        long hops() {
            return hops;
        }
    }

    static int next(final int index) {
        return index + 1 == SIZE ? 0 : index + 1;
    }

    /** Where token {@code t} of {@code count} starts: spread evenly around the ring. */
    static int start(final int t, final int count) {
        return t * (SIZE / count);
    }

    /** Two virtual threads with a raw queue each; node i is handled by thread i % 2. */
    static final class Raw implements Workload {
        private final Completion done = new Completion();
        private final int tokens;
        private final Node[] nodes = new Node[SIZE];
        private final RawActor<?>[] threads = new RawActor<?>[2];

        Raw(final int tokens) {
            this.tokens = tokens;
            for (int i = 0; i < SIZE; i++) {
                nodes[i] = new Node(i, done);
            }
            for (int t = 0; t < 2; t++) {
                threads[t] = new RawActor<Token>("raw-ring-" + t, this::onToken);
            }
            threads[0].start();
            threads[1].start();
        }

        private void onToken(final Token token) {
            final Token next = nodes[token.node()].onToken(token);
            if (next != null) {
                send(next);
            }
        }

        @SuppressWarnings("unchecked")
        private void send(final Token token) {
            ((RawActor<Token>) threads[token.node() & 1]).offer(token);
        }

        @Override
        public void runOnce() throws Exception {
            done.arm(tokens);
            for (int t = 0; t < tokens; t++) {
                send(new Token(start(t, tokens), HOPS / tokens - 1));
            }
            done.await("raw ring");
        }

        @Override
        public void close() {
            threads[0].close();
            threads[1].close();
        }
    }

    /** Tells a ring actor its index and its successor; sent once, before the first token. */
    record Wire(int index, dev.spotkit.core.ActorRef next) {
    }

    /** {@value #SIZE} actors of the public API on one MeshNode ({@link SpotkitApi}). */
    static final class Spotkit implements Workload {
        private final Completion done = new Completion();
        private final int tokens;
        private final MeshNode node;
        private final Target[] targets = new Target[SIZE];

        Spotkit(final int tokens) {
            this.tokens = tokens;
            node = SpotkitApi.node("ring", RingActor::new);
            final dev.spotkit.core.ActorRef[] refs = new dev.spotkit.core.ActorRef[SIZE];
            for (int i = 0; i < SIZE; i++) {
                refs[i] = SpotkitApi.create(node, "node-" + i);
                targets[i] = node.toActor(refs[i]);
            }
            for (int i = 0; i < SIZE; i++) {
                targets[i].send(new Wire(i, refs[next(i)]));
            }
        }

        private final class RingActor extends SpotkitApi.BenchActor {
            private Node logic;
            private Target successor;

            RingActor(final ActorContext ctx) {
                super(ctx);
            }

            @Override
            public void configure(final ActorHandlers on) {
                on.message(Wire.class, w -> {
                    logic = new Node(w.index(), done);
                    successor = ctx.toActor(w.next());
                }).message(Token.class, token -> {
                    final Token next = logic.onToken(token);
                    if (next != null) {
                        successor.send(next);
                    }
                });
            }
        }

        @Override
        public void runOnce() throws Exception {
            done.arm(tokens);
            for (int t = 0; t < tokens; t++) {
                final int at = start(t, tokens);
                targets[at].send(new Token(at, HOPS / tokens - 1));
            }
            done.await("spotkit ring");
        }

        @Override
        public void close() {
            node.close();
        }
    }

    /** {@value #SIZE} Spotkit mailboxes on one dispatcher ({@link SpotkitSetting}). */
    static final class SpotkitMailbox implements Workload {
        private final Completion done = new Completion();
        private final int tokens;
        private final Dispatcher dispatcher = SpotkitSetting.newDispatcher("ring");
        private final AtomicReferenceArray<Mailbox<Token>> ring = new AtomicReferenceArray<>(SIZE);

        SpotkitMailbox(final int tokens) {
            this.tokens = tokens;
            for (int i = 0; i < SIZE; i++) {
                final Node node = new Node(i, done);
                ring.set(i, SpotkitSetting.spawn(dispatcher, (Token token) -> {
                    final Token next = node.onToken(token);
                    if (next != null) {
                        SpotkitSetting.send(ring.getPlain(next.node()), next);
                    }
                }));
            }
        }

        @Override
        public void runOnce() throws Exception {
            done.arm(tokens);
            for (int t = 0; t < tokens; t++) {
                final int at = start(t, tokens);
                SpotkitSetting.send(ring.get(at), new Token(at, HOPS / tokens - 1));
            }
            done.await("spotkit-mailbox ring");
        }

        @Override
        public void close() {
            dispatcher.close();
        }
    }

    /** {@value #SIZE} Pekko typed actors on the default dispatcher ({@link PekkoSetting}). */
    static final class Pekko implements Workload {
        private final Completion done = new Completion();
        private final int tokens;
        private final ActorSystem<Void> system;
        private final AtomicReferenceArray<ActorRef<Token>> ring = new AtomicReferenceArray<>(SIZE);

        Pekko(final int tokens, final boolean tuned) {
            this.tokens = tokens;
            final CountDownLatch ready = new CountDownLatch(1);
            system = PekkoSetting.system(Behaviors.<Void>setup(ctx -> {
                for (int i = 0; i < SIZE; i++) {
                    ring.set(i, ctx.spawn(node(i), "node-" + i));
                }
                ready.countDown();
                return Behaviors.empty();
            }), "ring", tuned);
            try {
                if (!ready.await(10, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("Pekko guardian did not spawn the ring in 10 s");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }

        private Behavior<Token> node(final int index) {
            final Node node = new Node(index, done);
            return Behaviors.receiveMessage(token -> {
                final Token next = node.onToken(token);
                if (next != null) {
                    ring.getPlain(next.node()).tell(next);
                }
                return Behaviors.same();
            });
        }

        @Override
        public void runOnce() throws Exception {
            done.arm(tokens);
            for (int t = 0; t < tokens; t++) {
                final int at = start(t, tokens);
                ring.get(at).tell(new Token(at, HOPS / tokens - 1));
            }
            done.await("pekko ring");
        }

        @Override
        public void close() {
            PekkoSetting.terminate(system);
        }
    }
}
