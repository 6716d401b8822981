package dev.spotkit.core.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spotkit.core.NodeRid;
import dev.spotkit.core.OperationId;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.relocation.wire.FrameHead;
import dev.spotkit.relocation.wire.WireError;
import dev.spotkit.relocation.wire.WireFormatException;
import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * Commands 47, 49 and 20 beyond the golden vectors: exact layouts written out by hand, round trips, and the
 * full message text of each kind of refusal (STYLE.md section 7 rule 8).
 */
class WireCodecTest {

  private static final HexFormat HEX = HexFormat.of();

  @Test
  void actorCreateLayoutIsTheDocumentedFieldOrder() {
    final String expected = "5a4d013100"
        + "0000000000000001" + "0000000000000002" + "0000000000000003" // correlation, operation
        + "08" + "0102030405060708" + "0000000000000004"                    // source rid, generation
        + "07" + HEX.formatHex("user:42".getBytes()) + "09" + HEX.formatHex("chat.User".getBytes())
        + "05" + HEX.formatHex("res-1".getBytes()) + "0008" + HEX.formatHex("store-v7".getBytes())
        + "0000000000000005" + "0000000000000006"                          // object, owner generation
        + "03647374" + "0000000000000007"                                  // target rid, generation
        + "07" + HEX.formatHex("owner-b".getBytes()) + "0000000000000008" + "00000001"
        + "000000000000000a";                                              // deadline
    assertThat(HEX.formatHex(CreationCodec.encode(WireSamples.actorCreate()))).isEqualTo(expected);
  }

  @Test
  void creationRequestsRoundTrip() {
    assertThat(CreationCodec.decodeActorCreate(CreationCodec.encode(WireSamples.actorCreate())))
        .isEqualTo(WireSamples.actorCreate());
    final byte[] userSpot = CreationCodec.encode(WireSamples.userSpotCreate());
    assertThat(userSpot[3]).isEqualTo((byte) Commands.USER_SPOT_CREATE);
    assertThat(CreationCodec.decodeUserSpotCreate(userSpot)).isEqualTo(WireSamples.userSpotCreate());
  }

  @Test
  void aFrameOfAnotherCommandIsRefused() {
    final byte[] frame = CreationCodec.encode(WireSamples.userSpotCreate());
    assertThatThrownBy(() -> CreationCodec.decodeActorCreate(frame))
        .isInstanceOf(WireFormatException.class)
        .hasMessage("actorCreate: unexpected-command commandId at offset 3: value 47, expected 49");
  }

  @Test
  void headErrorsNameTheByte() {
    final byte[] good = CreationCodec.encode(WireSamples.actorCreate());
    final byte[] magic = good.clone();
    magic[1] = 0x4E;
    assertThatThrownBy(() -> CreationCodec.decodeActorCreate(magic))
        .hasMessage("actorCreate: bad-magic magic at offset 0: 5a4e, expected 5a4d");
    final byte[] major = good.clone();
    major[2] = 2;
    assertThatThrownBy(() -> CreationCodec.decodeActorCreate(major))
        .hasMessage("actorCreate: unsupported-version wireMajor at offset 2: value 2, expected 1");
    final byte[] undefined = good.clone();
    undefined[4] = 0x10;
    assertThatThrownBy(() -> CreationCodec.decodeActorCreate(undefined))
        .hasMessage("actorCreate: undefined-flag flags at offset 4: 0x10, expected bits of 0x0f");
    final byte[] forbidden = good.clone();
    forbidden[4] = FrameHead.FLAG_EXTENSION;
    assertThatThrownBy(() -> CreationCodec.decodeActorCreate(forbidden))
        .hasMessage("actorCreate: forbidden-flag flags at offset 4: 0x08, expected 0x00 (command 49 allows no flags)");
    assertThatThrownBy(() -> FrameHead.decode(new byte[] {0x5A, 0x4D, 1}))
        .hasMessage("frame: truncated-field commandId at offset 3: needs 1 bytes, 0 left");
  }

  @Test
  void truncationAndBadValuesNameFieldAndOffset() {
    final byte[] good = CreationCodec.encode(WireSamples.actorCreate());
    assertThatThrownBy(() -> CreationCodec.decodeActorCreate(Arrays.copyOf(good, good.length - 3)))
        .hasMessage("actorCreate: truncated-field deadlineUnixMs at offset " + (good.length - 8)
            + ": needs 8 bytes, 5 left");
    final byte[] zeroOperation = good.clone();
    Arrays.fill(zeroOperation, 13, 29, (byte) 0);
    assertThatThrownBy(() -> CreationCodec.decodeActorCreate(zeroOperation))
        .hasMessage("actorCreate: invalid-field operation at offset 13: value 0, expected non-zero 128-bit id");
    final byte[] emptyRid = good.clone();
    emptyRid[29] = 0;
    assertThatThrownBy(() -> CreationCodec.decodeActorCreate(emptyRid))
        .hasMessage("actorCreate: invalid-field sourceNodeRid.length at offset 29: value 0, expected 1..255");
    final byte[] highBit = good.clone();
    highBit[5] = (byte) 0x80;
    assertThatThrownBy(() -> CreationCodec.decodeActorCreate(highBit))
        .hasMessage("actorCreate: invalid-field correlation at offset 5: value 9223372036854775809, expected "
            + "1..9223372036854775807");
    final byte[] badUtf8 = good.clone();
    badUtf8[47] = (byte) 0xC3; // first byte of "user:42" -> lone lead byte
    assertThatThrownBy(() -> CreationCodec.decodeActorCreate(badUtf8))
        .hasMessage("actorCreate: invalid-field actorId at offset 47: malformed UTF-8, expected well-formed UTF-8");
  }

  @Test
  void replyTailsRoundTripForEachRequestKind() {
    final Reply[] replies = {
        Reply.ok(1, new ReplyTail.UserSpotCreated(CreateResult.EXISTING, new WireSpotRef("room", 3))),
        Reply.ok(2, new ReplyTail.UserSpotClosed(true)),
        Reply.ok(3, new ReplyTail.ActorCreated(CreateResult.REJECTED, null)),
        WireSamples.createdReply(),
        Reply.ok(5, new ReplyTail.ActorJoinRejected(null)),
    };
    final OperationKind[] kinds = {OperationKind.USER_SPOT_CREATE, OperationKind.USER_SPOT_CLOSE,
        OperationKind.ACTOR_CREATE, OperationKind.ACTOR_CREATE, OperationKind.ACTOR_JOIN};
    for (int i = 0; i < replies.length; i++) {
      assertThat(ReplyCodec.decode(ReplyCodec.encode(replies[i]), kinds[i])).isEqualTo(replies[i]);
    }
    final Reply failed = Reply.of(6, TerminalResult.CONFLICT, FailureCode.SPOT_GENERATION_STALE);
    assertThat(HEX.formatHex(ReplyCodec.encode(failed)))
        .isEqualTo("5a4d011400" + "0000000000000006" + "0000006b" + "00000021");
    assertThat(ReplyCodec.decode(ReplyCodec.encode(failed), OperationKind.USER_SPOT_CLOSE)).isEqualTo(failed);
  }

  @Test
  void replyBytesAfterTheTailMustBeOnePayloadEnvelope() {
    final byte[] closed = ReplyCodec.encode(Reply.ok(2, new ReplyTail.UserSpotClosed(false)));
    final byte[] extra = Arrays.copyOf(closed, closed.length + 1);
    extra[closed.length] = 7;
    assertThatThrownBy(() -> ReplyCodec.decode(extra, OperationKind.USER_SPOT_CLOSE))
        .hasMessage("reply: trailing-byte end at offset 22: 1 byte(s) after the last field, expected end of frame");
    final byte[] withPayload = ReplyCodec.encode(WireSamples.createdReply());
    final byte[] padded = Arrays.copyOf(withPayload, withPayload.length + 1);
    assertThatThrownBy(() -> ReplyCodec.decode(padded, OperationKind.ACTOR_CREATE))
        .isInstanceOfSatisfying(WireFormatException.class,
            e -> assertThat(e.error()).isEqualTo(WireError.TRAILING_BYTE));
  }

  @Test
  void callerMisuseIsInvalidOperationNotAWireError() {
    assertThatThrownBy(() -> new WireSpotRef("", 1))
        .isInstanceOf(SpotkitException.InvalidOperation.class)
        .hasMessage("spotId is 0 UTF-8 bytes; must be 1..255");
    assertThatThrownBy(() -> new WireActorRef("a", 0))
        .isInstanceOf(SpotkitException.InvalidOperation.class)
        .hasMessage("objectGeneration 0 must be in 1..9223372036854775807");
    assertThatThrownBy(() -> new ReplyTail.ActorCreated(CreateResult.CREATED, null))
        .hasMessage("actor must be given when result is CREATED");
    assertThatThrownBy(() -> new Reply(1, TerminalResult.BUSY, FailureCode.NONE,
        new ReplyTail.UserSpotClosed(true), null))
        .hasMessageStartingWith("a BUSY reply has no tail");
    assertThatThrownBy(() -> ReplyCodec.decode(new byte[0], OperationKind.ACTOR_LOOKUP))
        .isInstanceOf(SpotkitException.InvalidOperation.class);
  }

  @Test
  void ridCarriesANodeRidAsEightBytes() {
    final NodeRid node = new NodeRid(-2);
    assertThat(Rids.of(node).toString()).isEqualTo("fffffffffffffffe");
    assertThat(Rids.toNodeRid(Rids.of(node))).isEqualTo(node);
    assertThat(new OperationId(1, 0)).isNotNull();
  }
}
