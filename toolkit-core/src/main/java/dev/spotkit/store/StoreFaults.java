package dev.spotkit.store;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Fault hooks of the in-memory stores, for tests of leases, admission and lost answers: fail, stall or lose
 * the answer of the next N calls that match a predicate. Rules are checked in the order they were added; a call
 * takes the first matching rule that has calls left. Without rules every call runs normally.
 *
 * <pre>{@code
 * Stall stall = store.faults().stallNext(1, call -> call.touches(leaseKey));
 * ... // the renewal's stage stays incomplete; the node's admission deadline passes
 * stall.awaitStalled(1, Duration.ofSeconds(5));
 * stall.release(); // the renewal applies now and answers
 * }</pre>
 *
 * <p>Thread-safety: any thread; one lock guards the rules.
 */
public final class StoreFaults {

  /** The kind of a store call. */
  public enum Kind {
    /** {@link LocationStore#read}. */
    READ,
    /** {@link LocationStore#write}. */
    WRITE,
    /** {@link LocationStore#scan}. */
    SCAN,
    /** {@link RelocationStore#put}. */
    PUT,
    /** {@link RelocationStore#get}. */
    GET,
    /** {@link RelocationStore#renew}. */
    RENEW,
    /** {@link RelocationStore#delete}. */
    DELETE
  }

  /**
   * One store call as the hooks see it.
   *
   * @param kind the operation.
   * @param keys the keys it touches (a scan: its prefix; the Relocation Store: the reference).
   */
  public record Call(Kind kind, List<String> keys) {
    /**
     * Copies the keys.
     *
     * @throws NullPointerException when a part is null.
     */
    public Call {
      Objects.requireNonNull(kind, "kind");
      keys = List.copyOf(keys);
    }

    /**
     * Whether the call touches {@code key}.
     *
     * @param key the key.
     * @return true when it does.
     */
    public boolean touches(final String key) {
      return keys.contains(key);
    }
  }

  private enum Action { FAIL, LOSE_ANSWER, STALL }

  private static final class Rule {
    final Predicate<Call> which;
    final Action action;
    final Stall stall;
    int remaining;

    Rule(final Predicate<Call> which, final Action action, final int remaining, final Stall stall) {
      this.which = which;
      this.action = action;
      this.remaining = remaining;
      this.stall = stall;
    }
  }

  private final Object lock = new Object();
  private final List<Rule> rules = new ArrayList<>();

  StoreFaults() {
  }

  /**
   * The next {@code n} matching calls fail with {@link StoreException.Unavailable} and change nothing.
   *
   * @param n 1 or more.
   * @param which the calls to fail, e.g. {@code call -> call.kind() == Kind.WRITE}.
   */
  public void failNext(final int n, final Predicate<Call> which) {
    add(new Rule(which, Action.FAIL, positive(n), null));
  }

  /**
   * The next {@code n} matching calls apply, then fail with {@link StoreException.Indeterminate}: the answer
   * was lost, the change was not.
   *
   * @param n 1 or more.
   * @param which the calls whose answer is lost.
   */
  public void loseAnswerOfNext(final int n, final Predicate<Call> which) {
    add(new Rule(which, Action.LOSE_ANSWER, positive(n), null));
  }

  /**
   * The next {@code n} matching calls are held before they reach the store: their stages stay incomplete
   * until the returned handle releases them (they apply then) or times them out (they never apply).
   *
   * @param n 1 or more.
   * @param which the calls to hold.
   * @return the handle.
   */
  public Stall stallNext(final int n, final Predicate<Call> which) {
    final Stall stall = new Stall();
    add(new Rule(which, Action.STALL, positive(n), stall));
    return stall;
  }

  /** Removes every rule that still has calls left; stalled calls stay stalled until their handle acts. */
  public void clear() {
    synchronized (lock) {
      rules.clear();
    }
  }

  /** Runs {@code operation} for {@code call} under the first matching rule. */
  <T> CompletableFuture<T> run(final Call call, final Supplier<T> operation) {
    final Rule rule = take(call);
    if (rule == null) {
      return CompletableFuture.completedFuture(operation.get());
    }
    return switch (rule.action) {
      case FAIL -> CompletableFuture.failedFuture(new StoreException.Unavailable("injected fault: " + call.kind()
          + " of " + printable(call) + " failed before it reached the store", null));
      case LOSE_ANSWER -> {
        operation.get();
        yield CompletableFuture.failedFuture(new StoreException.Indeterminate("injected fault: the answer of "
            + call.kind() + " of " + printable(call) + " was lost after it applied", null));
      }
      case STALL -> rule.stall.hold(call, operation);
    };
  }

  private Rule take(final Call call) {
    synchronized (lock) {
      for (Rule rule : rules) {
        if (rule.remaining > 0 && rule.which.test(call)) {
          rule.remaining--;
          return rule;
        }
      }
      return null;
    }
  }

  private void add(final Rule rule) {
    Objects.requireNonNull(rule.which, "which");
    synchronized (lock) {
      rules.removeIf(r -> r.remaining == 0);
      rules.add(rule);
    }
  }

  private static int positive(final int n) {
    if (n < 1) {
      throw new IllegalArgumentException("fault count " + n + " must be 1 or more");
    }
    return n;
  }

  private static String printable(final Call call) {
    return call.keys().stream().map(StoreLimits::printable).toList().toString();
  }

  /** Calls held by one {@link #stallNext} rule. Thread-safety: any thread. */
  public static final class Stall {
    private final Deque<Runnable> released = new ArrayDeque<>();
    private final Deque<Runnable> timedOut = new ArrayDeque<>();
    private int stalled;

    Stall() {
    }

    private synchronized <T> CompletableFuture<T> hold(final Call call, final Supplier<T> operation) {
      final CompletableFuture<T> answer = new CompletableFuture<>();
      released.add(() -> {
        try {
          answer.complete(operation.get());
        } catch (RuntimeException e) {
          answer.completeExceptionally(e);
        }
      });
      timedOut.add(() -> answer.completeExceptionally(new StoreException.Indeterminate("injected fault: "
          + call.kind() + " of " + printable(call) + " timed out while stalled (it did not apply)", null)));
      stalled++;
      notifyAll();
      return answer;
    }

    /**
     * How many calls this rule has held so far.
     *
     * @return the count.
     */
    public synchronized int stalled() {
      return stalled;
    }

    /**
     * Waits until at least {@code count} calls were held.
     *
     * @param count the number of calls.
     * @param timeout the longest wait.
     * @return true when reached, false on timeout.
     * @throws InterruptedException when interrupted.
     */
    public synchronized boolean awaitStalled(final int count, final Duration timeout) throws InterruptedException {
      final long deadline = System.nanoTime() + timeout.toNanos();
      while (stalled < count) {
        final long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
      return true;
    }

    /** Applies every held call, in arrival order, and completes its stage with the answer. */
    public void release() {
      drain(released);
    }

    /** Completes every held call with {@link StoreException.Indeterminate} without applying it. */
    public void timeOut() {
      drain(timedOut);
    }

    private void drain(final Deque<Runnable> actions) {
      final List<Runnable> run;
      synchronized (this) {
        run = new ArrayList<>(actions);
        released.clear();
        timedOut.clear();
      }
      run.forEach(Runnable::run);
    }
  }
}
