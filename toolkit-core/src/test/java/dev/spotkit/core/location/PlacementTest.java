package dev.spotkit.core.location;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spotkit.core.SpotkitException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Choosing a target by weight among eligible peers (spec 002 sections 4 and 7). */
class PlacementTest {
  private static final int PICKS = 10_000;
  private final Placement placement = new Placement(new SplittableRandom(20_260_101L));
  private final Map<String, NodeCapacityRecord> room = new HashMap<>();

  private NodePeer peer(final String rid, final NodeState state, final int weight, final String... actorTypes) {
    room.put(rid, new NodeCapacityRecord(new NodeCapacityRecord.Slots(0, 0, 0), NodeCapacityRecord.Slots.NONE,
        List.of()));
    return new NodePeer(MeshFixture.MESH, rid, 1, "tcp://" + rid, state, weight, java.util.Arrays.stream(actorTypes)
        .map(t -> MeshFixture.actorType(t, 0)).toList(), "owner-" + rid, new LeaseGeneration(1), 1);
  }

  private NodePeer pick(final List<NodePeer> peers, final Set<NodePeer.HostRun> excluded) {
    return placement.pick(peers, room, PlacementKind.ACTOR, "player", excluded);
  }

  @Test
  void weightZeroIsNeverChosenAndWeightsSetTheShare() {
    final NodePeer light = peer("0a", NodeState.SERVING, 100, "player");
    final NodePeer heavy = peer("0b", NodeState.SERVING, 300, "player");
    final NodePeer zero = peer("0c", NodeState.SERVING, 0, "player");
    final Map<NodePeer, Integer> counts = new HashMap<>();
    for (int i = 0; i < PICKS; i++) {
      counts.merge(pick(List.of(zero, heavy, light), Set.of()), 1, Integer::sum);
    }
    assertThat(counts.getOrDefault(zero, 0)).isZero(); // must never: a weight-0 node chosen
    assertThat(counts.get(light) / (double) PICKS).isBetween(0.22, 0.28); // expected 0.25
    assertThat(counts.get(heavy) / (double) PICKS).isBetween(0.72, 0.78); // expected 0.75
  }

  @Test
  void skipsNotServingExcludedAndFullPeers() {
    final NodePeer draining = peer("0a", NodeState.DRAINING, 100, "player");
    final NodePeer excluded = peer("0b", NodeState.SERVING, 100, "player");
    final NodePeer full = peer("0c", NodeState.SERVING, 100, "player");
    final NodePeer ok = peer("0d", NodeState.SERVING, 1, "player");
    room.put("0c", new NodeCapacityRecord(new NodeCapacityRecord.Slots(2, 1, 3), NodeCapacityRecord.Slots.NONE,
        List.of()));
    for (int i = 0; i < 200; i++) {
      assertThat(pick(List.of(draining, excluded, full, ok), Set.of(excluded.hostRun()))).isEqualTo(ok);
    }
  }

  @Test
  void noCandidateSaysWhy() {
    final NodePeer other = peer("0a", NodeState.SERVING, 100, "npc");
    assertThatThrownBy(() -> pick(List.of(other), Set.of()))
        .isInstanceOf(SpotkitException.NotFound.class)
        .hasMessage("no candidate for actor type 'player': no Serving node registered the type (1 live, 1 Serving,"
            + " 0 registering it, 0 not excluded, 0 with weight > 0, 0 with a capacity record, 0 with room)");
    final NodePeer zero = peer("0b", NodeState.SERVING, 0, "player");
    assertThatThrownBy(() -> pick(List.of(other, zero), Set.of()))
        .isInstanceOf(SpotkitException.Unavailable.class)
        .hasMessageStartingWith("no candidate for actor type 'player': every registering node has placement"
            + " weight 0");
    final NodePeer full = peer("0c", NodeState.SERVING, 50, "player");
    room.put("0c", new NodeCapacityRecord(new NodeCapacityRecord.Slots(1, 0, 1), NodeCapacityRecord.Slots.NONE,
        List.of()));
    assertThatThrownBy(() -> pick(List.of(zero, full), Set.of()))
        .isInstanceOf(SpotkitException.CapacityExceeded.class)
        .hasMessageStartingWith("no candidate for actor type 'player': every registering node is full");
    assertThatThrownBy(() -> pick(List.of(full), Set.of(full.hostRun())))
        .isInstanceOf(SpotkitException.Unavailable.class)
        .hasMessageContaining("every registering node run refused a reservation of this call");
    assertThatThrownBy(() -> pick(List.of(peer("0e", NodeState.PREPARING, 100, "player")), Set.of()))
        .isInstanceOf(SpotkitException.Unavailable.class)
        .hasMessageContaining("no live node is Serving");
    room.remove("0c");
    assertThatThrownBy(() -> pick(List.of(full), Set.of()))
        .isInstanceOf(SpotkitException.Unavailable.class)
        .hasMessageContaining("no registering node published its node capacity record yet");
  }

  @Test
  void spotsNeedRoomInTheirTypeToo() {
    final NodePeer node = new NodePeer(MeshFixture.MESH, "0a", 1, "tcp://0a", NodeState.SERVING, 100,
        List.of(MeshFixture.spotType(PlacementKind.USER_SPOT, "room", 1)), "owner-0a", new LeaseGeneration(1), 1);
    room.put("0a", new NodeCapacityRecord(NodeCapacityRecord.Slots.NONE, NodeCapacityRecord.Slots.NONE,
        List.of(new NodeCapacityRecord.TypeSlots(PlacementKind.USER_SPOT, "room", new NodeCapacityRecord.Slots(0, 1,
            1)))));
    assertThatThrownBy(() -> placement.pick(List.of(node), room, PlacementKind.USER_SPOT, "room", Set.of()))
        .isInstanceOf(SpotkitException.CapacityExceeded.class);
    assertThatThrownBy(() -> placement.pick(List.of(node), room, PlacementKind.INSTANCE_SPOT, "room", Set.of()))
        .isInstanceOf(SpotkitException.NotFound.class);
  }
}
