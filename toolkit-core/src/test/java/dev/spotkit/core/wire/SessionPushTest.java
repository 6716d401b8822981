package dev.spotkit.core.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spotkit.core.SpotkitException;
import dev.spotkit.relocation.wire.ApplicationPayload;
import dev.spotkit.relocation.wire.FrameHead;
import dev.spotkit.relocation.wire.WireFormatException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** Command 62 (Spotkit-defined session push): the documented layout, a round trip and refusals. */
class SessionPushTest {

  private static final HexFormat HEX = HexFormat.of();

  private static SessionPush sample() {
    return new SessionPush(7, 3, false, new ApplicationPayload("java.lang.String", "application/json",
        "\"hi\"".getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void layoutIsTheDocumentedFieldOrderAndRoundTrips() {
    final byte[] frame = sample().encode();
    final String expected = "5a4d013e00" + "0000000000000007" + "0000000000000003" + "00"
        + "01" + "0000002a" + "10" + HEX.formatHex("java.lang.String".getBytes(StandardCharsets.UTF_8))
        + "10" + HEX.formatHex("application/json".getBytes(StandardCharsets.UTF_8))
        + "00000004" + HEX.formatHex("\"hi\"".getBytes(StandardCharsets.UTF_8));
    assertThat(HEX.formatHex(frame)).isEqualTo(expected);
    final SessionPush back = SessionPush.decode(frame);
    assertThat(back.sessionId()).isEqualTo(7);
    assertThat(back.sequence()).isEqualTo(3);
    assertThat(back.close()).isFalse();
    assertThat(back.payload().packetName()).isEqualTo("java.lang.String");
    assertThat(back.payload().payload()).isEqualTo("\"hi\"".getBytes(StandardCharsets.UTF_8));
    assertThat(FrameHead.decode(frame).command()).isEqualTo(Commands.SESSION_PUSH);
  }

  @Test
  void truncatedOrTrailingFramesAndAZeroSessionAreRefused() {
    final byte[] frame = sample().encode();
    assertThatThrownBy(() -> SessionPush.decode(Arrays.copyOf(frame, frame.length - 1)))
        .isInstanceOf(WireFormatException.class);
    assertThatThrownBy(() -> SessionPush.decode(Arrays.copyOf(frame, frame.length + 1)))
        .isInstanceOf(WireFormatException.class);
    assertThatThrownBy(() -> new SessionPush(0, 0, true, sample().payload()))
        .isInstanceOf(SpotkitException.InvalidOperation.class).hasMessageContaining("sessionId");
  }
}
