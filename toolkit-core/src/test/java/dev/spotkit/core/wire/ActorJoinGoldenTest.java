package dev.spotkit.core.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.spotkit.relocation.wire.ApplicationPayload;
import dev.spotkit.relocation.wire.WireFormatException;
import java.io.IOException;
import java.io.InputStream;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * Command 28 actorJoin against {@code actor-join-request-v1.json}: each valid vector's frames, joined as Spotkit's
 * one-frame carriage, encode from the input and decode back; the malformed ones are refused.
 */
class ActorJoinGoldenTest {
  private static final HexFormat HEX = HexFormat.of();

  private static JsonNode fixture() throws IOException {
    try (InputStream in = ActorJoinGoldenTest.class.getResourceAsStream("golden/actor-join-request-v1.json")) {
      assertThat(in).isNotNull();
      return new ObjectMapper().readTree(in);
    }
  }

  private static long u64(final JsonNode n) {
    return Long.parseUnsignedLong(n.asText());
  }

  private static ActorJoin.Party party(final JsonNode p) {
    return new ActorJoin.Party(p.get("id").asText(), u64(p.get("generation")),
        Rids.ofHex(p.get("targetNodeRidHex").asText()), u64(p.get("targetNodeGeneration")),
        u64(p.get("expectedAuthorityOwnerGeneration")), u64(p.get("expectedOwnerLeaseGeneration")));
  }

  private static String joined(final JsonNode frames) {
    final StringBuilder b = new StringBuilder();
    frames.forEach(f -> b.append(f.asText()));
    return b.toString();
  }

  @Test
  void validVectorsEncodeAndDecodeByteForByte() throws IOException {
    for (JsonNode v : fixture().get("valid")) {
      final JsonNode in = v.get("input");
      final JsonNode p = in.get("payload");
      final ActorJoin expected = new ActorJoin(u64(in.get("correlation")), party(in.get("actor")),
          in.get("entry").asBoolean(), party(in.get("targetSpot")), p == null ? null : new ApplicationPayload(
              p.get("packetName").asText(), p.get("contentType").asText(), HEX.parseHex(p.get("payloadHex").asText())));
      final String hex = joined(v.get("framesHex"));
      assertThat(HEX.formatHex(expected.encode())).as(v.get("name").asText()).isEqualTo(hex);
      assertThat(ActorJoin.decode(HEX.parseHex(hex))).as(v.get("name").asText()).isEqualTo(expected);
    }
  }

  @Test
  void malformedVectorsAreRefused() throws IOException {
    for (JsonNode v : fixture().get("invalid")) {
      final byte[] frame = HEX.parseHex(joined(v.get("framesHex")));
      assertThatThrownBy(() -> ActorJoin.decode(frame)).as(v.get("name").asText())
          .isInstanceOf(WireFormatException.class);
    }
  }
}
