package dev.spotkit.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spotkit.core.location.LocationRecords;
import dev.spotkit.core.location.ObjectKey;
import dev.spotkit.core.location.RecordState;
import dev.spotkit.store.InMemoryLocationStore;
import dev.spotkit.store.Mutation;
import dev.spotkit.store.StoreBytes;
import dev.spotkit.store.WriteBatch;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Actor creation through the Entry Spot's OnCreateActor (spec 000 section 2). */
class ActorCreationTest {

  record Ticket(String holder) {}

  record Blob(String data) {}

  record AskRoom(String roomId) {}

  final AtomicInteger factoryRuns = new AtomicInteger();
  final List<String> created = new java.util.concurrent.CopyOnWriteArrayList<>();
  final InMemoryLocationStore store = new InMemoryLocationStore();

  final class Player implements Actor {
    private final ActorContext ctx;

    Player(final ActorContext ctx) {
      this.ctx = ctx;
      factoryRuns.incrementAndGet();
    }

    @Override
    public void configure(final ActorHandlers on) {
      on.request(Ticket.class, t -> ctx.self().id().value());
    }
  }

  final class Gatekeeper implements EntrySpot {
    private final EntrySpotContext ctx;

    Gatekeeper(final EntrySpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public EntrySpotContext context() {
      return ctx;
    }

    @Override
    public CreateDecision onCreateActor(final ActorCreation creation) {
      created.add(creation.actor().id() + " " + creation.request());
      assertThat(creation.instance()).isInstanceOf(Player.class);
      return creation.request() instanceof Ticket t && t.holder().equals("eve") ? CreateDecision.decline("no")
          : CreateDecision.approve("ok");
    }
  }

  final class Room implements UserSpot<Player> {
    private final UserSpotContext ctx;

    Room(final UserSpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public UserSpotContext context() {
      return ctx;
    }

    @Override
    public void configure(final SpotHandlers on) {
      on.request(Ticket.class, t -> "room ok");
    }
  }

  final MeshNode node = TestNodes.bare(store, s -> s.entrySpot(Gatekeeper::new)
      .actor("player", Player::new, a -> a.recreateOnRelocation())
      .userSpot("room", Room::new, o -> o.recreateOnRelocation()));

  @AfterEach
  void close() {
    node.close();
  }

  @Test
  void approvedCreationIsReadyInTheEntrySpotWithTheStoreRecordAndReply() {
    final CreateOutcome<ActorRef> outcome = node.actors().getOrCreate("alice", "player", new Ticket("alice"))
        .awaitOutcome();
    assertThat(outcome).isInstanceOf(CreateOutcome.Created.class);
    assertThat(((CreateOutcome.Created<ActorRef>) outcome).reply()).contains("ok");
    final ActorRef ref = ((CreateOutcome.Created<ActorRef>) outcome).ref();
    assertThat(created).containsExactly("alice Ticket[holder=alice]");
    final var record = LocationRecords.read(store, ObjectKey.actor("alice")).orElseThrow().record();
    assertThat(record.state()).isEqualTo(RecordState.READY);
    assertThat(record.membership()).isEqualTo(node.entrySpot().id().value());
    assertThat(record.objectGeneration()).isEqualTo(ref.generation().value());
    assertThat(node.actors().getOrCreate("alice", "player").awaitOutcome())
        .isEqualTo(new CreateOutcome.Existing<>(ref));
  }

  @Test
  void declinedCreationLeavesNothingBehind() {
    assertThat(node.actors().getOrCreate("eve", "player", new Ticket("eve")).awaitOutcome())
        .isEqualTo(new CreateOutcome.Rejected<ActorRef>(Optional.of("no")));
    assertThat(node.actors().find("eve")).isEmpty();
    assertThat(LocationRecords.read(store, ObjectKey.actor("eve"))).isEmpty();
    assertThatThrownBy(() -> node.toActor("eve").send(new Ticket("x"))).isInstanceOf(SpotkitException.NotFound.class);
  }

  @Test
  void concurrentGetOrCreateRunsTheFactoryOnce() throws Exception {
    final List<CompletableFuture<CreateOutcome<ActorRef>>> calls = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      calls.add(node.actors().getOrCreate("bob", "player").toOutcomeFuture());
    }
    int createdCount = 0;
    for (CompletableFuture<CreateOutcome<ActorRef>> call : calls) {
      if (call.get(5, TimeUnit.SECONDS) instanceof CreateOutcome.Created) {
        createdCount++;
      }
    }
    assertThat(createdCount).isEqualTo(1);
    assertThat(factoryRuns.get()).isEqualTo(1);
  }

  @Test
  void createIssuesAFrameworkUuid() {
    final ActorRef ref = node.actors().create("player").await();
    assertThat(ref.id().value()).matches("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
  }

  @Test
  void creationRequestOverOneMebibyteIsCapacityExceeded() {
    assertThatThrownBy(() -> node.actors().create("player", new Blob("x".repeat(1 << 20))).await())
        .isInstanceOf(SpotkitException.CapacityExceeded.class)
        .hasMessage("creation request of 1048587 bytes exceeds the 1048576-byte limit per request; send large data"
            + " as messages instead");
  }

  @Test
  void exhaustedGenerationsAreTypedAndChangeNothing() {
    final InMemoryLocationStore nearlyDone = new InMemoryLocationStore();
    nearlyDone.write(WriteBatch.unconditional(Mutation.Put.of("zlink:v11:object-counter",
        StoreBytes.utf8(Long.toString(Long.MAX_VALUE - 1)))));
    try (MeshNode small = TestNodes.server(nearlyDone, s -> s.actor("player", Player::new,
        a -> a.recreateOnRelocation()))) {
      assertThat(small.entrySpot().generation().value()).as("the last issued value is 2^63-2")
          .isEqualTo(Long.MAX_VALUE - 1);
      final long writes = nearlyDone.appliedWrites();
      assertThatThrownBy(() -> small.actors().getOrCreate("late", "player").await())
          .isInstanceOf(SpotkitException.GenerationExhausted.class)
          .hasMessage("ObjectGeneration counter zlink:v11:object-counter holds the exhausted sentinel"
              + " 9223372036854775807 (2^63-1): no value is left in 1..9223372036854775806 and the store was not"
              + " changed");
      assertThat(nearlyDone.appliedWrites()).isEqualTo(writes);
      assertThat(small.actors().find("late")).isEmpty();
    }
  }

  @Test
  void aSpotWideMemberAwaitingItsOwnRoomIsRefusedInsteadOfWaitingForItself() {
    final List<JoinResult> results = new java.util.concurrent.CopyOnWriteArrayList<>();
    final class Member implements Actor {
      private final ActorContext ctx;

      Member(final ActorContext ctx) {
        this.ctx = ctx;
      }

      @Override
      public void onJoinCompleted(final JoinResult result) {
        results.add(result);
      }

      @Override
      public void configure(final ActorHandlers on) {
        on.request(AskRoom.class, a -> {
          try {
            return ctx.toSpot(a.roomId()).request(new Ticket("m"), String.class).await();
          } catch (SpotkitException e) {
            return e.getClass().getSimpleName() + ": " + e.getMessage();
          }
        }).message(Ticket.class, t -> ctx.joinSpot(t.holder()).defer());
      }
    }
    try (MeshNode wide = TestNodes.server(s -> s
        .actor("member", Member::new, a -> a.recreateOnRelocation())
        .userSpot("room", Room::new, o -> o.recreateOnRelocation()))) {
      wide.actors().getOrCreate("m", "member").await();
      wide.spots().getOrCreate("room:1", "room").await();
      assertThat(wide.toActor("m").request(new AskRoom("room:1"), String.class).await()).isEqualTo("room ok");
      wide.toActor("m").send(new Ticket("room:1"));
      org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(5)).until(() -> results.size() == 1);
      assertThat(wide.toActor("m").request(new AskRoom("room:1"), String.class).await())
          .startsWith("InvalidOperation: awaited request to user spot 'room:1'")
          .endsWith("would wait for itself (a handler awaiting its own actor, or a SpotWide room and its members);"
              + " use send, or toFuture() without awaiting it inside the turn");
    }
  }
}
