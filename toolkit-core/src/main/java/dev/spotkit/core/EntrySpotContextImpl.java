package dev.spotkit.core;

import dev.spotkit.core.internal.runtime.SpotCell;
import java.util.List;

/** The Entry Spot's context. */
final class EntrySpotContextImpl extends AbstractSpotContext implements EntrySpotContext {
  EntrySpotContextImpl(final SpotCell cell) {
    super(cell);
  }

  @Override
  public List<Member> members() {
    return listMembers();
  }

  @Override
  public Call<Boolean> destroyActor(final ActorRef actor) {
    return new ActorManagerImpl(rt).destroy(actor);
  }
}
