package dev.spotkit.core;

/**
 * Where a message goes: an Actor or a Spot, resolved when each message is sent (by id: the live incarnation;
 * by ref: only that incarnation). Get one from {@code ctx.toActor(...)}, {@code ctx.toSpot(...)},
 * {@code ctx.toInstanceSpot(...)} or the same methods of {@link MeshNode}. Any thread.
 *
 * <p>Delivery: at most once, in order per sender and target, also while the target moves between nodes (messages
 * reaching its old node follow it, spec 002 section 7.3). In one process the message object is passed by reference,
 * so send immutable values (records); to another node it travels as JSON (Jackson), so it must round-trip.
 */
public sealed interface Target permits TargetImpl, Member {

  /**
   * One-way send (DESIGN.md "Messaging"): queues the message on the target's mailbox and returns. Any thread.
   * A message whose type has no handler on the target is logged and dropped; a request handler also serves a
   * send (its reply is dropped).
   *
   * @param message not null.
   * @throws SpotkitException.NotFound the target does not exist or is not Ready (a missing Instance Spot
   *     without Instance intent: SPOT-03).
   * @throws SpotkitException.StaleGeneration the ref's generation is not the live one.
   * @throws SpotkitException.CapacityExceeded the target's bounded mailbox is full (MAILBOX_FULL).
   * @throws SpotkitException.ShuttingDown the node is closing.
   */
  void send(Object message);

  /**
   * A request: the reply, a typed failure, or DeadlineExceeded (DESIGN.md "Messaging"). Nothing is sent until
   * {@link Call#await()} or {@link Call#toFuture()}; the absolute deadline is fixed then (default 5 s, see
   * {@link Call#timeout}). Any thread.
   *
   * @param message not null.
   * @param replyType the expected reply class; another reply type fails with TypeMismatch.
   * @param <R> reply type.
   * @return the call to await.
   */
  <R> Call<R> request(Object message, Class<R> replyType);
}
