package dev.spotkit.core;

import java.time.Duration;

/**
 * A JoinSpot or JoinEntrySpot being registered (spec 000 section 4). Call {@link #defer()} inside the handler:
 * the join runs after the handler ends normally, and is discarded if it throws. Only inside a handler turn of
 * the actor that created it, on that turn's thread.
 */
public sealed interface JoinCall permits JoinCallImpl {

  /**
   * Timeout of the whole join; default 5 s. The absolute deadline is fixed at {@link #defer()} (MEM-12).
   *
   * @param timeout positive.
   * @return this call.
   * @throws SpotkitException.InvalidOperation when not positive, or after {@link #defer()}.
   */
  JoinCall timeout(Duration timeout);

  /**
   * Registers the join as a barrier of the current handler: no target lookup and no store I/O happen now
   * (MEM-09). The request is copied now through the message codec (JSON), so later changes to it do not
   * matter. After the handler ends normally: the target's OnActorJoin (User Spot) decides, the membership
   * commits, then the target's OnJoinedActor, the source's OnLeaveActor and this actor's
   * {@link Actor#onJoinCompleted} run, and only then the messages that arrived meanwhile (MEM-34). Joins of
   * one handler run in registration order.
   *
   * @return the join's non-zero 128-bit OperationId, also in the {@link JoinResult}.
   * @throws SpotkitException.InvalidOperation outside a handler turn of this actor (after the handler ended:
   *     MEM-13; from another thread; in a factory, configure or completion callback), on a second defer(), or
   *     when the request cannot be encoded.
   * @throws SpotkitException.CapacityExceeded when this handler already registered 64 joins, the request
   *     encodes to over 1 MiB, or the handler's requests would total over 8 MiB; nothing is registered then
   *     (MEM-11).
   */
  OperationId defer();
}
