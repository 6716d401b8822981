package dev.spotkit.core;

import dev.spotkit.core.internal.NodeRuntime;
import dev.spotkit.core.internal.SpotCell;
import java.util.Objects;
import java.util.Optional;

/** {@link SpotManager} over the runtime. */
final class SpotManagerImpl implements SpotManager {
  private final NodeRuntime rt;

  SpotManagerImpl(final NodeRuntime rt) {
    this.rt = rt;
  }

  @Override
  public CreateCall<SpotRef> create(final String stableType) {
    return create(stableType, EmptyRequest.INSTANCE);
  }

  @Override
  public CreateCall<SpotRef> create(final String stableType, final Object request) {
    return call(null, stableType, request);
  }

  @Override
  public CreateCall<SpotRef> getOrCreate(final String spotId, final String stableType) {
    return getOrCreate(spotId, stableType, EmptyRequest.INSTANCE);
  }

  @Override
  public CreateCall<SpotRef> getOrCreate(final String spotId, final String stableType, final Object request) {
    return call(Objects.requireNonNull(spotId, "spotId"), stableType, request);
  }

  private CreateCall<SpotRef> call(final String id, final String stableType, final Object request) {
    final String what = "creation of spot " + (id == null ? "" : "'" + id + "' ") + "of type '" + stableType + "'";
    return new CreateCallImpl<>(new CallImpl<>(rt, what,
        (deadline, awaiting) -> rt.creations().userSpot(id, stableType, request, deadline)), what);
  }

  @Override
  public Optional<SpotRef> find(final String spotId) {
    return rt.findSpot(spotId).map(SpotCell::ref);
  }

  @Override
  public Call<Boolean> close(final SpotRef spot) {
    Objects.requireNonNull(spot, "spot");
    return new CallImpl<>(rt, "close of spot '" + spot.id() + "'",
        (deadline, awaiting) -> rt.lifecycle().closeSpot(spot));
  }
}
