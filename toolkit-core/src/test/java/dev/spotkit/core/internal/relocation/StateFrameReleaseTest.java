package dev.spotkit.core.internal.relocation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spotkit.core.MeshNode;
import dev.spotkit.core.internal.runtime.NodeRuntime;
import dev.spotkit.core.location.LocationRecords;
import dev.spotkit.core.location.NodeDirectory;
import dev.spotkit.core.location.NodePeer;
import dev.spotkit.core.location.ObjectKey;
import dev.spotkit.core.mesh.PeerConnection;
import dev.spotkit.core.wire.Rids;
import dev.spotkit.relocation.wire.CoordinatorFence;
import dev.spotkit.relocation.wire.ObjectIdentity;
import dev.spotkit.relocation.wire.RelocationCodec;
import dev.spotkit.relocation.wire.RelocationFrame;
import dev.spotkit.relocation.wire.RelocationId;
import dev.spotkit.relocation.wire.RelocationIdentity;
import dev.spotkit.relocation.wire.Role;
import dev.spotkit.relocation.wire.TargetFence;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 16: a command 52 reaches the target still in the connection's receive buffer (a pooled direct buffer, as
 * the socket's), and every path releases it exactly once: after the assembler's copy, when the chunk is discarded
 * (stray, no unit for its object), when it is malformed, when its connection closed while it waited for its lane,
 * when the node's close dropped it from the lane's queue, and when the closed lane refused it. Each buffer is handed
 * over with one extra reference the test keeps, so "exactly once" is checked as refCnt 2 -> 1: a missing release
 * leaves 2, a double one 0. Lanes are synchronised with a task posted behind the frame's (a lane runs its tasks in
 * order), never with sleeps.
 */
class StateFrameReleaseTest extends HandWrittenPeerFixture {

  private final List<ByteBuf> kept = new ArrayList<>();
  private Relocations relocations;
  private PeerConnection from;
  private NodePeer self;

  @BeforeEach
  void reach() throws Exception {
    final java.lang.reflect.Field field = MeshNode.class.getDeclaredField("rt");
    field.setAccessible(true);
    final NodeRuntime rt = (NodeRuntime) field.get(node);
    relocations = rt.relocations();
    from = rt.mesh().open(fakeRid).orElseThrow(); // the node's side of the fake peer's connection
    self = new NodeDirectory(store, WAIT).readMesh("mesh").get(0);
  }

  @AfterEach
  void releaseKept() {
    for (ByteBuf b : kept) {
      b.release(b.refCnt());
    }
  }

  /** The frame in a pooled direct buffer with refCnt 2: one reference for the node, one the test keeps. */
  private ByteBuf buffer(final byte[] frame) {
    final ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(frame.length).writeBytes(frame);
    kept.add(b);
    return b.retain();
  }

  /** Waits until every task posted to {@code actorId}'s lane before this call ran. */
  private void laneRan(final String actorId) throws Exception {
    final CompletableFuture<Void> done = new CompletableFuture<>();
    assertThat(relocations.post(actorId, at -> done.complete(null))).isTrue();
    done.get(10, TimeUnit.SECONDS);
  }

  private ObjectIdentity other(final LocationRecords.Stored row) {
    return new ObjectIdentity.Actor("other", row.authority().objectGeneration().value(),
        row.authority().authorityOwnerGeneration().value());
  }

  private RelocationIdentity identity(final LocationRecords.Stored row, final long id) {
    return new RelocationIdentity(new RelocationId(id, id), 1, new CoordinatorFence(row.authority().ownerId(),
        row.authority().ownerLeaseGeneration().value(), Rids.of(fakeRid), 9, row.version().value()));
  }

  private static byte[] state(final RelocationIdentity id, final ObjectIdentity object, final byte[] chunk) {
    return RelocationCodec.encode(new RelocationFrame.State(id, Role.SOURCE, object, 0, chunk));
  }

  private LocationRecords.Stored otherRow() throws Exception {
    return LocationRecords.read(store, ObjectKey.actor(node.actors().getOrCreate("other", "plain").await().id()
        .value())).orElseThrow();
  }

  @Test
  void aChunkIsReleasedAfterTheAssemblersCopyAndAStrayOneAfterItsDiscard() throws Exception {
    final LocationRecords.Stored row = otherRow();
    final RelocationIdentity id = identity(row, 9);
    // A Restore of 3 bytes in 1 chunk with a wrong checksum: the chunk is assembled, then answered by command 53.
    relocations.onFrame(from, RelocationFrame.Prepare.COMMAND, RelocationCodec.encode(new RelocationFrame.Prepare(id,
        new TargetFence(Rids.of(node.nodeRid()), self.lifecycleGeneration(), self.ownerId(),
            self.leaseGeneration().value()), Role.SOURCE, other(row), Rids.of(fakeRid), 9, 3, 1, 0, 1)));
    final ByteBuf chunk = buffer(state(id, other(row), new byte[] {1, 2, 3}));
    relocations.onStateFrame(from, chunk);
    final byte[] answer = received.poll(10, TimeUnit.SECONDS);
    assertThat(answer).as("command 53 after the assembly read the chunk").isNotNull();
    assertThat(RelocationCodec.decode(answer)).isInstanceOf(RelocationFrame.Failed.class);
    laneRan("other");
    assertThat(chunk.refCnt()).as("released once after the assembler's copy").isEqualTo(1);

    final ByteBuf stray = buffer(state(id, other(row), new byte[] {4, 5, 6})); // the assembly is closed now
    final ByteBuf otherIdentity = buffer(state(identity(row, 10), other(row), new byte[] {7}));
    relocations.onStateFrame(from, stray);
    relocations.onStateFrame(from, otherIdentity);
    laneRan("other");
    assertThat(stray.refCnt()).as("a stray chunk, discarded").isEqualTo(1);
    assertThat(otherIdentity.refCnt()).as("a chunk of an unknown identity, discarded").isEqualTo(1);
    assertThat(from.isOpen()).isTrue();
  }

  @Test
  void aChunkForAnObjectNeverPreparedHereIsReleased() throws Exception {
    final LocationRecords.Stored row = otherRow();
    final ByteBuf ghost = buffer(state(identity(row, 11), new ObjectIdentity.Actor("ghost", 1, 1), new byte[] {1}));
    relocations.onStateFrame(from, ghost);
    laneRan("ghost");
    assertThat(ghost.refCnt()).isEqualTo(1);
    assertThat(relocations.objects).doesNotContainKey("ghost");
  }

  @Test
  void aMalformedChunkIsReleasedAtOnceAndClosesTheConnection() throws Exception {
    final byte[] good = state(identity(otherRow(), 12), new ObjectIdentity.Actor("ghost", 1, 1), new byte[] {1});
    final ByteBuf truncated = buffer(Arrays.copyOf(good, good.length - 1));
    relocations.onStateFrame(from, truncated);
    assertThat(truncated.refCnt()).as("released before onStateFrame returned").isEqualTo(1);
    assertThat(connection.closeFuture().get(10, TimeUnit.SECONDS)).as("the peer sees the close").isNotNull();
  }

  @Test
  void chunksQueuedBehindABusyLaneAreReleasedAfterTheirConnectionClosedAndWhenTheNodeCloses() throws Exception {
    final LocationRecords.Stored row = otherRow();
    final byte[] frame = state(identity(row, 13), new ObjectIdentity.Actor("ghost", 1, 1), new byte[] {1});
    final CountDownLatch busy = new CountDownLatch(1);
    final CountDownLatch go = new CountDownLatch(1);
    relocations.post("ghost", at -> {
      busy.countDown();
      try {
        go.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    assertThat(busy.await(10, TimeUnit.SECONDS)).isTrue();
    final ByteBuf queued = buffer(frame);
    relocations.onStateFrame(from, queued);
    from.close();
    go.countDown();
    laneRan("ghost");
    assertThat(queued.refCnt()).as("its task ran after the connection closed").isEqualTo(1);

    final CountDownLatch busyAgain = new CountDownLatch(1);
    final CompletableFuture<Boolean> stopped = new CompletableFuture<>();
    relocations.post("ghost", at -> {
      busyAgain.countDown();
      try {
        stopped.complete(!new CountDownLatch(1).await(10, TimeUnit.SECONDS));
      } catch (InterruptedException e) {
        stopped.complete(true);
      }
    });
    assertThat(busyAgain.await(10, TimeUnit.SECONDS)).isTrue();
    final ByteBuf dropped = buffer(frame);
    relocations.onStateFrame(from, dropped);
    relocations.close(); // shutdownNow: the queued task is dropped, the running one interrupted
    assertThat(stopped.get(10, TimeUnit.SECONDS)).as("the busy task was interrupted by the close").isTrue();
    assertThat(dropped.refCnt()).as("released by the close").isEqualTo(1);
    final ByteBuf refused = buffer(frame);
    relocations.onStateFrame(from, refused);
    assertThat(refused.refCnt()).as("released when the closed lane refused it").isEqualTo(1);
    assertThat(relocations.stateFrames.pending()).isZero();
  }
}
