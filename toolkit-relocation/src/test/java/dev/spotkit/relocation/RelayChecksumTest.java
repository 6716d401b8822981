package dev.spotkit.relocation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

class RelayChecksumTest {
  @Test
  void crc32cCheckValue() {
    assertThat(RelayChecksum.ofBytes("123456789".getBytes(StandardCharsets.US_ASCII))).isEqualTo(0xE3069283L);
    assertThat(RelayChecksum.of(List.of())).isZero();
  }

  @Test
  void canonicalRecordEncodingIsBigEndianKindIdsDeadlineLengthBody() {
    final Message m = Message.request(0x0102030405060708L, 9, 10, new byte[] {(byte) 0xAB});
    final byte[] expected = {2, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 10,
        0, 0, 0, 1, (byte) 0xAB};
    final CRC32C crc = new CRC32C();
    crc.update(expected);
    assertThat(RelayChecksum.of(List.of(m))).isEqualTo(crc.getValue());
    assertThat(RelayChecksum.of(List.of(m, Message.send(new byte[0]))))
        .isNotEqualTo(RelayChecksum.of(List.of(Message.send(new byte[0]), m)));
  }

  @Test
  void messageValidatesSendAndRequestShapesAndCopiesItsBody() {
    assertThatThrownBy(() -> new Message(Message.Kind.SEND, 1, 0, 0, new byte[0]))
        .hasMessage("a send carries no operationId or replyRouteId (spec 001 section 5.2)");
    assertThatThrownBy(() -> Message.request(0, 1, 1, new byte[0]))
        .hasMessage("a request needs a non-zero operationId and replyRouteId");
    final byte[] body = {1};
    final Message m = Message.send(body);
    body[0] = 2;
    assertThat(m.body()).containsExactly(1);
  }
}
