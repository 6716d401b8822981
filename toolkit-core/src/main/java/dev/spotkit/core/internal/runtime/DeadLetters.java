package dev.spotkit.core.internal.runtime;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Messages this node accepted and then could not run, counted by reason and reported: every such drop adds one to
 * its reason's counter and logs one WARN line, at most one per reason per {@link #WINDOW_MS} (the lines held back
 * meanwhile are counted in the next one). A message refused to its sender with a typed error is not a dead letter.
 * Thread-safe; never blocks.
 */
public final class DeadLetters {
  /** At most one WARN line per reason per this many milliseconds. */
  public static final long WINDOW_MS = 10_000;

  private final ConcurrentHashMap<String, LongAdder> counts = new ConcurrentHashMap<>();
  /** Told each reason's count when its first dead letter arrives (metrics); set once, before any record. */
  private volatile java.util.function.BiConsumer<String, LongAdder> newReason = (r, c) -> { };

  /**
   * Registers what to tell when a reason's first dead letter arrives (the {@code spotkit.dead.letters} meter).
   *
   * @param hook told the reason and its count; must not block.
   */
  void onNewReason(final java.util.function.BiConsumer<String, LongAdder> hook) {
    this.newReason = hook;
  }
  /** Per reason: {next allowed log time in nanos, lines held back}. */
  private final ConcurrentHashMap<String, AtomicLong[]> rate = new ConcurrentHashMap<>();

  /**
   * Counts one dead letter and logs it (rate limited).
   *
   * @param reason a short stable reason, e.g. {@code target-gone}; the counter's key.
   * @param detail what was dropped, for the log line.
   */
  public void record(final String reason, final String detail) {
    counts.computeIfAbsent(reason, r -> {
      final LongAdder count = new LongAdder();
      newReason.accept(r, count); // the first of a reason: its meter reads this count
      return count;
    }).increment();
    final AtomicLong[] state = rate.computeIfAbsent(reason, r -> new AtomicLong[] {
        new AtomicLong(System.nanoTime() - 1), new AtomicLong()});
    final long now = System.nanoTime();
    final long next = state[0].get();
    if (now - next >= 0 && state[0].compareAndSet(next, now + TimeUnit.MILLISECONDS.toNanos(WINDOW_MS))) {
      final long held = state[1].getAndSet(0);
      NodeRuntime.LOG.warn("dead letter ({}): {}; {} dead letters for this reason so far{}", reason, detail,
          counts.get(reason).sum(), held == 0 ? "" : " (" + held + " more not logged in the last " + WINDOW_MS
          + " ms)");
    } else {
      state[1].incrementAndGet();
    }
  }

  /**
   * The counts so far, by reason.
   *
   * @return a sorted snapshot; empty when nothing was dropped.
   */
  public Map<String, Long> counts() {
    final Map<String, Long> out = new TreeMap<>();
    counts.forEach((reason, n) -> out.put(reason, n.sum()));
    return out;
  }
}
