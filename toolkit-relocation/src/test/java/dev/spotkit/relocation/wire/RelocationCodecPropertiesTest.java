package dev.spotkit.relocation.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import java.util.HexFormat;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/** Round trips of the six command bodies, and refusal of random and mutated frames with the typed error only. */
class RelocationCodecPropertiesTest {

  /**
   * Bytes one decode may allocate per input byte, plus {@link #ALLOCATION_SLACK_BYTES}: a forged length or count
   * must never make the decoder allocate (or loop) by the claimed size instead of the bytes present. Measured
   * with the thread's allocation counter, not a clock, so a loaded machine cannot make it fail.
   */
  static final long MAX_ALLOCATED_PER_INPUT_BYTE = 64;
  /** Fixed allowance for the decoder's own objects, in bytes. */
  static final long ALLOCATION_SLACK_BYTES = 1 << 20;

  /** The calling thread's allocated bytes so far (HotSpot's per-thread counter). */
  static long allocatedBytes() {
    return ((com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean())
        .getCurrentThreadAllocatedBytes();
  }

  /**
   * Checks that one decode's allocation stayed linear in its input.
   *
   * @param allocated bytes {@link #allocatedBytes()} grew by over the decode call alone.
   * @param inputBytes the decoded input's length.
   */
  static void assertLinearAllocation(final long allocated, final int inputBytes) {
    assertThat(allocated).as("bytes allocated decoding %d input bytes", inputBytes)
        .isLessThan(ALLOCATION_SLACK_BYTES + MAX_ALLOCATED_PER_INPUT_BYTE * inputBytes);
  }

  @Provide
  Arbitrary<RelocationFrame> frames() {
    return WireArbitraries.frame();
  }

  @Property(tries = 500)
  void everyFrameRoundTripsByteForByte(@ForAll("frames") final RelocationFrame frame) {
    final byte[] bytes = RelocationCodec.encode(frame);
    final RelocationFrame decoded = RelocationCodec.decode(bytes);
    assertThat(decoded).isEqualTo(frame);
    assertThat(RelocationCodec.encode(decoded)).isEqualTo(bytes);
    assertThat(bytes[3] & 0xFF).isEqualTo(frame.command());
  }

  @Property(tries = 150)
  void everyStrictPrefixOfAFrameIsTruncated(@ForAll("frames") final RelocationFrame frame) {
    final byte[] bytes = RelocationCodec.encode(frame);
    for (int cut = 0; cut < bytes.length; cut++) {
      final byte[] prefix = java.util.Arrays.copyOf(bytes, cut);
      assertThatThrownBy(() -> RelocationCodec.decode(prefix)).as("cut at %d", cut)
          .isInstanceOfSatisfying(WireFormatException.class,
              e -> assertThat(e.error()).isEqualTo(WireError.TRUNCATED_FIELD));
    }
  }

  @Property(tries = 300)
  void aTrailingByteIsRefused(@ForAll("frames") final RelocationFrame frame, @ForAll final byte extra) {
    final byte[] bytes = RelocationCodec.encode(frame);
    final byte[] longer = java.util.Arrays.copyOf(bytes, bytes.length + 1);
    longer[bytes.length] = extra;
    assertThatThrownBy(() -> RelocationCodec.decode(longer)).isInstanceOfSatisfying(WireFormatException.class,
        e -> assertThat(e.error()).isEqualTo(WireError.TRAILING_BYTE));
  }

  @Property(tries = 2000)
  void mutatedFramesGiveOnlyTheTypedErrorOrACanonicalFrame(@ForAll("frames") final RelocationFrame frame,
      @ForAll final int kind, @ForAll final int where, @ForAll final byte value) {
    decodeOnlyTypedOrCanonical(WireArbitraries.mutate(RelocationCodec.encode(frame), kind, where, value));
  }

  @Property(tries = 2000)
  void randomBytesAfterAValidHeadGiveOnlyTheTypedError(@ForAll @Size(max = 400) final byte[] body,
      @ForAll("commands") final int command) {
    final byte[] frame = new byte[body.length + 5];
    frame[0] = 0x5A;
    frame[1] = 0x4D;
    frame[2] = 1;
    frame[3] = (byte) command;
    for (int i = 0; i < body.length; i++) {
      frame[5 + i] = body[i];
    }
    decodeOnlyTypedOrCanonical(frame);
  }

  @Property(tries = 1000)
  void randomBytesGiveOnlyTheTypedError(@ForAll @Size(max = 200) final byte[] frame) {
    decodeOnlyTypedOrCanonical(frame);
  }

  @Provide
  Arbitrary<Integer> commands() {
    return net.jqwik.api.Arbitraries.of(30, 31, 34, 40, 52, 53, 20, 0, 255);
  }

  static void decodeOnlyTypedOrCanonical(final byte[] frame) {
    final long before = allocatedBytes();
    RelocationFrame decoded = null;
    WireFormatException refused = null;
    try {
      decoded = RelocationCodec.decode(frame);
    } catch (WireFormatException e) {
      refused = e;
    } catch (RuntimeException other) {
      fail("decoder threw " + other + " for " + HexFormat.of().formatHex(frame));
    }
    assertLinearAllocation(allocatedBytes() - before, frame.length);
    if (refused != null) {
      assertThat(refused.error()).isNotNull();
      assertThat(refused.offset()).isBetween(0L, (long) frame.length);
    } else {
      assertThat(HexFormat.of().formatHex(RelocationCodec.encode(decoded)))
          .as("a frame that decodes is canonical").isEqualTo(HexFormat.of().formatHex(frame));
    }
  }

  @Test
  void headErrorsAreTyped() {
    final byte[] good = RelocationCodec.encode(new RelocationFrame.Ready(GoldenVectorsTest.IDENTITY,
        GoldenVectorsTest.TARGET, GoldenVectorsTest.SPOT, Role.TARGET));
    final byte[] magic = good.clone();
    magic[0] = 0x5B;
    final byte[] version = good.clone();
    version[2] = 2;
    final byte[] command = good.clone();
    command[3] = 20;
    final byte[] undefined = good.clone();
    undefined[4] = 0x10;
    final byte[] forbidden = good.clone();
    forbidden[4] = 0x01;
    assertThatThrownBy(() -> RelocationCodec.decode(magic)).hasMessage(
        "relocationReady: bad-magic magic at offset 0: 5b4d, expected 5a4d");
    assertThatThrownBy(() -> RelocationCodec.decode(version)).hasMessage(
        "relocationReady: unsupported-version wireMajor at offset 2: value 2, expected 1");
    assertThatThrownBy(() -> RelocationCodec.decode(command)).hasMessage(
        "frame: unexpected-command commandId at offset 3: value 20, expected 30, 31, 34, 40, 52 or 53");
    assertThatThrownBy(() -> RelocationCodec.decode(undefined)).hasMessage(
        "relocationReady: undefined-flag flags at offset 4: 0x10, expected bits of 0x0f");
    assertThatThrownBy(() -> RelocationCodec.decode(forbidden)).hasMessage(
        "relocationReady: forbidden-flag flags at offset 4: 0x01, expected 0x00 (relocation commands allow no flags)");
  }

  @Test
  void unionLengthThatDisagreesWithItsFieldsIsInvalid() {
    final byte[] good = RelocationCodec.encode(new RelocationFrame.Ready(GoldenVectorsTest.IDENTITY,
        GoldenVectorsTest.TARGET, GoldenVectorsTest.SPOT, Role.TARGET));
    final String hex = HexFormat.of().formatHex(good);
    final byte[] longer = HexFormat.of().parseHex(hex.replace("0200170673706f742d31", "02001b0673706f742d31"));
    assertThatThrownBy(() -> RelocationCodec.decode(longer)).isInstanceOfSatisfying(WireFormatException.class,
        e -> {
          assertThat(e.error()).isEqualTo(WireError.INVALID_FIELD);
          assertThat(e.field()).isEqualTo("object.length");
        });
  }

  @Test
  void callerMisuseIsAnIllegalArgumentNotAWireError() {
    assertThatThrownBy(() -> new RelocationIdentity(new RelocationId(0, 1), 0, GoldenVectorsTest.IDENTITY
        .coordinatorFence())).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("targetAttemptGeneration 0 must be in 1..9223372036854775807");
    assertThatThrownBy(() -> new RelocationId(0, 0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new ObjectIdentity.Actor("x".repeat(256), 1, 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("id is 256 UTF-8 bytes; must be 1..255");
  }
}
