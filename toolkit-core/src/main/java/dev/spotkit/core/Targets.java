package dev.spotkit.core;

import dev.spotkit.core.internal.runtime.Address;
import dev.spotkit.core.internal.runtime.Ids;
import dev.spotkit.core.internal.runtime.NodeRuntime;
import java.util.Objects;

/** Builds {@link Target}s, validating ids up front. */
final class Targets {
  private Targets() {
  }

  static Target actor(final NodeRuntime rt, final ActorRef ref) {
    return new TargetImpl(rt, new Address.ActorByRef(Objects.requireNonNull(ref, "ref")));
  }

  static Target actor(final NodeRuntime rt, final String actorId) {
    return new TargetImpl(rt, new Address.ActorById(Ids.requireValid("ActorId", actorId)));
  }

  static Target spot(final NodeRuntime rt, final SpotRef ref) {
    return new TargetImpl(rt, new Address.SpotByRef(Objects.requireNonNull(ref, "ref")));
  }

  static Target spot(final NodeRuntime rt, final String spotId) {
    return new TargetImpl(rt, new Address.SpotById(Ids.requireValid("SpotId", spotId)));
  }

  static Target instance(final NodeRuntime rt, final String spotId, final String stableType) {
    return new TargetImpl(rt, new Address.Instance(Ids.requireCallerSpotId(spotId),
        Ids.requireValid("stable type", stableType)));
  }
}
