package dev.spotkit.core;

import java.util.Optional;

/**
 * Creates, finds and destroys actors on this node (spec 000 sections 2-3). Creation runs the factory and
 * configure, then the Entry Spot's OnCreateActor; only an approval makes the actor Ready with the Entry Spot
 * as its membership. Any thread.
 */
public sealed interface ActorManager permits ActorManagerImpl {

  /**
   * Creates an actor with a framework-issued id (a lowercase UUID v4).
   *
   * @param stableType a registered actor type.
   * @return the call.
   */
  default CreateCall<ActorRef> create(final String stableType) {
    return create(stableType, EmptyRequest.INSTANCE);
  }

  /**
   * Like {@link #create(String)} with a creation request for OnCreateActor (at most 1 MiB encoded).
   *
   * @param stableType a registered actor type.
   * @param request copied through the message codec.
   * @return the call.
   */
  CreateCall<ActorRef> create(String stableType, Object request);

  /**
   * Returns the Ready actor {@code actorId} (Existing) or creates it. Concurrent callers for one id run the
   * factory once; the others wait and get Existing, or compete again after a decline (spec 000 section 2, spec 002
   * section 7). Crash recovery: when the actor's owner node is gone for good (its owner lease lapsed in the Location
   * Store), the call sweeps the dead owner's row and creates a new incarnation with a higher ObjectGeneration on a
   * live node (Created); the old incarnation's state and queued messages are lost. Off with
   * {@code MeshNode.Builder#recreateAfterOwnerLoss(false)}: then the dead owner's ref is returned (Existing) and
   * messages to it answer {@link SpotkitException.Unavailable}.
   *
   * @param actorId 1..255 UTF-8 bytes.
   * @param stableType a registered actor type; an existing actor of another type is InvalidOperation.
   * @return the call.
   * @throws SpotkitException.InvalidOperation when {@code actorId} is null (at once; other bad input fails
   *     the call).
   */
  default CreateCall<ActorRef> getOrCreate(final String actorId, final String stableType) {
    return getOrCreate(actorId, stableType, EmptyRequest.INSTANCE);
  }

  /**
   * Like {@link #getOrCreate(String, String)} with a creation request.
   *
   * @param actorId the id.
   * @param stableType the type.
   * @param request copied through the message codec.
   * @return the call.
   * @throws SpotkitException.InvalidOperation when {@code actorId} is null (at once; other bad input fails
   *     the call).
   */
  CreateCall<ActorRef> getOrCreate(String actorId, String stableType, Object request);

  /**
   * The Ready actor with this id; never creates.
   *
   * @param actorId the id.
   * @return its current ref, or empty.
   */
  Optional<ActorRef> find(String actorId);

  /**
   * Destroys that actor incarnation: its mailbox (queued requests fail with NotFound), timers, membership and
   * store record are released; no OnLeaveActor runs; a bound session is closed. By generation (FACTS.md):
   *
   * @param actor the ref.
   * @return true when destroyed, also for an actor whose move from this node passed the target's relay-ready
   *     reply but did not commit (it runs nowhere; its record goes, so getOrCreate makes a new one); false when
   *     that generation is already gone. Fails with {@link SpotkitException.StaleGeneration} when another
   *     generation of the id lives, and {@link SpotkitException.Unavailable} while a join barrier of the actor is
   *     running or while it moves away from this node (its move's result is not known yet).
   */
  Call<Boolean> destroy(ActorRef actor);
}
