package dev.spotkit.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spotkit.core.location.LocationKeys;
import dev.spotkit.core.location.LocationQuery;
import dev.spotkit.core.location.ObjectKey;
import dev.spotkit.store.InMemoryLocationStore;
import dev.spotkit.store.Mutation;
import dev.spotkit.store.WriteBatch;
import dev.spotkit.testkit.TestMesh;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The operator query on the public API: {@link MeshNode#locations()} (spec 002 section 7.4). */
class LocationQueriesTest {
  /** Released by a test to let a held creation finish. */
  static volatile CountDownLatch hold = new CountDownLatch(0);

  /** An actor with no behaviour. */
  static final class Plain implements Actor {
    Plain(final ActorContext ctx) {
    }

    @Override
    public void configure(final ActorHandlers on) {
    }
  }

  /** A room with no behaviour. */
  static final class Room implements UserSpot<Actor> {
    private final UserSpotContext ctx;

    Room(final UserSpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public UserSpotContext context() {
      return ctx;
    }
  }

  /** Approves every actor; holds the creation of ids starting with "held-" until {@link #hold} opens. */
  static final class HoldingEntry implements EntrySpot {
    private final EntrySpotContext ctx;

    HoldingEntry(final EntrySpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public EntrySpotContext context() {
      return ctx;
    }

    @Override
    public CreateDecision onCreateActor(final ActorCreation creation) {
      if (creation.actor().id().value().startsWith("held-")) {
        try {
          hold.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return CreateDecision.approve();
    }
  }

  private final InMemoryLocationStore store = new InMemoryLocationStore();
  private final List<MeshNode> nodes = new CopyOnWriteArrayList<>();
  private TestMesh testMesh;

  private static void registrations(final ObjectServerBuilder s) {
    s.entrySpot(HoldingEntry::new)
        .actor("player", Plain::new, a -> a.disableRelocation())
        .actor("npc", Plain::new, a -> a.disableRelocation())
        .userSpot("room", Room::new, o -> o.recreateOnRelocation());
  }

  /** A node without a mesh, alone on {@link #store}. */
  private MeshNode node(final boolean mesh) {
    final MeshNode node = MeshNode.builder().meshName("mesh").locationStore(store)
        .relocationStore(RelocationStores.of(store)).workers(2)
        .closeTimeout(Duration.ofSeconds(5)).requestTimeout(Duration.ofSeconds(10))
        .objectServer(LocationQueriesTest::registrations).start();
    nodes.add(node);
    return node;
  }

  /** {@code count} MeshNodes on a {@link TestMesh}. */
  private List<MeshNode> meshOf(final int count) {
    testMesh = TestMesh.builder().meshName("mesh").node(b -> b.requestTimeout(Duration.ofSeconds(10)))
        .objectServer(LocationQueriesTest::registrations).start(count);
    return testMesh.nodes();
  }

  @AfterEach
  void close() {
    hold.countDown();
    nodes.forEach(MeshNode::close);
    if (testMesh != null) {
      testMesh.close();
    }
  }

  @Test
  void aReadyObjectWhoseOwnerLeaseLapsedIsReportedUnavailableStillOnThatOwner() {
    final List<MeshNode> mesh = meshOf(2);
    final List<ActorRef> refs = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      refs.add(mesh.get(i % 2).actors().getOrCreate(String.format("p-%02d", i), "player").await());
    }
    final NodeRid lapsedNode = mesh.get(0).nodeRid();
    assertThat(refs).extracting(ActorRef::nodeRid).as("placement used both nodes").contains(lapsedNode,
        mesh.get(1).nodeRid());
    final ActorRef onLapsed = refs.stream().filter(r -> r.nodeRid().equals(lapsedNode)).findFirst().orElseThrow();
    final InMemoryLocationStore store = testMesh.locationStore();
    final String ownerId = new LocationQuery(store, Duration.ofSeconds(2))
        .locate(ObjectKey.actor(onLapsed.id().value())).orElseThrow().ownerId();
    // the owner's lease record goes away as if its renewals had stopped answering past the TTL
    store.write(WriteBatch.unconditional(new Mutation.Delete(LocationKeys.ownerLease(ownerId).preimage())))
        .toCompletableFuture().join();

    assertThat(mesh.get(1).locations().locate(ObjectKind.ACTOR, onLapsed.id().value())).contains(
        new ObjectLocation(ObjectKind.ACTOR, onLapsed.id().value(), onLapsed.generation(), "player",
            ObjectLocation.State.UNAVAILABLE, new MeshName("mesh"), lapsedNode));
    final List<ObjectLocation> listed = mesh.get(1).locations().list(ObjectKind.ACTOR, "player", 100, null)
        .entries();
    assertThat(listed).hasSize(refs.size()).allSatisfy(l -> assertThat(l.state()).isEqualTo(
        l.owner().equals(lapsedNode) ? ObjectLocation.State.UNAVAILABLE : ObjectLocation.State.READY));
  }

  @Test
  void locateFromAnyOfThreeNodesGivesTheOwnerTheCreatorGot() {
    final List<MeshNode> mesh = meshOf(3);
    final Set<NodeRid> owners = new HashSet<>();
    for (int i = 0; i < 12; i++) {
      final ActorRef ref = mesh.get(i % 3).actors().getOrCreate("p-" + i, "player").await();
      owners.add(ref.nodeRid());
      final ObjectLocation expected = new ObjectLocation(ObjectKind.ACTOR, "p-" + i, ref.generation(), "player",
          ObjectLocation.State.READY, new MeshName("mesh"), ref.nodeRid());
      for (MeshNode node : mesh) {
        assertThat(node.locations().locate(ObjectKind.ACTOR, "p-" + i)).contains(expected);
      }
      // Actor and Spot ids are separate: the same id as a Spot is missing, and asking creates nothing
      assertThat(mesh.get(2).locations().locate(ObjectKind.SPOT, "p-" + i)).isEmpty();
    }
    assertThat(owners).as("placement used more than one owner, so some answers crossed nodes").hasSizeGreaterThan(1);
    final SpotRef room = mesh.get(1).spots().getOrCreate("room-1", "room").await();
    for (MeshNode node : mesh) {
      assertThat(node.locations().locate(ObjectKind.SPOT, "room-1")).hasValueSatisfying(l -> {
        assertThat(l.owner()).isEqualTo(room.nodeRid());
        assertThat(l.generation()).isEqualTo(room.generation());
        assertThat(l.stableType()).isEqualTo("room");
      });
      assertThat(node.locations().locate(ObjectKind.ACTOR, "nobody")).isEmpty();
    }
    assertThat(mesh.get(0).actors().find("nobody")).isEmpty();
  }

  @Test
  void anObjectBeingCreatedIsReportedCreatingThenReady() throws Exception {
    final MeshNode node = node(false);
    hold = new CountDownLatch(1);
    final CompletableFuture<ActorRef> created = CompletableFuture.supplyAsync(() ->
        node.actors().getOrCreate("held-1", "player").await());
    Awaitility.await().atMost(5, TimeUnit.SECONDS).until(() ->
        node.locations().locate(ObjectKind.ACTOR, "held-1").isPresent());
    assertThat(node.locations().locate(ObjectKind.ACTOR, "held-1").orElseThrow().state())
        .isEqualTo(ObjectLocation.State.CREATING);
    hold.countDown();
    final ActorRef ref = created.get(10, TimeUnit.SECONDS);
    assertThat(node.locations().locate(ObjectKind.ACTOR, "held-1")).contains(new ObjectLocation(ObjectKind.ACTOR,
        "held-1", ref.generation(), "player", ObjectLocation.State.READY, node.meshName(), node.nodeRid()));
  }

  @Test
  void listPagesThousandsByKindAndTypeEachOnceWhileCreationsGoOn() {
    final MeshNode node = node(false);
    final Set<String> players = new HashSet<>();
    for (int i = 0; i < 1_050; i++) {
      players.add(node.actors().getOrCreate(String.format("player-%04d", i), "player").await().id().value());
    }
    for (int i = 0; i < 40; i++) {
      node.actors().getOrCreate(String.format("npc-%02d", i), "npc").await();
    }
    for (int i = 0; i < 5; i++) {
      node.spots().getOrCreate("room-" + i, "room").await();
    }
    final List<String> seen = new ArrayList<>();
    String next = null;
    int pages = 0;
    int created = 0;
    do {
      final LocationPage page = node.locations().list(ObjectKind.ACTOR, "player", 37, next);
      assertThat(page.entries()).hasSizeBetween(1, 37);
      for (ObjectLocation l : page.entries()) {
        assertThat(l.kind()).isEqualTo(ObjectKind.ACTOR);
        assertThat(l.stableType()).isEqualTo("player");
        assertThat(l.state()).isEqualTo(ObjectLocation.State.READY);
        assertThat(l.owner()).isEqualTo(node.nodeRid());
        seen.add(l.id());
      }
      // creations during the cycle, both before and after the ids already listed: none may show in this cycle
      node.actors().getOrCreate(String.format("player-%04d-late", pages), "player").await();
      node.actors().getOrCreate("a-early-" + pages, "player").await();
      created += 2;
      next = page.continuation().orElse(null);
      pages++;
    } while (next != null && pages < 100);
    assertThat(next).isNull();
    assertThat(pages).isEqualTo((1_050 + 36) / 37);
    assertThat(seen).doesNotHaveDuplicates(); // must never: an id twice, one skipped, one created later shown
    assertThat(new HashSet<>(seen)).isEqualTo(players);

    final List<String> all = new ArrayList<>();
    String more = null;
    int rounds = 0;
    do {
      final LocationPage page = node.locations().list(ObjectKind.ACTOR, null, 1000, more);
      page.entries().forEach(l -> all.add(l.id()));
      more = page.continuation().orElse(null);
    } while (more != null && ++rounds < 10);
    assertThat(all).doesNotHaveDuplicates().hasSize(1_050 + 40 + created).contains("a-early-0", "npc-39");
    final LocationPage spots = node.locations().list(ObjectKind.SPOT, "room", 1000, null);
    assertThat(spots.entries()).extracting(ObjectLocation::id)
        .containsExactly("room-0", "room-1", "room-2", "room-3", "room-4");
    assertThat(spots.continuation()).isEmpty();
    assertThat(node.locations().list(ObjectKind.SPOT, null, new MeshName("elsewhere"), 1000, null).entries())
        .isEmpty();
    assertThat(node.locations().list(ObjectKind.SPOT, null, new MeshName("mesh"), 1000, null).entries())
        .extracting(ObjectLocation::stableType).contains("room", "entry");
  }

  @Test
  void pageSizeAndContinuationsAreChecked() {
    final MeshNode node = node(false);
    for (int i = 0; i < 6; i++) {
      node.actors().getOrCreate("p" + i, "player").await();
    }
    final LocationQueries q = node.locations();
    assertThatThrownBy(() -> q.list(ObjectKind.ACTOR, null, 0, null))
        .isInstanceOf(SpotkitException.InvalidOperation.class)
        .hasMessage("page size 0 is outside 1..1000 (spec 002 section 6.2); read larger sets page by page with the"
            + " continuation");
    assertThatThrownBy(() -> q.list(ObjectKind.ACTOR, null, 1001, null))
        .isInstanceOf(SpotkitException.InvalidOperation.class).hasMessageContaining("page size 1001");
    assertThatThrownBy(() -> q.list(null, null, 10, null)).isInstanceOf(SpotkitException.InvalidOperation.class);
    assertThatThrownBy(() -> q.locate(ObjectKind.ACTOR, "")).isInstanceOf(SpotkitException.InvalidOperation.class);

    final LocationPage first = q.list(ObjectKind.ACTOR, null, 2, null);
    final String token = first.continuation().orElseThrow();
    assertThatThrownBy(() -> q.list(ObjectKind.SPOT, null, 2, token)) // another list read
        .isInstanceOf(SpotkitException.InvalidOperation.class).hasMessageContaining("ScanExpired");
    String next = token;
    for (int i = 0; i < 10 && next != null; i++) {
      next = q.list(ObjectKind.ACTOR, null, 2, next).continuation().orElse(null);
    }
    assertThat(next).isNull();
    assertThatThrownBy(() -> q.list(ObjectKind.ACTOR, null, 2, token)) // the list was read to its end
        .isInstanceOf(SpotkitException.InvalidOperation.class)
        .hasMessage("ScanExpired: the continuation is expired (the list was idle too long or was already read to"
            + " its end) or belongs to another list read; start the list again with a null continuation (spec 002"
            + " section 6.2)");
    assertThatThrownBy(() -> q.list(ObjectKind.ACTOR, null, 2, "not base64 !"))
        .isInstanceOf(SpotkitException.InvalidOperation.class).hasMessageContaining("ScanExpired");
    assertThatThrownBy(() -> q.list(ObjectKind.ACTOR, null, 2, ""))
        .isInstanceOf(SpotkitException.InvalidOperation.class).hasMessageContaining("ScanExpired");
  }

  @Test
  void aNodeWithoutObjectRoleIsNotConfiguredAndAClosedNodeIsShuttingDown() {
    final MeshNode bare = MeshNode.builder().closeTimeout(Duration.ofSeconds(5)).start();
    nodes.add(bare);
    assertThatThrownBy(() -> bare.locations().locate(ObjectKind.ACTOR, "a"))
        .isInstanceOf(SpotkitException.NotConfigured.class);
    assertThatThrownBy(() -> bare.locations().list(ObjectKind.ACTOR, null, 10, null))
        .isInstanceOf(SpotkitException.NotConfigured.class);
    final MeshNode node = node(false);
    node.close();
    assertThatThrownBy(() -> node.locations().locate(ObjectKind.ACTOR, "a"))
        .isInstanceOf(SpotkitException.ShuttingDown.class);
    assertThat(Optional.of(node.role())).contains(ObjectRole.SERVER);
  }
}
