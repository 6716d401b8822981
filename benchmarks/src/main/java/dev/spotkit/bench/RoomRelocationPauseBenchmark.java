package dev.spotkit.bench;

import dev.spotkit.core.Actor;
import dev.spotkit.core.ActorContext;
import dev.spotkit.core.ActorHandlers;
import dev.spotkit.core.ActorRelocationAdapter;
import dev.spotkit.core.EntrySpot;
import dev.spotkit.core.EntrySpotContext;
import dev.spotkit.core.HostRelocationResult;
import dev.spotkit.core.JoinResult;
import dev.spotkit.core.MeshNode;
import dev.spotkit.core.NodeEvent;
import dev.spotkit.core.SpotHandlers;
import dev.spotkit.core.SpotId;
import dev.spotkit.core.SpotRelocationAdapter;
import dev.spotkit.core.SpotRelocationResult;
import dev.spotkit.core.Target;
import dev.spotkit.core.UserSpot;
import dev.spotkit.core.UserSpotContext;
import dev.spotkit.store.InMemoryLocationStore;
import dev.spotkit.store.InMemoryRelocationStore;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
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
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

/**
 * Aggregate relocation pause of a SpotWide User Spot (spec 000 section 7): two {@link MeshNode}s in this JVM form a
 * mesh over 127.0.0.1 and share one {@link InMemoryLocationStore} and {@link InMemoryRelocationStore}. A room (a
 * SpotWide User Spot with 16 bytes of preserved state) with {@code members} member actors of
 * {@value #STATE_BYTES} bytes of preserved state each is made on node A (the only node running then), then node B
 * starts, and every operation moves the whole room with {@link MeshNode#relocateSpot} to the other node: A to B, B
 * to A, and so on. Beside it, in the same run, {@code actorMove}: one actor with {@value #STATE_BYTES} bytes of state
 * moved by host relocation ({@link MeshNode#relocate(dev.spotkit.core.NodeRid)}: its node's only Entry Spot actor).
 *
 * <p>A paced platform thread sends a {@link Probe} (carrying its send time) from node A every
 * {@value #PROBE_PAUSE_MICROS} us ({@value #PROBE_PAUSE_MICROS_LARGE} us for 10,000 members) to the room and to the
 * probed member (the last one in the aggregate's inventory order, {@code m} followed by {@code members - 1}
 * zero-padded), or to the single actor. Each node's factories tag the instances they make with the node (A or B), so
 * a handler knows on which side it runs. After each move, outside the measured operation, the benchmark waits until
 * the probes the hold relayed are drained (a probe sent after the move was handled), so the next move starts with
 * no backlog.
 *
 * <p>Score (JMH SampleTime, ms/op): one whole move, from the {@code relocateSpot} (or {@code relocate}) call until
 * its result. The pause is printed per fork after the trial, in microseconds, from HdrHistograms of the measurement
 * iterations only (warmup excluded):
 * <ul>
 *   <li>{@code held}: the held message, seen from outside: for the first probe handled on the target, its handling
 *       time minus its send time. It was not handled on the source, so it was sent (or still queued) when dispatch
 *       stopped there; this is the seal-to-open pause up to one probe interval and one handler turn.</li>
 *   <li>{@code gap}: the delivery gap: first handling on the target minus the last handling on the source.</li>
 *   <li>{@code runtime}: the runtime's own figure, {@link SpotRelocationResult#paused()} for a room;
 *       for the single actor the {@code relocation_committed} events' {@code pause} (source and target side).</li>
 *   <li>phases, from the same probes and from timestamps taken in the relocation adapters (capture on the source,
 *       restore on the target): see {@link Phases}.</li>
 * </ul>
 * Lines: {@code PAUSE kind=.. members=.. what=.. p50_us=.. p99_us=.. max_us=.. n=..} and one {@code RAW} line per
 * histogram with every recorded value (us), so {@code benchmarks/pauses.py} can merge the forks.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 1, time = 5)
@Measurement(iterations = 3, time = 5)
@Fork(value = 3, jvmArgsAppend = {Jvm.ADD_OPENS, Jvm.NATIVE, Jvm.XMS, Jvm.XMX, Jvm.QUIET_SLF4J})
public class RoomRelocationPauseBenchmark {

  /** Bytes of preserved state of every member and of the single actor: 1 KiB. */
  static final int STATE_BYTES = 1024;
  /** Pause of the probe sender between two rounds of probes, microseconds (rooms under 10,000 members, actor). */
  static final long PROBE_PAUSE_MICROS = 100;
  /**
   * The same for a room of 10,000 members or more, microseconds: its pauses last seconds, and at 100 us the hold
   * would relay ~10,000 probes per second of pause, a load of its own.
   */
  static final long PROBE_PAUSE_MICROS_LARGE = 1_000;
  /** The room's SpotId. */
  static final String ROOM = "room-1";
  private static final String SECRET = "spotkit-bench-cluster-secret-0123456789";
  private static final long WAIT_SECONDS = 120;

  /**
   * A probe.
   *
   * @param sentNanos {@link System#nanoTime()} at the send.
   */
  record Probe(long sentNanos) {
  }

  /**
   * Join the given spot.
   *
   * @param spotId a User Spot id.
   */
  record Join(String spotId) {
  }

  /**
   * Allocate this much state.
   *
   * @param bytes state size in bytes.
   */
  record Fill(int bytes) {
  }

  /** Joins that completed (Accepted). */
  static final AtomicInteger JOINED = new AtomicInteger();

  /**
   * Handling times of the probes to one object, per node (0 = A, 1 = B), and the first handling on the expected
   * target. Written by the object's handler (one turn at a time), reset by the benchmark thread between moves.
   */
  static final class ProbeWatch {
    /** {@link System#nanoTime()} of the last probe handled on each node. */
    final AtomicLongArray lastOn = new AtomicLongArray(2);
    volatile int target = -1;
    volatile long first;
    volatile long firstLatency;
    /** Send time of the last probe handled (anywhere). */
    volatile long lastSent;

    void handled(final int node, final long sentNanos) {
      final long now = System.nanoTime();
      lastOn.set(node, now);
      lastSent = sentNanos;
      if (node == target && first == 0) {
        firstLatency = now - sentNanos;
        first = now;
      }
    }

    void expect(final int node) {
      first = 0;
      firstLatency = 0;
      target = node;
    }
  }

  /** First and last call of a relocation adapter method during one move ({@link System#nanoTime()}). */
  static final class Span {
    final AtomicLong first = new AtomicLong();
    volatile long last;

    void hit() {
      final long now = System.nanoTime();
      first.compareAndSet(0, now);
      last = now;
    }

    void reset() {
      first.set(0);
      last = 0;
    }
  }

  static final ProbeWatch ROOM_WATCH = new ProbeWatch();
  static final ProbeWatch MEMBER_WATCH = new ProbeWatch();
  static final Span CAPTURE = new Span();
  static final Span RESTORE = new Span();

  /** A member (and the single actor): state bytes, probes, JoinSpot on {@link Join}. */
  static final class Member implements Actor {
    private final ActorContext ctx;
    private final int node;
    byte[] state = new byte[0];

    Member(final ActorContext ctx, final int node) {
      this.ctx = ctx;
      this.node = node;
    }

    @Override
    public void configure(final ActorHandlers on) {
      on.message(Probe.class, p -> MEMBER_WATCH.handled(node, p.sentNanos()))
          .message(Join.class, j -> ctx.joinSpot(j.spotId()).defer())
          .message(Fill.class, f -> state = new byte[f.bytes()]);
    }

    @Override
    public void onJoinCompleted(final JoinResult result) {
      if (result instanceof JoinResult.Accepted) {
        JOINED.incrementAndGet();
      }
    }
  }

  /** PreserveStateWith for members: the state array moves as it is (capture copies it). */
  static final class MemberState implements ActorRelocationAdapter<Member> {
    @Override
    public byte[] capture(final Member actor) {
      CAPTURE.hit();
      return actor.state.clone();
    }

    @Override
    public void restore(final Member actor, final byte[] bytes) {
      RESTORE.hit();
      actor.state = bytes;
    }
  }

  /** The room: a SpotWide User Spot that admits every member; probes; 16 bytes of state. */
  static final class Room implements UserSpot<Member> {
    private final UserSpotContext ctx;
    private final int node;
    long probes;
    long other;

    Room(final UserSpotContext ctx, final int node) {
      this.ctx = ctx;
      this.node = node;
    }

    @Override
    public UserSpotContext context() {
      return ctx;
    }

    @Override
    public void configure(final SpotHandlers on) {
      on.message(Probe.class, p -> {
        probes++;
        ROOM_WATCH.handled(node, p.sentNanos());
      });
    }
  }

  /** PreserveStateWith for the room: two longs. */
  static final class RoomState implements SpotRelocationAdapter<Room> {
    @Override
    public byte[] capture(final Room spot) {
      CAPTURE.hit();
      return ByteBuffer.allocate(16).putLong(spot.probes).putLong(spot.other).array();
    }

    @Override
    public void restore(final Room spot, final byte[] state) {
      RESTORE.hit();
      final ByteBuffer in = ByteBuffer.wrap(state);
      spot.probes = in.getLong();
      spot.other = in.getLong();
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

  /**
   * One node of the pair; {@code node} tags the instances its factories make (0 = A, 1 = B).
   *
   * @param node 0 or 1.
   * @param locations the shared Location Store.
   * @param relocations the shared Relocation Store.
   * @return the started node.
   */
  static MeshNode node(final int node, final InMemoryLocationStore locations,
      final InMemoryRelocationStore relocations) {
    return MeshNode.builder().meshName("bench").locationStore(locations).relocationStore(relocations)
        .mesh(m -> m.listen("127.0.0.1", 0).clusterSecret(SECRET))
        .objectServer(s -> s.entrySpot(Entry::new)
            .actor("member", ctx -> new Member(ctx, node), o -> o.preserveStateWith(new MemberState()))
            .userSpot("room", ctx -> new Room(ctx, node), o -> o.spotWide().preserveStateWith(new RoomState())))
        .start();
  }

  /**
   * The phases of one move, from outside (nanoseconds on this JVM's monotonic clock). {@code t0} is the call;
   * {@code lastSource} the last probe handled on the source (the seal follows it within one probe interval);
   * {@code capture0/1} the first and last capture adapter call; {@code sealed} the runtime's own start of its pause
   * (the result's end minus {@link SpotRelocationResult#paused()}: the seal step's end, after capture and the
   * inventory writes); {@code restore0/1} the first and last restore adapter call on the target; {@code open} the
   * first probe handled on the target; {@code done} the result seen by the caller.
   */
  static final class Phases {
    static final String[] NAMES = {"toSeal", "sealToCapture", "capture", "captureToSealed", "sealedToRestore",
        "restore", "restoreToOpen", "openToDone", "memberAfterRoom"};
    final Map<String, Histogram> histograms = new LinkedHashMap<>();

    Phases() {
      for (String n : NAMES) {
        histograms.put(n, histogram());
      }
    }

    void record(final String name, final long nanos) {
      final Histogram h = histograms.get(name);
      h.recordValue(Math.max(0, Math.min(TimeUnit.NANOSECONDS.toMicros(nanos), h.getHighestTrackableValue())));
    }
  }

  static Histogram histogram() {
    return new Histogram(TimeUnit.MINUTES.toMicros(5), 3);
  }

  static void record(final Histogram h, final long nanos) {
    h.recordValue(Math.max(0, Math.min(TimeUnit.NANOSECONDS.toMicros(nanos), h.getHighestTrackableValue())));
  }

  static void print(final String kind, final int members, final String what, final Histogram h) {
    System.out.printf("PAUSE kind=%s members=%d what=%s p50_us=%d p99_us=%d max_us=%d n=%d%n", kind, members, what,
        h.getValueAtPercentile(50), h.getValueAtPercentile(99), h.getMaxValue(), h.getTotalCount());
  }

  static void printRaw(final String kind, final int members, final String what, final StringBuilder values) {
    System.out.printf("RAW kind=%s members=%d what=%s us=%s%n", kind, members, what, values);
  }

  static void add(final StringBuilder raw, final long nanos) {
    if (!raw.isEmpty()) {
      raw.append(',');
    }
    raw.append(TimeUnit.NANOSECONDS.toMicros(nanos));
  }

  /**
   * Waits until every watched object handled a probe sent after this call: the backlog the move's hold left behind
   * is drained, so the next move's held probe does not wait behind it (outside the measured operation).
   */
  static void caughtUp(final ProbeWatch... watches) {
    final long mark = System.nanoTime();
    await(() -> java.util.Arrays.stream(watches).allMatch(w -> w.lastSent - mark > 0), "probe backlog drained");
  }

  /** Waits until {@code done} is true, at most {@link #WAIT_SECONDS}. */
  static void await(final java.util.function.BooleanSupplier done, final String what) {
    final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
    while (!done.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException(what + " did not happen in " + WAIT_SECONDS + " s");
      }
      LockSupport.parkNanos(50_000);
    }
  }

  /** The room trial: two nodes, the room with its members, the probe sender, the histograms. */
  @State(Scope.Benchmark)
  public static class RoomMove {
    /** Member actors of the room, each with 1 KiB of state. */
    @Param({"10", "1000", "10000"})
    public int members;

    final MeshNode[] nodes = new MeshNode[2];
    int here;
    private Thread sender;
    private final AtomicBoolean sending = new AtomicBoolean();
    private boolean measuring;
    private long t0;
    private long done;
    private SpotRelocationResult result;
    final Histogram held = histogram();
    final Histogram heldMember = histogram();
    final Histogram gap = histogram();
    final Histogram runtime = histogram();
    final Phases phases = new Phases();
    final StringBuilder rawHeld = new StringBuilder();
    final StringBuilder rawHeldMember = new StringBuilder();
    final StringBuilder rawRuntime = new StringBuilder();

    /**
     * Starts node A, makes the room and its members there (every member joined, state filled), starts node B and
     * the probe sender.
     */
    @Setup(Level.Trial)
    public void setUp() {
      final InMemoryLocationStore locations = new InMemoryLocationStore();
      final InMemoryRelocationStore relocations = new InMemoryRelocationStore();
      nodes[0] = node(0, locations, relocations);
      nodes[0].spots().getOrCreate(ROOM, "room").await();
      JOINED.set(0);
      for (int i = 0; i < members; i++) {
        final String id = memberId(i);
        nodes[0].actors().getOrCreate(id, "member").await();
        nodes[0].toActor(id).send(new Fill(STATE_BYTES));
        nodes[0].toActor(id).send(new Join(ROOM));
      }
      await(() -> JOINED.get() == members, members + " joins");
      nodes[1] = node(1, locations, relocations);
      here = 0;
      final Target room = nodes[0].toSpot(ROOM);
      final Target member = nodes[0].toActor(memberId(members - 1));
      final long pause = TimeUnit.MICROSECONDS.toNanos(members >= 10_000 ? PROBE_PAUSE_MICROS_LARGE
          : PROBE_PAUSE_MICROS);
      sending.set(true);
      sender = Thread.ofPlatform().daemon().name("probe-sender").start(() -> {
        while (sending.get()) {
          room.send(new Probe(System.nanoTime()));
          member.send(new Probe(System.nanoTime()));
          LockSupport.parkNanos(pause);
        }
      });
      await(() -> ROOM_WATCH.lastOn.get(0) != 0 && MEMBER_WATCH.lastOn.get(0) != 0, "first probes");
    }

    private String memberId(final int i) {
      return String.format("m%05d", i);
    }

    /**
     * Records only in measurement iterations.
     *
     * @param iteration JMH's iteration parameters.
     */
    @Setup(Level.Iteration)
    public void iteration(final IterationParams iteration) {
      measuring = iteration.getType() == IterationType.MEASUREMENT;
    }

    /** Before each move: the probes' expected target, the adapter spans. */
    @Setup(Level.Invocation)
    public void expect() {
      ROOM_WATCH.expect(1 - here);
      MEMBER_WATCH.expect(1 - here);
      CAPTURE.reset();
      RESTORE.reset();
    }

    SpotRelocationResult move() throws Exception {
      final MeshNode from = nodes[here];
      final MeshNode to = nodes[1 - here];
      t0 = System.nanoTime();
      result = from.relocateSpot(new SpotId(ROOM), to.nodeRid()).get(WAIT_SECONDS, TimeUnit.SECONDS);
      done = System.nanoTime();
      if (result.members() != members) {
        throw new IllegalStateException("moved " + result.members() + " members, not " + members);
      }
      return result;
    }

    /** After each move: waits for the first probes on the target, records, flips the side. */
    @TearDown(Level.Invocation)
    public void recordMove() {
      await(() -> ROOM_WATCH.first != 0 && MEMBER_WATCH.first != 0, "first probes on the target");
      final int source = here;
      here = 1 - here;
      if (measuring) {
        recordMove(source);
      }
      caughtUp(ROOM_WATCH, MEMBER_WATCH);
    }

    private void recordMove(final int source) {
      final long open = ROOM_WATCH.first;
      final long lastSource = Math.max(ROOM_WATCH.lastOn.get(source), MEMBER_WATCH.lastOn.get(source));
      final long sealed = done - result.paused().toNanos();
      record(held, ROOM_WATCH.firstLatency);
      record(heldMember, MEMBER_WATCH.firstLatency);
      record(gap, open - ROOM_WATCH.lastOn.get(source));
      record(runtime, result.paused().toNanos());
      add(rawHeld, ROOM_WATCH.firstLatency);
      add(rawHeldMember, MEMBER_WATCH.firstLatency);
      add(rawRuntime, result.paused().toNanos());
      phases.record("toSeal", lastSource - t0);
      phases.record("sealToCapture", CAPTURE.first.get() - lastSource);
      phases.record("capture", CAPTURE.last - CAPTURE.first.get());
      phases.record("captureToSealed", sealed - CAPTURE.last);
      phases.record("sealedToRestore", RESTORE.first.get() - sealed);
      phases.record("restore", RESTORE.last - RESTORE.first.get());
      phases.record("restoreToOpen", open - RESTORE.last);
      phases.record("openToDone", done - open);
      phases.record("memberAfterRoom", MEMBER_WATCH.first - open);
    }

    /**
     * Prints the pause lines, stops the sender and both nodes.
     *
     * @throws InterruptedException never in practice.
     */
    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
      sending.set(false);
      sender.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
      print("room", members, "held", held);
      print("room", members, "heldMember", heldMember);
      print("room", members, "gap", gap);
      print("room", members, "runtime", runtime);
      phases.histograms.forEach((n, h) -> print("room", members, "phase." + n, h));
      printRaw("room", members, "held", rawHeld);
      printRaw("room", members, "heldMember", rawHeldMember);
      printRaw("room", members, "runtime", rawRuntime);
      nodes[0].close();
      nodes[1].close();
    }
  }

  /** The single-actor trial: two nodes, one Entry Spot actor with 1 KiB of state, the probe sender. */
  @State(Scope.Benchmark)
  public static class ActorMove {
    final MeshNode[] nodes = new MeshNode[2];
    int here;
    private Thread sender;
    private final AtomicBoolean sending = new AtomicBoolean();
    private boolean measuring;
    private long t0;
    private long done;
    /** The {@code relocation_committed} pause of the current move, per side (0 source, 1 target), or -1. */
    final AtomicLongArray committed = new AtomicLongArray(2);
    final Histogram held = histogram();
    final Histogram gap = histogram();
    final Histogram runtimeSource = histogram();
    final Histogram runtimeTarget = histogram();
    final Phases phases = new Phases();
    final StringBuilder rawHeld = new StringBuilder();
    final StringBuilder rawSource = new StringBuilder();

    /** Starts node A, makes the actor there with its state, starts node B, the event listeners, the sender. */
    @Setup(Level.Trial)
    public void setUp() {
      final InMemoryLocationStore locations = new InMemoryLocationStore();
      final InMemoryRelocationStore relocations = new InMemoryRelocationStore();
      nodes[0] = node(0, locations, relocations);
      nodes[0].actors().getOrCreate("solo", "member").await();
      nodes[0].toActor("solo").send(new Fill(STATE_BYTES));
      nodes[1] = node(1, locations, relocations);
      for (MeshNode n : nodes) {
        n.events().addListener(e -> {
          if (e instanceof NodeEvent.RelocationCommitted c) {
            committed.set(c.role() == NodeEvent.RelocationRole.SOURCE ? 0 : 1, c.pause().toNanos());
          }
        });
      }
      here = 0;
      final Target solo = nodes[0].toActor("solo");
      sending.set(true);
      sender = Thread.ofPlatform().daemon().name("probe-sender").start(() -> {
        while (sending.get()) {
          solo.send(new Probe(System.nanoTime()));
          LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(PROBE_PAUSE_MICROS));
        }
      });
      await(() -> MEMBER_WATCH.lastOn.get(0) != 0, "first probes");
    }

    /**
     * Records only in measurement iterations.
     *
     * @param iteration JMH's iteration parameters.
     */
    @Setup(Level.Iteration)
    public void iteration(final IterationParams iteration) {
      measuring = iteration.getType() == IterationType.MEASUREMENT;
    }

    /** Before each move: the probes' expected target, the adapter spans, the events. */
    @Setup(Level.Invocation)
    public void expect() {
      MEMBER_WATCH.expect(1 - here);
      CAPTURE.reset();
      RESTORE.reset();
      committed.set(0, -1);
      committed.set(1, -1);
    }

    HostRelocationResult move() throws Exception {
      final MeshNode from = nodes[here];
      t0 = System.nanoTime();
      final HostRelocationResult result = from.relocate(nodes[1 - here].nodeRid()).get(WAIT_SECONDS,
          TimeUnit.SECONDS);
      done = System.nanoTime();
      if (result.relocated().size() != 1 || !result.fullyRelocated()) {
        throw new IllegalStateException("host relocation moved " + result.relocated() + ", kept " + result.kept());
      }
      return result;
    }

    /** After each move: waits for the first probe on the target and both commit events, records, flips. */
    @TearDown(Level.Invocation)
    public void recordMove() {
      await(() -> MEMBER_WATCH.first != 0 && committed.get(0) >= 0 && committed.get(1) >= 0,
          "first probe on the target and both relocation_committed events");
      final int source = here;
      here = 1 - here;
      if (measuring) {
        recordMove(source);
      }
      caughtUp(MEMBER_WATCH);
    }

    private void recordMove(final int source) {
      final long open = MEMBER_WATCH.first;
      final long lastSource = MEMBER_WATCH.lastOn.get(source);
      record(held, MEMBER_WATCH.firstLatency);
      record(gap, open - lastSource);
      record(runtimeSource, committed.get(0));
      record(runtimeTarget, committed.get(1));
      add(rawHeld, MEMBER_WATCH.firstLatency);
      add(rawSource, committed.get(0));
      phases.record("toSeal", lastSource - t0);
      phases.record("sealToCapture", CAPTURE.first.get() - lastSource);
      phases.record("capture", CAPTURE.last - CAPTURE.first.get());
      phases.record("sealedToRestore", RESTORE.first.get() - CAPTURE.last);
      phases.record("restoreToOpen", open - RESTORE.last);
      phases.record("openToDone", done - open);
    }

    /**
     * Prints the pause lines, stops the sender and both nodes.
     *
     * @throws InterruptedException never in practice.
     */
    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
      sending.set(false);
      sender.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
      print("actor", 0, "held", held);
      print("actor", 0, "gap", gap);
      print("actor", 0, "runtimeSource", runtimeSource);
      print("actor", 0, "runtimeTarget", runtimeTarget);
      for (String n : new String[] {"toSeal", "sealToCapture", "capture", "sealedToRestore", "restoreToOpen",
          "openToDone"}) {
        print("actor", 0, "phase." + n, phases.histograms.get(n));
      }
      printRaw("actor", 0, "held", rawHeld);
      printRaw("actor", 0, "runtimeSource", rawSource);
      nodes[0].close();
      nodes[1].close();
    }
  }

  /**
   * One move of the room with all its members to the other node.
   *
   * @param s the room trial.
   * @return the move's result.
   * @throws Exception when the move fails or takes over {@value #WAIT_SECONDS} s.
   */
  @Benchmark
  public SpotRelocationResult roomMove(final RoomMove s) throws Exception {
    return s.move();
  }

  /**
   * One host relocation of the single actor to the other node.
   *
   * @param s the single-actor trial.
   * @return the move's result.
   * @throws Exception when the move fails or takes over {@value #WAIT_SECONDS} s.
   */
  @Benchmark
  public HostRelocationResult actorMove(final ActorMove s) throws Exception {
    return s.move();
  }
}
