package dev.spotkit.core;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** {@link CreateCall} over a {@link CallImpl} of the outcome. */
final class CreateCallImpl<R> implements CreateCall<R> {
  private final CallImpl<CreateOutcome<R>> call;
  private final String what;

  CreateCallImpl(final CallImpl<CreateOutcome<R>> call, final String what) {
    this.call = call;
    this.what = what;
  }

  @Override
  public CreateCall<R> timeout(final Duration timeout) {
    call.timeout(timeout);
    return this;
  }

  @Override
  public R await() {
    return refOf(call.await());
  }

  @Override
  public CompletableFuture<R> toFuture() {
    final CompletableFuture<R> result = new CompletableFuture<>();
    call.toFuture().whenComplete((outcome, failure) -> {
      if (failure != null) {
        result.completeExceptionally(CallImpl.unwrap(failure, what));
        return;
      }
      try {
        result.complete(refOf(outcome));
      } catch (SpotkitException e) {
        result.completeExceptionally(e);
      }
    });
    return result;
  }

  @Override
  public CreateOutcome<R> awaitOutcome() {
    return call.await();
  }

  @Override
  public CompletableFuture<CreateOutcome<R>> toOutcomeFuture() {
    return call.toFuture();
  }

  private R refOf(final CreateOutcome<R> outcome) {
    return switch (outcome) {
      case CreateOutcome.Created<R> created -> created.ref();
      case CreateOutcome.Existing<R> existing -> existing.ref();
      case CreateOutcome.Rejected<R> rejected -> throw new SpotkitException.InvalidOperation(what
          + " was declined by its creation callback (reply: " + rejected.reply().orElse("none") + "); use"
          + " awaitOutcome() to handle a decline as a result");
    };
  }
}
