package dev.spotkit.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spotkit.testkit.TestMesh;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code preserveState(stateType, capture, restore)}: an actor's and a SpotWide room's state crosses nodes as JSON
 * (and, with {@code preserveState(codec, capture, restore)}, through a {@link StateCodec} the user gives)
 * with no hand-written codec (PreserveStateWith, spec 000 section 6; issue 15), and a state that cannot be written
 * or read fails the move before relay-ready with a typed error while the object keeps serving on its source.
 */
class JsonStateTest {
  static final String SECRET = "test-cluster-secret-0123456789";

  enum Mood { CALM, ANGRY }

  /** The state record: plain values of several kinds. */
  record KeeperState(List<Integer> notes, String nick, Instant since, Optional<String> motto, Map<String, Long> score,
      Mood mood) {
  }

  /** What a node that decodes the state differently expects: {@code notes} as one number. */
  record Incompatible(int notes) {
  }

  record Note(int n) {
  }

  record Snapshot() {
  }

  record Where() {
  }

  static final class Keeper implements Actor {
    final ActorContext ctx;
    List<Integer> notes = new ArrayList<>();
    String nick = "k";
    Instant since = Instant.parse("2026-12-04T10:15:30.123456Z");
    Optional<String> motto = Optional.of("keep going");
    Map<String, Long> score = new TreeMap<>(Map.of("wins", 3L, "losses", 1L));
    Mood mood = Mood.ANGRY;
    boolean nullState;

    Keeper(final ActorContext ctx) {
      this.ctx = ctx;
    }

    KeeperState state() {
      return nullState ? null : new KeeperState(List.copyOf(notes), nick, since, motto, score, mood);
    }

    void apply(final KeeperState s) {
      notes = new ArrayList<>(s.notes());
      nick = s.nick();
      since = s.since();
      motto = s.motto();
      score = s.score();
      mood = s.mood();
    }

    @Override
    public void configure(final ActorHandlers on) {
      on.message(Note.class, n -> {
        notes.add(n.n());
        nullState = n.n() < 0;
      })
          .request(Snapshot.class, s -> new KeeperState(List.copyOf(notes), nick, since, motto, score, mood))
          .request(Where.class, w -> ctx.self().nodeRid().hex());
    }
  }

  static final class Room implements UserSpot<Keeper> {
    final UserSpotContext ctx;
    final List<String> lines = new CopyOnWriteArrayList<>();

    Room(final UserSpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public UserSpotContext context() {
      return ctx;
    }

    @Override
    public void configure(final SpotHandlers on) {
      on.message(String.class, lines::add).request(Snapshot.class, s -> List.copyOf(lines));
    }
  }

  /** The room's state record. */
  record RoomState(List<String> lines) {
  }

  private TestMesh mesh;

  private static Consumer<ObjectServerBuilder> registrations(final Consumer<ActorOptions<Keeper>> keeper) {
    return s -> s.entrySpot(TestNodes.PlainEntry::new).actor("keeper", Keeper::new, keeper)
        .userSpot("room", Room::new, o -> o.spotWide().preserveState(RoomState.class,
            room -> new RoomState(List.copyOf(room.lines)), (room, st) -> room.lines.addAll(st.lines())));
  }

  private static void json(final ActorOptions<Keeper> keeper) {
    keeper.preserveState(KeeperState.class, Keeper::state, Keeper::apply);
  }

  private static TestMesh.Builder builder(final Consumer<ActorOptions<Keeper>> keeper) {
    return TestMesh.builder().meshName("mesh").objectServer(registrations(keeper));
  }

  @AfterEach
  void close() {
    if (mesh != null) {
      mesh.close();
    }
  }

  private static KeeperState snapshot(final MeshNode via, final String id) {
    return via.toActor(id).request(new Snapshot(), KeeperState.class).timeout(Duration.ofSeconds(10)).await();
  }

  private static String where(final MeshNode via, final String id) {
    return via.toActor(id).request(new Where(), String.class).timeout(Duration.ofSeconds(10)).await();
  }

  @Test
  @Spec("REL-01")
  void anActorsRecordStateMovesToAnotherNodeAsJson() {
    mesh = builder(JsonStateTest::json).start(2);
    final MeshNode a = mesh.node(0);
    final MeshNode b = mesh.node(1);
    final String id = mesh.actorOn(0, "keeper-1", "keeper");
    for (int n = 0; n < 5; n++) {
      a.toActor(id).send(new Note(n));
    }
    final KeeperState before = snapshot(a, id);

    final HostRelocationResult moved = a.relocate(b.nodeRid()).join();

    assertThat(moved.kept()).isEmpty();
    assertThat(where(a, id)).isEqualTo(b.nodeRid().hex());
    final KeeperState after = snapshot(b, id);
    assertThat(after).isEqualTo(before);
    assertThat(after.notes()).containsExactly(0, 1, 2, 3, 4);
    assertThat(after.since()).isEqualTo(Instant.parse("2026-12-04T10:15:30.123456Z")); // full precision
    assertThat(after.motto()).contains("keep going");
    assertThat(after.mood()).isEqualTo(Mood.ANGRY);
  }

  @Test
  void aRoomsRecordStateMovesWithItsMembers() throws Exception {
    mesh = builder(JsonStateTest::json).start(1);
    final MeshNode a = mesh.node(0);
    a.spots().getOrCreate("r1", "room").await(); // on a: the only node yet
    final MeshNode b = mesh.addNode();
    a.toSpot("r1").send("hello");
    a.toSpot("r1").send("world");
    a.toSpot("r1").request(new Snapshot(), List.class).timeout(Duration.ofSeconds(10)).await(); // both handled

    a.relocateSpot(new SpotId("r1"), b.nodeRid()).get(30, java.util.concurrent.TimeUnit.SECONDS);

    assertThat(b.toSpot("r1").request(new Snapshot(), List.class).timeout(Duration.ofSeconds(10)).await())
        .containsExactly("hello", "world");
  }

  @Test
  void aCaptureThatReturnsNullFailsTheMoveWithATypedErrorAndTheActorKeepsServingWithItsState() {
    mesh = builder(JsonStateTest::json).start(2);
    final MeshNode a = mesh.node(0);
    final MeshNode b = mesh.node(1);
    final String id = mesh.actorOn(0, "keeper-2", "keeper");
    a.toActor(id).send(new Note(7));
    a.toActor(id).send(new Note(-1)); // its capture returns null from now on
    assertThat(snapshot(a, id).notes()).containsExactly(7, -1); // handled before the move starts

    final HostRelocationResult moved = a.relocate(b.nodeRid()).join();

    assertThat(moved.relocated()).isEmpty();
    assertThat(moved.kept().values()).singleElement().satisfies(e -> assertThat(e)
        .isInstanceOf(SpotkitException.class).hasMessageContaining("returned null"));
    assertThat(where(b, id)).isEqualTo(a.nodeRid().hex());
    a.toActor(id).send(new Note(8));
    assertThat(snapshot(b, id).notes()).containsExactly(7, -1, 8);
  }

  @Test
  void aStateTheTargetCannotDecodeFailsTheMoveBeforeRelayReadyAndTheActorKeepsServing() {
    // node 1 registers the keeper with another state type
    mesh = builder(JsonStateTest::json).customize((node, i) -> {
      if (i == 1) {
        node.objectServer(registrations(k -> k.preserveState(Incompatible.class, keeper -> new Incompatible(0),
            (keeper, s) -> {
            })));
      }
    }).start(2);
    final MeshNode a = mesh.node(0);
    final MeshNode b = mesh.node(1);
    final String id = mesh.actorOn(0, "keeper-3", "keeper");
    a.toActor(id).send(new Note(1));

    final HostRelocationResult moved = a.relocate(b.nodeRid()).join();

    assertThat(moved.relocated()).isEmpty();
    assertThat(moved.kept()).hasSize(1);
    assertThat(where(b, id)).isEqualTo(a.nodeRid().hex());
    a.toActor(id).send(new Note(2));
    assertThat(snapshot(a, id).notes()).containsExactly(1, 2);
  }

  @Test
  void nullArgumentsAreATypedErrorAtRegistration() {
    assertThatThrownBy(() -> builder(k -> k.preserveState((Class<KeeperState>) null, Keeper::state, Keeper::apply))
        .start(1))
        .isInstanceOf(SpotkitException.InvalidOperation.class).hasMessageContaining("none of them null");
    assertThatThrownBy(() -> builder(k -> k.preserveState(KeeperState.class, null, Keeper::apply)).start(1))
        .isInstanceOf(SpotkitException.InvalidOperation.class);
    assertThatThrownBy(() -> builder(k -> k.preserveState((StateCodec<KeeperState>) null, Keeper::state,
        Keeper::apply)).start(1)).isInstanceOf(SpotkitException.InvalidOperation.class)
        .hasMessageContaining("none of them null");
  }

  /** Notes as comma-separated decimal text: a codec of the user's own, counting its calls; decode may refuse. */
  static final class NotesCodec implements StateCodec<KeeperState> {
    static final AtomicInteger ENCODED = new AtomicInteger();
    static final AtomicInteger DECODED = new AtomicInteger();
    private final boolean refuse;

    NotesCodec(final boolean refuse) {
      this.refuse = refuse;
    }

    @Override
    public byte[] encode(final KeeperState state) {
      ENCODED.incrementAndGet();
      return state.notes().stream().map(String::valueOf).collect(Collectors.joining(","))
          .getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public KeeperState decode(final byte[] bytes) {
      DECODED.incrementAndGet();
      if (refuse) {
        throw new IllegalArgumentException("this node reads no notes");
      }
      final String text = new String(bytes, StandardCharsets.UTF_8);
      final List<Integer> notes = text.isEmpty() ? List.of()
          : Arrays.stream(text.split(",")).map(Integer::valueOf).toList();
      return new KeeperState(notes, null, null, Optional.empty(), Map.of(), null);
    }
  }

  @Test
  void anActorsStateMovesThroughACodecTheUserGivesAndACodecThatThrowsFailsTheMoveTyped() {
    NotesCodec.ENCODED.set(0);
    NotesCodec.DECODED.set(0);
    // nodes 0 and 1 read the notes; node 2 refuses to decode them
    mesh = builder(k -> k.preserveState(new NotesCodec(false), Keeper::state, Keeper::apply))
        .customize((node, i) -> {
          if (i == 2) {
            node.objectServer(registrations(k -> k.preserveState(new NotesCodec(true), Keeper::state,
                Keeper::apply)));
          }
        }).start(3);
    final MeshNode a = mesh.node(0);
    final String id = mesh.actorOn(0, "keeper-4", "keeper");
    for (int n = 0; n < 3; n++) {
      a.toActor(id).send(new Note(n));
    }
    assertThat(snapshot(a, id).notes()).containsExactly(0, 1, 2);

    final HostRelocationResult refused = a.relocate(mesh.node(2).nodeRid()).join();
    assertThat(refused.relocated()).isEmpty();
    assertThat(refused.kept().values()).singleElement().satisfies(e -> assertThat(e)
        .as("a decode failure on the target: command 53 RESTORE_FAILED").isInstanceOf(
            SpotkitException.InternalFailure.class).hasMessageContaining("RESTORE_FAILED"));
    assertThat(where(a, id)).isEqualTo(a.nodeRid().hex());

    final HostRelocationResult moved = a.relocate(mesh.node(1).nodeRid()).join();
    assertThat(moved.kept()).isEmpty();
    assertThat(where(a, id)).isEqualTo(mesh.node(1).nodeRid().hex());
    assertThat(snapshot(mesh.node(1), id).notes()).containsExactly(0, 1, 2);
    assertThat(NotesCodec.ENCODED).hasValueGreaterThanOrEqualTo(2);
    assertThat(NotesCodec.DECODED).hasValueGreaterThanOrEqualTo(2);
  }
}
