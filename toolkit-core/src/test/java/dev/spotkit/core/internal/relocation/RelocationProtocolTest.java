package dev.spotkit.core.internal.relocation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spotkit.core.Actor;
import dev.spotkit.core.Deadline;
import dev.spotkit.core.Spec;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.core.internal.runtime.JsonCopier;
import dev.spotkit.core.internal.runtime.ReplyErrors;
import dev.spotkit.core.location.LocationRecords;
import dev.spotkit.core.location.NodeDirectory;
import dev.spotkit.core.location.NodePeer;
import dev.spotkit.core.location.ObjectKey;
import dev.spotkit.core.wire.ActorJoin;
import dev.spotkit.core.wire.OperationKind;
import dev.spotkit.core.wire.Reply;
import dev.spotkit.core.wire.ReplyCodec;
import dev.spotkit.core.wire.ReplyTail;
import dev.spotkit.core.wire.Rids;
import dev.spotkit.core.wire.TerminalResult;
import dev.spotkit.relocation.RelocationSettings;
import dev.spotkit.relocation.wire.ApplicationPayload;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Commands 28, 40 and 52 against a real node from a peer that speaks the wire by hand (spec 000 section 4.2,
 * spec 001 section 4.3): the approval runs OnActorJoin on the target Spot and answers with the actorJoin tail,
 * the Spot's reply and the receive chunk limit; a newer Restore supersedes an unfinished one; a checksum
 * mismatch ends with an explicit failure; none of these changes a store record.
 */
class RelocationProtocolTest extends HandWrittenPeerFixture {

  private Reply ask(final String actor, final String spot, final long spotGeneration) throws Exception {
    final JsonCopier copier = new JsonCopier();
    final ApplicationPayload request = copier.encodeForPeer("join request", new Hello("hi"), 1 << 20, true);
    final ActorJoin.Party self = new ActorJoin.Party(actor, 1, Rids.of(fakeRid), 9, 1, 1);
    final ActorJoin.Party target = new ActorJoin.Party(spot, spotGeneration, Rids.of(node.nodeRid()), 1, 1, 1);
    final byte[] frame = connection.request(c -> new ActorJoin(c, self, false, target, request).encode(),
        Deadline.after(WAIT)).get(15, TimeUnit.SECONDS);
    return ReplyCodec.decode(frame, OperationKind.ACTOR_JOIN);
  }

  @Test
  @Spec("MEM-29")
  void anAcceptedApprovalCarriesTheSpotsReplyAndTheReceiveChunkLimit() throws Exception {
    final String actor = node.actors().getOrCreate("walker", "plain").await().id().value();
    final long generation = node.spots().getOrCreate("open-door", "door").await().generation().value();
    final String rowBefore = LocationRecords.read(store, ObjectKey.actor(actor)).orElseThrow().version().value();
    final Reply reply = ask(actor, "open-door", generation);
    assertThat(reply.terminalResult()).isEqualTo(TerminalResult.OK);
    assertThat(reply.tail()).isInstanceOfSatisfying(ReplyTail.ActorJoinAccepted.class, accepted -> {
      assertThat(accepted.spot().spotId()).isEqualTo("open-door");
      assertThat(accepted.receiveChunkLimitBytes()).isEqualTo(RelocationSettings.DEFAULT_CHUNK_LIMIT); // 256 KiB
    });
    assertThat(new JsonCopier().decode(reply.payload())).isEqualTo(new Hello("yes"));
    assertThat(ASKED).containsExactly(actor + " " + new Hello("hi"));
    // An approval alone changes no store record (spec 001 section 4.5; REL-15/REL-16).
    assertThat(LocationRecords.read(store, ObjectKey.actor(actor)).orElseThrow().version().value())
        .isEqualTo(rowBefore);
  }

  @Test
  void aRejectionCarriesTheSpotsReplyAndAMissingSpotIsNotFound() throws Exception {
    final String actor = node.actors().getOrCreate("walker", "plain").await().id().value();
    final long generation = node.spots().getOrCreate("shut-door", "door").await().generation().value();
    final Reply rejected = ask(actor, "shut-door", generation);
    assertThat(rejected.tail()).isInstanceOf(ReplyTail.ActorJoinRejected.class);
    assertThat(new JsonCopier().decode(rejected.payload())).isEqualTo(new Hello("no"));
    final Reply missing = ask(actor, "no-such-door", 1);
    assertThat(ReplyErrors.toException(missing, "join")).isInstanceOf(SpotkitException.NotFound.class);
    final Reply stale = ask(actor, "shut-door", generation + 1);
    assertThat(ReplyErrors.toException(stale, "join")).isInstanceOf(SpotkitException.StaleGeneration.class);
  }

  /**
   * MEM-26: a Rejected approval leaves nothing prepared on the target: the same actor's earlier Accepted preparation
   * (its reply, and the Spot whose close it blocked) is dropped, and no temporary queue or target unit exists.
   */
  @Test
  @Spec("MEM-26")
  void aRejectedApprovalLeavesNoPreparationOrTemporaryQueueOnTheTarget() throws Exception {
    final String actor = node.actors().getOrCreate("walker", "plain").await().id().value();
    final long open = node.spots().getOrCreate("open-door", "door").await().generation().value();
    final long shut = node.spots().getOrCreate("shut-door", "door").await().generation().value();
    final java.lang.reflect.Field field = dev.spotkit.core.MeshNode.class.getDeclaredField("rt");
    field.setAccessible(true);
    final dev.spotkit.core.internal.runtime.NodeRuntime rt =
        (dev.spotkit.core.internal.runtime.NodeRuntime) field.get(node);
    assertThat(ask(actor, "open-door", open).tail()).isInstanceOf(ReplyTail.ActorJoinAccepted.class);
    assertThat(rt.relocations().prepared).containsKey(actor);
    assertThat(rt.spots.get("open-door").admittedJoins).containsKey(actor);
    assertThat(ask(actor, "shut-door", shut).tail()).isInstanceOf(ReplyTail.ActorJoinRejected.class);
    assertThat(rt.relocations().prepared).doesNotContainKey(actor);
    assertThat(rt.spots.get("open-door").admittedJoins).isEmpty();
    assertThat(rt.spots.get("shut-door").admittedJoins).isEmpty();
    assertThat(rt.relocations().arrivingHere(actor, null)).isFalse(); // no temporary queue for it
  }

  @Test
  @Spec("MEM-28")
  void aRestoreOfANewIdentitySupersedesTheUnfinishedPreparation() throws Exception {
    final List<dev.spotkit.core.NodeEvent> events = new java.util.concurrent.CopyOnWriteArrayList<>();
    node.events().addListener(events::add);
    final String actor = node.actors().getOrCreate("twice", "plain").await().id().value();
    final LocationRecords.Stored row = LocationRecords.read(store, ObjectKey.actor(actor)).orElseThrow();
    final NodePeer peer = new NodeDirectory(store, WAIT).readMesh("mesh").get(0);
    final dev.spotkit.relocation.wire.TargetFence target = new dev.spotkit.relocation.wire.TargetFence(
        Rids.of(node.nodeRid()), peer.lifecycleGeneration(), peer.ownerId(), peer.leaseGeneration().value());
    final dev.spotkit.relocation.wire.ObjectIdentity object = new dev.spotkit.relocation.wire.ObjectIdentity.Actor(
        actor, row.authority().objectGeneration().value(), row.authority().authorityOwnerGeneration().value());
    final dev.spotkit.relocation.wire.CoordinatorFence coordinator = new dev.spotkit.relocation.wire.CoordinatorFence(
        row.authority().ownerId(), row.authority().ownerLeaseGeneration().value(), Rids.of(fakeRid), 9,
        row.version().value());
    final dev.spotkit.relocation.wire.RelocationIdentity first = new dev.spotkit.relocation.wire.RelocationIdentity(
        new dev.spotkit.relocation.wire.RelocationId(1, 1), 1, coordinator);
    final dev.spotkit.relocation.wire.RelocationIdentity second = new dev.spotkit.relocation.wire.RelocationIdentity(
        new dev.spotkit.relocation.wire.RelocationId(2, 2), 1, coordinator);
    for (dev.spotkit.relocation.wire.RelocationIdentity id : List.of(first, second)) {
      connection.send(dev.spotkit.relocation.wire.RelocationCodec.encode(
          new dev.spotkit.relocation.wire.RelocationFrame.Prepare(id, target,
              dev.spotkit.relocation.wire.Role.SOURCE, object, Rids.of(fakeRid), 9, 10, 1, 0, 1)));
    }
    final byte[] frame = received.poll(10, TimeUnit.SECONDS);
    assertThat(frame).isNotNull();
    final dev.spotkit.relocation.wire.RelocationFrame failed = dev.spotkit.relocation.wire.RelocationCodec.decode(frame);
    assertThat(failed).isInstanceOfSatisfying(dev.spotkit.relocation.wire.RelocationFrame.Failed.class, f -> {
      assertThat(f.identity()).isEqualTo(first); // the earlier preparation is aborted; the later attempt wins
      assertThat(f.failureCode()).isEqualTo(dev.spotkit.relocation.FailureCode.SUPERSEDED.wireCode());
    });
    // the node's feed: the first unit ended (superseded) before the second started
    org.awaitility.Awaitility.await().atMost(WAIT).until(() -> events.stream()
        .filter(e -> !(e instanceof dev.spotkit.core.NodeEvent.NodeStateChanged)).count() >= 3);
    assertThat(events.stream().filter(e -> !(e instanceof dev.spotkit.core.NodeEvent.NodeStateChanged)).limit(3)
        .map(e -> e.code() + " " + e.keyValues().replaceAll(".* relocation=(\\w+).*", "$1")).toList())
        .containsExactly("relocation_started 00000000000000010000000000000001",
            "relocation_failed 00000000000000010000000000000001",
            "relocation_started 00000000000000020000000000000002");
    assertThat(LocationRecords.read(store, ObjectKey.actor(actor)).orElseThrow().version()).isEqualTo(row.version());
  }

  @Test
  @Spec("REL-10")
  void aChecksumMismatchEndsWithAnExplicitDataLostFailureAndNoStoreChange() throws Exception {
    final String actor = node.actors().getOrCreate("corrupt", "plain").await().id().value();
    final LocationRecords.Stored row = LocationRecords.read(store, ObjectKey.actor(actor)).orElseThrow();
    final NodePeer peer = new NodeDirectory(store, WAIT).readMesh("mesh").get(0);
    final dev.spotkit.relocation.wire.RelocationIdentity id = new dev.spotkit.relocation.wire.RelocationIdentity(
        new dev.spotkit.relocation.wire.RelocationId(3, 3), 1, new dev.spotkit.relocation.wire.CoordinatorFence(
            row.authority().ownerId(), row.authority().ownerLeaseGeneration().value(), Rids.of(fakeRid), 9,
            row.version().value()));
    final dev.spotkit.relocation.wire.ObjectIdentity object = new dev.spotkit.relocation.wire.ObjectIdentity.Actor(
        actor, row.authority().objectGeneration().value(), row.authority().authorityOwnerGeneration().value());
    final byte[] bytes = "ten bytes!".getBytes(StandardCharsets.UTF_8);
    connection.send(dev.spotkit.relocation.wire.RelocationCodec.encode(
        new dev.spotkit.relocation.wire.RelocationFrame.Prepare(id, new dev.spotkit.relocation.wire.TargetFence(
            Rids.of(node.nodeRid()), peer.lifecycleGeneration(), peer.ownerId(), peer.leaseGeneration().value()),
            dev.spotkit.relocation.wire.Role.SOURCE, object, Rids.of(fakeRid), 9, bytes.length, 1,
            dev.spotkit.relocation.wire.ChunkPlan.crc32c(bytes) ^ 1, 1)));
    connection.send(dev.spotkit.relocation.wire.RelocationCodec.encode(
        new dev.spotkit.relocation.wire.RelocationFrame.State(id, dev.spotkit.relocation.wire.Role.SOURCE, object, 0,
            bytes)));
    final byte[] frame = received.poll(10, TimeUnit.SECONDS);
    assertThat(frame).isNotNull();
    assertThat(dev.spotkit.relocation.wire.RelocationCodec.decode(frame)).isInstanceOfSatisfying(
        dev.spotkit.relocation.wire.RelocationFrame.Failed.class, f -> {
          assertThat(f.identity()).isEqualTo(id);
          assertThat(f.failureCode()).isEqualTo(dev.spotkit.relocation.wire.RelocationFrame.Failed.RELOCATION_DATA_LOST);
        });
    assertThat(LocationRecords.read(store, ObjectKey.actor(actor)).orElseThrow().version()).isEqualTo(row.version());
  }
}
