package dev.spotkit.core.internal.relocation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spotkit.core.Actor;
import dev.spotkit.core.MeshNode;
import dev.spotkit.core.internal.runtime.NodeRuntime;
import dev.spotkit.core.location.LocationRecords;
import dev.spotkit.core.location.NodeDirectory;
import dev.spotkit.core.location.NodePeer;
import dev.spotkit.core.location.ObjectKey;
import dev.spotkit.core.wire.Rids;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Hostile relocation frames from a peer that speaks the wire by hand (spec 001 sections 3, 4.3): a Restore that
 * does not come from the actor's current owner is refused with an explicit command 53 and changes no store record,
 * and the actor keeps running where it is.
 */
class RelocationHostileFramesTest extends HandWrittenPeerFixture {

  private dev.spotkit.relocation.wire.RelocationFrame next() throws InterruptedException {
    final byte[] frame = received.poll(10, TimeUnit.SECONDS);
    assertThat(frame).as("a relocation reply").isNotNull();
    return dev.spotkit.relocation.wire.RelocationCodec.decode(frame);
  }

  /**
   * A peer that is not the actor's owner sends a well-formed Restore (fences copied from the store) for an actor
   * owned by the target node itself, then the cutover: the node must refuse it rather than commit a second
   * instance of its own actor.
   */
  @Test
  void aRestoreFromAPeerThatDoesNotOwnTheActorIsRefusedAndChangesNothing() throws Exception {
    final String actor = node.actors().getOrCreate("mine", "plain").await().id().value();
    final LocationRecords.Stored row = LocationRecords.read(store, ObjectKey.actor(actor)).orElseThrow();
    assertThat(row.authority().allocation().routingIdHex()).isEqualTo(node.nodeRid().hex());
    final NodePeer peer = new NodeDirectory(store, WAIT).readMesh("mesh").get(0);
    final dev.spotkit.relocation.wire.RelocationIdentity id = new dev.spotkit.relocation.wire.RelocationIdentity(
        new dev.spotkit.relocation.wire.RelocationId(7, 7), 1, new dev.spotkit.relocation.wire.CoordinatorFence(
            row.authority().ownerId(), row.authority().ownerLeaseGeneration().value(), Rids.of(fakeRid), 9,
            row.version().value()));
    final dev.spotkit.relocation.wire.ObjectIdentity object = new dev.spotkit.relocation.wire.ObjectIdentity.Actor(
        actor, row.authority().objectGeneration().value(), row.authority().authorityOwnerGeneration().value());
    final byte[] stream = dev.spotkit.relocation.wire.RelocationEnvelopeCodec.encode(
        new dev.spotkit.relocation.wire.RelocationEnvelope(id.relocationId(), object, 1, List.of(
            new dev.spotkit.relocation.wire.EnvelopeEntries.ApplicationState(1, Relocations.frameState(null, null))),
            List.of(), List.of(), List.of()));
    connection.send(dev.spotkit.relocation.wire.RelocationCodec.encode(
        new dev.spotkit.relocation.wire.RelocationFrame.Prepare(id, new dev.spotkit.relocation.wire.TargetFence(
            Rids.of(node.nodeRid()), peer.lifecycleGeneration(), peer.ownerId(), peer.leaseGeneration().value()),
            dev.spotkit.relocation.wire.Role.SOURCE, object, Rids.of(fakeRid), 9, stream.length, 1,
            dev.spotkit.relocation.wire.ChunkPlan.crc32c(stream), 1)));
    connection.send(dev.spotkit.relocation.wire.RelocationCodec.encode(
        new dev.spotkit.relocation.wire.RelocationFrame.State(id, dev.spotkit.relocation.wire.Role.SOURCE, object, 0,
            stream)));
    final dev.spotkit.relocation.wire.RelocationFrame answer = next();
    if (answer instanceof dev.spotkit.relocation.wire.RelocationFrame.Ready) {
      // Go on as a source would: before the fix the node then committed and replaced its live instance.
      connection.send(dev.spotkit.relocation.wire.RelocationCodec.encode(
          new dev.spotkit.relocation.wire.RelocationFrame.Cutover(id, dev.spotkit.relocation.wire.Role.SOURCE, object,
              0, dev.spotkit.relocation.RelayChecksum.ofRecords(List.of()))));
    }
    assertThat(answer).isInstanceOfSatisfying(dev.spotkit.relocation.wire.RelocationFrame.Failed.class, f -> {
      assertThat(f.identity()).isEqualTo(id);
      // A refusal (the owner fence differs), not a failing Restore: the source ends it Unavailable (spec 000
      // section 4), where RESTORE_FAILED (37) made it InternalFailure.
      assertThat(f.failureCode()).isEqualTo(dev.spotkit.relocation.FailureCode.TARGET_UNAVAILABLE.wireCode());
    });
    assertThat(LocationRecords.read(store, ObjectKey.actor(actor)).orElseThrow().version()).isEqualTo(row.version());
  }

  /**
   * Commands 52 and 34 for actors that no Restore prepared here (a peer's garbage, or frames far too late) are
   * discarded: they create no target state (before the fix each made a target object, fed by the 20 ms clock
   * forever). The frames are followed by a Restore with a bad checksum whose command 53 shows the node handled
   * everything sent before it; the connection stays usable.
   */
  @Test
  void framesForActorsNeverPreparedHereCreateNoTargetState() throws Exception {
    final LocationRecords.Stored anyRow = LocationRecords.read(store, ObjectKey.actor(
        node.actors().getOrCreate("other", "plain").await().id().value())).orElseThrow();
    final NodePeer peer = new NodeDirectory(store, WAIT).readMesh("mesh").get(0);
    for (int i = 0; i < 50; i++) {
      final dev.spotkit.relocation.wire.RelocationIdentity id = new dev.spotkit.relocation.wire.RelocationIdentity(
          new dev.spotkit.relocation.wire.RelocationId(100 + i, 1), 1, new dev.spotkit.relocation.wire.CoordinatorFence(
              anyRow.authority().ownerId(), 1, Rids.of(fakeRid), 9, "v"));
      final dev.spotkit.relocation.wire.ObjectIdentity ghost = new dev.spotkit.relocation.wire.ObjectIdentity.Actor(
          "ghost-" + i, 1, 1);
      connection.send(dev.spotkit.relocation.wire.RelocationCodec.encode(
          new dev.spotkit.relocation.wire.RelocationFrame.Cutover(id, dev.spotkit.relocation.wire.Role.SOURCE, ghost,
              0, dev.spotkit.relocation.RelayChecksum.ofRecords(List.of()))));
      connection.send(dev.spotkit.relocation.wire.RelocationCodec.encode(
          new dev.spotkit.relocation.wire.RelocationFrame.State(id, dev.spotkit.relocation.wire.Role.SOURCE, ghost, 0,
              new byte[] {1, 2, 3})));
    }
    final dev.spotkit.relocation.wire.RelocationIdentity barrier = new dev.spotkit.relocation.wire.RelocationIdentity(
        new dev.spotkit.relocation.wire.RelocationId(9, 9), 1, new dev.spotkit.relocation.wire.CoordinatorFence(
            anyRow.authority().ownerId(), anyRow.authority().ownerLeaseGeneration().value(), Rids.of(fakeRid), 9,
            anyRow.version().value()));
    final dev.spotkit.relocation.wire.ObjectIdentity object = new dev.spotkit.relocation.wire.ObjectIdentity.Actor(
        "other", anyRow.authority().objectGeneration().value(), anyRow.authority().authorityOwnerGeneration().value());
    connection.send(dev.spotkit.relocation.wire.RelocationCodec.encode(
        new dev.spotkit.relocation.wire.RelocationFrame.Prepare(barrier, new dev.spotkit.relocation.wire.TargetFence(
            Rids.of(node.nodeRid()), peer.lifecycleGeneration(), peer.ownerId(), peer.leaseGeneration().value()),
            dev.spotkit.relocation.wire.Role.SOURCE, object, Rids.of(fakeRid), 9, 3, 1, 0, 1)));
    connection.send(dev.spotkit.relocation.wire.RelocationCodec.encode(
        new dev.spotkit.relocation.wire.RelocationFrame.State(barrier, dev.spotkit.relocation.wire.Role.SOURCE, object,
            0, new byte[] {1, 2, 3})));
    assertThat(next()).isInstanceOfSatisfying(dev.spotkit.relocation.wire.RelocationFrame.Failed.class, f ->
        assertThat(f.identity()).isEqualTo(barrier));
    final java.lang.reflect.Field field = MeshNode.class.getDeclaredField("rt");
    field.setAccessible(true);
    final Relocations relocations = ((NodeRuntime) field.get(node)).relocations();
    assertThat(relocations.objects.keySet()).noneMatch(k -> k.startsWith("ghost-"));
    assertThat(connection.isOpen()).isTrue();
  }
}
