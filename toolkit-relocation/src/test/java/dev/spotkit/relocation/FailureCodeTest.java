package dev.spotkit.relocation;

import static dev.spotkit.relocation.Fixtures.ID;
import static dev.spotkit.relocation.Fixtures.OBJECT;
import static dev.spotkit.relocation.Fixtures.SETTINGS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.spotkit.relocation.wire.RelocationFrame;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class FailureCodeTest {
  @Test
  void everyNamedCodeRoundTripsThroughItsU32AndDataLossIs35() {
    assertThat(FailureCode.CHECKSUM_MISMATCH.wireCode()).isEqualTo(RelocationFrame.Failed.RELOCATION_DATA_LOST)
        .isEqualTo(35);
    for (final FailureCode c : FailureCode.values()) {
      assertThat(c.wireCode()).isBetween(1L, 0xFFFF_FFFFL);
      if (c != FailureCode.UNRECOGNIZED) {
        assertThat(FailureCode.fromWire(c.wireCode())).isEqualTo(c);
      }
    }
    assertThat(Arrays.stream(FailureCode.values()).mapToLong(FailureCode::wireCode).distinct().count())
        .isEqualTo(FailureCode.values().length);
  }

  @Test
  @Spec("REL-30")
  void anUnknownCodeIsAGenericExplicitFailureThatRestoresTheSource() {
    assertThat(List.of(FailureCode.fromWire(1), FailureCode.fromWire(34), FailureCode.fromWire(0xFFFF_FFFFL)))
        .containsOnly(FailureCode.UNRECOGNIZED);
    final SourceUnit unit = new SourceUnit(ID, OBJECT, 1, SETTINGS, InFlightBudget.peerDefault(), false, 0);
    unit.handle(new SourceEvent.StartRequested());
    unit.handle(new SourceEvent.PayloadCaptured(new byte[] {1, 2, 3}));
    final var failed = unit.handle(new SourceEvent.FailureArrived(ID, FailureCode.fromWire(999)));
    assertThat(failed).last().isInstanceOf(Action.ReopenDispatch.class);
    assertThat(unit.stage()).isEqualTo(Stage.SOURCE_RUNNING);
  }
}
