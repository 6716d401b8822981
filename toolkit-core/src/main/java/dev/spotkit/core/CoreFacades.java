package dev.spotkit.core;

import dev.spotkit.core.internal.runtime.ActorCell;
import dev.spotkit.core.internal.runtime.Facades;
import dev.spotkit.core.internal.runtime.HandlerTable;
import dev.spotkit.core.internal.runtime.SpotCell;

/** Hands the runtime the package-private implementations of the sealed public types. */
final class CoreFacades implements Facades {
  @Override
  public ActorContext actorContext(final ActorCell cell) {
    return new ActorContextImpl(cell);
  }

  @Override
  public SpotContext spotContext(final SpotCell cell) {
    return switch (cell.kind()) {
      case ENTRY -> new EntrySpotContextImpl(cell);
      case USER -> new UserSpotContextImpl(cell);
      case INSTANCE -> new InstanceSpotContextImpl(cell);
    };
  }

  @Override
  public ActorHandlers actorHandlers(final HandlerTable table) {
    return new HandlersImpl(table);
  }

  @Override
  public SpotHandlers spotHandlers(final HandlerTable table) {
    return new HandlersImpl(table);
  }
}
