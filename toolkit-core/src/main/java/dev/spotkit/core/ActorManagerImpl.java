package dev.spotkit.core;

import dev.spotkit.core.internal.runtime.NodeRuntime;
import java.util.Optional;

/** {@link ActorManager} over the runtime. */
final class ActorManagerImpl implements ActorManager {
  private final NodeRuntime rt;

  ActorManagerImpl(final NodeRuntime rt) {
    this.rt = rt;
  }

  @Override
  public CreateCall<ActorRef> create(final String stableType, final Object request) {
    return call(null, stableType, request);
  }

  @Override
  public CreateCall<ActorRef> getOrCreate(final String actorId, final String stableType, final Object request) {
    return call(SpotManagerImpl.requireId("actorId", actorId), stableType, request);
  }

  private CreateCall<ActorRef> call(final String id, final String stableType, final Object request) {
    final String what = "creation of actor " + (id == null ? "" : "'" + id + "' ") + "of type '" + stableType + "'";
    return new CreateCallImpl<>(new CallImpl<>(rt, what, (deadline, awaiting) -> {
      rt.checkAwaitableCreation(awaiting);
      return rt.creations().actor(id, stableType, request, deadline);
    }), what);
  }

  @Override
  public Optional<ActorRef> find(final String actorId) {
    return rt.findActorRef(actorId);
  }

  @Override
  public Call<Boolean> destroy(final ActorRef actor) {
    SpotManagerImpl.requireRef("actor", actor);
    return new CallImpl<>(rt, "destroy of actor '" + actor.id() + "'",
        (deadline, awaiting) -> rt.lifecycle().destroyActor(actor, deadline));
  }
}
