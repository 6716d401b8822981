package dev.spotkit.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.spotkit.testkit.TestMesh;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link MeshAdmin} over the shared store of two real nodes (issue 15): the node list with state and load, a drain
 * asked through the store and answered by the node ({@link MeshOptions#acceptAdminDrains}), the location query
 * naming a moved room's members on the room's new owner, and the refusals and the withdrawal of a request no node
 * takes.
 */
class MeshAdminTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  private TestMesh mesh;
  private MeshAdmin admin;

  @BeforeEach
  void reset() {
    HostDrainTest.JOINS.set(0);
  }

  @AfterEach
  void close() {
    if (mesh != null) {
      mesh.close();
    }
  }

  /** Node 0 (and nodes added later) accept admin drains when {@code acceptDrains}. */
  private MeshNode node(final boolean acceptDrains) {
    if (mesh == null) {
      mesh = TestMesh.builder().meshName("mesh")
          .mesh((m, i) -> {
            if (acceptDrains) {
              m.acceptAdminDrains(Duration.ofMillis(100));
            }
          })
          .objectServer(s -> s.entrySpot(TestNodes.PlainEntry::new)
              .userSpot("room", HostDrainTest.Room::new, o -> o.spotWide().preserveStateWith(
                  new HostDrainTest.RoomState()))
              .actor("member", HostDrainTest.Member::new,
                  a -> a.preserveStateWith(new HostDrainTest.MemberState())))
          .start(1);
      admin = MeshAdmin.over(mesh.locationStore(), Duration.ofSeconds(5));
      return mesh.node(0);
    }
    return mesh.addNode();
  }

  @Test
  void aDrainAskedThroughTheStoreMovesEverythingAndTheAnswerSaysWhat() {
    final MeshNode a = node(true);
    a.spots().getOrCreate("r0", "room").await();
    a.actors().getOrCreate("m0", "member").await();
    a.actors().getOrCreate("m1", "member").await();
    a.toActor("m0").send(new HostDrainTest.Join("r0"));
    await().atMost(WAIT).until(() -> HostDrainTest.JOINS.get() == 1);
    final MeshNode b = node(true);

    final List<MeshAdmin.NodeStatus> before = admin.nodes(null);
    assertThat(before).extracting(MeshAdmin.NodeStatus::node).containsExactlyInAnyOrder(a.nodeRid(), b.nodeRid());
    final MeshAdmin.NodeStatus statusA = before.stream().filter(n -> n.node().equals(a.nodeRid())).findFirst()
        .orElseThrow();
    assertThat(statusA.state()).isEqualTo(MeshAdmin.NodeState.SERVING);
    assertThat(statusA.live()).isTrue();
    assertThat(statusA.actors().active()).isEqualTo(2);
    assertThat(statusA.spots().active()).isEqualTo(1);
    assertThat(statusA.role()).isEqualTo(ObjectRole.SERVER);

    final MeshAdmin.DrainStatus asked = admin.requestDrain(a.meshName(), a.nodeRid(), Set.of(b.nodeRid()),
        Duration.ofSeconds(20), Duration.ofSeconds(20), "test");
    assertThat(asked.state()).isEqualTo(MeshAdmin.DrainState.REQUESTED);
    final MeshAdmin.DrainStatus answer = admin.awaitDrain(asked, WAIT);
    assertThat(answer.state()).as(answer.toString()).isEqualTo(MeshAdmin.DrainState.DONE);
    final MeshAdmin.DrainOutcome outcome = answer.outcome().orElseThrow();
    assertThat(outcome.outcome()).isEqualTo(RelocateResult.Outcome.RELOCATED);
    assertThat(outcome.actors()).containsExactly("m1");
    assertThat(outcome.rooms()).containsExactly(new MeshAdmin.MovedRoom("r0", 1));
    assertThat(outcome.kept()).isEmpty();

    // the room's member row still points at the room's aggregate: the query names the room's new owner
    assertThat(admin.locations().locate(ObjectKind.ACTOR, "m0").orElseThrow().owner()).isEqualTo(b.nodeRid());
    assertThat(admin.locations().locate(ObjectKind.ACTOR, "m1").orElseThrow().owner()).isEqualTo(b.nodeRid());
    assertThat(admin.locations().list(ObjectKind.ACTOR, null, 100, null).entries())
        .allSatisfy(l -> assertThat(l.owner()).isEqualTo(b.nodeRid()));
    assertThat(admin.nodes(a.meshName()).stream().filter(n -> n.node().equals(a.nodeRid())).findFirst()
        .orElseThrow().state()).isEqualTo(MeshAdmin.NodeState.RELOCATED);
    assertThat(admin.drainRequests(null)).singleElement().satisfies(r -> {
      assertThat(r.requestId()).isEqualTo(asked.requestId());
      assertThat(r.state()).isEqualTo(MeshAdmin.DrainState.DONE);
    });
    assertThatThrownBy(() -> admin.requestDrain(a.meshName(), a.nodeRid(), Set.of(), Duration.ofSeconds(1),
        Duration.ofSeconds(5), "test")).isInstanceOf(SpotkitException.InvalidOperation.class)
        .hasMessageContaining("RELOCATED, not SERVING");
  }

  @Test
  void aRequestNoNodeTakesIsRefusedTwiceThenWithdrawn() {
    final MeshNode deaf = node(false);
    final MeshAdmin.DrainStatus asked = admin.requestDrain(deaf.meshName(), deaf.nodeRid(), Set.of(),
        Duration.ofSeconds(5), Duration.ofSeconds(30), "test");
    assertThatThrownBy(() -> admin.requestDrain(deaf.meshName(), deaf.nodeRid(), Set.of(), Duration.ofSeconds(5),
        Duration.ofSeconds(30), "test")).isInstanceOf(SpotkitException.InvalidOperation.class)
        .hasMessageContaining("is still requested");
    assertThat(admin.awaitDrain(asked, Duration.ofMillis(300)).state()).isEqualTo(MeshAdmin.DrainState.WITHDRAWN);
    assertThat(admin.drainStatus(deaf.meshName(), deaf.nodeRid())).isEmpty();
    assertThat(admin.drainRequests(null)).isEmpty();
  }

  @Test
  void unknownNodesAndBadTargetsAreRefusedBeforeAnythingIsWritten() {
    final MeshNode a = node(true);
    assertThatThrownBy(() -> admin.requestDrain(a.meshName(), new NodeRid(42), Set.of(), Duration.ofSeconds(5),
        Duration.ofSeconds(5), "test")).isInstanceOf(SpotkitException.NotFound.class);
    assertThatThrownBy(() -> admin.requestDrain(a.meshName(), a.nodeRid(), Set.of(new NodeRid(42)),
        Duration.ofSeconds(5), Duration.ofSeconds(5), "test")).isInstanceOf(SpotkitException.InvalidOperation.class)
        .hasMessageContaining("not a live Serving node");
    assertThatThrownBy(() -> admin.requestDrain(a.meshName(), a.nodeRid(), Set.of(a.nodeRid()),
        Duration.ofSeconds(5), Duration.ofSeconds(5), "test")).isInstanceOf(SpotkitException.InvalidOperation.class)
        .hasMessageContaining("the node being drained");
    assertThatThrownBy(() -> admin.requestDrain(a.meshName(), a.nodeRid(), Set.of(), Duration.ofHours(2),
        Duration.ofSeconds(5), "test")).isInstanceOf(SpotkitException.InvalidOperation.class);
    assertThat(admin.drainRequests(null)).isEmpty();
    assertThatThrownBy(() -> MeshAdmin.over(null, Duration.ofSeconds(1)))
        .isInstanceOf(SpotkitException.InvalidOperation.class);
  }
}
