package dev.spotkit.core;

import dev.spotkit.core.internal.runtime.Ids;
import dev.spotkit.core.internal.runtime.NodeConfig;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The object server's registrations (spec 003 section 7): one Entry Spot, and factories by stable type for
 * actors, User Spots and Instance Spots, each with exactly one relocation policy. Registrations are fixed
 * when the node starts. Not thread-safe; only inside {@link MeshNode.Builder#objectServer}.
 *
 * <pre>{@code
 * .objectServer(server -> server
 *     .entrySpot(Lobby::new)
 *     .actor("player", Player::new, actor -> actor.preserveStateWith(new PlayerState()))
 *     .userSpot("room", Room::new, spot -> spot.spotWide().preserveStateWith(new RoomState()))
 *     .instanceSpot("matchmaker", Matchmaker::new, spot -> spot.recreateOnRelocation()))
 * }</pre>
 */
public final class ObjectServerBuilder {
  private SpotFactory<EntrySpotContext, ? extends EntrySpot> entry;
  private final Map<String, Object[]> actors = new LinkedHashMap<>();
  private final Map<String, Object[]> spots = new LinkedHashMap<>();

  ObjectServerBuilder() {
  }

  /**
   * The Entry Spot (required). Its id {@code <meshName>-entry-<uuid v4>} is issued at start.
   *
   * @param factory builds it, e.g. {@code Lobby::new}.
   * @return this builder.
   */
  public ObjectServerBuilder entrySpot(final SpotFactory<EntrySpotContext, ? extends EntrySpot> factory) {
    if (entry != null) {
      throw new SpotkitException.InvalidOperation("the Entry Spot is already registered; an object server has one");
    }
    this.entry = requireFactory(factory);
    return this;
  }

  /**
   * An actor factory.
   *
   * @param stableType 1..255 UTF-8 bytes, unique among actor types.
   * @param factory builds instances, e.g. {@code Player::new}.
   * @param configure chooses exactly one relocation policy and other options.
   * @param <A> the actor type.
   * @return this builder.
   */
  public <A extends Actor> ObjectServerBuilder actor(final String stableType, final ActorFactory<A> factory,
      final Consumer<ActorOptions<A>> configure) {
    final ActorOptions<A> options = new ActorOptions<>();
    configure.accept(options);
    register(actors, "actor", stableType, new Object[] {requireFactory(factory), options});
    return this;
  }

  /**
   * A User Spot factory.
   *
   * @param stableType 1..255 UTF-8 bytes, unique among spot types.
   * @param factory builds instances, e.g. {@code Room::new}.
   * @param configure mode (SpotWide default, or PerActor) and exactly one relocation policy.
   * @param <S> the spot type.
   * @return this builder.
   */
  public <S extends UserSpot<?>> ObjectServerBuilder userSpot(final String stableType,
      final SpotFactory<UserSpotContext, S> factory, final Consumer<UserSpotOptions<S>> configure) {
    final UserSpotOptions<S> options = new UserSpotOptions<>();
    configure.accept(options);
    register(spots, "spot", stableType, new Object[] {requireFactory(factory), options});
    return this;
  }

  /**
   * An Instance Spot factory.
   *
   * @param stableType 1..255 UTF-8 bytes, unique among spot types.
   * @param factory builds instances.
   * @param configure exactly one relocation policy, and optionally the idle cleanup
   *     ({@link InstanceSpotOptions#idleTimeout}).
   * @param <S> the spot type.
   * @return this builder.
   */
  public <S extends InstanceSpot> ObjectServerBuilder instanceSpot(final String stableType,
      final SpotFactory<InstanceSpotContext, S> factory, final Consumer<InstanceSpotOptions<S>> configure) {
    final InstanceSpotOptions<S> options = new InstanceSpotOptions<>();
    configure.accept(options);
    register(spots, "spot", stableType, new Object[] {requireFactory(factory), options});
    return this;
  }

  private static void register(final Map<String, Object[]> into, final String kind, final String stableType,
      final Object[] registration) {
    Ids.requireValid("stable type", stableType);
    if (into.putIfAbsent(stableType, registration) != null) {
      throw new SpotkitException.InvalidOperation(kind + " stable type '" + stableType + "' is registered twice;"
          + " each stable type names one factory");
    }
  }

  private static <F> F requireFactory(final F factory) {
    if (factory == null) {
      throw new SpotkitException.InvalidOperation("factory must not be null; pass e.g. Room::new");
    }
    return factory;
  }

  NodeConfig.SpotType entryType() {
    return entry == null ? null
        : new NodeConfig.SpotType("entry", NodeConfig.SpotKind.ENTRY, entry, false, null, null);
  }

  Map<String, NodeConfig.ActorType> actorTypes() {
    final Map<String, NodeConfig.ActorType> out = new LinkedHashMap<>();
    actors.forEach((type, reg) -> {
      final ActorOptions<?> options = (ActorOptions<?>) reg[1];
      out.put(type, new NodeConfig.ActorType(type, (ActorFactory<?>) reg[0],
          onePolicy("actor type '" + type + "'", options.policies), options.adapter, options.mailboxCapacity));
    });
    return Map.copyOf(out);
  }

  Map<String, NodeConfig.SpotType> spotTypes() {
    final Map<String, NodeConfig.SpotType> out = new LinkedHashMap<>();
    spots.forEach((type, reg) -> {
      final SpotFactory<?, ?> factory = (SpotFactory<?, ?>) reg[0];
      if (reg[1] instanceof UserSpotOptions<?> user) {
        final NodeConfig.Policy policy = onePolicy("user spot type '" + type + "'", user.policies);
        if (user.perActor && policy != NodeConfig.Policy.RECREATE) {
          throw new SpotkitException.InvalidOperation("user spot type '" + type + "' is PerActor and chose "
              + policy + (user.adapter != null ? " with a SpotRelocationAdapter" : "") + ": a PerActor spot shell"
              + " moves no state, so only recreateOnRelocation() is allowed (spec 000 section 6)");
        }
        if (user.perActor && user.applicationSignaled) {
          throw new SpotkitException.InvalidOperation("user spot type '" + type + "' is PerActor and chose"
              + " applicationSignaledRelocation(): the application-signaled boundary is for SpotWide spots only"
              + " (spec 003 section 5.1)");
        }
        out.put(type, new NodeConfig.SpotType(type, NodeConfig.SpotKind.USER, factory, user.perActor, policy,
            user.adapter, user.applicationSignaled));
      } else {
        final InstanceSpotOptions<?> instance = (InstanceSpotOptions<?>) reg[1];
        out.put(type, new NodeConfig.SpotType(type, NodeConfig.SpotKind.INSTANCE, factory, false,
            onePolicy("instance spot type '" + type + "'", instance.policies), instance.adapter, false,
            instance.idleTimeout));
      }
    });
    return Map.copyOf(out);
  }

  private static NodeConfig.Policy onePolicy(final String what, final List<NodeConfig.Policy> chosen) {
    if (chosen.isEmpty()) {
      throw new SpotkitException.NotConfigured(what + " chose no relocation policy; call exactly one of"
          + " disableRelocation(), recreateOnRelocation() or preserveStateWith(adapter) in its configure"
          + " callback (spec 000 section 6)");
    }
    if (chosen.size() > 1) {
      throw new SpotkitException.InvalidOperation(what + " chose " + chosen.size() + " relocation policies "
          + chosen + "; choose exactly one (spec 000 section 6)");
    }
    return chosen.get(0);
  }
}
