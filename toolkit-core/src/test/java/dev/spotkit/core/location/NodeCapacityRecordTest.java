package dev.spotkit.core.location;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spotkit.store.StoreBytes;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The Spotkit-defined node capacity record: key, canonical JSON, slot arithmetic (spec 002 sections 3.3, 4). */
class NodeCapacityRecordTest {
  private static final NodeCapacityRecord SAMPLE = new NodeCapacityRecord(new NodeCapacityRecord.Slots(2, 1, 5),
      new NodeCapacityRecord.Slots(0, 0, 0), List.of(
          new NodeCapacityRecord.TypeSlots(PlacementKind.USER_SPOT, "room", new NodeCapacityRecord.Slots(1, 0, 3)),
          new NodeCapacityRecord.TypeSlots(PlacementKind.INSTANCE_SPOT, "game", new NodeCapacityRecord.Slots(0, 0,
              0))));

  @Test
  void keyIsSpotkitsPreimage() {
    assertThat(LocationKeys.nodeCapacity("chat", new byte[] {(byte) 0xab, 1}).preimage())
        .isEqualTo("node-capacity\0chat\0ab01");
    assertThat(LocationKeys.nodeCapacity("chat", "ab01")).isEqualTo(LocationKeys.nodeCapacity("chat",
        new byte[] {(byte) 0xab, 1}));
    assertThatThrownBy(() -> LocationKeys.nodeCapacity("chat", "AB01"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("RoutingId hex 'AB01' is not lowercase hex of at least one byte");
  }

  @Test
  void canonicalJsonRoundTrips() {
    final StoreBytes bytes = SAMPLE.encode();
    assertThat(bytes.asUtf8()).isEqualTo("{\"recordVersion\":1,\"actors\":{\"active\":2,\"reserved\":1,\"limit\":5},"
        + "\"spots\":{\"active\":0,\"reserved\":0,\"limit\":0},\"spotTypes\":["
        + "{\"objectKind\":\"instanceSpot\",\"stableType\":\"game\",\"active\":0,\"reserved\":0,\"limit\":0},"
        + "{\"objectKind\":\"userSpot\",\"stableType\":\"room\",\"active\":1,\"reserved\":0,\"limit\":3}]}");
    assertThat(NodeCapacityRecord.decode(bytes)).isEqualTo(SAMPLE);
  }

  @Test
  void unknownRecordVersionFailsExplicitly() {
    final StoreBytes v2 = StoreBytes.utf8(SAMPLE.encode().asUtf8().replace("\"recordVersion\":1",
        "\"recordVersion\":2"));
    assertThatThrownBy(() -> NodeCapacityRecord.decode(v2))
        .isInstanceOf(RecordDecodeException.UnknownVersion.class)
        .hasMessageStartingWith("node capacity record has recordVersion 2");
    final StoreBytes twice = StoreBytes.utf8(SAMPLE.encode().asUtf8().replace("\"game\"", "\"room\"")
        .replace("instanceSpot", "userSpot"));
    assertThatThrownBy(() -> NodeCapacityRecord.decode(twice))
        .isInstanceOf(RecordDecodeException.Malformed.class)
        .hasMessage("node capacity record: node capacity lists userSpot type 'room' twice");
  }

  @Test
  void reserveCommitReleaseRetireMoveTheBundle() {
    final AuthorityRecord.Capacity room = AuthorityRecord.Capacity.spot(PlacementKind.USER_SPOT, "room");
    final NodeCapacityRecord reserved = SAMPLE.reserve(room);
    assertThat(reserved.spots()).isEqualTo(new NodeCapacityRecord.Slots(0, 1, 0));
    assertThat(reserved.spotType(PlacementKind.USER_SPOT, "room")).isEqualTo(new NodeCapacityRecord.Slots(1, 1, 3));
    final NodeCapacityRecord committed = reserved.commit(room);
    assertThat(committed.spotType(PlacementKind.USER_SPOT, "room")).isEqualTo(new NodeCapacityRecord.Slots(2, 0, 3));
    assertThat(committed.retire(room)).isEqualTo(SAMPLE);
    assertThat(reserved.release(room)).isEqualTo(SAMPLE);
    assertThatThrownBy(() -> SAMPLE.release(room)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("capacity reserved 0 is below the 1 slots being returned");
  }

  @Test
  void fullWhenActivePlusReservedWouldPassTheLimit() {
    final AuthorityRecord.Capacity actor = AuthorityRecord.Capacity.actor();
    final NodeCapacityRecord two = SAMPLE.reserve(actor).reserve(actor);
    assertThat(two.actors()).isEqualTo(new NodeCapacityRecord.Slots(2, 3, 5));
    assertThat(two.whyFull(actor)).contains("actors 2 active + 3 reserved + 1 wanted > limit 5");
    assertThatThrownBy(() -> two.reserve(actor)).isInstanceOf(IllegalStateException.class);
    final AuthorityRecord.Capacity room = AuthorityRecord.Capacity.spot(PlacementKind.USER_SPOT, "room");
    assertThat(SAMPLE.reserve(room).reserve(room).whyFull(room))
        .contains("userSpot type 'room' 1 active + 2 reserved + 1 wanted > limit 3");
    assertThat(SAMPLE.whyFull(AuthorityRecord.Capacity.spot(PlacementKind.INSTANCE_SPOT, "other"))).isEmpty();
    final NodeCapacityRecord unlimited = new NodeCapacityRecord(new NodeCapacityRecord.Slots(Integer.MAX_VALUE, 0,
        0), NodeCapacityRecord.Slots.NONE, List.of());
    assertThat(unlimited.whyFull(actor)).isPresent();
  }

  @Test
  void newLimitsKeepUsageAndOnlyBlockNewReservations() {
    final NodeCapacityRecord limits = new NodeCapacityRecord(new NodeCapacityRecord.Slots(0, 0, 1),
        new NodeCapacityRecord.Slots(0, 0, 9), List.of(new NodeCapacityRecord.TypeSlots(PlacementKind.USER_SPOT,
            "lobby", new NodeCapacityRecord.Slots(0, 0, 4))));
    final NodeCapacityRecord merged = SAMPLE.withLimitsOf(limits);
    assertThat(merged.actors()).isEqualTo(new NodeCapacityRecord.Slots(2, 1, 1));
    assertThat(merged.spots()).isEqualTo(new NodeCapacityRecord.Slots(0, 0, 9));
    assertThat(merged.spotType(PlacementKind.USER_SPOT, "room")).isEqualTo(new NodeCapacityRecord.Slots(1, 0, 0));
    assertThat(merged.spotType(PlacementKind.USER_SPOT, "lobby")).isEqualTo(new NodeCapacityRecord.Slots(0, 0, 4));
    assertThat(merged.whyFull(AuthorityRecord.Capacity.actor())).isPresent();
    assertThat(merged.actors().remaining()).isZero();
  }
}
