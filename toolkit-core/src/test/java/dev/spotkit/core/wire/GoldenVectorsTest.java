package dev.spotkit.core.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.spotkit.relocation.wire.OperationId;
import dev.spotkit.relocation.wire.WireFormatException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * The golden vectors of {@code shared/fixtures/golden/} (copied unchanged into the test resources): every
 * canonical vector encodes to the same hex and decodes to the same fields; every malformed vector is refused
 * with the error its {@code error} string names.
 */
class GoldenVectorsTest {

  private static final HexFormat HEX = HexFormat.of();

  private static JsonNode fixture(final String name) throws IOException {
    try (InputStream in = GoldenVectorsTest.class.getResourceAsStream("golden/" + name)) {
      assertThat(in).as("fixture %s on the test classpath", name).isNotNull();
      return new ObjectMapper().readTree(in);
    }
  }

  private static long u64(final JsonNode n) {
    return Long.parseUnsignedLong(n.asText());
  }

  @Test
  void userSpotCloseCanonicalEncodesAndDecodesByteForByte() throws IOException {
    final JsonNode canonical = fixture("user-spot-close-v1.json").get("canonical");
    final JsonNode d = canonical.get("decoded");
    final JsonNode t = d.get("target");
    final UserSpotClose expected = new UserSpotClose(
        u64(d.get("correlation")),
        new OperationId(u64(d.get("operation").get("high")), u64(d.get("operation").get("low"))),
        Rids.ofHex(d.get("sourceNodeRid").asText()),
        u64(d.get("sourceNodeGeneration")),
        new UserSpotCloseFence(
            new WireSpotRef(t.get("spot").get("spotId").asText(), u64(t.get("spot").get("objectGeneration"))),
            Rids.ofHex(t.get("targetNodeRid").asText()),
            u64(t.get("targetNodeGeneration")),
            u64(t.get("expectedAuthorityOwnerGeneration")),
            t.get("expectedStoreVersion").asText()),
        u64(d.get("deadlineUnixMs")));
    assertThat(t.get("version").asInt()).isEqualTo(UserSpotCloseFence.VERSION);
    final String hex = canonical.get("hex").asText();

    assertThat(HEX.formatHex(UserSpotCloseCodec.encode(expected))).isEqualTo(hex);
    assertThat(UserSpotCloseCodec.decode(HEX.parseHex(hex))).isEqualTo(expected);
  }

  @Test
  void userSpotCloseMalformedVectorsAreRefusedWithTheirError() throws IOException {
    final JsonNode malformed = fixture("user-spot-close-v1.json").get("malformed");
    assertThat(malformed.size()).isEqualTo(3);
    for (JsonNode v : malformed) {
      final byte[] frame = HEX.parseHex(v.get("hex").asText());
      assertThatThrownBy(() -> UserSpotCloseCodec.decode(frame))
          .as(v.get("name").asText())
          .isInstanceOfSatisfying(WireFormatException.class,
              e -> assertThat(e.error().code()).isEqualTo(v.get("error").asText()));
    }
  }

  @Test
  void userSpotCloseMalformedMessagesNameFieldOffsetValueAndLimit() throws IOException {
    final JsonNode malformed = fixture("user-spot-close-v1.json").get("malformed");
    assertThatThrownBy(() -> UserSpotCloseCodec.decode(HEX.parseHex(malformed.get(0).get("hex").asText())))
        .hasMessage("userSpotClose: invalid-body-length target.bodyLength at offset 42: declares 44 bytes, "
            + "fields hold 45");
    assertThatThrownBy(() -> UserSpotCloseCodec.decode(HEX.parseHex(malformed.get(1).get("hex").asText())))
        .hasMessage("userSpotClose: invalid-field target.targetNodeGeneration at offset 63: value 0, expected "
            + "1..9223372036854775807");
    assertThatThrownBy(() -> UserSpotCloseCodec.decode(HEX.parseHex(malformed.get(2).get("hex").asText())))
        .hasMessage("userSpotClose: trailing-byte end at offset 97: 1 byte(s) after the last field, expected "
            + "end of frame");
  }

  @Test
  void actorJoinReplyCanonicalVectorsEncodeAndDecodeByteForByte() throws IOException {
    final JsonNode canonical = fixture("actor-join-reply-v1.json").get("canonical");
    assertThat(canonical.size()).isEqualTo(5);
    for (JsonNode v : canonical) {
      assertThat(v.get("command").asInt()).isEqualTo(Commands.REPLY);
      final JsonNode d = v.get("decoded");
      final JsonNode spotNode = d.get("spot");
      final WireSpotRef spot = spotNode == null ? null
          : new WireSpotRef(spotNode.get("spotId").asText(), u64(spotNode.get("generation")));
      final ReplyTail tail = switch (d.get("joinResult").asText()) {
        case "accepted" -> new ReplyTail.ActorJoinAccepted(spot, u64(d.get("membershipEpoch")),
            d.get("receiveChunkLimitBytes").asLong());
        case "rejected" -> new ReplyTail.ActorJoinRejected(spot);
        default -> throw new AssertionError(d);
      };
      final Reply expected = Reply.ok(u64(v.get("correlation")), tail);
      final String hex = v.get("hex").asText();

      assertThat(HEX.formatHex(ReplyCodec.encode(expected))).as(v.get("name").asText()).isEqualTo(hex);
      assertThat(ReplyCodec.decode(HEX.parseHex(hex), OperationKind.ACTOR_JOIN)).as(v.get("name").asText())
          .isEqualTo(expected);
      assertThat(ReplyCodec.correlation(HEX.parseHex(hex))).isEqualTo(expected.correlation());
    }
  }

  @Test
  void actorJoinReplyMalformedVectorsAreRefusedWithTheirError() throws IOException {
    final JsonNode malformed = fixture("actor-join-reply-v1.json").get("malformed");
    assertThat(malformed.size()).isEqualTo(7);
    for (JsonNode v : malformed) {
      final byte[] frame = HEX.parseHex(v.get("hex").asText());
      assertThatThrownBy(() -> ReplyCodec.decode(frame, OperationKind.ACTOR_JOIN))
          .as(v.get("name").asText())
          .isInstanceOfSatisfying(WireFormatException.class,
              e -> assertThat(e.error().code()).isEqualTo(v.get("error").asText()));
    }
  }

  @Test
  void authorityKeysEncodeAndParseExactly() throws IOException {
    final JsonNode cases = fixture("authority-key-v1.json").get("cases");
    assertThat(cases.size()).isEqualTo(6);
    for (JsonNode c : cases) {
      final AuthorityKey.Kind kind = switch (c.get("objectKind").asText()) {
        case "actor" -> AuthorityKey.Kind.ACTOR;
        case "spot" -> AuthorityKey.Kind.SPOT;
        default -> throw new AssertionError(c);
      };
      final String id = new String(HEX.parseHex(c.get("identityHex").asText()), StandardCharsets.UTF_8);
      final AuthorityKey key = new AuthorityKey(kind, id);
      final String encoded = c.get("encoded").asText();

      assertThat(key.encoded()).isEqualTo(encoded);
      assertThat(AuthorityKey.parse(encoded)).isEqualTo(key);
    }
  }

  @Test
  void authorityKeysKeepUnreservedBytesAndRefuseNonCanonicalForms() {
    assertThat(new AuthorityKey(AuthorityKey.Kind.SPOT, "a-b.c_d~e f/\uD83D\uDE00").encoded())
        .isEqualTo("zla1:s:16:a-b.c_d~e%20f%2F%F0%9F%98%80");
    for (String bad : new String[] {"zla1:a:7:user%3a42", "zla1:a:8:user%3A42", "zla1:a:4:%75ser", "zla1:x:1:a",
        "zla1:a:1:%C3", "zla1:a:2:a%4"}) {
      assertThatThrownBy(() -> AuthorityKey.parse(bad)).as(bad).isInstanceOf(WireFormatException.class);
    }
  }
}
