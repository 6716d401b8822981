package dev.spotkit.core;

import dev.spotkit.core.internal.runtime.NodeRuntime;
import java.util.Optional;

/** {@link SpotManager} over the runtime. */
final class SpotManagerImpl implements SpotManager {
  private final NodeRuntime rt;

  SpotManagerImpl(final NodeRuntime rt) {
    this.rt = rt;
  }

  @Override
  public CreateCall<SpotRef> create(final String stableType, final Object request) {
    return call(null, stableType, request);
  }

  @Override
  public CreateCall<SpotRef> getOrCreate(final String spotId, final String stableType, final Object request) {
    return call(requireId("spotId", spotId), stableType, request);
  }

  /** A null id is caller misuse: InvalidOperation naming the remedy, never a bare NullPointerException. */
  static String requireId(final String what, final String id) {
    if (id == null) {
      throw new SpotkitException.InvalidOperation(what + " must not be null for getOrCreate; pass an id of 1..255"
          + " UTF-8 bytes, or call create(stableType) for a framework-issued id");
    }
    return id;
  }

  /** A null ref is caller misuse: InvalidOperation. */
  static <T> T requireRef(final String what, final T ref) {
    if (ref == null) {
      throw new SpotkitException.InvalidOperation(what + " ref must not be null; get one from the creation call"
          + " or from find(id)");
    }
    return ref;
  }

  private CreateCall<SpotRef> call(final String id, final String stableType, final Object request) {
    final String what = "creation of spot " + (id == null ? "" : "'" + id + "' ") + "of type '" + stableType + "'";
    return new CreateCallImpl<>(new CallImpl<>(rt, what,
        (deadline, awaiting) -> rt.creations().userSpot(id, stableType, request, deadline)), what);
  }

  @Override
  public Optional<SpotRef> find(final String spotId) {
    return rt.findSpotRef(spotId);
  }

  @Override
  public Call<Boolean> close(final SpotRef spot) {
    requireRef("spot", spot);
    return new CallImpl<>(rt, "close of spot '" + spot.id() + "'",
        (deadline, awaiting) -> rt.lifecycle().closeSpot(spot, deadline));
  }
}
