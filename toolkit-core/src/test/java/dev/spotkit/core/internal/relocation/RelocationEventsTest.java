package dev.spotkit.core.internal.relocation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spotkit.core.NodeEvent;
import dev.spotkit.core.NodeRid;
import dev.spotkit.relocation.Action;
import dev.spotkit.relocation.wire.RelocationId;
import org.junit.jupiter.api.Test;

/**
 * The spec's relocation warnings (spec 001 sections 4.4 and 4.5) become typed node events with the unit's detail;
 * other codes stay plain log lines; a RelocationId prints as 32 hex digits.
 */
class RelocationEventsTest {
  private static final NodeRid NODE = new NodeRid(0x77L);

  @Test
  void theSpecsWarningCodesMapToTypedEvents() {
    assertThat(RelocationEvents.typed(NODE, new Action.Log(Action.Level.WARNING, "cutover_timeout", "no cutover"),
        "alice")).isInstanceOfSatisfying(NodeEvent.CutoverTimeout.class, e -> {
          assertThat(e.objectId()).isEqualTo("alice");
          assertThat(e.detail()).isEqualTo("no cutover");
          assertThat(e.node()).isEqualTo(NODE);
          assertThat(e.code()).isEqualTo("cutover_timeout");
        });
    assertThat(RelocationEvents.typed(NODE, new Action.Log(Action.Level.WARNING, "late_cutover", "d"), "a"))
        .isInstanceOf(NodeEvent.LateCutover.class);
    assertThat(RelocationEvents.typed(NODE, new Action.Log(Action.Level.ERROR, "location_update_failed", "d"), "a"))
        .isInstanceOfSatisfying(NodeEvent.LocationUpdateFailed.class, e ->
            assertThat(e.code()).isEqualTo("location_update_failed"));
    assertThat(RelocationEvents.typed(NODE, new Action.Log(Action.Level.WARNING, "relocation_busy", "d"), "a"))
        .isNull();
  }

  @Test
  void aRelocationIdPrintsAs32HexDigits() {
    assertThat(RelocationEvents.hex(new RelocationId(0x1fL, -1L))).isEqualTo("000000000000001fffffffffffffffff");
  }
}
