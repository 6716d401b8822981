package dev.spotkit.core;

import dev.spotkit.core.internal.runtime.NodeRuntime;
import dev.spotkit.core.internal.runtime.Turn;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/** The one {@link Call} implementation: starts once, fixes the absolute deadline at start. */
final class CallImpl<T> implements Call<T> {

  /** Starts the operation with its deadline; {@code awaiting} tells whether the caller will block. */
  @FunctionalInterface
  interface Starter<T> {
    CompletableFuture<T> start(Deadline deadline, boolean awaiting);
  }

  /** Extra wait past the deadline for the runtime's own DeadlineExceeded to arrive. */
  private static final long GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

  private final NodeRuntime rt;
  private final String what;
  private final Starter<T> starter;
  private final AtomicBoolean started = new AtomicBoolean();
  private volatile Duration timeout;
  /** True when the deadline is the incoming request's (set at start, before the deadline timer). */
  private volatile boolean inherited;

  CallImpl(final NodeRuntime rt, final String what, final Starter<T> starter) {
    this.rt = rt;
    this.what = what;
    this.starter = starter;
    this.timeout = rt.config().requestTimeout();
  }

  @Override
  public Call<T> timeout(final Duration newTimeout) {
    Deadline.after(newTimeout); // validates
    if (started.get()) {
      throw new SpotkitException.InvalidOperation(what + ": timeout(...) must be set before await() or toFuture()");
    }
    this.timeout = newTimeout;
    return this;
  }

  @Override
  public T await() {
    final Deadline deadline = deadline();
    return awaitFuture(start(deadline, true), deadline, what);
  }

  @Override
  public CompletableFuture<T> toFuture() {
    return rt.userFuture(start(deadline(), false));
  }

  /**
   * The call's absolute deadline: its timeout from now, but never later than the deadline of the request whose
   * handler turn runs on this thread (the incoming request's deadline travels to the handler's outgoing calls;
   * a shorter timeout set by the handler wins).
   */
  private Deadline deadline() {
    final Deadline own = Deadline.after(timeout);
    final Deadline incoming = Turn.inheritedDeadline();
    if (incoming != null && incoming.nanoTime() - own.nanoTime() < 0) {
      inherited = true;
      return incoming;
    }
    return own;
  }

  private CompletableFuture<T> start(final Deadline deadline, final boolean awaiting) {
    if (!started.compareAndSet(false, true)) {
      throw new SpotkitException.InvalidOperation(what + ": this call already started; make a new call for"
          + " another attempt");
    }
    if (deadline.isExpired()) { // the incoming request's deadline already passed: nothing is started
      final SpotkitException late = new SpotkitException.DeadlineExceeded(what + " was not started: the deadline"
          + " of the request this handler serves passed already");
      if (awaiting) {
        throw late;
      }
      return CompletableFuture.failedFuture(late);
    }
    final CompletableFuture<T> future;
    try {
      future = starter.start(deadline, awaiting);
    } catch (SpotkitException e) {
      if (awaiting) {
        throw e;
      }
      return CompletableFuture.failedFuture(e);
    }
    dev.spotkit.core.internal.runtime.IdleEviction.track(future); // an operation waiting for completion (spec 003)
    rt.attachDeadline(future, deadline, () -> what + (inherited ? " did not complete by the deadline of the"
        + " request this handler serves" : " did not complete within " + timeout.toMillis() + " ms"));
    return future;
  }

  static <T> T awaitFuture(final CompletableFuture<T> future, final Deadline deadline, final String what) {
    try {
      return future.get(deadline.remaining().toNanos() + GRACE_NANOS, TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      throw new SpotkitException.DeadlineExceeded(what + " did not complete by its deadline");
    } catch (ExecutionException e) {
      throw unwrap(e.getCause(), what);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SpotkitException.InternalFailure(what + ": interrupted while awaiting", e);
    }
  }

  static SpotkitException unwrap(final Throwable failure, final String what) {
    Throwable cause = failure;
    if (cause instanceof CompletionException && cause.getCause() != null) {
      cause = cause.getCause();
    }
    if (cause instanceof SpotkitException typed) {
      return typed;
    }
    return new SpotkitException.InternalFailure(what + " failed: " + cause, cause);
  }
}
