package dev.spotkit.core.internal.runtime;

import dev.spotkit.core.Deadline;
import dev.spotkit.core.OperationId;
import dev.spotkit.core.SpotkitException;
import java.util.concurrent.CompletableFuture;

/**
 * Where a request's reply goes: the caller's future, the absolute deadline, the OperationId and the reply
 * type the caller expects. Completed at most once (the future decides).
 */
public final class ReplySink {
  public final CompletableFuture<Object> future = new CompletableFuture<>();
  public final Deadline deadline;
  final OperationId operationId = OperationId.random();
  final Class<?> replyType;
  public final String description;
  public ReplySink(final Deadline deadline, final Class<?> replyType, final String description) {
    this.deadline = deadline;
    this.replyType = replyType;
    this.description = description;
  }

  public void complete(final Object reply) {
    if (reply == null) {
      fail(new SpotkitException.InternalFailure(description + ": the request handler returned null;"
          + " return a reply value"));
    } else if (!replyType.isInstance(reply)) {
      fail(new SpotkitException.TypeMismatch(description + ": reply of type " + reply.getClass().getName()
          + " is not the expected " + replyType.getName()));
    } else {
      future.complete(reply);
    }
  }

  public void fail(final SpotkitException error) {
    future.completeExceptionally(error);
  }
}
