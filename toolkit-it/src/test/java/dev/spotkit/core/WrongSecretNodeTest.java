package dev.spotkit.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spotkit.store.InMemoryLocationStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A node with another cluster secret on the same store and MeshName (spec 002 sections 4 and 7): placement may
 * pick it, but a coordinator that cannot complete the mesh handshake with it aborts that reservation at once and
 * places again elsewhere, instead of leaving the row Creating until the deadline.
 */
class WrongSecretNodeTest {
  private final InMemoryLocationStore store = new InMemoryLocationStore();
  private final List<MeshNode> nodes = new CopyOnWriteArrayList<>();

  private MeshNode node(final String secret, final int weight) {
    final Consumer<MeshOptions> mesh = m -> m.listen("127.0.0.1", 0).clusterSecret(secret).placementWeight(weight);
    final MeshNode node = MeshNode.builder().meshName("mesh").locationStore(store).workers(2)
        .closeTimeout(Duration.ofSeconds(5)).requestTimeout(Duration.ofSeconds(10)).mesh(mesh)
        .objectServer(s -> s.entrySpot(TestNodes.PlainEntry::new)
            .actor("counted", MeshCreationTest.Counted::new, a -> a.disableRelocation()))
        .start();
    nodes.add(node);
    return node;
  }

  @AfterEach
  void close() {
    nodes.forEach(MeshNode::close);
    MeshCreationTest.FACTORY_RUNS.clear();
  }

  @Test
  @Spec("LOC-09")
  void creationsPlacedOnANodeWithAnotherSecretAreAbortedAndPlacedOnAReachableNode() throws Exception {
    final MeshNode coordinator = node(MeshRoutingTest.SECRET, 0); // weight 0: never picked itself
    final MeshNode good = node(MeshRoutingTest.SECRET, 1);
    node("another-secret-of-the-same-length!!", MeshOptions.MAX_PLACEMENT_WEIGHT); // picked almost always
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
