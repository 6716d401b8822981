package dev.spotkit.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spotkit.store.InMemoryLocationStore;
import dev.spotkit.store.InMemoryRelocationStore;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Spec 002 section 2: an object server registering a RecreateOnRelocation or PreserveStateWith factory, or an
 * Instance Spot factory, must register exactly one Relocation Store; none or more than one is a startup
 * configuration error before any socket is bound. Only DisableRelocation factories and no Instance Spot need none.
 */
class RelocationStoreStartupTest {
  /** Does nothing. */
  static final class Idle implements Actor {
    @Override
    public void configure(final ActorHandlers on) {
      on.message(String.class, s -> { });
    }
  }

  /** A User Spot that admits everyone. */
  static final class Hall implements UserSpot<Actor> {
    private final UserSpotContext ctx;

    Hall(final UserSpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public UserSpotContext context() {
      return ctx;
    }

    @Override
    public JoinDecision onActorJoin(final ActorId actor, final Object request) {
      return JoinDecision.accept();
    }
  }

  /** An Instance Spot that handles nothing. */
  static final class Tally implements InstanceSpot {
    private final InstanceSpotContext ctx;

    Tally(final InstanceSpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public InstanceSpotContext context() {
      return ctx;
    }
  }

  private static MeshNode.Builder server(final Consumer<ObjectServerBuilder> registrations) {
    return MeshNode.builder().meshName("startup").locationStore(new InMemoryLocationStore()).workers(2)
        .objectServer(s -> {
          s.entrySpot(TestNodes.PlainEntry::new);
          registrations.accept(s);
        });
  }

  @Test
  void aRelocatingActorTypeWithoutARelocationStoreIsAStartupError() {
    assertThatThrownBy(() -> server(s -> s.actor("walker", ctx -> new Idle(), a -> a.recreateOnRelocation()))
        .start()).isInstanceOf(SpotkitException.NotConfigured.class)
        .hasMessage("actor type 'walker' is registered with RecreateOnRelocation, so this node needs exactly one"
            + " Relocation Store and none is registered (spec 002 section 2); call relocationStore(new"
            + " InMemoryRelocationStore()) or pass the store the mesh shares");
  }

  @Test
  void aRelocatingUserSpotAndAnInstanceSpotWithoutARelocationStoreAreStartupErrors() {
    assertThatThrownBy(() -> server(s -> s.userSpot("hall", Hall::new, o -> o.recreateOnRelocation())).start())
        .isInstanceOf(SpotkitException.NotConfigured.class)
        .hasMessageStartingWith("User Spot type 'hall' is registered with RecreateOnRelocation, so this node needs"
            + " exactly one Relocation Store and none is registered");
    assertThatThrownBy(() -> server(s -> s.instanceSpot("tally", Tally::new,
        o -> o.disableRelocation())).start())
        .isInstanceOf(SpotkitException.NotConfigured.class)
        .hasMessageStartingWith("Instance Spot type 'tally' is registered, so this node needs exactly one"
            + " Relocation Store and none is registered");
  }

  @Test
  void twoRelocationStoresAreAStartupError() {
    assertThatThrownBy(() -> server(s -> s.actor("walker", ctx -> new Idle(), a -> a.recreateOnRelocation()))
        .relocationStore(new InMemoryRelocationStore()).relocationStore(new InMemoryRelocationStore()).start())
        .isInstanceOf(SpotkitException.NotConfigured.class)
        .hasMessage("relocationStore(...) was called 2 times; a node registers exactly one Relocation Store (spec 002"
            + " section 2)");
  }

  @Test
  void onlyDisableRelocationFactoriesNeedNoRelocationStoreAndOneStoreStartsTheRest() {
    try (MeshNode node = server(s -> s.actor("still", ctx -> new Idle(), a -> a.disableRelocation())).start()) {
      assertThat(node.actors().create("still").await().id().value()).isNotEmpty();
    }
    try (MeshNode node = server(s -> s.actor("walker", ctx -> new Idle(), a -> a.recreateOnRelocation()))
        .relocationStore(new InMemoryRelocationStore()).start()) {
      assertThat(node.actors().create("walker").await().id().value()).isNotEmpty();
    }
  }
}
