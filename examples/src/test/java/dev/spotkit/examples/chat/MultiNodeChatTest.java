package dev.spotkit.examples.chat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.spotkit.core.MeshNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Three nodes in one process: clients on different nodes share a room that lives on one of them (their players
 * move to its node, {@code /where}), see each other's lines in each sender's order, and the room closes once its
 * last member is gone.
 */
class MultiNodeChatTest {

  static final int LINES = 100;

  @Test
  void twoClientsOnDifferentNodesChatInOneRoomAndSeeEachOthersLinesInOrder() throws Exception {
    try (ChatServer server = ChatServer.start("127.0.0.1", 0, 3);
        BadInputTest.LineClient ann = new BadInputTest.LineClient(server.ports().get(0));
        BadInputTest.LineClient bob = new BadInputTest.LineClient(server.ports().get(1));
        BadInputTest.LineClient eve = new BadInputTest.LineClient(server.ports().get(2))) {
      ann.send("/nick ann");
      assertThat(ann.readLine()).isEqualTo("ok nick ann");
      bob.send("/nick bob");
      assertThat(bob.readLine()).isEqualTo("ok nick bob");
      bob.send("/join r"); // r is placed on any of the three nodes
      assertThat(bob.readLine()).isEqualTo("ok join r");
      ann.send("/join r");
      assertThat(ann.readLine()).isEqualTo("ok join r");
      assertThat(owners(server, "r")).as("the room lives on exactly one node").hasSize(1);
      final String roomNode = owners(server, "r").get(0).hex();
      for (BadInputTest.LineClient client : List.of(ann, bob)) { // both players moved to the room's node
        client.send("/where");
        assertThat(client.readLine()).isEqualTo("where r node=" + roomNode);
      }

      for (int i = 0; i < LINES; i++) { // interleaved: both senders' lines are in flight at once
        ann.send("a" + i);
        bob.send("b" + i);
      }
      for (BadInputTest.LineClient client : List.of(ann, bob)) {
        final List<String> fromAnn = new ArrayList<>();
        final List<String> fromBob = new ArrayList<>();
        while (fromAnn.size() + fromBob.size() < 2 * LINES) {
          final String line = client.readLine();
          assertThat(line).isNotNull().startsWith("[r] ");
          (line.startsWith("[r] ann: ") ? fromAnn : fromBob).add(ChatProtocol.roomText(line));
        }
        assertThat(fromAnn).containsExactlyElementsOf(numbered("a"));
        assertThat(fromBob).containsExactlyElementsOf(numbered("b"));
      }

      bob.send("/who");
      assertThat(bob.readLine()).isEqualTo("who r: bob ann");
      await().atMost(Duration.ofSeconds(5)).until(() -> { // the directory may be a moment behind another node
        eve.send("/rooms");
        return "rooms: r(2)".equals(eve.readLine());
      });

      bob.send("/leave");
      assertThat(bob.readLine()).isEqualTo("ok leave r");
      ann.send("still here");
      assertThat(ann.readLine()).isEqualTo("[r] ann: still here");
      ann.close(); // the last member disconnects: the room closes, wherever it lives
      await().atMost(Duration.ofSeconds(10)).until(() -> owners(server, "r").isEmpty());
      await().atMost(Duration.ofSeconds(5)).until(() -> {
        eve.send("/rooms");
        return "rooms: none".equals(eve.readLine());
      });
    }
  }

  @Test
  void aPlayerMovesToItsRoomsNodeWithItsStateAndLinesSentBehindTheJoinFollowInOrder() throws Exception {
    try (ChatServer server = ChatServer.start("127.0.0.1", 0, 3);
        BadInputTest.LineClient eve = new BadInputTest.LineClient(server.ports().get(2))) {
      eve.send("/nick eve");
      assertThat(eve.readLine()).isEqualTo("ok nick eve");
      eve.send("/join m");
      assertThat(eve.readLine()).isEqualTo("ok join m");
      final String roomNode = owners(server, "m").get(0).hex();
      int other = 0; // a node the room does not live on: ann's join must move her
      while (server.nodes().get(other).nodeRid().hex().equals(roomNode)) {
        other++;
      }
      try (BadInputTest.LineClient ann = new BadInputTest.LineClient(server.ports().get(other))) {
        ann.send("/nick ann"); // all five at once: the last three arrive while the join (the move) runs
        ann.send("/join m");
        ann.send("/where");
        ann.send("/who"); // answered by the room, like the echo of hello: in this order
        ann.send("hello");
        assertThat(ann.readLine()).isEqualTo("ok nick ann");
        assertThat(ann.readLine()).isEqualTo("ok join m");
        assertThat(ann.readLine()).isEqualTo("where m node=" + roomNode);
        assertThat(ann.readLine()).isEqualTo("who m: eve ann");
        assertThat(ann.readLine()).isEqualTo("[m] ann: hello"); // the nick moved with her
        assertThat(eve.readLine()).isEqualTo("[m] ann: hello");
      }
      await().atMost(Duration.ofSeconds(10)).until(() -> { // her disconnect reached the room: she left
        eve.send("/who");
        return "who m: eve".equals(eve.readLine());
      });
    }
  }

  /**
   * Fails on the current core: round 2 recreates room x on node 0 while node 2 still caches the route of the
   * round-0 incarnation (same node, older generation, RouteCacheMaxAge 15 s). Node 2 then refuses every send by
   * the new ref with StaleGeneration ("ref of spot 'room-x' has generation 11 but the live incarnation has
   * generation 6") instead of reading the store again, so bob's line never reaches the room. Enable once the
   * route cache re-reads on a newer wanted generation.
   */
  @Test
  void aRoomCanBeJoinedAgainFromAnotherNodeAfterItClosed() throws Exception {
    try (ChatServer server = ChatServer.start("127.0.0.1", 0, 3);
        BadInputTest.LineClient ann = new BadInputTest.LineClient(server.ports().get(0));
        BadInputTest.LineClient bob = new BadInputTest.LineClient(server.ports().get(2))) {
      for (int i = 0; i < 20; i++) {
        final BadInputTest.LineClient first = i % 2 == 0 ? ann : bob;
        final BadInputTest.LineClient second = i % 2 == 0 ? bob : ann;
        first.send("/join x");
        assertThat(first.readLine()).isEqualTo("ok join x");
        second.send("/join x");
        assertThat(second.readLine()).isEqualTo("ok join x");
        second.send("hi " + i);
        assertThat(second.readLine()).endsWith(": hi " + i);
        assertThat(first.readLine()).endsWith(": hi " + i);
        first.send("/leave");
        assertThat(first.readLine()).isEqualTo("ok leave x");
        second.send("/leave");
        assertThat(second.readLine()).isEqualTo("ok leave x"); // x closes; the next round creates it again
      }
      await().atMost(Duration.ofSeconds(10)).until(() -> owners(server, "x").isEmpty());
    }
  }

  private static List<String> numbered(final String prefix) {
    final List<String> lines = new ArrayList<>();
    for (int i = 0; i < LINES; i++) {
      lines.add(prefix + i);
    }
    return lines;
  }

  /** The nodes on which room {@code name} is Ready. */
  /** The owner every node's Find reports for the room (one owner: one distinct NodeRid). */
  private static List<dev.spotkit.core.NodeRid> owners(final ChatServer server, final String name) {
    return server.nodes().stream().flatMap(node -> node.spots().find(Room.ID_PREFIX + name).stream())
        .map(dev.spotkit.core.SpotRef::nodeRid)
        .distinct().toList();
  }
}
