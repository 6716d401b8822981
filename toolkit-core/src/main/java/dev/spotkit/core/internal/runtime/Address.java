package dev.spotkit.core.internal.runtime;

import dev.spotkit.core.ActorRef;
import dev.spotkit.core.SpotRef;

/** How a target is named; resolved on every send. */
public sealed interface Address {

  /**
   * The live actor with this id.
   *
   * @param id the ActorId.
   */
  record ActorById(String id) implements Address {
  }

  /**
   * Exactly this actor incarnation.
   *
   * @param ref the ref.
   */
  record ActorByRef(ActorRef ref) implements Address {
  }

  /**
   * The live spot with this id (never creates).
   *
   * @param id the SpotId.
   */
  record SpotById(String id) implements Address {
  }

  /**
   * Exactly this spot incarnation.
   *
   * @param ref the ref.
   */
  record SpotByRef(SpotRef ref) implements Address {
  }

  /**
   * An Instance Spot with Instance intent: activated by the first message when missing.
   *
   * @param id the SpotId.
   * @param stableType the registered Instance Spot type.
   */
  record Instance(String id, String stableType) implements Address {
  }
}
