package dev.spotkit.core.location;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/** Slot arithmetic against a plain model: any guarded sequence stays within the limit and round-trips. */
class NodeCapacityRecordPropertiesTest {

  @Property(tries = 300)
  void guardedSequencesNeverPassTheLimitAndMatchTheModel(@ForAll @IntRange(min = 0, max = 6) final int limit,
      @ForAll @Size(max = 60) final List<@IntRange(min = 0, max = 3) Integer> ops) {
    final AuthorityRecord.Capacity room = AuthorityRecord.Capacity.spot(PlacementKind.USER_SPOT, "room");
    NodeCapacityRecord usage = new NodeCapacityRecord(NodeCapacityRecord.Slots.NONE, NodeCapacityRecord.Slots.NONE,
        List.of(new NodeCapacityRecord.TypeSlots(PlacementKind.USER_SPOT, "room",
            new NodeCapacityRecord.Slots(0, 0, limit))));
    int active = 0;
    int reserved = 0;
    for (int op : ops) {
      if (op == 0 && usage.whyFull(room).isEmpty()) {
        usage = usage.reserve(room);
        reserved++;
      } else if (op == 1 && reserved > 0) {
        usage = usage.commit(room);
        reserved--;
        active++;
      } else if (op == 2 && reserved > 0) {
        usage = usage.release(room);
        reserved--;
      } else if (op == 3 && active > 0) {
        usage = usage.retire(room);
        active--;
      }
      final NodeCapacityRecord.Slots type = usage.spotType(PlacementKind.USER_SPOT, "room");
      assertThat(type).isEqualTo(new NodeCapacityRecord.Slots(active, reserved, limit));
      assertThat(usage.spots()).isEqualTo(new NodeCapacityRecord.Slots(active, reserved, 0));
      if (limit > 0) {
        assertThat(active + reserved).isLessThanOrEqualTo(limit); // must never: over the limit
      }
      assertThat(NodeCapacityRecord.decode(usage.encode())).isEqualTo(usage);
    }
  }
}
