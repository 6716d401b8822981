package dev.spotkit.core.location;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spotkit.core.SpotkitException;
import dev.spotkit.store.LocationStore;
import dev.spotkit.store.Mutation;
import dev.spotkit.store.ReadResult;
import dev.spotkit.store.ScanRequest;
import dev.spotkit.store.ScanResult;
import dev.spotkit.store.StoreBytes;
import dev.spotkit.store.WriteBatch;
import dev.spotkit.store.WriteResult;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Descriptor publishing and live-node discovery (spec 002 section 4). */
class NodeDirectoryTest {
  private final MeshFixture f = new MeshFixture();
  private final List<MeshNodeDescriptorRecord.Capability> caps = List.of(MeshFixture.actorType("player", 0));

  private MeshNodeDescriptorRecord descriptor(final String rid, final long revision, final int weight) {
    return MeshFixture.descriptor(MeshFixture.MESH, rid, "owner-a", 1, revision, NodeState.SERVING, weight, 0, caps);
  }

  private StoreBytes stored(final String rid) {
    return ((ReadResult.Found) f.read(LocationKeys.meshNode(MeshFixture.MESH, rid))).value();
  }

  @Test
  void sameRevisionIsANoOpAndALowerOneIsStale() {
    f.putLease("owner-a", 1);
    assertThat(f.directory.publish(descriptor("0a01", 2, 100))).isInstanceOf(NodeDirectory.Published.Stored.class);
    final long writes = f.store.appliedWrites();
    assertThat(f.directory.publish(descriptor("0a01", 2, 7))).isEqualTo(new NodeDirectory.Published.Unchanged(2));
    assertThat(f.directory.publish(descriptor("0a01", 2, 7))).isEqualTo(new NodeDirectory.Published.Unchanged(2));
    assertThat(f.directory.publish(descriptor("0a01", 1, 7))).isEqualTo(new NodeDirectory.Published.Stale(2));
    assertThat(f.store.appliedWrites()).isEqualTo(writes);
    assertThat(stored("0a01")).isEqualTo(descriptor("0a01", 2, 100).encode());
    assertThat(f.directory.publish(descriptor("0a01", 3, 7))).isInstanceOf(NodeDirectory.Published.Stored.class);
    assertThat(stored("0a01")).isEqualTo(descriptor("0a01", 3, 7).encode());
  }

  @Test
  void revisionOverflowIsAnError() {
    assertThat(NodeDirectory.nextRevision(41)).isEqualTo(42);
    assertThat(NodeDirectory.nextRevision(Long.MAX_VALUE - 1)).isEqualTo(Long.MAX_VALUE);
    assertThatThrownBy(() -> NodeDirectory.nextRevision(Long.MAX_VALUE))
        .isInstanceOf(SpotkitException.GenerationExhausted.class)
        .hasMessage("descriptorRevision 9223372036854775807 is 2^63-1: no next revision exists, so the host switches"
            + " to Error and stops publishing (spec 002 section 4)");
  }

  @Test
  void publishingNeedsTheOwnLease() {
    final long writes = f.store.appliedWrites();
    assertThat(f.directory.publish(descriptor("0a01", 1, 100))).isEqualTo(new NodeDirectory.Published.LeaseInvalid(
        "owner lease owner-lease\\0owner-a is missing (expired or released)"));
    f.putLease("owner-a", 2);
    assertThat(f.directory.publish(descriptor("0a01", 1, 100))).isEqualTo(new NodeDirectory.Published.LeaseInvalid(
        "owner lease owner-lease\\0owner-a belongs to LeaseGeneration 2, not 1"));
    assertThat(f.store.appliedWrites()).isEqualTo(writes + 1);
  }

  @Test
  void readMeshKeepsOnlyPeersWithTheirOwnUnexpiredLease() {
    final NodePeer a = f.node("0a01", NodeState.SERVING, 100, 0, caps);
    final NodePeer b = f.node("0b02", NodeState.DRAINING, 100, 0, caps);
    f.node("0c03", NodeState.SERVING, 100, 0, caps);
    f.putLease("owner-0c03", 2); // a newer run of that owner took the lease: the descriptor's run is gone
    f.store.write(WriteBatch.unconditional(new Mutation.Delete(LocationKeys.ownerLease("owner-0b02").preimage())))
        .toCompletableFuture().join();
    f.putLease("owner-0b02", 1);
    f.putLease("owner-x", 1);
    assertThat(f.directory.publish(MeshFixture.descriptor("chat2", "0d04", "owner-x", 1, 1, NodeState.SERVING, 100,
        0, caps))).isInstanceOf(NodeDirectory.Published.Stored.class);
    assertThat(f.directory.readMesh(MeshFixture.MESH)).containsExactly(a, b);
    assertThat(a.endpoint()).isEqualTo("tcp://0a01:7000");
    assertThat(a.registers(PlacementKind.ACTOR, "player")).isTrue();
    assertThat(a.registers(PlacementKind.USER_SPOT, "player")).isFalse();

    f.advanceSeconds(10);
    f.putLease("owner-0a01", 1); // renewed: expires 15 s from now
    f.advanceSeconds(6); // 0b02's lease expired 1 s ago
    assertThat(f.directory.readMesh(MeshFixture.MESH)).containsExactly(a);
    f.advanceSeconds(10);
    assertThat(f.directory.readMesh(MeshFixture.MESH)).isEmpty();
  }

  @Test
  void readMeshPagesAndStartsOverOnScanExpired() {
    for (int i = 0; i < 25; i++) {
      f.node(HexFormat.of().toHexDigits((byte) i) + "ff", NodeState.SERVING, 100, 0, caps);
    }
    assertThat(f.directory.readMesh(MeshFixture.MESH)).hasSize(25);
    final AtomicInteger expiries = new AtomicInteger(2);
    final NodeDirectory flaky = new NodeDirectory(new ExpiringStore(f.store, expiries), MeshFixture.TIMEOUT, 10);
    assertThat(flaky.readMesh(MeshFixture.MESH)).hasSize(25).extracting(NodePeer::routingIdHex)
        .isSorted().doesNotHaveDuplicates();
    assertThat(expiries.get()).isZero();
    expiries.set(Integer.MAX_VALUE);
    assertThatThrownBy(() -> flaky.readMesh(MeshFixture.MESH))
        .isInstanceOf(SpotkitException.Unavailable.class)
        .hasMessage("scan of mesh-node\\0chat\\0 expired 4 times in a row (ScanExpired); retry later");
  }

  /** Answers ScanExpired to the next {@code expiries} continuation pages. */
  private record ExpiringStore(LocationStore delegate, AtomicInteger expiries) implements LocationStore {
    @Override
    public CompletionStage<ReadResult> read(final String key) {
      return delegate.read(key);
    }

    @Override
    public CompletionStage<WriteResult> write(final WriteBatch batch) {
      return delegate.write(batch);
    }

    @Override
    public CompletionStage<ScanResult> scan(final ScanRequest request) {
      if (request.cursor().isPresent() && expiries.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        return CompletableFuture.completedFuture(new ScanResult.Expired());
      }
      return delegate.scan(request);
    }
  }
}
