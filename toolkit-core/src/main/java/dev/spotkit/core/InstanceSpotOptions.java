package dev.spotkit.core;

import dev.spotkit.core.internal.runtime.NodeConfig;
import java.util.ArrayList;
import java.util.List;

/**
 * Options of one Instance Spot registration: exactly one relocation policy (spec 000 section 6). Not
 * thread-safe; only inside the callback.
 *
 * @param <S> the spot type.
 */
public final class InstanceSpotOptions<S extends InstanceSpot> {
  final List<NodeConfig.Policy> policies = new ArrayList<>();
  SpotRelocationAdapter<?> adapter;

  InstanceSpotOptions() {
  }

  /**
   * DisableRelocation.
   *
   * @return these options.
   */
  public InstanceSpotOptions<S> disableRelocation() {
    policies.add(NodeConfig.Policy.DISABLE);
    return this;
  }

  /**
   * RecreateOnRelocation.
   *
   * @return these options.
   */
  public InstanceSpotOptions<S> recreateOnRelocation() {
    policies.add(NodeConfig.Policy.RECREATE);
    return this;
  }

  /**
   * PreserveStateWith.
   *
   * @param stateAdapter not null.
   * @return these options.
   */
  public InstanceSpotOptions<S> preserveStateWith(final SpotRelocationAdapter<? super S> stateAdapter) {
    if (stateAdapter == null) {
      throw new SpotkitException.InvalidOperation("preserveStateWith needs a SpotRelocationAdapter, not null");
    }
    policies.add(NodeConfig.Policy.PRESERVE);
    this.adapter = stateAdapter;
    return this;
  }
}
