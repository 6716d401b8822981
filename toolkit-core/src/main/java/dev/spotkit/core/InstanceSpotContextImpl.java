package dev.spotkit.core;

import dev.spotkit.core.internal.runtime.SpotCell;

/** An Instance Spot's context. */
final class InstanceSpotContextImpl extends AbstractSpotContext implements InstanceSpotContext {
  InstanceSpotContextImpl(final SpotCell cell) {
    super(cell);
  }

  @Override
  public boolean close() {
    return rt.lifecycle().closeFromTurn(cell);
  }
}
