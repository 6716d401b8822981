package dev.spotkit.core;

import java.util.Optional;

/**
 * The User Spot manager: the only way to create a User Spot (SPOT-02), plus Find and Close (spec 003 section
 * 5). Creation runs the factory, configure, OnCreate and OnInitialize; the spot is Ready only after them.
 * Any thread.
 */
public sealed interface SpotManager permits SpotManagerImpl {

  /**
   * Creates a User Spot with a framework-issued id: a lowercase UUID v4.
   *
   * @param stableType a registered User Spot type.
   * @return the call.
   */
  default CreateCall<SpotRef> create(final String stableType) {
    return create(stableType, EmptyRequest.INSTANCE);
  }

  /**
   * Like {@link #create(String)} with a request for OnCreate (at most 1 MiB encoded).
   *
   * @param stableType a registered User Spot type.
   * @param request copied through the message codec.
   * @return the call.
   */
  CreateCall<SpotRef> create(String stableType, Object request);

  /**
   * Returns the Ready User Spot {@code spotId} (Existing: no factory, no OnCreate) or creates it (spec 000 section
   * 2, spec 002 section 7). Crash recovery: when the spot's owner node is gone for good (its owner lease lapsed in
   * the Location Store), the call sweeps the dead owner's row and creates a new incarnation with a higher
   * ObjectGeneration on a live node (Created, OnCreate runs with this call's request); the old incarnation's state,
   * members and queued messages are lost. Off with {@code MeshNode.Builder#recreateAfterOwnerLoss(false)}: then the
   * dead owner's ref is returned (Existing) and messages to it answer {@link SpotkitException.Unavailable}.
   *
   * @param spotId 1..255 UTF-8 bytes; an id shaped like an Entry Spot id is InvalidOperation.
   * @param stableType a registered User Spot type; an existing spot of another type is InvalidOperation.
   * @return the call.
   * @throws SpotkitException.InvalidOperation when {@code spotId} is null (at once; other bad input fails
   *     the call).
   */
  default CreateCall<SpotRef> getOrCreate(final String spotId, final String stableType) {
    return getOrCreate(spotId, stableType, EmptyRequest.INSTANCE);
  }

  /**
   * Like {@link #getOrCreate(String, String)} with a request for OnCreate.
   *
   * @param spotId the id.
   * @param stableType the type.
   * @param request copied through the message codec.
   * @return the call.
   * @throws SpotkitException.InvalidOperation when {@code spotId} is null (at once; other bad input fails
   *     the call).
   */
  CreateCall<SpotRef> getOrCreate(String spotId, String stableType, Object request);

  /**
   * The Ready spot (any kind) with this id; never creates one, not even an Instance Spot (SPOT-03).
   *
   * @param spotId the id.
   * @return its current ref, or empty.
   */
  Optional<SpotRef> find(String spotId);

  /**
   * Closes a User Spot incarnation (spec 003 section 3.4). By generation: a stale ref fails with
   * {@link SpotkitException.StaleGeneration}; the Entry Spot and Instance Spots are InvalidOperation here.
   *
   * @param spot the ref.
   * @return true after OnClosing(ExplicitClose) ran and the spot was released; false when members remain (no
   *     OnClosing then) or that generation is already gone.
   */
  Call<Boolean> close(SpotRef spot);
}
