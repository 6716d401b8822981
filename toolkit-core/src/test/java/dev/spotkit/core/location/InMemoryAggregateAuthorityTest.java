package dev.spotkit.core.location;

import dev.spotkit.store.InMemoryLocationStore;
import dev.spotkit.store.LocationStore;

/** The aggregate contract on {@link InMemoryLocationStore}. */
class InMemoryAggregateAuthorityTest extends AggregateAuthorityContract {
  @Override
  protected LocationStore newStore() {
    return new InMemoryLocationStore();
  }
}
