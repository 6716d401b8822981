package dev.spotkit.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spotkit.core.mesh.PeerConnection;
import dev.spotkit.testkit.TestMesh;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Message Follow of a moved room (spec 000 section 9) when the move's connection closes afterwards: the source's
 * follow re-routes to the owner the Location Store names instead of dropping what it still receives.
 */
class AggregateFollowRerouteTest {
  static final String ROOM = "follow-room";
  static final int MEMBERS = 3;

  record Join(String roomId) {
  }

  record Note(long seq) {
  }

  record Seen() {
  }

  static final class Member implements Actor {
    private final ActorContext ctx;
    private final java.util.List<Long> seen = new java.util.ArrayList<>();

    Member(final ActorContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public void configure(final ActorHandlers on) {
      on.message(Join.class, j -> ctx.joinSpot(j.roomId()).defer())
          .message(Note.class, n -> seen.add(n.seq()))
          .request(Seen.class, s -> List.copyOf(seen));
    }
  }

  static final class Room implements UserSpot<Member> {
    private final UserSpotContext ctx;
    private final java.util.List<Long> seen = new java.util.ArrayList<>();

    Room(final UserSpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public UserSpotContext context() {
      return ctx;
    }

    @Override
    public void configure(final SpotHandlers on) {
      on.message(Note.class, n -> seen.add(n.seq())).request(Seen.class, s -> List.copyOf(seen));
    }
  }

  private TestMesh mesh;

  @AfterEach
  void close() {
    if (mesh != null) {
      mesh.close();
    }
  }

  @Test
  void aMovedRoomsFollowReRoutesOnceTheMovesConnectionClosedAndLosesNothing() throws Exception {
    mesh = TestMesh.builder().meshName("mesh").objectServer(s -> s.entrySpot(TestNodes.PlainEntry::new)
        .userSpot("room", Room::new, o -> o.spotWide().recreateOnRelocation())
        .actor("member", Member::new, a -> a.recreateOnRelocation())).start(1);
    final MeshNode a = mesh.node(0);
    a.spots().getOrCreate(ROOM, "room").await(); // on a: the only node yet
    for (int i = 0; i < MEMBERS; i++) {
      a.actors().getOrCreate("m" + i, "member").await();
      a.toActor("m" + i).send(new Join(ROOM));
    }
    Awaitility.await().atMost(30, TimeUnit.SECONDS).until(() -> TestNodes.runtime(a).spots.get(ROOM) != null
        && TestNodes.runtime(a).spots.get(ROOM).members().size() == MEMBERS);
    final MeshNode b = mesh.addNode();
    a.relocateSpot(new SpotId(ROOM), b.nodeRid()).join(); // committed: a follows what it still gets to b

    final PeerConnection moved = TestNodes.runtime(a).mesh().open(b.nodeRid()).orElseThrow();
    moved.close();
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> !moved.isOpen());

    for (long seq = 0; seq < 50; seq++) { // by id from a: the room and its members are GONE here, followed
      a.toSpot(ROOM).send(new Note(seq));
      for (int i = 0; i < MEMBERS; i++) {
        a.toActor("m" + i).send(new Note(seq));
      }
    }
    final List<Long> all = java.util.stream.LongStream.range(0, 50).boxed().toList();
    // a request through the follow too: answered by b over a new connection
    assertThat(a.toSpot(ROOM).request(new Seen(), List.class).timeout(Duration.ofSeconds(20)).await())
        .containsExactlyElementsOf(all);
    for (int i = 0; i < MEMBERS; i++) {
      assertThat(b.toActor("m" + i).request(new Seen(), List.class).timeout(Duration.ofSeconds(20)).await())
          .as("member m%d on b", i).containsExactlyElementsOf(all);
    }
  }
}
