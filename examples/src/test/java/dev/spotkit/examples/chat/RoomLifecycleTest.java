package dev.spotkit.examples.chat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Rooms and players end with their members and connections: no ghost members after a disconnect during a
 * join, no empty rooms left behind, and {@code /who} shows a nick as soon as it changes.
 */
class RoomLifecycleTest {

  @Test
  void aDisconnectRightAfterAJoinLeavesNoGhostMember() throws Exception {
    try (ChatServer server = ChatServer.start("127.0.0.1", 0);
        BadInputTest.LineClient watcher = new BadInputTest.LineClient(server.port())) {
      // The repro: join ra, then send /join rb and close at once, so the disconnect arrives while the join
      // to rb is still running. Twenty times, because the timing varies.
      for (int i = 0; i < 20; i++) {
        try (BadInputTest.LineClient client = new BadInputTest.LineClient(server.port())) {
          client.send("/nick a" + i);
          assertThat(client.readLine()).isEqualTo("ok nick a" + i);
          client.send("/join ra" + i);
          assertThat(client.readLine()).isEqualTo("ok join ra" + i);
          client.send("/join rb" + i);
        }
      }
      // Before: "rooms: rb0(1) rb3(1) ..." forever, the players joined rb after their disconnect was handled.
      await().atMost(Duration.ofSeconds(10)).until(() -> {
        watcher.send("/rooms");
        return "rooms: none".equals(watcher.readLine());
      });
      await().atMost(Duration.ofSeconds(5)).until(() -> IntStream.range(0, 20).allMatch(i ->
          server.node().spots().find(Room.ID_PREFIX + "ra" + i).isEmpty()
              && server.node().spots().find(Room.ID_PREFIX + "rb" + i).isEmpty()));
    }
  }

  @Test
  void theLastMemberLeavingClosesTheRoomAndItsNameCanBeUsedAgain() throws Exception {
    try (ChatServer server = ChatServer.start("127.0.0.1", 0);
        BadInputTest.LineClient client = new BadInputTest.LineClient(server.port())) {
      for (int i = 0; i < 300; i++) {
        client.send("/join leak" + i);
        assertThat(client.readLine()).isEqualTo("ok join leak" + i);
        client.send("/leave");
        assertThat(client.readLine()).isEqualTo("ok leave leak" + i);
      }
      await().atMost(Duration.ofSeconds(5)).until(() -> IntStream.range(0, 300).allMatch(i ->
          server.node().spots().find(Room.ID_PREFIX + "leak" + i).isEmpty()));
      client.send("/join leak7"); // a closed room's name makes a new room
      assertThat(client.readLine()).isEqualTo("ok join leak7");
      client.send("/who");
      final String nick = client.readLine().substring("who leak7: ".length()); // the guest nick
      client.send("hello again");
      assertThat(client.readLine()).isEqualTo("[leak7] " + nick + ": hello again");
      client.send("/rooms");
      assertThat(client.readLine()).isEqualTo("rooms: leak7(1)");
    }
  }

  @Test
  void aRoomWithMembersLeftStaysOpenAndSwitchingRoomsClosesTheEmptyOne() throws Exception {
    try (ChatServer server = ChatServer.start("127.0.0.1", 0);
        BadInputTest.LineClient ann = new BadInputTest.LineClient(server.port());
        BadInputTest.LineClient bob = new BadInputTest.LineClient(server.port())) {
      ann.send("/join x");
      assertThat(ann.readLine()).isEqualTo("ok join x");
      bob.send("/join x");
      assertThat(bob.readLine()).isEqualTo("ok join x");
      ann.send("/join y"); // x keeps bob
      assertThat(ann.readLine()).isEqualTo("ok join y");
      assertThat(server.node().spots().find(Room.ID_PREFIX + "x")).isPresent();
      bob.send("/join y"); // x is empty now
      assertThat(bob.readLine()).isEqualTo("ok join y");
      await().atMost(Duration.ofSeconds(5)).until(() -> server.node().spots().find(Room.ID_PREFIX + "x").isEmpty());
      assertThat(server.node().spots().find(Room.ID_PREFIX + "y")).isPresent();
    }
  }

  @Test
  void whoShowsANewNickBeforeItsOwnerSpeaks() throws Exception {
    try (ChatServer server = ChatServer.start("127.0.0.1", 0);
        BadInputTest.LineClient ann = new BadInputTest.LineClient(server.port());
        BadInputTest.LineClient eve = new BadInputTest.LineClient(server.port())) {
      ann.enter("ann", "r");
      eve.enter("eve", "r");
      eve.send("/nick eve2");
      assertThat(eve.readLine()).isEqualTo("ok nick eve2");
      eve.send("/who");
      assertThat(eve.readLine()).isEqualTo("who r: ann eve2"); // before: "who r: ann eve"
      ann.send("/who");
      assertThat(ann.readLine()).isEqualTo("who r: ann eve2");
    }
  }
}
