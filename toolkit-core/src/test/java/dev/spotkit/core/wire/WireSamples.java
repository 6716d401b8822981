package dev.spotkit.core.wire;

import dev.spotkit.relocation.wire.Rid;
import dev.spotkit.relocation.wire.ApplicationPayload;

import dev.spotkit.core.NodeRid;
import dev.spotkit.relocation.wire.OperationId;

/** Valid sample messages shared by the wire tests. */
final class WireSamples {

  static final Rid SOURCE = Rids.of(new NodeRid(0x0102030405060708L));
  static final Rid TARGET = Rids.ofHex("647374");

  private WireSamples() {
  }

  static ReservationFence reservation() {
    return new ReservationFence("res-1", "store-v7", 5, 6, TARGET, 7, "owner-b", 8, 1);
  }

  static UserSpotCreate userSpotCreate() {
    return new UserSpotCreate(1, new OperationId(2, 3), SOURCE, 4, "room-1", "chat.Room", reservation(), 10);
  }

  static ActorCreate actorCreate() {
    return new ActorCreate(1, new OperationId(2, 3), SOURCE, 4, "user:42", "chat.User", reservation(), 10);
  }

  static UserSpotClose userSpotClose() {
    return new UserSpotClose(1, new OperationId(2, 3), Rids.ofHex("737263"), 4,
        new UserSpotCloseFence(new WireSpotRef("spot-a", 5), TARGET, 7, 6, "store-v1"), 10);
  }

  static Reply createdReply() {
    return new Reply(9, TerminalResult.OK, FailureCode.NONE,
        new ReplyTail.ActorCreated(CreateResult.CREATED, new WireActorRef("user:42", 5)),
        new ApplicationPayload("chat.Welcome", "application/json", "{\"hi\":1}".getBytes()));
  }
}
