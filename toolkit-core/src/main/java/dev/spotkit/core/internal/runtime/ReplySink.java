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

  /**
   * For a caller on another node: encodes the reply in the handler's turn, before its join barriers are activated;
   * null for a local caller. Set once, before the request is delivered.
   */
  private java.util.function.Function<Object, ?> encoder;
  /** What {@link #encoder} made of the reply; written before {@link #future} completes, read after. */
  private Object encoded;

  /**
   * Makes {@link #complete} encode the reply for the wire in the handler's turn (spec 000 section 4: a reply
   * encoding failure discards the turn's join barriers).
   *
   * @param encoder the reply to its wire form; throws {@link SpotkitException} when the reply cannot be encoded.
   */
  public void encodeWith(final java.util.function.Function<Object, ?> encoder) {
    this.encoder = encoder;
  }

  /**
   * The wire form {@link #encodeWith}'s encoder made of the reply. Read once {@link #future} completed normally.
   *
   * @return the encoded reply, or null when no encoder was set.
   */
  public Object encoded() {
    return encoded;
  }

  /**
   * The handler returned {@code reply}: the caller gets it, or a typed failure when it is null, not of the type a
   * caller on this node expects, or cannot be encoded for a caller on another node (spec 000 section 4, MEM-18: the
   * turn's join barriers are then discarded; a caller that disconnected or a transport that refuses the encoded reply
   * later cancels nothing, nor does a remote caller's own type check, made on its node after the encoding).
   *
   * @param reply what the request handler returned.
   * @return true when the reply was accepted (and encoded, for a remote caller); false when the caller got a failure.
   */
  public boolean complete(final Object reply) {
    if (reply == null) {
      fail(new SpotkitException.InternalFailure(description + ": the request handler returned null;"
          + " return a reply value"));
      return false;
    }
    if (!replyType.isInstance(reply)) {
      fail(new SpotkitException.TypeMismatch(description + ": reply of type " + reply.getClass().getName()
          + " is not the expected " + replyType.getName()));
      return false;
    }
    if (encoder != null) {
      try {
        encoded = encoder.apply(reply);
      } catch (SpotkitException e) {
        fail(e);
        return false;
      }
    }
    future.complete(reply);
    return true;
  }

  public void fail(final SpotkitException error) {
    future.completeExceptionally(error);
  }
}
