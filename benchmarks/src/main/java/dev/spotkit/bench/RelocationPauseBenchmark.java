package dev.spotkit.bench;

import dev.spotkit.core.Actor;
import dev.spotkit.core.ActorContext;
import dev.spotkit.core.ActorHandlers;
import dev.spotkit.core.ActorRelocationAdapter;
import dev.spotkit.core.EntrySpot;
import dev.spotkit.core.EntrySpotContext;
import dev.spotkit.core.JoinResult;
import dev.spotkit.core.MeshNode;
import dev.spotkit.core.UserSpot;
import dev.spotkit.core.UserSpotContext;
import dev.spotkit.redis.RedisLocationStore;
import dev.spotkit.redis.RedisRelocationStore;
import dev.spotkit.redis.RedisStoreOptions;
import dev.spotkit.store.InMemoryLocationStore;
import dev.spotkit.store.InMemoryRelocationStore;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Relocation pause of one actor (spec 000 section 4.2, spec 001): two {@link MeshNode}s in this JVM form a mesh
 * over 127.0.0.1 and share one {@link InMemoryLocationStore} and {@link InMemoryRelocationStore}. One actor of
 * type {@code mover} holds {@code stateBytes} bytes of state moved by a {@code preserveStateWith} adapter (capture
 * copies the array, restore keeps the received one). A paced sender thread keeps sending it small
 * {@link Tick} messages from the first node (one every {@value #SEND_PAUSE_MICROS} us) for the whole trial.
 *
 * <p>One benchmark operation = one JoinSpot round trip: the benchmark thread sends the actor a {@link Move} naming
 * the other spot, the actor calls {@code ctx.joinSpot(spot).defer()}, and the operation ends when
 * {@link Actor#onJoinCompleted} with {@link JoinResult.Accepted} ran on the (new) instance. Seal and dispatch
 * open are not observable through the public API, so the score is this end-to-end figure: it includes the Move
 * message's queueing behind ticks, command 28 approval, capture, Restore (40/52), relay (31), cutover (34), the
 * target's Location Store CAS, the membership callbacks and the completion callback (JMH SampleTime: p50/p99).
 *
 * <p>Delivery gap (printed per fork as {@code GAP impl=.. stateBytes=.. p50_us=.. p99_us=.. max_us=.. n=..}): for
 * every operation, the largest interval between two consecutive ticks handled by the actor (source or target
 * instance) from the Move until the first tick handled after the join completed; with a sender pacing at
 * {@value #SEND_PAUSE_MICROS} us, a value far above that is the time the actor delivered nothing around the
 * move. Recorded in an HdrHistogram of microseconds.
 *
 * <p>Variants ({@code impl}): {@code crossNode} alternates the actor between a spot on node A and one on node B
 * (every operation is a live relocation); {@code sameNode} (the baseline, same run) alternates it between two
 * spots on node A (a membership change with no relocation).
 *
 * <p>Stores ({@code store}): {@code memory} (default) shares one {@code InMemoryLocationStore} and
 * {@code InMemoryRelocationStore} between the nodes; {@code redis} gives each node its own Redis Location and
 * Relocation Store connection to a {@code redis-server} the benchmark starts on 127.0.0.1, as nodes in production
 * run: every store request of a move is then a loopback round trip.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(value = 3, jvmArgsAppend = {Jvm.ADD_OPENS, Jvm.NATIVE, Jvm.XMS, Jvm.XMX, Jvm.QUIET_SLF4J})
public class RelocationPauseBenchmark {

    /** Pause of the sender between two ticks. */
    static final long SEND_PAUSE_MICROS = 100;
    private static final String SECRET = "spotkit-bench-cluster-secret-0123456789";

    /** A tick from the sender. */
    record Tick() {
    }

    /**
     * Join the given spot.
     *
     * @param spotId a User Spot id.
     */
    record Move(String spotId) {
    }

    /**
     * Allocate this much state.
     *
     * @param bytes state size in bytes.
     */
    record Fill(int bytes) {
    }

    /** Completed by the instance that ran {@code onJoinCompleted}; replaced per operation. */
    static volatile CompletableFuture<JoinResult> joined = new CompletableFuture<>();
    /** Handling time of the last tick (System.nanoTime), and the largest gap since the last reset (ns). */
    static volatile long lastTick;
    static volatile long maxGap;
    /** Ticks handled so far (both instances). */
    static volatile long ticks;

    /** The moving actor: state bytes, tick gap bookkeeping, JoinSpot on {@link Move}. */
    static final class Mover implements Actor {
        private final ActorContext ctx;
        /** The state: an array of its own, or (after a move) the view restore was given (see {@link MoverState}). */
        java.nio.ByteBuffer state = java.nio.ByteBuffer.allocate(0);

        Mover(final ActorContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public void configure(final ActorHandlers on) {
            on.message(Tick.class, t -> {
                final long now = System.nanoTime();
                final long last = lastTick;
                if (last != 0 && now - last > maxGap) {
                    maxGap = now - last;
                }
                lastTick = now;
                ticks++;
            }).message(Move.class, m -> ctx.joinSpot(m.spotId()).timeout(Duration.ofSeconds(30)).defer())
                .message(Fill.class, f -> state = java.nio.ByteBuffer.wrap(new byte[f.bytes()]));
        }

        @Override
        public void onJoinCompleted(final JoinResult result) {
            joined.complete(result);
        }
    }

    /**
     * PreserveStateWith: capture copies the state into a new array (the application's one copy), restore keeps what
     * it is given without copying: the view of the received payload ({@code restore(A, ByteBuffer)}, what the
     * framework calls), or the array of the default path. Keeping the view past the call relies on the current
     * implementation (the assembled payload is an ordinary heap array nobody reuses); a real adapter decodes its
     * state from the view during the call.
     */
    static final class MoverState implements ActorRelocationAdapter<Mover> {
        @Override
        public byte[] capture(final Mover actor) {
            final byte[] copy = new byte[actor.state.remaining()];
            actor.state.duplicate().get(copy);
            return copy;
        }

        @Override
        public void restore(final Mover actor, final byte[] bytes) {
            actor.state = java.nio.ByteBuffer.wrap(bytes);
        }

        @Override
        public void restore(final Mover actor, final java.nio.ByteBuffer view) {
            actor.state = view;
        }
    }

    /** A spot that admits every actor. */
    static final class Room implements UserSpot<Mover> {
        private final UserSpotContext ctx;

        Room(final UserSpotContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public UserSpotContext context() {
            return ctx;
        }
    }

    /** The Entry Spot of each node. */
    static final class Entry implements EntrySpot {
        private final EntrySpotContext ctx;

        Entry(final EntrySpotContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public EntrySpotContext context() {
            return ctx;
        }
    }

    /** {@code crossNode} or {@code sameNode} (baseline). */
    @Param({"crossNode", "sameNode"})
    public String impl;

    /** {@code memory} (shared in-memory stores) or {@code redis} (a local redis-server, a connection per node). */
    @Param({"memory"})
    public String store;

    /** Bytes of actor state moved per relocation. */
    @Param({"1024", "1048576"})
    public int stateBytes;

    private LocalRedis redis;
    private MeshNode a;
    private MeshNode b;
    private String actor;
    private final String[] spots = new String[2];
    private int next;
    private Thread sender;
    private final AtomicBoolean sending = new AtomicBoolean();
    private final Histogram gapMicros = new Histogram(TimeUnit.MINUTES.toMicros(1), 3);

    /**
     * Starts both nodes, places the actor on A and the spots, gives the actor its state, starts the sender.
     *
     * @throws Exception when placement never picks the wanted node in 64 tries, or a step times out.
     */
    @Setup(Level.Trial)
    public void setUp() throws Exception {
        if ("redis".equals(store)) {
            redis = LocalRedis.start();
            final RedisStoreOptions options = RedisStoreOptions.of(redis.uri(), "bench");
            a = node(builder -> builder.locationStore(RedisLocationStore.connect(options))
                .relocationStore(RedisRelocationStore.connect(options)).closeStoresOnClose());
            b = node(builder -> builder.locationStore(RedisLocationStore.connect(options))
                .relocationStore(RedisRelocationStore.connect(options)).closeStoresOnClose());
        } else {
            final InMemoryLocationStore locations = new InMemoryLocationStore();
            final InMemoryRelocationStore relocations = new InMemoryRelocationStore();
            a = node(builder -> builder.locationStore(locations).relocationStore(relocations));
            b = node(builder -> builder.locationStore(locations).relocationStore(relocations));
        }
        actor = actorOn(a);
        spots[0] = spotOn(a, "home");
        spots[1] = spotOn("crossNode".equals(impl) ? b : a, "away");
        a.toActor(actor).send(new Fill(stateBytes));
        move(spots[0]); // start as a member of spots[0] on A
        next = 1;
        sending.set(true);
        sender = Thread.ofPlatform().daemon().name("tick-sender").start(() -> {
            while (sending.get()) {
                a.toActor(actor).send(new Tick());
                LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(SEND_PAUSE_MICROS));
            }
        });
    }

    private static MeshNode node(final java.util.function.UnaryOperator<MeshNode.Builder> stores) {
        return stores.apply(MeshNode.builder().meshName("bench"))
            .mesh(m -> m.listen("127.0.0.1", 0).clusterSecret(SECRET))
            .objectServer(s -> s.entrySpot(Entry::new)
                .actor("mover", Mover::new, o -> o.preserveStateWith(new MoverState()))
                .userSpot("room", Room::new, o -> o.recreateOnRelocation()))
            .start();
    }

    private static String actorOn(final MeshNode on) {
        for (int i = 0; i < 64; i++) {
            final String id = "mover-" + i;
            if (on.actors().getOrCreate(id, "mover").await().nodeRid().equals(on.nodeRid())) {
                return id;
            }
        }
        throw new IllegalStateException("placement never chose " + on.nodeRid());
    }

    private static String spotOn(final MeshNode on, final String prefix) {
        for (int i = 0; i < 64; i++) {
            final String id = prefix + "-" + i;
            if (on.spots().getOrCreate(id, "room").await().nodeRid().equals(on.nodeRid())) {
                return id;
            }
        }
        throw new IllegalStateException("placement never chose " + on.nodeRid());
    }

    private JoinResult move(final String spot) throws Exception {
        joined = new CompletableFuture<>();
        a.toActor(actor).send(new Move(spot)); // from A: routed (or followed) to the actor wherever it is
        final JoinResult result = joined.get(Jvm.INVOCATION_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        if (!(result instanceof JoinResult.Accepted)) {
            throw new IllegalStateException("join to " + spot + " ended " + result);
        }
        return result;
    }

    /** Resets the gap before each operation. */
    @Setup(Level.Invocation)
    public void resetGap() {
        maxGap = 0;
    }

    /**
     * One JoinSpot round trip to the other spot.
     *
     * @return the join result.
     * @throws Exception when the join fails or takes over {@link Jvm#INVOCATION_TIMEOUT_SECONDS}.
     */
    @Benchmark
    public JoinResult joinRoundTrip() throws Exception {
        final JoinResult result = move(spots[next]);
        next ^= 1;
        return result;
    }

    /**
     * Waits for the first tick handled after the join completed, then records the operation's largest gap.
     *
     * @throws InterruptedException never in practice.
     */
    @TearDown(Level.Invocation)
    public void recordGap() throws InterruptedException {
        final long seen = ticks;
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Jvm.INVOCATION_TIMEOUT_SECONDS);
        while (ticks <= seen + 1 && System.nanoTime() < deadline) {
            LockSupport.parkNanos(10_000);
        }
        gapMicros.recordValue(Math.min(TimeUnit.NANOSECONDS.toMicros(maxGap), gapMicros.getHighestTrackableValue()));
    }

    /**
     * Prints the gap line, stops the sender and both nodes.
     *
     * @throws InterruptedException never in practice.
     */
    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        sending.set(false);
        sender.join(TimeUnit.SECONDS.toMillis(Jvm.INVOCATION_TIMEOUT_SECONDS));
        System.out.printf("GAP impl=%s stateBytes=%d p50_us=%d p99_us=%d max_us=%d n=%d%n", impl, stateBytes,
            gapMicros.getValueAtPercentile(50), gapMicros.getValueAtPercentile(99), gapMicros.getMaxValue(),
            gapMicros.getTotalCount());
        a.close();
        b.close();
        if (redis != null) {
            redis.close();
        }
    }
}
