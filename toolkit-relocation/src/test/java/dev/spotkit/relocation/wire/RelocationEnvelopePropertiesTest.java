package dev.spotkit.relocation.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import dev.spotkit.relocation.wire.EnvelopeEntries.ApplicationState;
import dev.spotkit.relocation.wire.EnvelopeEntries.PendingTimerTick;
import dev.spotkit.relocation.wire.EnvelopeEntries.SavedWork;
import dev.spotkit.relocation.wire.EnvelopeEntries.TimerRegistration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/** relocation-envelope-v1: round trips, and refusal of truncated, reordered, duplicated, oversized input. */
class RelocationEnvelopePropertiesTest {

  @Provide
  Arbitrary<RelocationEnvelope> envelopes() {
    return WireArbitraries.envelope();
  }

  @Property(tries = 400)
  void everyEnvelopeRoundTripsByteForByte(@ForAll("envelopes") final RelocationEnvelope envelope) {
    final byte[] bytes = RelocationEnvelopeCodec.encode(envelope);
    final RelocationEnvelope decoded = RelocationEnvelopeCodec.decode(bytes, 6, bytes.length);
    assertThat(decoded).isEqualTo(envelope);
    assertThat(RelocationEnvelopeCodec.encode(decoded)).isEqualTo(bytes);
  }

  /**
   * A state given as two parts ({@link ApplicationState#ofParts}: a runtime's framing, then the adapter's bytes)
   * encodes byte for byte like the joined state, and {@link RelocationEnvelopeCodec#encodeChecksummed} gives the
   * same stream with its CRC-32C computed in the same pass.
   */
  @Property(tries = 300)
  void aStateInTwoPartsEncodesLikeTheJoinedState(@ForAll("envelopes") final RelocationEnvelope envelope,
      @ForAll final byte[] head, @ForAll final byte[] body, @ForAll final boolean bigBody) {
    final byte[] rest = bigBody ? new java.util.Random(body.length).ints(200_000, 0, 256).collect(
        java.io.ByteArrayOutputStream::new, (o, b) -> o.write(b), (a, b) -> a.writeBytes(b.toByteArray()))
        .toByteArray() : body;
    final byte[] joined = new byte[head.length + rest.length];
    System.arraycopy(head, 0, joined, 0, head.length);
    System.arraycopy(rest, 0, joined, head.length, rest.length);
    final ApplicationState parts = ApplicationState.ofParts(1, head.clone(), rest.clone());
    final ApplicationState whole = new ApplicationState(1, joined);
    assertThat(parts).isEqualTo(whole).hasSameHashCodeAs(whole);
    assertThat(parts.state()).isEqualTo(joined);
    assertThat(parts.stateLength()).isEqualTo(joined.length);
    final RelocationEnvelope withParts = new RelocationEnvelope(envelope.relocation(), envelope.object(),
        envelope.applicationVersion(), List.of(parts), envelope.savedWork(), envelope.timerRegistrations(),
        envelope.pendingTimerTicks());
    final RelocationEnvelope withWhole = new RelocationEnvelope(envelope.relocation(), envelope.object(),
        envelope.applicationVersion(), List.of(whole), envelope.savedWork(), envelope.timerRegistrations(),
        envelope.pendingTimerTicks());
    final byte[] expected = RelocationEnvelopeCodec.encode(withWhole);
    assertThat(RelocationEnvelopeCodec.encode(withParts)).isEqualTo(expected);
    final EncodedStream checksummed = RelocationEnvelopeCodec.encodeChecksummed(withParts);
    assertThat(checksummed.bytes()).isEqualTo(expected);
    assertThat(checksummed.crc32c()).isEqualTo(ChunkPlan.crc32c(expected));
    assertThat(RelocationEnvelopeCodec.decode(expected, 6, expected.length).applicationStates())
        .containsExactly(whole);
  }

  @Property(tries = 100)
  void everyStrictPrefixIsTruncated(@ForAll("envelopes") final RelocationEnvelope envelope) {
    final byte[] bytes = RelocationEnvelopeCodec.encode(envelope);
    for (int cut = 0; cut < bytes.length; cut++) {
      final byte[] prefix = Arrays.copyOf(bytes, cut);
      assertThatThrownBy(() -> RelocationEnvelopeCodec.decode(prefix)).as("cut at %d", cut)
          .isInstanceOfSatisfying(WireFormatException.class,
              e -> assertThat(e.error()).isEqualTo(WireError.TRUNCATED_FIELD));
    }
  }

  @Property(tries = 200)
  void trailingAndOversizedInputIsRefused(@ForAll("envelopes") final RelocationEnvelope envelope) {
    final byte[] bytes = RelocationEnvelopeCodec.encode(envelope);
    final byte[] longer = Arrays.copyOf(bytes, bytes.length + 1);
    assertThatThrownBy(() -> RelocationEnvelopeCodec.decode(longer)).isInstanceOfSatisfying(
        WireFormatException.class, e -> assertThat(e.error()).isEqualTo(WireError.TRAILING_BYTE));
    assertThatThrownBy(() -> RelocationEnvelopeCodec.decode(bytes, 6, bytes.length - 1)).isInstanceOfSatisfying(
        WireFormatException.class, e -> assertThat(e.error()).isEqualTo(WireError.OVERSIZED));
  }

  @Property(tries = 2000)
  void mutatedStreamsGiveOnlyTheTypedErrorOrACanonicalStream(
      @ForAll("envelopes") final RelocationEnvelope envelope, @ForAll final int kind, @ForAll final int where,
      @ForAll final byte value) {
    final byte[] stream = WireArbitraries.mutate(RelocationEnvelopeCodec.encode(envelope), kind, where, value);
    final long before = RelocationCodecPropertiesTest.allocatedBytes();
    RelocationEnvelope decoded = null;
    WireFormatException refused = null;
    try {
      decoded = RelocationEnvelopeCodec.decode(stream);
    } catch (WireFormatException e) {
      refused = e;
    } catch (RuntimeException other) {
      fail("decoder threw " + other + " for " + HexFormat.of().formatHex(stream));
    }
    RelocationCodecPropertiesTest.assertLinearAllocation(RelocationCodecPropertiesTest.allocatedBytes() - before,
        stream.length);
    if (refused != null) {
      assertThat(refused.offset()).isBetween(0L, (long) stream.length);
    } else {
      assertThat(HexFormat.of().formatHex(RelocationEnvelopeCodec.encode(decoded)))
          .isEqualTo(HexFormat.of().formatHex(stream));
    }
  }

  /** Offset of the applicationStates count: relocation 16 bytes, object, applicationVersion 8 bytes. */
  private static int statesAt(final ObjectIdentity object) {
    final WireOut out = new WireOut(64);
    ObjectIdentityCodec.writeTo(object, out);
    return 16 + out.position() + 8;
  }

  private static RelocationEnvelope withStates(final List<ApplicationState> states) {
    return new RelocationEnvelope(new RelocationId(0, 9), GoldenVectorsTest.SPOT, 1, states, List.of(), List.of(),
        List.of());
  }

  @Property(tries = 200)
  void swappedOrRepeatedParticipantsAreRefused(@ForAll("envelopes") final RelocationEnvelope any) {
    final ApplicationState first = new ApplicationState(2, new byte[] {1, 2});
    final ApplicationState second = new ApplicationState(5, null);
    final byte[] bytes = RelocationEnvelopeCodec.encode(withStates(List.of(first, second)));
    final int a = statesAt(GoldenVectorsTest.SPOT) + 4;
    final int firstLength = 8 + 1 + 8 + 8 + 2;
    final int secondLength = 8 + 1 + 8;
    final byte[] swapped = bytes.clone();
    for (int i = 0; i < secondLength; i++) {
      swapped[a + i] = bytes[a + firstLength + i];
    }
    for (int i = 0; i < firstLength; i++) {
      swapped[a + secondLength + i] = bytes[a + i];
    }
    final byte[] repeated = bytes.clone();
    repeated[a + firstLength + 7] = 2;
    assertThatThrownBy(() -> RelocationEnvelopeCodec.decode(swapped)).isInstanceOfSatisfying(
        WireFormatException.class, e -> {
          assertThat(e.error()).isEqualTo(WireError.NOT_SORTED);
          assertThat(e.field()).isEqualTo("applicationStates[1]");
          assertThat(e.offset()).isEqualTo(a + secondLength);
        });
    assertThatThrownBy(() -> RelocationEnvelopeCodec.decode(repeated)).isInstanceOfSatisfying(
        WireFormatException.class, e -> assertThat(e.error()).isEqualTo(WireError.DUPLICATE_ENTRY));
    assertThat(RelocationEnvelopeCodec.decode(RelocationEnvelopeCodec.encode(any))).isEqualTo(any);
  }

  private static byte[] replaceLast(final byte[] in, final String from, final String to) {
    final String hex = HexFormat.of().formatHex(in);
    final int at = hex.lastIndexOf(from);
    assertThat(at).isNotNegative();
    return HexFormat.of().parseHex(hex.substring(0, at) + to + hex.substring(at + from.length()));
  }

  @Test
  void reorderedOrDuplicatedSavedWorkTimersAndTicksAreRefused() {
    final FrozenRecord r = GoldenVectorsTest.chatRequest();
    final RelocationEnvelope envelope = new RelocationEnvelope(new RelocationId(0, 9), GoldenVectorsTest.SPOT, 1,
        List.of(), List.of(new SavedWork(1, 0x0a0a, r), new SavedWork(1, 0x0b0b, r)),
        List.of(new TimerRegistration(3, "tb", "H", 1, 1, 1, false, 1, 1, 1),
            new TimerRegistration(3, "tc", "H", 1, 1, 1, false, 1, 1, 1)),
        List.of(new PendingTimerTick(3, 0x0c0c, "t", 1, 1, 1, 1), new PendingTimerTick(3, 0x0d0d, "t", 1, 1, 1, 1)));
    final byte[] bytes = RelocationEnvelopeCodec.encode(envelope);
    assertThat(RelocationEnvelopeCodec.decode(bytes)).isEqualTo(envelope);

    expect(replaceLast(bytes, "0b0b06", "0a0a06"), WireError.DUPLICATE_ENTRY, "savedWork[1]");
    expect(replaceLast(bytes, "0b0b06", "090906"), WireError.NOT_SORTED, "savedWork[1]");
    expect(replaceLast(bytes, "027463", "027462"), WireError.DUPLICATE_ENTRY, "timerRegistrations[1]");
    expect(replaceLast(bytes, "027463", "027461"), WireError.NOT_SORTED, "timerRegistrations[1]");
    expect(replaceLast(bytes, "0d0d0174", "0c0c0174"), WireError.DUPLICATE_ENTRY, "pendingTimerTicks[1]");
    expect(replaceLast(bytes, "0d0d0174", "01010174"), WireError.NOT_SORTED, "pendingTimerTicks[1]");
  }

  private static void expect(final byte[] stream, final WireError error, final String field) {
    assertThatThrownBy(() -> RelocationEnvelopeCodec.decode(stream)).isInstanceOfSatisfying(
        WireFormatException.class, e -> {
          assertThat(e.error()).isEqualTo(error);
          assertThat(e.field()).isEqualTo(field);
        });
  }

  @Test
  void participantsBeyondTheInventoryAndBadStateUnionsAreInvalid() {
    final byte[] golden = HexFormat.of().parseHex(Golden.load("relocation-envelope-v1.json").get("logicalHex")
        .asText());
    assertThatThrownBy(() -> RelocationEnvelopeCodec.decode(golden, 2, 1 << 20)).isInstanceOfSatisfying(
        WireFormatException.class, e -> {
          assertThat(e.error()).isEqualTo(WireError.INVALID_FIELD);
          assertThat(e.field()).isEqualTo("applicationStates[2].participantId");
        });
    final byte[] badUnion = replaceLast(golden, "0000000000000003000000000000000000", "0000000000000003000000000000000001");
    expect(badUnion, WireError.INVALID_FIELD, "applicationStates[2].applicationState.length");
    final int countAt = statesAt(new ObjectIdentity.UserSpot("room", 1, 7));
    final byte[] forgedCount = Arrays.copyOf(golden, countAt + 4);
    for (int i = 0; i < 4; i++) {
      forgedCount[countAt + i] = (byte) 0xFF;
    }
    expect(forgedCount, WireError.TRUNCATED_FIELD, "applicationStates[0].participantId");
  }

  @Test
  void theConstructorRefusesUnsortedVectors() {
    assertThatThrownBy(() -> withStates(List.of(new ApplicationState(2, null), new ApplicationState(1, null))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("applicationStates[1] is ordered before entry 0; participant vectors must be sorted and unique"
            + " (spec 001 section 4.2)");
  }
}
