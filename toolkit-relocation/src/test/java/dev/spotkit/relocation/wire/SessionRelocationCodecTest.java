package dev.spotkit.relocation.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Commands 42, 43 and 44 against session-relocation-barrier-v1.json, byte for byte in both directions, and the
 * strict decoder's typed refusals (truncation, trailing bytes, bad enum values, wrong command, bad union length).
 */
class SessionRelocationCodecTest {

  static Stream<Arguments> canonical() {
    final List<Arguments> out = new ArrayList<>();
    for (JsonNode v : SessionGolden.fixture().get("canonical")) {
      out.add(Arguments.of(v.get("name").asText()));
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("canonical")
  void everyCanonicalVectorEncodesAndDecodesByteForByte(final String name) {
    final JsonNode vector = SessionGolden.vector(name);
    final SessionRelocationFrame expected = SessionGolden.frame(name);

    assertThat(Golden.hex(SessionRelocationCodec.encode(expected))).isEqualTo(vector.get("hex").asText());
    final SessionRelocationFrame decoded = SessionRelocationCodec.decode(Golden.hex(vector));
    assertThat(decoded).isEqualTo(expected);
    assertThat(decoded.command()).isEqualTo(vector.get("command").asInt());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("canonical")
  void theDecodedBlockOfEveryVectorMatchesTheDecodedFrame(final String name) {
    final JsonNode d = SessionGolden.vector(name).get("decoded");
    final SessionRelocationFrame frame = SessionRelocationCodec.decode(Golden.hex(SessionGolden.vector(name)));
    final ActorRoute route = switch (frame) {
      case SessionRelocationFrame.Seal s -> s.currentRoute();
      case SessionRelocationFrame.Sealed s -> s.currentRoute();
      case SessionRelocationFrame.Route r -> r.action() instanceof SessionRouteAction.Commit c ? c.target() : null;
    };
    if (d.has("senderRole")) {
      final Role role = frame instanceof SessionRelocationFrame.Seal s ? s.senderRole()
          : ((SessionRelocationFrame.Route) frame).senderRole();
      assertThat(role.name().toLowerCase()).isEqualTo(d.get("senderRole").asText());
    }
    if (d.has("targetNodeRid")) {
      assertThat(route.nodeRid()).isEqualTo(Rid.ofUtf8(d.get("targetNodeRid").asText()));
      assertThat(route.nodeGeneration()).isEqualTo(d.get("targetNodeGeneration").asLong());
    }
    if (d.has("authorityOwnerGeneration")) {
      assertThat(route.authorityOwnerGeneration()).isEqualTo(d.get("authorityOwnerGeneration").asLong());
      assertThat(route.ownerLeaseGeneration()).isEqualTo(d.get("ownerLeaseGeneration").asLong());
    }
    if (d.has("action")) {
      final SessionRouteAction action = ((SessionRelocationFrame.Route) frame).action();
      assertThat(action.wireValue()).isEqualTo(d.get("action").asText().equals("commit") ? 1 : 2);
      switch (action) {
        case SessionRouteAction.Commit c -> {
          assertThat(c.previousAuthorityOwnerGeneration())
              .isEqualTo(d.get("previousAuthorityOwnerGeneration").asLong());
          assertThat(c.target().authorityOwnerGeneration())
              .isEqualTo(d.get("targetAuthorityOwnerGeneration").asLong());
          assertThat(c.target().ownerLeaseGeneration()).isEqualTo(d.get("targetOwnerLeaseGeneration").asLong());
        }
        case SessionRouteAction.Abort a -> assertThat(a.currentAuthorityOwnerGeneration())
            .isEqualTo(d.get("currentAuthorityOwnerGeneration").asLong());
      }
    }
    assertThat(frame.binding()).isEqualTo(SessionGolden.binding());
  }

  @Test
  void theSealedVectorIsTheAnswerToTheSealVector() {
    final SessionRelocationFrame.Seal seal = (SessionRelocationFrame.Seal) SessionRelocationCodec.decode(
        Golden.hex(SessionGolden.vector("sessionRelocationSeal")));
    assertThat(Golden.hex(SessionRelocationCodec.encode(SessionRelocationFrame.Sealed.answering(seal))))
        .isEqualTo(SessionGolden.vector("sessionRelocationSealed").get("hex").asText());
  }

  @Test
  void theReceiverCaseMutationsChangeExactlyTheNamedField() {
    final JsonNode cases = SessionGolden.fixture().get("receiverCases");
    final SessionRelocationFrame.Seal seal = (SessionRelocationFrame.Seal) SessionGolden.frame(
        "sessionRelocationSeal", cases.get(1).get("retryMutation").asText());
    assertThat(seal.currentRoute().authorityOwnerGeneration()).isEqualTo(12);
    final SessionRelocationFrame.Route commit = (SessionRelocationFrame.Route) SessionGolden.frame(
        "sessionRelocationRouteCommit", cases.get(3).get("retryMutation").asText());
    assertThat(((SessionRouteAction.Commit) commit.action()).target().authorityOwnerGeneration()).isEqualTo(13);
    final SessionRelocationFrame abort = SessionGolden.frame("sessionRelocationRouteAbort",
        cases.get(5).get("routeMutation").asText());
    assertThat(abort.relocationId()).isEqualTo(new RelocationId(7, 10));
    for (SessionRelocationFrame f : List.of(seal, commit, abort)) {
      assertThat(SessionRelocationCodec.decode(SessionRelocationCodec.encode(f))).isEqualTo(f);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("canonical")
  void everyStrictPrefixIsATruncatedField(final String name) {
    final byte[] whole = Golden.hex(SessionGolden.vector(name));
    for (int n = 0; n < whole.length; n++) {
      final byte[] prefix = Arrays.copyOf(whole, n);
      assertThatThrownBy(() -> SessionRelocationCodec.decode(prefix)).as("prefix of %d bytes", n)
          .isInstanceOfSatisfying(WireFormatException.class,
              e -> assertThat(e.error()).isEqualTo(WireError.TRUNCATED_FIELD));
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("canonical")
  void aByteAfterTheLastFieldIsATrailingByte(final String name) {
    final byte[] whole = Golden.hex(SessionGolden.vector(name));
    final byte[] longer = Arrays.copyOf(whole, whole.length + 1);
    assertThatThrownBy(() -> SessionRelocationCodec.decode(longer))
        .isInstanceOfSatisfying(WireFormatException.class, e -> {
          assertThat(e.error()).isEqualTo(WireError.TRAILING_BYTE);
          assertThat(e.offset()).isEqualTo(whole.length);
        });
  }

  @Test
  void anotherCommandIsRefusedByEachCodec() {
    final byte[] seal = Golden.hex(SessionGolden.vector("sessionRelocationSeal"));
    for (int command : new int[] {30, 41, 45, 53}) {
      final byte[] other = seal.clone();
      other[3] = (byte) command;
      assertThatThrownBy(() -> SessionRelocationCodec.decode(other))
          .hasMessage("frame: unexpected-command commandId at offset 3: value " + command + ", expected 42, 43 or 44");
    }
    assertThatThrownBy(() -> RelocationCodec.decode(seal)).isInstanceOfSatisfying(WireFormatException.class,
        e -> assertThat(e.error()).isEqualTo(WireError.UNEXPECTED_COMMAND));
    final byte[] ready = Golden.hex(Golden.control("relocationReady"));
    assertThatThrownBy(() -> SessionRelocationCodec.decode(ready)).isInstanceOfSatisfying(
        WireFormatException.class, e -> assertThat(e.error()).isEqualTo(WireError.UNEXPECTED_COMMAND));
  }

  @Test
  void anUnknownSenderRoleOrActionIsAnInvalidField() {
    final byte[] seal = Golden.hex(SessionGolden.vector("sessionRelocationSeal"));
    seal[67] = 3;
    assertThatThrownBy(() -> SessionRelocationCodec.decode(seal))
        .hasMessage("sessionRelocationSeal: invalid-field senderRole at offset 67: value 3, expected 1 (source) or 2 "
            + "(target)");
    final byte[] commit = Golden.hex(SessionGolden.vector("sessionRelocationRouteCommit"));
    for (int bad : new int[] {0, 3, 255}) {
      commit[137] = (byte) bad;
      assertThatThrownBy(() -> SessionRelocationCodec.decode(commit))
          .hasMessage("sessionRelocationRoute: invalid-field action at offset 137: value " + bad
              + ", expected 1 (commit) or 2 (abort)");
    }
  }

  @Test
  void anActionLengthThatDiffersFromItsCaseIsAnInvalidField() {
    final byte[] abort = Golden.hex(SessionGolden.vector("sessionRelocationRouteAbort"));
    final byte[] longer = Arrays.copyOf(abort, abort.length + 1);
    longer[139] = 9;
    assertThatThrownBy(() -> SessionRelocationCodec.decode(longer))
        .hasMessage("sessionRelocationRoute: invalid-field action.length at offset 138: declares 9 bytes, fields hold 8");
    final byte[] commit = Golden.hex(SessionGolden.vector("sessionRelocationRouteCommit"));
    commit[139] = 38;
    assertThatThrownBy(() -> SessionRelocationCodec.decode(commit)).isInstanceOfSatisfying(
        WireFormatException.class, e -> {
          assertThat(e.error()).isEqualTo(WireError.INVALID_FIELD);
          assertThat(e.field()).isEqualTo("action.length");
        });
  }

  @Test
  void zeroGenerationsFlagsAndBadMagicAreRefused() {
    final byte[] abort = Golden.hex(SessionGolden.vector("sessionRelocationRouteAbort"));
    final byte[] zeroBinding = abort.clone();
    Arrays.fill(zeroBinding, 129, 137, (byte) 0);
    assertThatThrownBy(() -> SessionRelocationCodec.decode(zeroBinding))
        .hasMessage("sessionRelocationRoute: invalid-field bindingGeneration at offset 129: value 0, expected "
            + "1..9223372036854775807");
    final byte[] zeroAbort = abort.clone();
    zeroAbort[147] = 0;
    assertThatThrownBy(() -> SessionRelocationCodec.decode(zeroAbort)).isInstanceOfSatisfying(
        WireFormatException.class, e -> assertThat(e.field()).isEqualTo("abort.currentAuthorityOwnerGeneration"));
    final byte[] flagged = abort.clone();
    flagged[4] = 0x02;
    assertThatThrownBy(() -> SessionRelocationCodec.decode(flagged)).isInstanceOfSatisfying(
        WireFormatException.class, e -> assertThat(e.error()).isEqualTo(WireError.FORBIDDEN_FLAG));
    flagged[4] = 0x10;
    assertThatThrownBy(() -> SessionRelocationCodec.decode(flagged)).isInstanceOfSatisfying(
        WireFormatException.class, e -> assertThat(e.error()).isEqualTo(WireError.UNDEFINED_FLAG));
    final byte[] magic = abort.clone();
    magic[1] = 0x4E;
    assertThatThrownBy(() -> SessionRelocationCodec.decode(magic)).isInstanceOfSatisfying(
        WireFormatException.class, e -> assertThat(e.error()).isEqualTo(WireError.BAD_MAGIC));
  }

  @Property(tries = 300)
  void anyFrameRoundTripsAndAnyPrefixIsRefusedWithTheTypedError(@ForAll("frames") final SessionRelocationFrame frame) {
    final byte[] bytes = SessionRelocationCodec.encode(frame);
    assertThat(SessionRelocationCodec.decode(bytes)).isEqualTo(frame);
    final byte[] cut = Arrays.copyOf(bytes, bytes.length / 2);
    assertThatThrownBy(() -> SessionRelocationCodec.decode(cut)).isInstanceOf(WireFormatException.class);
  }

  @Provide
  Arbitrary<SessionRelocationFrame> frames() {
    final Arbitrary<RelocationId> id = Combinators.combine(WireArbitraries.anyLong(), WireArbitraries.positive())
        .as(RelocationId::new);
    final Arbitrary<CoordinatorFence> fence = Combinators.combine(WireArbitraries.text(),
        WireArbitraries.positive(), WireArbitraries.rid(), WireArbitraries.positive(), WireArbitraries.text())
        .as(CoordinatorFence::new);
    final Arbitrary<SessionOwner> owner = Combinators.combine(WireArbitraries.rid(), WireArbitraries.positive(),
        WireArbitraries.text(), WireArbitraries.positive()).as(SessionOwner::new);
    final Arbitrary<SessionBinding> binding = Combinators.combine(owner, WireArbitraries.rid(),
        WireArbitraries.positive(), WireArbitraries.text(), WireArbitraries.positive()).as(SessionBinding::new);
    final Arbitrary<ActorRoute> route = Combinators.combine(WireArbitraries.rid(), WireArbitraries.positive(),
        WireArbitraries.positive(), WireArbitraries.positive()).as(ActorRoute::new);
    final Arbitrary<Role> role = Arbitraries.of(Role.class);
    final Arbitrary<SessionRouteAction> action = Arbitraries.oneOf(
        Combinators.combine(WireArbitraries.positive(), route).as(SessionRouteAction.Commit::new),
        WireArbitraries.positive().map(SessionRouteAction.Abort::new));
    return Arbitraries.oneOf(
        Combinators.combine(id, fence, role, binding, route).as(SessionRelocationFrame.Seal::new),
        Combinators.combine(id, fence, binding, route).as(SessionRelocationFrame.Sealed::new),
        Combinators.combine(id, fence, role, binding, action).as(SessionRelocationFrame.Route::new));
  }
}
