package dev.spotkit.core.internal.relocation;

import dev.spotkit.core.internal.runtime.NodeRuntime;
import static org.assertj.core.api.Assertions.assertThat;

import dev.spotkit.core.Actor;
import dev.spotkit.core.ActorHandlers;
import dev.spotkit.core.HostRelocationResult;
import dev.spotkit.core.MeshNode;
import dev.spotkit.core.Spec;
import dev.spotkit.core.location.LocationRecords;
import dev.spotkit.core.location.ObjectKey;
import dev.spotkit.relocation.Stage;
import dev.spotkit.relocation.TargetUnit;
import dev.spotkit.store.InMemoryLocationStore;
import dev.spotkit.store.StoreFaults;
import dev.spotkit.testkit.TestMesh;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * LOC-04 on the target's relocation CAS (spec 002 section 5): once the target's local admission deadline passed
 * (its owner lease renewals stopped answering), the CAS is not issued; the unit treats that as transient and
 * retries while Restore validity lasts, and commits once a renewal answers again. Forbidden outcome: a write of the
 * moving actor's authority row by the target while its lease does not admit.
 */
class RelocationCasAdmissionTest {
  static final String SECRET = "test-cluster-secret-0123456789";

  /** Does nothing; only its location matters. */
  static final class Plain implements Actor {
    @Override
    public void configure(final ActorHandlers on) {
      on.message(String.class, s -> { });
    }
  }

  /** Node 0 with the default owner lease, node 1 with a short admission. */
  private final TestMesh mesh = TestMesh.builder().meshName("mesh")
      .objectServer(s -> s.entrySpot(HandWrittenPeerFixture.Entry::new)
          .actor("plain", ctx -> new Plain(), a -> a.recreateOnRelocation()))
      .customize((builder, index) -> {
        if (index == 1) {
          // renew 100 ms, TTL 10 s, renew timeout 200 ms, fencing margin 9.5 s: admission ends ~0.5 s after the last
          // answered renewal, while the lease record itself stays valid in the store for 10 s
          builder.ownerLease(Duration.ofMillis(100), Duration.ofSeconds(10), Duration.ofMillis(200),
              Duration.ofMillis(9500));
        }
      })
      .start(2);
  private final InMemoryLocationStore store = mesh.locationStore();

  @AfterEach
  void close() {
    store.faults().clear();
    mesh.close();
  }

  @Test
  @Spec("LOC-04")
  void aTargetPastItsAdmissionDeadlineIssuesNoCasAndCommitsOnceItsLeaseAdmitsAgain() throws Exception {
    final MeshNode a = mesh.node(0);
    final MeshNode b = mesh.node(1);
    final NodeRuntime target = runtime(b);
    final String actor = mesh.actorOn(0, "admit", "plain");
    mesh.actorOn(1, 0, "warm", "plain"); // a's connection to b exists before b stops admitting new connections
    final String rowKey = ObjectKey.actor(actor).logicalKey().preimage();
    final String leaseKey = "owner-lease\0" + target.store().ownerLease().record().ownerId();
    final List<String> forbidden = new CopyOnWriteArrayList<>();
    // a spy (never matches): records each write of the actor's row made while the target's lease does not admit
    store.faults().failNext(1, call -> {
      if (call.kind() == StoreFaults.Kind.WRITE && call.touches(rowKey)
          && !target.store().ownerLease().admitsNow()) {
        forbidden.add(call.toString());
      }
      return false;
    });
    // b's renewals fail before they reach the store: writes of its lease record alone (a's directory reads of it
    // still answer, and the relocation CAS, which conditions on that record too, is not failed here)
    store.faults().failNext(1_000_000, call ->
        call.kind() == StoreFaults.Kind.WRITE && call.keys().contains(leaseKey) && !call.touches(rowKey));
    Awaitility.await().atMost(5, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(10))
        .until(() -> !target.store().ownerLease().admitsNow());

    final CompletableFuture<HostRelocationResult> moved = a.relocate(b.nodeRid());
    // the target reached its CAS and found it not admitted: it waits in StoreRetry, the row still names a
    Awaitility.await().atMost(5, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(5)).until(() ->
        stageOf(target, actor) == Stage.STORE_RETRY || !forbidden.isEmpty() || moved.isDone());
    assertThat(forbidden).as("authority writes by the target past its admission deadline").isEmpty();
    assertThat(stageOf(target, actor)).isEqualTo(Stage.STORE_RETRY);
    assertThat(ownerHex(actor)).isEqualTo(a.nodeRid().hex());
    assertThat(moved).isNotDone();

    store.faults().clear(); // the next renewal answers and restores admission
    final HostRelocationResult result = moved.get(15, TimeUnit.SECONDS);
    assertThat(result.relocated()).extracting(r -> r.id().value()).contains(actor); // and any warm-up try on a
    assertThat(ownerHex(actor)).isEqualTo(b.nodeRid().hex());
    assertThat(forbidden).isEmpty();
  }

  private String ownerHex(final String actor) {
    return LocationRecords.read(store, ObjectKey.actor(actor)).orElseThrow().authority().allocation()
        .routingIdHex();
  }

  static NodeRuntime runtime(final MeshNode node) throws ReflectiveOperationException {
    final java.lang.reflect.Field field = MeshNode.class.getDeclaredField("rt");
    field.setAccessible(true);
    return (NodeRuntime) field.get(node);
  }

  /** The stage of the target unit of {@code actor} on the node, or null when it has none. */
  private static Stage stageOf(final NodeRuntime rt, final String actor) {
    final Relocations moves = rt.relocations();
    final TargetObject object = moves == null ? null : moves.objects.get(actor);
    final TargetUnit unit = object == null ? null : object.units.unitOf(actor);
    return unit == null ? null : unit.stage();
  }
}
