package dev.spotkit.relocation;

import java.util.Objects;
import java.util.function.IntFunction;
import java.util.function.LongSupplier;

/**
 * A node's one relocation pump: every input of a relocation unit (a frame read from the mesh, a Restore or store
 * answer, direct work, a clock tick) enters here, is stamped with the time it arrived, and runs on the unit's lane,
 * one of a few serial lanes chosen by the unit's key. Units of different keys run on different lanes in parallel, so
 * a storm of 1,000 units does not queue behind one thread; the inputs of one unit stay in arrival order.
 *
 * <p>Why the stamp matters (spec 001 section 4.4): the cutover wait is measured from the relay-ready reply to the
 * cutover's <em>arrival</em>. A lane that is seconds behind must not turn a cutover that arrived in time into a
 * {@code cutover_timeout} and the order-unguaranteed fallback. So the stamp is taken, and the work handed to the
 * lane, in one step under the lane's lock: on every lane the stamps are non-decreasing in run order, and a clock tick
 * stamped {@code t} runs after every input handed in before {@code t}. Only ticks move a unit's clock
 * ({@link TargetUnits#handle(TargetEvent, long)}); a driver whose own intake can be behind (an event loop that has
 * not read its sockets yet) hands a tick in only once that intake caught up with the tick's time.
 *
 * <p>The pump owns no thread: each lane's {@link LaneRunner} is given by the driver (toolkit-core gives a
 * single-thread executor per lane; the simulator a queue it runs late on purpose). A runner must run the tasks it is
 * handed one at a time, in the order handed, and must not block while taking one. Thread-safe.
 */
public final class RelocationPump {
  /**
   * Runs one lane's tasks serially, in the order handed (an executor of one thread, or a test's queue).
   */
  @FunctionalInterface
  public interface LaneRunner {
    /**
     * Takes a task to run after every task handed before it. Must not block and must not run the task inline.
     *
     * @param task the task.
     */
    void execute(Runnable task);
  }

  /** Work that is told when its input arrived. */
  @FunctionalInterface
  public interface Stamped {
    /**
     * Runs on the lane.
     *
     * @param arrivedAtMs the pump clock when the input was handed in, ms (the driver's monotonic clock).
     */
    void run(long arrivedAtMs);
  }

  /** Lanes a node uses unless told otherwise: 4. */
  public static final int DEFAULT_LANES = 4;
  /** Most lanes a pump takes: 64. */
  public static final int MAX_LANES = 64;

  private final LongSupplier clockMs;
  private final LaneRunner[] runners;
  private final Object[] locks;

  /**
   * Creates a pump.
   *
   * @param lanes the number of lanes, 1..{@link #MAX_LANES}.
   * @param clockMs the driver's monotonic clock in ms (the stamp of every input).
   * @param runners the runner of each lane, by lane index 0..lanes-1; each called once, here.
   * @throws IllegalArgumentException when {@code lanes} is out of range.
   * @throws NullPointerException when an argument, or a runner it returns, is null.
   */
  public RelocationPump(final int lanes, final LongSupplier clockMs, final IntFunction<LaneRunner> runners) {
    if (lanes < 1 || lanes > MAX_LANES) {
      throw new IllegalArgumentException("lanes must be 1.." + MAX_LANES + ", got " + lanes);
    }
    this.clockMs = Objects.requireNonNull(clockMs, "clockMs");
    Objects.requireNonNull(runners, "runners");
    this.runners = new LaneRunner[lanes];
    this.locks = new Object[lanes];
    for (int i = 0; i < lanes; i++) {
      this.runners[i] = Objects.requireNonNull(runners.apply(i), "runner of lane " + i);
      this.locks[i] = new Object();
    }
  }

  /**
   * The number of lanes.
   *
   * @return 1..{@link #MAX_LANES}.
   */
  public int lanes() {
    return runners.length;
  }

  /**
   * The lane of a unit key: {@link String#hashCode()} (specified by the JDK, so the same in every JVM), its high
   * bits folded in, modulo {@link #lanes()}. Computed on every input: it allocates nothing.
   *
   * @param unitKey the unit's key, e.g. its ActorId or SpotId.
   * @return 0..lanes-1.
   * @throws NullPointerException when {@code unitKey} is null.
   */
  public int laneOf(final String unitKey) {
    final int h = unitKey.hashCode();
    return Integer.remainderUnsigned(h ^ (h >>> 16), runners.length);
  }

  /**
   * Hands an input of a unit to its lane, stamped now.
   *
   * @param unitKey the unit's key ({@link #laneOf}).
   * @param work what to run on the lane with the stamp.
   * @throws NullPointerException when an argument is null.
   */
  public void submit(final String unitKey, final Stamped work) {
    submitToLane(laneOf(unitKey), work);
  }

  /**
   * Hands work to one lane, stamped now; the stamp and the hand-over are one step under the lane's lock.
   *
   * @param lane the lane, 0..lanes-1.
   * @param work what to run with the stamp.
   * @throws IndexOutOfBoundsException when {@code lane} is out of range.
   * @throws NullPointerException when {@code work} is null.
   */
  public void submitToLane(final int lane, final Stamped work) {
    Objects.requireNonNull(work, "work");
    synchronized (locks[lane]) {
      final long at = clockMs.getAsLong();
      runners[lane].execute(() -> work.run(at));
    }
  }
}
