package dev.spotkit.relocation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spotkit.relocation.wire.ApplicationPayload;
import dev.spotkit.relocation.wire.FrozenRecord;
import dev.spotkit.relocation.wire.OperationId;
import dev.spotkit.relocation.wire.RecordBody;
import dev.spotkit.relocation.wire.RecordSource;
import dev.spotkit.relocation.wire.RelocationCodec;
import dev.spotkit.relocation.wire.RelocationFrame;
import dev.spotkit.relocation.wire.Rid;
import dev.spotkit.relocation.wire.Role;
import dev.spotkit.relocation.wire.TargetSpot;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

class RelayChecksumTest {
  @Test
  void crc32cCheckValue() {
    assertThat(RelayChecksum.ofBytes("123456789".getBytes(StandardCharsets.US_ASCII))).isEqualTo(0xE3069283L);
    assertThat(RelayChecksum.of(List.of())).isZero();
  }

  private static FrozenRecord record(final long op) {
    return new FrozenRecord(new RecordSource.Node(Rid.ofUtf8("n"), 1, "request-source", 6), null,
        new OperationId(0, op), 3, 99, new RecordBody.SpotRequest(new TargetSpot("room", 1, Rid.ofUtf8("m"), 2, 7, 1),
            new ApplicationPayload("ChatRequest", "application/json", new byte[] {(byte) op})));
  }

  @Test
  @Spec("REL-11")
  void theCutoverChecksumIsOverTheCommand31RecordBytesInRelayOrderAndMatchesCommand34() {
    final List<FrozenRecord> records = List.of(record(1), record(2), record(3));
    final CRC32C expected = new CRC32C();
    final List<Message> relay = new ArrayList<>();
    for (final FrozenRecord r : records) {
      final byte[] frame = RelocationCodec.encode(new RelocationFrame.Data(Fixtures.ID, Role.SOURCE,
          Fixtures.OBJECT_ID, r));
      final byte[] tail = Arrays.copyOfRange(frame, frame.length - r.encode().length, frame.length);
      assertThat(tail).isEqualTo(r.encode()); // The record's encoding ends the command 31 body.
      expected.update(tail);
      relay.add(Message.request(r.operationId().low(), r.replyRouteId(), 1_000, tail));
    }
    assertThat(RelayChecksum.ofRecords(records)).isEqualTo(expected.getValue()).isEqualTo(RelayChecksum.of(relay));
    assertThat(RelayChecksum.ofRecords(List.of(record(2), record(1))))
        .isNotEqualTo(RelayChecksum.ofRecords(List.of(record(1), record(2))));

    // The source's cutover carries what command 34 carries, and the target accepts exactly that.
    final SourceUnit source = new SourceUnit(Fixtures.ID, Fixtures.OBJECT, 1, Fixtures.SETTINGS,
        InFlightBudget.peerDefault(), false, 0);
    source.handle(new SourceEvent.StartRequested());
    source.handle(new SourceEvent.PayloadCaptured(new byte[] {1}));
    relay.forEach(m -> source.handle(new SourceEvent.MessageArrived(m)));
    final Frame.Cutover cutover = Fixtures.frames(source.handle(new SourceEvent.RelayReadyArrived(Fixtures.ID)))
        .stream().filter(Frame.Cutover.class::isInstance).map(Frame.Cutover.class::cast).findFirst().orElseThrow();
    final byte[] wire = RelocationCodec.encode(new RelocationFrame.Cutover(Fixtures.ID, Role.SOURCE,
        Fixtures.OBJECT_ID, cutover.recordCount(), cutover.crc32c()));
    final RelocationFrame.Cutover decoded = (RelocationFrame.Cutover) RelocationCodec.decode(wire);
    assertThat(decoded.boundaryRecordCount()).isEqualTo(3);
    assertThat(decoded.boundaryChecksumCrc32c()).isEqualTo(expected.getValue());
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
