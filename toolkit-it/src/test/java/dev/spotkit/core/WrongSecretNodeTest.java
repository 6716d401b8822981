package dev.spotkit.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spotkit.testkit.TestMesh;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A node with another cluster secret on the same store and MeshName (spec 002 sections 4 and 7): placement may
 * pick it, but a coordinator that cannot complete the mesh handshake with it aborts that reservation at once and
 * places again elsewhere, instead of leaving the row Creating until the deadline.
 */
class WrongSecretNodeTest {
  /**
   * Node 0 coordinates (weight 0: never picked itself), node 1 is reachable (weight 1), node 2 has another cluster
   * secret on the same store and MeshName (the highest weight: picked almost always).
   */
  private final TestMesh mesh = TestMesh.builder().meshName("mesh")
      .node(b -> b.requestTimeout(Duration.ofSeconds(10)))
      .mesh((m, i) -> {
        if (i == 2) {
          m.clusterSecret("another-secret-of-the-same-length!!").placementWeight(MeshOptions.MAX_PLACEMENT_WEIGHT);
        } else {
          m.placementWeight(i);
        }
      })
      .objectServer(s -> s.entrySpot(TestNodes.PlainEntry::new)
          .actor("counted", MeshCreationTest.Counted::new, a -> a.disableRelocation()))
      .start(3);

  @AfterEach
  void close() {
    mesh.close();
    MeshCreationTest.FACTORY_RUNS.clear();
  }

  @Test
  @Spec("LOC-09")
  void creationsPlacedOnANodeWithAnotherSecretAreAbortedAndPlacedOnAReachableNode() throws Exception {
    final MeshNode coordinator = mesh.node(0); // weight 0: never picked itself
    final MeshNode good = mesh.node(1);
    final long started = System.nanoTime();
    for (int i = 0; i < 6; i++) {
      final CreateOutcome<ActorRef> outcome = coordinator.actors().getOrCreate("wrong-secret-" + i, "counted")
          .toOutcomeFuture().get(20, TimeUnit.SECONDS);
      assertThat(outcome).isInstanceOfSatisfying(CreateOutcome.Created.class, c -> assertThat(
          ((ActorRef) c.ref()).nodeRid()).isEqualTo(good.nodeRid()));
    }
    // every one placed after at most one failed handshake each, never waiting out the 10 s request timeout
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(9));
    // and the wrong node holds no Creating row: a second getOrCreate finds each one Existing at once
    for (int i = 0; i < 6; i++) {
      assertThat(coordinator.actors().getOrCreate("wrong-secret-" + i, "counted").toOutcomeFuture()
          .get(5, TimeUnit.SECONDS)).isInstanceOf(CreateOutcome.Existing.class);
    }
  }
}
