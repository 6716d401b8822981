package dev.spotkit.relocation.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.spotkit.relocation.Spec;
import dev.spotkit.relocation.wire.EnvelopeEntries.ApplicationState;
import dev.spotkit.relocation.wire.EnvelopeEntries.PendingTimerTick;
import dev.spotkit.relocation.wire.EnvelopeEntries.SavedWork;
import dev.spotkit.relocation.wire.EnvelopeEntries.TimerRegistration;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** REL-11: relocation-control-v1.json and relocation-envelope-v1.json, byte for byte, both directions. */
class GoldenVectorsTest {

  static final RelocationIdentity IDENTITY = new RelocationIdentity(new RelocationId(4, 5), 6,
      new CoordinatorFence("coordinator", 7, Rid.ofUtf8("node-a"), 11, "store-3"));
  static final TargetFence TARGET = new TargetFence(Rid.ofUtf8("node-b"), 12, "target-owner", 8);
  static final ObjectIdentity SPOT = new ObjectIdentity.UserSpot("spot-1", 9, 10);

  /** The frozen spotRequest record both fixtures carry (command 31 and savedWork[0]). */
  static FrozenRecord chatRequest() {
    return new FrozenRecord(new RecordSource.Node(Rid.ofUtf8("n"), 1, "request-source", 6), null,
        new OperationId(0, 42), 3, 99, new RecordBody.SpotRequest(
            new TargetSpot("room", 1, Rid.ofUtf8("m"), 2, 7, 1),
            new ApplicationPayload("ChatRequest", "application/json", "{\"id\":1}".getBytes(StandardCharsets.UTF_8))));
  }

  static Stream<Arguments> canonical() {
    return Stream.of(
        Arguments.of("relocationReady", new RelocationFrame.Ready(IDENTITY, TARGET, SPOT, Role.TARGET)),
        Arguments.of("relocationFailed", new RelocationFrame.Failed(IDENTITY, TARGET, SPOT, Role.TARGET, 35)),
        Arguments.of("relocationDataPostCaptureIngress",
            new RelocationFrame.Data(IDENTITY, Role.SOURCE, SPOT, chatRequest())),
        Arguments.of("relocationCutover", new RelocationFrame.Cutover(IDENTITY, Role.SOURCE, SPOT, 3, 3808858755L)),
        Arguments.of("relocationPrepareRestore", new RelocationFrame.Prepare(IDENTITY, TARGET, Role.SOURCE, SPOT,
            Rid.ofUtf8("node-a"), 11, 24, 2, 700221333L, 1)),
        Arguments.of("relocationStateChunk", new RelocationFrame.State(IDENTITY, Role.SOURCE, SPOT, 0,
            HexFormat.of().parseHex("000102030405060708090a0b0c0d0e0f"))),
        Arguments.of("relocationStateFinalChunk", new RelocationFrame.State(IDENTITY, Role.SOURCE, SPOT, 1,
            HexFormat.of().parseHex("1011121314151617"))));
  }

  @Spec("REL-11")
  @ParameterizedTest(name = "{0}")
  @MethodSource("canonical")
  void everyCanonicalControlVectorEncodesAndDecodesByteForByte(final String name, final RelocationFrame expected) {
    final JsonNode vector = Golden.control(name);
    final byte[] frame = Golden.hex(vector);

    assertThat(Golden.hex(RelocationCodec.encode(expected))).isEqualTo(vector.get("hex").asText());
    final RelocationFrame decoded = RelocationCodec.decode(frame);
    assertThat(decoded).isEqualTo(expected);
    assertThat(decoded.command()).isEqualTo(vector.get("command").asInt());
    final JsonNode d = vector.get("decoded");
    assertThat(decoded.identity().targetAttemptGeneration()).isEqualTo(d.get("targetAttemptGeneration").asLong());
    assertThat(decoded.object().id()).isEqualTo(d.get("spotId").asText());
    assertThat(decoded.object()).isInstanceOf(ObjectIdentity.UserSpot.class);
    if (d.has("targetNodeRid")) {
      final TargetFence fence = decoded instanceof RelocationFrame.Ready r ? r.targetFence()
          : decoded instanceof RelocationFrame.Failed f ? f.targetFence() : ((RelocationFrame.Prepare) decoded)
          .targetFence();
      assertThat(fence.nodeRid()).isEqualTo(Rid.ofUtf8(d.get("targetNodeRid").asText()));
    }
  }

  @Spec("REL-11")
  @Test
  void decodedFieldsOfChunkPrepareAndCutoverVectorsMatchTheFixture() {
    final RelocationFrame.Prepare prepare = (RelocationFrame.Prepare) RelocationCodec.decode(
        Golden.hex(Golden.control("relocationPrepareRestore")));
    final JsonNode p = Golden.control("relocationPrepareRestore").get("decoded");
    assertThat(prepare.initiatorRole()).isEqualTo(Role.SOURCE);
    assertThat(prepare.payloadTotalLength()).isEqualTo(p.get("payloadTotalLength").asLong());
    assertThat(prepare.payloadChunkCount()).isEqualTo(p.get("payloadChunkCount").asLong());
    assertThat(prepare.payloadChecksumCrc32c()).isEqualTo(p.get("payloadChecksumCrc32c").asLong());
    assertThat(prepare.applicationVersion()).isEqualTo(p.get("applicationVersion").asLong());

    final List<byte[]> chunks = new ArrayList<>();
    for (String name : List.of("relocationStateChunk", "relocationStateFinalChunk")) {
      final RelocationFrame.State s = (RelocationFrame.State) RelocationCodec.decode(Golden.hex(Golden.control(name)));
      final JsonNode d = Golden.control(name).get("decoded");
      assertThat(s.chunkOrdinal()).isEqualTo(d.get("chunkOrdinal").asLong());
      assertThat(Golden.hex(s.chunk())).isEqualTo(d.get("chunkDataHex").asText());
      chunks.add(s.chunk());
    }
    final byte[] whole = new byte[24];
    for (int i = 0; i < 24; i++) {
      whole[i] = (byte) i;
    }
    assertThat(chunks.get(0).length + chunks.get(1).length).isEqualTo(prepare.payloadTotalLength());
    assertThat(ChunkPlan.crc32c(whole)).isEqualTo(prepare.payloadChecksumCrc32c());

    final RelocationFrame.Cutover cutover = (RelocationFrame.Cutover) RelocationCodec.decode(
        Golden.hex(Golden.control("relocationCutover")));
    final JsonNode c = Golden.control("relocationCutover").get("decoded");
    assertThat(cutover.boundaryRecordCount()).isEqualTo(c.get("boundaryRecordCount").asLong());
    assertThat(cutover.boundaryChecksumCrc32c()).isEqualTo(c.get("boundaryChecksumCrc32c").asLong())
        .isEqualTo(ChunkPlan.crc32c("123456789".getBytes(StandardCharsets.US_ASCII))).isEqualTo(0xE3069283L);
  }

  @Spec("REL-11")
  @Test
  void theGoldenPrepareAndItsTwoGoldenChunksAssembleTheDeclaredStream() {
    final RelocationFrame.Prepare prepare = (RelocationFrame.Prepare) RelocationCodec.decode(
        Golden.hex(Golden.control("relocationPrepareRestore")));
    final ChunkAssembler assembler = ChunkAssembler.start(prepare, 1, 1 << 20);
    final ChunkOutcome first = assembler.onChunk((RelocationFrame.State) RelocationCodec.decode(
        Golden.hex(Golden.control("relocationStateFinalChunk"))), 1);
    final ChunkOutcome second = assembler.onChunk((RelocationFrame.State) RelocationCodec.decode(
        Golden.hex(Golden.control("relocationStateChunk"))), 1);

    assertThat(first).isEqualTo(new ChunkOutcome.Accepted(1, 8));
    assertThat(second).isInstanceOfSatisfying(ChunkOutcome.Complete.class, c -> assertThat(Golden.hex(c.payload()))
        .isEqualTo("000102030405060708090a0b0c0d0e0f1011121314151617"));
  }

  static Stream<Arguments> malformed() {
    final List<Arguments> out = new ArrayList<>();
    for (JsonNode v : Golden.load("relocation-control-v1.json").get("malformed")) {
      out.add(Arguments.of(v.get("name").asText(), v.get("hex").asText(), v.get("error").asText()));
    }
    return out.stream();
  }

  @Spec("REL-11")
  @ParameterizedTest(name = "{0} -> {2}")
  @MethodSource("malformed")
  void everyMalformedControlVectorIsRefusedWithTheExpectedTypedError(final String name, final String hex,
      final String error) {
    assertThatThrownBy(() -> RelocationCodec.decode(HexFormat.of().parseHex(hex)))
        .isInstanceOfSatisfying(WireFormatException.class, e -> assertThat(e.error().code()).isEqualTo(error));
  }

  @Test
  void malformedVectorsNameTheFieldAndOffset() {
    final JsonNode malformed = Golden.load("relocation-control-v1.json").get("malformed");
    assertThatThrownBy(() -> RelocationCodec.decode(HexFormat.of().parseHex(malformed.get(0).get("hex").asText())))
        .hasMessage("relocationState: invalid-field targetAttemptGeneration at offset 21: value 0, expected "
            + "1..9223372036854775807");
    assertThatThrownBy(() -> RelocationCodec.decode(HexFormat.of().parseHex(malformed.get(1).get("hex").asText())))
        .isInstanceOfSatisfying(WireFormatException.class, e -> {
          assertThat(e.field()).isEqualTo("chunk");
          assertThat(e.offset()).isEqualTo(108);
        });
    assertThatThrownBy(() -> RelocationCodec.decode(HexFormat.of().parseHex(malformed.get(2).get("hex").asText())))
        .hasMessage("relocationState: trailing-byte end at offset 124: 1 byte(s) after the last field, expected end "
            + "of input");
  }

  static RelocationEnvelope goldenEnvelope() {
    return new RelocationEnvelope(new RelocationId(0, 9), new ObjectIdentity.UserSpot("room", 1, 7), 1,
        List.of(new ApplicationState(1, new byte[0]), new ApplicationState(2, "{}".getBytes(StandardCharsets.UTF_8)),
            new ApplicationState(3, null)),
        List.of(new SavedWork(2, 1, chatRequest())),
        List.of(new TimerRegistration(3, "heartbeat", "HeartbeatTimer", 1000,
            TimerRegistration.OVERRUN_SKIP_LATE_TICKS, 1, false, 4, 5, 1760000000000L)),
        List.of(new PendingTimerTick(3, 2, "heartbeat", 5, 6, 1760000000000L, 1)));
  }

  @Spec("REL-11")
  @Test
  void theEnvelopeVectorEncodesAndDecodesByteForByte() {
    final JsonNode fixture = Golden.load("relocation-envelope-v1.json");
    final String hex = fixture.get("logicalHex").asText();

    assertThat(Golden.hex(RelocationEnvelopeCodec.encode(goldenEnvelope()))).isEqualTo(hex);
    final RelocationEnvelope decoded = RelocationEnvelopeCodec.decode(HexFormat.of().parseHex(hex), 3, 1 << 20);
    assertThat(decoded).isEqualTo(goldenEnvelope());
    final JsonNode d = fixture.get("decoded");
    assertThat(decoded.relocation().low()).isEqualTo(d.get("relocationLow").asLong());
    assertThat(decoded.object().id()).isEqualTo(d.get("object").get("spotIdUtf8Fixture").asText());
    assertThat(decoded.object().expectedAuthorityOwnerGeneration())
        .isEqualTo(d.get("object").get("expectedAuthorityOwnerGeneration").asLong());
    for (int i = 0; i < 3; i++) {
      final JsonNode s = d.get("applicationStates").get(i);
      final ApplicationState state = decoded.applicationStates().get(i);
      assertThat(state.participantId()).isEqualTo(s.get("participantId").asLong());
      assertThat(state.state() != null).isEqualTo(s.get("applicationState").get("hasState").asBoolean());
      if (state.state() != null) {
        assertThat(new String(state.state(), StandardCharsets.UTF_8))
            .isEqualTo(s.get("applicationState").get("payloadUtf8Fixture").asText());
      }
    }
    final JsonNode w = d.get("savedWork").get(0);
    assertThat(decoded.savedWork().get(0).record().operationId().low())
        .isEqualTo(w.get("record").get("operationId").get("low").asLong());
    assertThat(decoded.savedWork().get(0).record().replyRouteId()).isEqualTo(w.get("record").get("replyRouteId")
        .asLong());
    assertThat(decoded.timerRegistrations().get(0).nextScheduledAtUnixMilliseconds())
        .isEqualTo(d.get("timerRegistrations").get(0).get("nextScheduledAtUnixMilliseconds").asLong());
    assertThat(decoded.pendingTimerTicks().get(0).skippedTicks())
        .isEqualTo(d.get("pendingTimerTicks").get(0).get("skippedTicks").asLong());
  }

  @Test
  void theFixtureInventoryMapsAuthorityKeysInUtf8Order() {
    final JsonNode inventory = Golden.load("relocation-envelope-v1.json").get("participantAuthorityKeyInventory");
    final List<String> keys = new ArrayList<>();
    for (int i = inventory.size() - 1; i >= 0; i--) {
      keys.add(inventory.get(i).get("authorityKeyUtf8Fixture").asText());
    }
    final ParticipantInventory p = ParticipantInventory.of(keys);
    for (JsonNode entry : inventory) {
      assertThat(p.participantId(entry.get("authorityKeyUtf8Fixture").asText()))
          .isEqualTo(entry.get("participantId").asLong());
    }
    assertThat(p.keys()).containsExactly("actor:z", "actor:é", "spot:a");
  }

  @Test
  void theFrozenRecordOfCommand31IsTheSavedWorkRecordOfTheEnvelope() {
    final String data = Golden.control("relocationDataPostCaptureIngress").get("hex").asText();
    final String envelope = Golden.load("relocation-envelope-v1.json").get("logicalHex").asText();
    final String record = data.substring(data.indexOf("0601002101"));
    assertThat(envelope).contains(record);
  }
}
