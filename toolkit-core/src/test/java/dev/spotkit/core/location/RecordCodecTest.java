package dev.spotkit.core.location;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spotkit.core.ObjectGeneration;
import dev.spotkit.store.StoreBytes;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Canonical JSON beyond the golden vectors: hand-written bytes, field order, refusals. */
class RecordCodecTest {

  @Test
  void ownerLeaseIsCompactWithGenerationsAsStrings() {
    assertThat(new OwnerLeaseRecord("h\u00e9/\"1\"", new LeaseGeneration(Long.MAX_VALUE - 1)).encode().asUtf8())
        .isEqualTo("{\"recordVersion\":1,\"ownerId\":\"h\u00e9/\\\"1\\\"\",\"leaseGeneration\":\"9223372036854775806\"}");
  }

  @Test
  void channelWeightsAreWrittenInKeyOrderAndWeightsAreChecked() {
    final MeshNodeDescriptorRecord.Descriptor d = new MeshNodeDescriptorRecord.Descriptor("m", "0a", 2, "tcp://x:1",
        null, Map.of("zeta", 0, "alpha", 10_000), 0, List.of(), MeshNodeDescriptorRecord.Role.CLIENT, 0,
        new MeshNodeDescriptorRecord.Usage(0, 0, 0), new MeshNodeDescriptorRecord.Usage(0, 0, 0), List.of(), 0, 0,
        "wave-1", NodeState.PREPARING, "id", 5);
    final MeshNodeDescriptorRecord record = new MeshNodeDescriptorRecord("o", new LeaseGeneration(1), 1, d);
    final String json = record.encode().asUtf8();
    assertThat(json).contains("\"channelWeights\":{\"alpha\":10000,\"zeta\":0}")
        .contains("\"entrySpotId\":null").contains("\"maintenanceWave\":\"wave-1\"")
        .contains("\"applicationVersion\":\"0\"");
    assertThat(MeshNodeDescriptorRecord.decode(record.encode())).isEqualTo(record);
    assertThatThrownBy(() -> new MeshNodeDescriptorRecord.Descriptor("m", "0a", 2, "e", null, Map.of("c", 10_001), 0,
        List.of(), MeshNodeDescriptorRecord.Role.SERVER, 100, d.actors(), d.spots(), List.of(), 0, 0, null,
        NodeState.SERVING, "id", 0)).hasMessage("channel weight of 'c' 10001 is outside 0..10000");
  }

  @Test
  void malformedRecordsAreRefusedWithTheFieldPath() {
    assertThatThrownBy(() -> OwnerLeaseRecord.decode(StoreBytes.utf8("{\"recordVersion\":1,\"ownerId\":\"o\","
        + "\"leaseGeneration\":5}"))).isInstanceOf(RecordDecodeException.Malformed.class)
        .hasMessage("owner lease record.leaseGeneration is not a string");
    assertThatThrownBy(() -> OwnerLeaseRecord.decode(StoreBytes.utf8("{\"recordVersion\":1,\"ownerId\":\"o\","
        + "\"leaseGeneration\":\"05\"}"))).hasMessage("owner lease record.leaseGeneration '05' is not a canonical"
        + " decimal");
    assertThatThrownBy(() -> OwnerLeaseRecord.decode(StoreBytes.utf8("{\"recordVersion\":1,\"ownerId\":\"o\","
        + "\"ownerId\":\"p\",\"leaseGeneration\":\"5\"}"))).isInstanceOf(RecordDecodeException.Malformed.class);
    assertThatThrownBy(() -> OwnerLeaseRecord.decode(StoreBytes.utf8("{\"ownerId\":\"o\"}")))
        .hasMessage("owner lease record has no integer recordVersion");
    assertThatThrownBy(() -> OwnerLeaseRecord.decode(StoreBytes.utf8("[1]")))
        .hasMessage("owner lease record is not a JSON object");
    assertThatThrownBy(() -> OwnerLeaseRecord.decode(StoreBytes.utf8("{\"recordVersion\":1} x")))
        .isInstanceOf(RecordDecodeException.Malformed.class);
  }

  @Test
  void descriptorCopiesMustAgree() {
    final ChannelDescriptorRecord r = new ChannelDescriptorRecord(ChannelDescriptorRecord.Kind.CLIENT_SERVER, "o",
        new LeaseGeneration(2), 4, "ch", "01", 1, "tcp://s:1", 7, NodeState.SERVING, "id", 9);
    final String json = r.encode().asUtf8();
    final int inner = json.indexOf("\"descriptorRevision\":\"4\"", json.indexOf("\"descriptor\":{"));
    final String tampered = json.substring(0, inner) + "\"descriptorRevision\":\"5\""
        + json.substring(inner + "\"descriptorRevision\":\"4\"".length());
    assertThatThrownBy(() -> ChannelDescriptorRecord.decode(ChannelDescriptorRecord.Kind.CLIENT_SERVER,
        StoreBytes.utf8(tampered)))
        .hasMessage("client-server descriptor record.descriptor.descriptorRevision differs from the top-level"
            + " descriptorRevision 4");
  }

  @Test
  void authorityPayloadIsStandardBase64AndEntrySpotRowsHoldNoCapacity() {
    final AuthorityRecord row = LocationRecords.toAuthority(new LocationRecord(ObjectKey.spot("test-entry-1"), 3,
        "entry", "test/0a0b", null, RecordState.READY, 2), PlacementKind.ENTRY_SPOT, new LeaseGeneration(1), "test",
        "0a0b", 1);
    assertThat(row.allocation().capacity()).isEqualTo(new AuthorityRecord.Capacity(0, 0, null));
    assertThat(LocationRecords.fromAuthority(ObjectKey.spot("test-entry-1"), row))
        .isEqualTo(new LocationRecord(ObjectKey.spot("test-entry-1"), 3, "entry", "test/0a0b", null, RecordState.READY,
            2));
    final AuthorityRecord member = new AuthorityRecord(StoreBytes.of(new byte[] {(byte) 0xfb, (byte) 0xff}),
        new ObjectGeneration(1), new AuthorityOwnerGeneration(1), "o", new LeaseGeneration(1), row.allocation(), null);
    assertThat(member.encode().asUtf8()).contains("\"payload\":\"+/8=\"");
  }
}
