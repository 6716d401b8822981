package dev.spotkit.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spotkit.core.session.LineCodec;
import dev.spotkit.store.InMemoryLocationStore;
import dev.spotkit.testkit.TestMesh;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A node whose owner lease is lost for good (the store no longer holds it) stops itself (spec 002 section 5):
 * it closes, writes nothing under the dead lease, and tells the application through {@link MeshNode#terminated}.
 */
class LeaseLostFailStopTest {
  private final AtomicLong millis = new AtomicLong(Instant.parse("2026-01-01T00:00:00Z").toEpochMilli());
  private final InMemoryLocationStore store = new InMemoryLocationStore(() -> Instant.ofEpochMilli(millis.get()),
      Duration.ofMinutes(1));
  private TestMesh mesh;
  private MeshNode node;

  @AfterEach
  void close() {
    if (mesh != null) {
      mesh.close();
    }
  }

  @Test
  @Spec("LOC-04")
  void aNodeWhoseLeaseExpiredInTheStoreStopsItselfAndCompletesTerminatedExceptionally() throws Exception {
    final java.util.List<NodeEvent> events = new java.util.concurrent.CopyOnWriteArrayList<>();
    // the node's own store, on a clock the test moves (not the mesh's shared store)
    mesh = TestMesh.builder().meshName("lease").closeTimeout(Duration.ofSeconds(2))
        .node(b -> b.locationStore(store).eventListener(events::add)
            .ownerLease(Duration.ofMillis(100), Duration.ofSeconds(3), Duration.ofMillis(200), Duration.ofMillis(2500))
            .sessions(s -> s.listen(0).codec(LineCodec.utf8()).bindTo("counter")))
        .objectServer(s -> s.entrySpot(TestNodes.PlainEntry::new)
            .actor("counter", LeaseAdmissionTest.Counter::new, a -> a.disableRelocation()))
        .start(1);
    node = mesh.node(0);
    node.actors().getOrCreate("c", "counter").await();
    final InetSocketAddress sessions = node.sessionAddress().orElseThrow();
    assertThat(node.terminated()).isNotDone();
    try (Socket client = new Socket(sessions.getAddress(), sessions.getPort())) {
      client.setSoTimeout(10_000);
      final long writesBefore = store.appliedWrites();
      millis.addAndGet(Duration.ofSeconds(60).toMillis()); // the store's copy of the lease expires: lost for good

      assertThatThrownBy(() -> node.terminated().get(10, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class).cause().isInstanceOf(SpotkitException.Unavailable.class)
          .hasMessageContaining("owner lease").hasMessageContaining("lost for good");
      assertThat(node.isClosed()).isTrue();
      assertThat(store.appliedWrites()).isEqualTo(writesBefore); // nothing written under the dead lease
      // the feed told it: lease lost, then the fail-stop close
      // (under load the admission deadline may pass before a renewal finds the lease gone: that adds a
      // lease_admission_changed event, not counted here)
      final java.util.function.Supplier<java.util.List<NodeEvent>> told = () -> events.stream()
          .filter(e -> !(e instanceof NodeEvent.LeaseAdmissionChanged)).toList();
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> told.get().size() >= 4);
      assertThat(told.get()).extracting(NodeEvent::code).containsExactly("node_state_changed", "lease_lost",
          "node_state_changed", "node_state_changed");
      assertThat(told.get().get(2)).isInstanceOfSatisfying(NodeEvent.NodeStateChanged.class,
          e -> assertThat(e.reason()).isEqualTo("fail-stop"));
      // the session was closed by the node (end of stream), not left open and silent
      final BufferedReader in = new BufferedReader(new InputStreamReader(client.getInputStream(),
          StandardCharsets.UTF_8));
      for (int lines = 0; lines < 100 && in.readLine() != null; lines++) {
        // at most a closing line
      }
      assertThat(client.getInputStream().read()).isEqualTo(-1);
    }
  }

  @Test
  void anOrdinaryCloseCompletesTerminatedNormally() throws Exception {
    node = MeshNode.builder().meshName("lease").locationStore(store).workers(2).closeTimeout(Duration.ofSeconds(2))
        .objectServer(s -> s.entrySpot(TestNodes.PlainEntry::new)).start();
    node.close();
    assertThat(node.terminated().get(5, TimeUnit.SECONDS)).isNull();
  }
}
