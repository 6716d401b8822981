package dev.spotkit.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spotkit.core.location.LocationRecords;
import dev.spotkit.core.location.ObjectKey;
import dev.spotkit.core.location.RecordState;
import dev.spotkit.store.InMemoryLocationStore;
import dev.spotkit.store.LocationStore;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Node start: object roles and stores, the Entry Spot, registration validation, id rules. */
class NodeStartTest {

  static final class Noop implements Actor {
    Noop(final ActorContext ctx) {
    }

    @Override
    public void configure(final ActorHandlers on) {
    }
  }

  @Test
  @Spec("MEM-01")
  void objectServerWithoutStoreRefusesToStart() {
    assertThatThrownBy(() -> MeshNode.builder().objectServer(s -> s.entrySpot(TestNodes.PlainEntry::new)).start())
        .isInstanceOf(SpotkitException.NotConfigured.class)
        .hasMessage("object role SERVER needs a Location Store and none is configured; nothing creates a hidden"
            + " one (spec 000 section 1). Call locationStore(new InMemoryLocationStore()) or pass a shared store");
    assertThatThrownBy(() -> MeshNode.builder().objectClient().start())
        .isInstanceOf(SpotkitException.NotConfigured.class).hasMessageContaining("object role CLIENT");
  }

  @Test
  @Spec("MEM-01")
  void roleNoneHasNoHiddenObjectManager() {
    try (MeshNode node = MeshNode.builder().start()) {
      assertThat(node.role()).isEqualTo(ObjectRole.NONE);
      assertThatThrownBy(() -> node.spots().getOrCreate("room", "room").await())
          .isInstanceOf(SpotkitException.NotConfigured.class).hasMessageContaining("object server role");
      assertThatThrownBy(() -> node.actors().create("player").await())
          .isInstanceOf(SpotkitException.NotConfigured.class);
      assertThatThrownBy(node::entrySpot).isInstanceOf(SpotkitException.NotConfigured.class);
    }
  }

  @Test
  void objectServerWithoutEntrySpotRefusesToStart() {
    assertThatThrownBy(() -> MeshNode.builder().locationStore(new InMemoryLocationStore()).objectServer(s -> { })
        .start()).isInstanceOf(SpotkitException.NotConfigured.class).hasMessageContaining("entrySpot(");
  }

  /** Records what it can see of itself while initializing. */
  static final class ObservingEntry implements EntrySpot {
    static final AtomicReference<Optional<LocationRecords.Stored>> RECORD_DURING_INIT = new AtomicReference<>();
    static volatile LocationStore store;
    private final EntrySpotContext ctx;

    ObservingEntry(final EntrySpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public EntrySpotContext context() {
      return ctx;
    }

    @Override
    public void onInitialize() {
      RECORD_DURING_INIT.set(LocationRecords.read(store, ObjectKey.spot(ctx.self().id().value())));
    }
  }

  @Test
  @Spec("SPOT-01")
  void entrySpotIdIsIssuedAtStartAndPublishedOnlyAfterInitialization() {
    final InMemoryLocationStore store = new InMemoryLocationStore();
    ObservingEntry.store = store;
    try (MeshNode node = TestNodes.bare(store, s -> s.entrySpot(ObservingEntry::new))) {
      final SpotRef entry = node.entrySpot();
      assertThat(entry.id().value())
          .matches("test-entry-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
      assertThat(ObservingEntry.RECORD_DURING_INIT.get()).isEmpty();
      final LocationRecords.Stored stored = LocationRecords.read(store, ObjectKey.spot(entry.id().value())).orElseThrow();
      assertThat(stored.record().state()).isEqualTo(RecordState.READY);
      assertThat(stored.record().objectGeneration()).isEqualTo(entry.generation().value());
      assertThat(node.spots().find(entry.id().value())).contains(entry);
    }
  }

  static final class FailingEntry implements EntrySpot {
    private final EntrySpotContext ctx;

    FailingEntry(final EntrySpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public EntrySpotContext context() {
      return ctx;
    }

    @Override
    public void onInitialize() {
      throw new IllegalStateException("no config");
    }
  }

  @Test
  @Spec("SPOT-01")
  void entrySpotThatFailsToInitializeIsNeverPublished() {
    final InMemoryLocationStore store = new InMemoryLocationStore();
    assertThatThrownBy(() -> TestNodes.bare(store, s -> s.entrySpot(FailingEntry::new)))
        .isInstanceOf(SpotkitException.InternalFailure.class).hasMessageContaining("no config");
    assertThat(TestNodes.authorityRows(store)).isZero();
  }

  @Test
  void factoryWithoutRelocationPolicyIsAStartupError() {
    assertThatThrownBy(() -> TestNodes.server(s -> s.actor("player", Noop::new, a -> { })))
        .isInstanceOf(SpotkitException.NotConfigured.class)
        .hasMessage("actor type 'player' chose no relocation policy; call exactly one of disableRelocation(),"
            + " recreateOnRelocation() or preserveStateWith(adapter) in its configure callback (spec 000 section 6)");
  }

  @Test
  void factoryWithTwoRelocationPoliciesIsAStartupError() {
    assertThatThrownBy(() -> TestNodes.server(s -> s.actor("player", Noop::new,
        a -> a.disableRelocation().recreateOnRelocation())))
        .isInstanceOf(SpotkitException.InvalidOperation.class)
        .hasMessageContaining("chose 2 relocation policies [DISABLE, RECREATE]; choose exactly one");
  }

  static final class Room implements UserSpot<Noop> {
    private final UserSpotContext ctx;

    Room(final UserSpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public UserSpotContext context() {
      return ctx;
    }

  }

  @Test
  void perActorSpotWithSpotAdapterIsAStartupError() {
    final SpotRelocationAdapter<Room> adapter = new SpotRelocationAdapter<>() {
      @Override
      public byte[] capture(final Room spot) {
        return new byte[0];
      }

      @Override
      public void restore(final Room spot, final byte[] state) {
      }
    };
    assertThatThrownBy(() -> TestNodes.server(s -> s.userSpot("room", Room::new,
        o -> o.perActor().preserveStateWith(adapter))))
        .isInstanceOf(SpotkitException.InvalidOperation.class)
        .hasMessage("user spot type 'room' is PerActor and chose PRESERVE with a SpotRelocationAdapter: a PerActor"
            + " spot shell moves no state, so only recreateOnRelocation() is allowed (spec 000 section 6)");
    try (MeshNode ok = TestNodes.server(s -> s.userSpot("room", Room::new, o -> o.perActor().recreateOnRelocation())
        .userSpot("wide", Room::new, o -> o.preserveStateWith(adapter)))) {
      assertThat(ok.spots().create("room").await().id().value()).isNotEmpty();
    }
  }

  @Test
  void idsAreOneTo255Utf8BytesWithoutNul() {
    assertThat(new ActorId("a".repeat(255)).value()).hasSize(255);
    assertThat(new ActorId("é".repeat(127)).value()).hasSize(127); // 254 bytes
    assertThatThrownBy(() -> new ActorId("é".repeat(128)))
        .isInstanceOf(SpotkitException.InvalidOperation.class)
        .hasMessage("ActorId '" + "é".repeat(40) + "...' is 256 UTF-8 bytes; it must be 1..255 bytes");
    assertThatThrownBy(() -> new SpotId("")).isInstanceOf(SpotkitException.InvalidOperation.class)
        .hasMessage("SpotId '' is 0 UTF-8 bytes; it must be 1..255 bytes");
    assertThatThrownBy(() -> new SpotId("a\0b")).isInstanceOf(SpotkitException.InvalidOperation.class)
        .hasMessage("SpotId 'a?b' contains a NUL byte at index 1; ids must not contain NUL");
    assertThatThrownBy(() -> new ActorId(null)).isInstanceOf(SpotkitException.InvalidOperation.class);
  }

  @Test
  void idsWithALoneSurrogateAreRefusedNotSilentlyReplaced() {
    // getBytes would encode both as "a?b": two different ids, one store key.
    assertThatThrownBy(() -> new ActorId("a\uD800b")).isInstanceOf(SpotkitException.InvalidOperation.class)
        .hasMessage("ActorId 'a?b' is not valid Unicode: lone surrogate U+D800 at index 1 cannot be encoded as"
            + " UTF-8; ids must be well-formed UTF-16 text");
    assertThatThrownBy(() -> new SpotId("x\uDC00")).isInstanceOf(SpotkitException.InvalidOperation.class)
        .hasMessageContaining("lone surrogate U+DC00 at index 1");
    assertThatThrownBy(() -> new MeshName("\uD83D")).isInstanceOf(SpotkitException.InvalidOperation.class)
        .hasMessageContaining("lone surrogate U+D83D at index 0");
    // A well-formed pair is 4 UTF-8 bytes: 63 of them fit in 255 bytes, 64 do not.
    assertThat(new ActorId("\uD83D\uDE00".repeat(63)).value()).hasSize(126);
    assertThatThrownBy(() -> new ActorId("\uD83D\uDE00".repeat(64)))
        .isInstanceOf(SpotkitException.InvalidOperation.class).hasMessageContaining("is 256 UTF-8 bytes");
  }

  @Test
  void nullIdsInGetOrCreateAreInvalidOperation() {
    try (MeshNode node = TestNodes.server(s -> s.userSpot("room", Room::new, o -> o.recreateOnRelocation())
        .actor("noop", Noop::new, a -> a.disableRelocation()))) {
      assertThatThrownBy(() -> node.spots().getOrCreate(null, "room"))
          .isInstanceOf(SpotkitException.InvalidOperation.class)
          .hasMessage("spotId must not be null for getOrCreate; pass an id of 1..255 UTF-8 bytes, or call"
              + " create(stableType) for a framework-issued id");
      assertThatThrownBy(() -> node.actors().getOrCreate(null, "noop", "request"))
          .isInstanceOf(SpotkitException.InvalidOperation.class).hasMessageStartingWith("actorId must not be null");
      assertThatThrownBy(() -> node.actors().destroy(null)).isInstanceOf(SpotkitException.InvalidOperation.class);
      assertThatThrownBy(() -> node.spots().close(null)).isInstanceOf(SpotkitException.InvalidOperation.class);
    }
  }

  @Test
  void timeoutsOutsideTheRangeAreInvalidOperationNamingValueAndRange() {
    try (MeshNode node = TestNodes.server(s -> s.userSpot("room", Room::new, o -> o.recreateOnRelocation()))) {
      assertThatThrownBy(() -> node.toSpot("room:1").request("q", String.class)
          .timeout(java.time.Duration.ofSeconds(Long.MAX_VALUE)))
          .isInstanceOf(SpotkitException.InvalidOperation.class)
          .hasMessage("timeout PT2562047788015215H30M7S is outside the allowed range: more than 0 and at most"
              + " PT8760H (365 days), e.g. Duration.ofSeconds(5)");
      assertThatThrownBy(() -> node.spots().getOrCreate("r", "room").timeout(java.time.Duration.ofDays(366)))
          .isInstanceOf(SpotkitException.InvalidOperation.class).hasMessageContaining("PT8784H");
      assertThatThrownBy(() -> MeshNode.builder().closeTimeout(java.time.Duration.ZERO))
          .isInstanceOf(SpotkitException.InvalidOperation.class).hasMessageContaining("timeout PT0S");
      assertThat(Deadline.after(Deadline.MAX_TIMEOUT).remaining()).isGreaterThan(java.time.Duration.ofDays(364));
    }
  }

  @Test
  void callerSuppliedEntryShapedSpotIdIsInvalid() {
    try (MeshNode node = TestNodes.server(s -> s.userSpot("room", Room::new, o -> o.recreateOnRelocation()))) {
      final String entryShaped = "x-entry-123e4567-e89b-42d3-a456-426614174000";
      assertThatThrownBy(() -> node.spots().getOrCreate(entryShaped, "room").await())
          .isInstanceOf(SpotkitException.InvalidOperation.class)
          .hasMessageContaining("has the shape of an Entry Spot id");
    }
  }

  @Test
  @Spec("LOC-05")
  void aDescriptorOverItsLimitsFailsStartupAndPublishesNothing() {
    final InMemoryLocationStore store = new InMemoryLocationStore();
    assertThatThrownBy(() -> MeshNode.builder().meshName("big").locationStore(store)
        .objectServer(s -> {
          s.entrySpot(TestNodes.PlainEntry::new);
          for (int i = 0; i <= 1024; i++) { // 1,025 registered types: one over the limit
            s.actor("type-" + i, Noop::new, a -> a.disableRelocation());
          }
        }).start())
        .isInstanceOf(SpotkitException.NotConfigured.class)
        .hasMessageContaining("cannot be published whole").hasMessageContaining("1025");
    assertThat(keys(store, "mesh-node\0")).isEmpty();
    assertThat(keys(store, "node-capacity\0")).isEmpty();
    final MeshNode fits = MeshNode.builder().meshName("big").locationStore(store)
        .objectServer(s -> {
          s.entrySpot(TestNodes.PlainEntry::new);
          for (int i = 0; i < 1024; i++) {
            s.actor("type-" + i, Noop::new, a -> a.disableRelocation());
          }
        }).start();
    try {
      assertThat(keys(store, "mesh-node\0")).hasSize(1);
    } finally {
      fits.close();
    }
  }

  private static java.util.List<String> keys(final InMemoryLocationStore store, final String prefix) {
    final dev.spotkit.store.ScanResult result = store.scan(dev.spotkit.store.ScanRequest.first(prefix, 1000))
        .toCompletableFuture().join();
    return ((dev.spotkit.store.ScanResult.Page) result).entries().stream().map(dev.spotkit.store.ScanEntry::key)
        .toList();
  }
}
