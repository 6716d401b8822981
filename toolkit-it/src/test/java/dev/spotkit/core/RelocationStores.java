package dev.spotkit.core;

import dev.spotkit.store.InMemoryRelocationStore;
import dev.spotkit.store.LocationStore;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * The Relocation Store of test nodes (spec 002 section 2: a node with a RecreateOnRelocation or PreserveStateWith
 * factory, or an Instance Spot factory, registers exactly one): one in-memory store per Location Store, so the
 * nodes of one test mesh share it as a real mesh shares its store.
 */
public final class RelocationStores {
  private static final Map<LocationStore, InMemoryRelocationStore> BY_LOCATION_STORE = new WeakHashMap<>();

  private RelocationStores() {
  }

  /**
   * The Relocation Store of the mesh on {@code locationStore}. Thread-safety: any thread.
   *
   * @param locationStore the test mesh's Location Store.
   * @return its Relocation Store, made on first use; never closed by the nodes (no {@code closeStores()}).
   */
  public static synchronized InMemoryRelocationStore of(final LocationStore locationStore) {
    return BY_LOCATION_STORE.computeIfAbsent(locationStore, k -> new InMemoryRelocationStore());
  }
}
