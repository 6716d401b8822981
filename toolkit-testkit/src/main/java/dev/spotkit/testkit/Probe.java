package dev.spotkit.testkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;

/**
 * A recorder that handlers write to and a test waits on, instead of sleeping: {@code PROBE.record(note)} in a
 * handler, {@code PROBE.awaitCount(100, Duration.ofSeconds(10))} in the test. Keeps every value in record order.
 * Every wait is bounded by its timeout; none polls. Thread-safety: any thread.
 *
 * @param <T> what is recorded.
 */
public final class Probe<T> {
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private final List<T> values = new ArrayList<>();

  /**
   * Records one value and wakes the waiters.
   *
   * @param value not null.
   * @throws NullPointerException when null.
   */
  public void record(final T value) {
    Objects.requireNonNull(value, "value");
    lock.lock();
    try {
      values.add(value);
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Every value recorded so far, in record order.
   *
   * @return an unmodifiable snapshot.
   */
  public List<T> values() {
    lock.lock();
    try {
      return List.copyOf(values);
    } finally {
      lock.unlock();
    }
  }

  /** Forgets every value (between two phases of a test). */
  public void clear() {
    lock.lock();
    try {
      values.clear();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits until at least {@code count} values were recorded.
   *
   * @param count 0 or more.
   * @param timeout at most this long, from the call.
   * @return the values recorded by then (at least {@code count}), in record order.
   * @throws AssertionError when the timeout passed first; the message says how many arrived.
   * @throws InterruptedException when the calling thread is interrupted.
   */
  public List<T> awaitCount(final int count, final Duration timeout) throws InterruptedException {
    return await(v -> v.size() >= count, timeout, count + " values");
  }

  /**
   * Waits until a recorded value matches {@code which}.
   *
   * @param which the value wanted.
   * @param timeout at most this long, from the call.
   * @return the first matching value.
   * @throws AssertionError when the timeout passed first.
   * @throws InterruptedException when the calling thread is interrupted.
   */
  public T awaitMatching(final Predicate<? super T> which, final Duration timeout) throws InterruptedException {
    return await(v -> v.stream().anyMatch(which), timeout, "a matching value").stream().filter(which).findFirst()
        .orElseThrow();
  }

  private List<T> await(final Predicate<List<T>> done, final Duration timeout, final String what)
      throws InterruptedException {
    final long deadline = System.nanoTime() + timeout.toNanos();
    lock.lock();
    try {
      while (!done.test(values)) {
        final long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new AssertionError("waited " + timeout.toMillis() + " ms for " + what + "; got " + values.size()
              + ": " + summary());
        }
        changed.await(left, TimeUnit.NANOSECONDS);
      }
      return List.copyOf(values);
    } finally {
      lock.unlock();
    }
  }

  private String summary() {
    return values.size() <= 20 ? values.toString() : values.subList(0, 20) + " ...";
  }
}
