package dev.spotkit.core.internal.runtime;

import dev.spotkit.core.SpotkitException;
import dev.spotkit.core.ObjectRole;

/**
 * The configuration checks a node makes before it starts anything: a mesh or an object role without a Location
 * Store, an object server without an Entry Spot, registrations that need a Relocation Store (spec 002 section 2)
 * without one, sessions bound to an actor type not registered here. Not API.
 */
final class StartChecks {
  private StartChecks() {
  }

  /**
   * Throws the first problem of {@code config}.
   *
   * @throws SpotkitException.NotConfigured naming what is missing and how to add it.
   */
  static void validate(final NodeConfig config) {
    if (config.mesh() != null && config.store() == null) {
      throw new SpotkitException.NotConfigured("a mesh needs the Location Store its nodes share; call"
          + " locationStore(...) with the same store on every node");
    }
    if (config.role() != ObjectRole.NONE && config.store() == null) {
      throw new SpotkitException.NotConfigured("object role " + config.role() + " needs a Location Store and none"
          + " is configured; nothing creates a hidden one (spec 000 section 1). Call"
          + " locationStore(new InMemoryLocationStore()) or pass a shared store");
    }
    if (config.role() == ObjectRole.SERVER && config.entry() == null) {
      throw new SpotkitException.NotConfigured("an object server needs an Entry Spot; register one with"
          + " objectServer(s -> s.entrySpot(Lobby::new))");
    }
    final String needsRelocationStore = needsRelocationStore(config);
    if (needsRelocationStore != null && config.relocationStore() == null) {
      throw new SpotkitException.NotConfigured(needsRelocationStore + ", so this node needs exactly one Relocation"
          + " Store and none is registered (spec 002 section 2); call relocationStore(new InMemoryRelocationStore())"
          + " or pass the store the mesh shares");
    }
    if (config.sessions() != null && (config.role() != ObjectRole.SERVER
        || !config.actorTypes().containsKey(config.sessions().actorType()))) {
      throw new SpotkitException.NotConfigured("sessions are bound to actor type '" + config.sessions().actorType()
          + "', which is not registered on an object server here; register it with objectServer(s ->"
          + " s.actor(\"" + config.sessions().actorType() + "\", ...))");
    }
  }

  /**
   * Why an object server's registrations need a Relocation Store (spec 002 section 2: a RecreateOnRelocation or
   * PreserveStateWith factory, or an Instance Spot factory), naming the first such type in stable-type order; null
   * when none does (every factory DisableRelocation and no Instance Spot factory) or the node serves no objects.
   */
  private static String needsRelocationStore(final NodeConfig config) {
    if (config.role() != ObjectRole.SERVER) {
      return null;
    }
    for (NodeConfig.ActorType t : new java.util.TreeMap<>(config.actorTypes()).values()) {
      if (t.policy() != NodeConfig.Policy.DISABLE) {
        return "actor type '" + t.stableType() + "' is registered with " + policyName(t.policy());
      }
    }
    for (NodeConfig.SpotType t : new java.util.TreeMap<>(config.spotTypes()).values()) {
      if (t.kind() == NodeConfig.SpotKind.INSTANCE) {
        return "Instance Spot type '" + t.stableType() + "' is registered";
      }
      if (t.kind() == NodeConfig.SpotKind.USER && t.policy() != null && t.policy() != NodeConfig.Policy.DISABLE) {
        return "User Spot type '" + t.stableType() + "' is registered with " + policyName(t.policy());
      }
    }
    return null;
  }

  private static String policyName(final NodeConfig.Policy policy) {
    return switch (policy) {
      case RECREATE -> "RecreateOnRelocation";
      case PRESERVE -> "PreserveStateWith";
      case DISABLE -> "DisableRelocation";
    };
  }
}
