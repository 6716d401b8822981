package dev.spotkit.core;

import dev.spotkit.core.internal.runtime.SpotCell;
import java.util.List;

/** A User Spot's context. */
final class UserSpotContextImpl extends AbstractSpotContext implements UserSpotContext {
  UserSpotContextImpl(final SpotCell cell) {
    super(cell);
  }

  @Override
  public List<Member> members() {
    return listMembers();
  }

  @Override
  public boolean close() {
    return rt.lifecycle().closeFromTurn(cell);
  }

  @Override
  public RelocationReady relocationReady() {
    return new RelocationReady(cell::deferRelocationReady);
  }
}
