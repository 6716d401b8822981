package dev.spotkit.core;

import java.util.Objects;

/**
 * What the Entry Spot's {@link EntrySpot#onCreateActor(ActorCreation)} receives (spec 000 section 2).
 *
 * @param actor the ref the actor gets if approved.
 * @param stableType the registered stable type.
 * @param instance the staging actor the factory built and configured; not Ready.
 * @param request the creation request (an immutable copy), or {@link EmptyRequest}.
 */
public record ActorCreation(ActorRef actor, String stableType, Actor instance, Object request) {
  /** Checks for null. */
  public ActorCreation {
    Objects.requireNonNull(actor, "actor");
    Objects.requireNonNull(stableType, "stableType");
    Objects.requireNonNull(instance, "instance");
    Objects.requireNonNull(request, "request");
  }
}
