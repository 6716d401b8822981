package dev.spotkit.core.location;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spotkit.core.ObjectGeneration;
import dev.spotkit.core.Spec;
import dev.spotkit.store.Mutation;
import dev.spotkit.store.ScanCursor;
import dev.spotkit.store.StoreBytes;
import dev.spotkit.store.WriteBatch;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The operator location query (spec 002 section 7.4). */
class LocationQueryTest {
  private final MeshFixture f = new MeshFixture();
  private final LocationQuery query = new LocationQuery(f.store, MeshFixture.TIMEOUT);

  private void put(final ObjectKey key, final PlacementKind kind, final String type, final String mesh,
      final AuthorityRecord.State state) {
    final AuthorityRecord.Capacity bundle = kind == PlacementKind.ACTOR ? AuthorityRecord.Capacity.actor()
        : AuthorityRecord.Capacity.spot(kind, type);
    final AuthorityRecord row = new AuthorityRecord(StoreBytes.empty(), new ObjectGeneration(7),
        new AuthorityOwnerGeneration(3), "owner-a", new LeaseGeneration(2), new AuthorityRecord.Allocation(state,
        kind, type, mesh, "0a01", 5, bundle), null);
    f.store.write(WriteBatch.unconditional(Mutation.Put.of(key.logicalKey().preimage(), row.encode())))
        .toCompletableFuture().join();
  }

  private void delete(final ObjectKey key) {
    f.store.write(WriteBatch.unconditional(new Mutation.Delete(key.logicalKey().preimage()))).toCompletableFuture()
        .join();
  }

  @Test
  @Spec("LOC-07")
  void locateAnswersByGlobalIdOnly() {
    assertThat(query.locate(ObjectKey.actor("alice"))).isEmpty();
    assertThat(f.store.appliedWrites()).isZero();
    assertThat(f.store.size()).isZero();
    put(ObjectKey.actor("alice"), PlacementKind.ACTOR, "player", "chat", AuthorityRecord.State.ACTIVE);
    put(ObjectKey.spot("alice"), PlacementKind.USER_SPOT, "room", "games", AuthorityRecord.State.RESERVED);
    final LocationQuery.LocationView actor = query.locate(ObjectKey.actor("alice")).orElseThrow();
    assertThat(actor).isEqualTo(new LocationQuery.LocationView(ObjectKey.actor("alice"), PlacementKind.ACTOR,
        "player", RecordState.READY, 7, 3, "owner-a", new LeaseGeneration(2), "chat", "0a01", 5, actor.version()));
    final LocationQuery.LocationView spot = query.locate(ObjectKey.spot("alice")).orElseThrow();
    assertThat(spot.state()).isEqualTo(RecordState.CREATING);
    assertThat(spot.meshName()).isEqualTo("games");
  }

  @Test
  @Spec("LOC-08")
  void listPagesComeFromOnePointInTimeWhileWritesGoOn() {
    final Set<String> initial = new TreeSet<>();
    for (int i = 0; i < 25; i++) {
      final String id = String.format("a%02d", i);
      initial.add(id);
      put(ObjectKey.actor(id), PlacementKind.ACTOR, "player", "chat", AuthorityRecord.State.ACTIVE);
    }
    put(ObjectKey.spot("a00"), PlacementKind.USER_SPOT, "room", "chat", AuthorityRecord.State.ACTIVE);
    final List<String> seen = new ArrayList<>();
    Optional<ScanCursor> next = Optional.empty();
    for (int page = 0; page < 10; page++) {
      final LocationQuery.Listing.Page p = (LocationQuery.Listing.Page) query.list(AuthorityKind.ACTOR,
          Optional.empty(), Optional.empty(), 7, next);
      assertThat(p.entries()).hasSizeLessThanOrEqualTo(7);
      p.entries().forEach(e -> seen.add(e.key().id()));
      // writes between pages: a row deleted, one created, one changed
      delete(ObjectKey.actor(String.format("a%02d", 24 - page)));
      put(ObjectKey.actor("b" + page), PlacementKind.ACTOR, "player", "chat", AuthorityRecord.State.ACTIVE);
      put(ObjectKey.actor("a01"), PlacementKind.ACTOR, "npc", "chat", AuthorityRecord.State.ACTIVE);
      next = p.continuation();
      if (next.isEmpty()) {
        break;
      }
    }
    assertThat(next).isEmpty();
    assertThat(seen).doesNotHaveDuplicates(); // must never: an id twice, one skipped, one created later shown
    assertThat(new TreeSet<>(seen)).isEqualTo(initial);
    final LocationQuery.Listing.Page fresh = (LocationQuery.Listing.Page) query.list(AuthorityKind.ACTOR,
        Optional.empty(), Optional.empty(), 1000, Optional.empty());
    assertThat(fresh.entries()).extracting(e -> e.key().id()).contains("b0", "b3").doesNotContain("a24");
  }

  @Test
  void filtersFillThePageFromFurtherStorePages() {
    for (int i = 0; i < 30; i++) {
      put(ObjectKey.spot(String.format("s%02d", i)), i % 3 == 0 ? PlacementKind.INSTANCE_SPOT
          : PlacementKind.USER_SPOT, i % 3 == 0 ? "game" : "room", i % 2 == 0 ? "chat" : "games",
          AuthorityRecord.State.ACTIVE);
    }
    final LocationQuery.Listing.Page games = (LocationQuery.Listing.Page) query.list(AuthorityKind.SPOT,
        Optional.of("game"), Optional.empty(), 4, Optional.empty());
    assertThat(games.entries()).extracting(e -> e.key().id()).containsExactly("s00", "s03", "s06", "s09");
    assertThat(games.continuation()).isPresent();
    final LocationQuery.Listing.Page rest = (LocationQuery.Listing.Page) query.list(AuthorityKind.SPOT,
        Optional.of("game"), Optional.of("chat"), 4, games.continuation());
    assertThat(rest.entries()).extracting(e -> e.key().id()).containsExactly("s12", "s18", "s24");
    assertThat(rest.continuation()).isEmpty();
    final Set<String> kinds = new LinkedHashSet<>();
    games.entries().forEach(e -> kinds.add(e.objectKind().wire()));
    assertThat(kinds).containsExactly("instanceSpot");
  }

  @Test
  void aForeignOrStaleContinuationIsExpiredAndPageSizeIsChecked() {
    for (int i = 0; i < 5; i++) {
      put(ObjectKey.actor("a" + i), PlacementKind.ACTOR, "player", "chat", AuthorityRecord.State.ACTIVE);
      put(ObjectKey.spot("s" + i), PlacementKind.USER_SPOT, "room", "chat", AuthorityRecord.State.ACTIVE);
    }
    final LocationQuery.Listing.Page actors = (LocationQuery.Listing.Page) query.list(AuthorityKind.ACTOR,
        Optional.empty(), Optional.empty(), 2, Optional.empty());
    assertThat(query.list(AuthorityKind.SPOT, Optional.empty(), Optional.empty(), 2, actors.continuation()))
        .isInstanceOf(LocationQuery.Listing.Expired.class);
    assertThat(query.list(AuthorityKind.ACTOR, Optional.empty(), Optional.empty(), 2,
        Optional.of(new ScanCursor(StoreBytes.utf8("bogus"))))).isInstanceOf(LocationQuery.Listing.Expired.class);
    assertThatThrownBy(() -> query.list(AuthorityKind.ACTOR, Optional.empty(), Optional.empty(), 1001,
        Optional.empty())).isInstanceOf(IllegalArgumentException.class).hasMessage("page size 1001 is outside 1..1000");
    assertThatThrownBy(() -> query.list(AuthorityKind.ACTOR, Optional.empty(), Optional.empty(), 0,
        Optional.empty())).isInstanceOf(IllegalArgumentException.class);
  }
}
