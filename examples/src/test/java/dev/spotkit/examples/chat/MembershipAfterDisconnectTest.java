package dev.spotkit.examples.chat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.spotkit.core.MeshNode;
import dev.spotkit.core.NodeRid;
import dev.spotkit.core.ObjectKind;
import dev.spotkit.core.ObjectLocation;
import dev.spotkit.core.LocationPage;
import dev.spotkit.core.internal.runtime.NodeRuntime;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Membership matches reality after every client is gone, whichever way it went (issue "Nothing stuck, nothing
 * stale"): on three nodes, clients on every node in rooms on every node disconnect cleanly, abruptly (a TCP
 * reset), or with their session node killed; afterwards every room that still has a live node closed, {@code
 * /rooms} lists none of them, and the Location Store holds no Player and no room rows but those of the killed
 * node (whose objects died with it and keep naming it until crash recovery).
 */
class MembershipAfterDisconnectTest {

  private static final int ROOMS = 6;
  private static final int PER_NODE_AND_ROOM = 2;

  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void cleanAndAbruptDisconnectsOnEveryNodeLeaveNoMemberAndCloseEveryRoom() throws Exception {
    try (ChatServer server = ChatServer.start("127.0.0.1", 0, 3, MembershipAfterDisconnectTest::shortLease)) {
      final List<Joined> clients = joinEverywhere(server);
      for (int i = 0; i < clients.size(); i++) {
        if (i % 2 == 0) {
          clients.get(i).client().close();
        } else {
          clients.get(i).client().reset();
        }
      }
      try (BadInputTest.LineClient watcher = new BadInputTest.LineClient(server.ports().get(1))) {
        awaitNoRooms(watcher);
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
          for (int r = 0; r < ROOMS; r++) {
            assertThat(owners(server, "r" + r)).as("room r" + r + " is closed on every node").isEmpty();
          }
          assertThat(rows(server.node(), ObjectKind.SPOT, "room")).as("room rows").isEmpty();
          assertThat(rows(server.node(), ObjectKind.ACTOR, Player.TYPE)).as("player rows: the watcher's only")
              .hasSize(1);
        });
      }
    }
  }

  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void aKilledSessionNodesMembersLeaveTheRoomsOfTheLiveNodesWhichThenClose() throws Exception {
    try (ChatServer server = ChatServer.start("127.0.0.1", 0, 3, MembershipAfterDisconnectTest::shortLease)) {
      final List<Joined> clients = joinEverywhere(server);
      final MeshNode victim = server.nodes().get(2); // node 0 holds the room directory
      final NodeRid dead = victim.nodeRid();
      runtime(victim).halt(); // as kill -9: nothing said on the way out, its lease lapses after the TTL
      for (Joined joined : clients) { // the clients of the live nodes go too; the killed node's ones are cut off
        if (joined.port() != server.ports().get(2)) {
          joined.client().close();
        }
      }
      try (BadInputTest.LineClient watcher = new BadInputTest.LineClient(server.ports().get(0))) {
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
          for (int r = 0; r < ROOMS; r++) {
            assertThat(owners(server, "r" + r)).as("room r" + r + " is closed, or was on the killed node")
                .isSubsetOf(dead);
          }
          assertThat(rows(server.node(), ObjectKind.SPOT, "room")).as("room rows of live nodes")
              .allMatch(row -> row.owner().equals(dead));
          assertThat(rows(server.node(), ObjectKind.ACTOR, Player.TYPE)).as("player rows: the watcher's and"
              + " the killed node's").filteredOn(row -> !row.owner().equals(dead)).hasSize(1);
        });
        awaitNoRooms(watcher);
      }
      for (Joined joined : clients) {
        joined.client().close(); // closing a socket the killed node already dropped is a no-op
      }
    }
  }

  /** A lease that lapses in 4 s, so a killed node's sessions count as lost soon. */
  private static void shortLease(final MeshNode.Builder builder) {
    builder.ownerLease(Duration.ofMillis(500), Duration.ofSeconds(4), Duration.ofMillis(1500),
        Duration.ofMillis(1500));
  }

  /**
   * {@link #PER_NODE_AND_ROOM} clients per node per room, each joined ({@code ok join}) and having said one line
   * its room echoed back (so it is a member with a line in the room).
   */
  private static List<Joined> joinEverywhere(final ChatServer server) throws IOException {
    final List<Joined> clients = new ArrayList<>();
    for (int node = 0; node < 3; node++) {
      for (int r = 0; r < ROOMS; r++) {
        for (int k = 0; k < PER_NODE_AND_ROOM; k++) {
          final int port = server.ports().get(node);
          final Joined joined = new Joined(new BadInputTest.LineClient(port), port, "n" + node + "r" + r + "k" + k);
          clients.add(joined);
          joined.client().enter(joined.nick(), "r" + r);
        }
      }
    }
    for (Joined joined : clients) {
      joined.client().send("hello");
    }
    for (Joined joined : clients) { // bounded: each reads until its own echo (10 s socket timeout per line)
      String line;
      do {
        line = joined.client().readLine();
        assertThat(line).as("a room line before the echo").isNotNull();
      } while (!line.endsWith(": hello") || !line.contains(joined.nick()));
    }
    return clients;
  }

  private static void awaitNoRooms(final BadInputTest.LineClient watcher) {
    await().atMost(Duration.ofSeconds(30)).until(() -> {
      watcher.send("/rooms");
      return "rooms: none".equals(watcher.readLine());
    });
  }

  private static List<NodeRid> owners(final ChatServer server, final String name) {
    return server.nodes().stream().filter(node -> !node.isClosed())
        .flatMap(node -> node.spots().find(Room.ID_PREFIX + name).stream())
        .map(dev.spotkit.core.SpotRef::nodeRid).distinct().toList();
  }

  /** Every Location Store row of {@code kind} and {@code stableType}, all pages. */
  private static List<ObjectLocation> rows(final MeshNode node, final ObjectKind kind, final String stableType) {
    final List<ObjectLocation> all = new ArrayList<>();
    String next = null;
    for (int page = 0; page < 100; page++) {
      final LocationPage found = node.locations().list(kind, stableType, 100, next);
      all.addAll(found.entries());
      next = found.continuation().orElse(null);
      if (next == null) {
        break;
      }
    }
    return all;
  }

  private static NodeRuntime runtime(final MeshNode node) throws ReflectiveOperationException {
    final java.lang.reflect.Field field = MeshNode.class.getDeclaredField("rt");
    field.setAccessible(true);
    return (NodeRuntime) field.get(node);
  }

  /** A joined client, the node port it connected to and its nick. */
  private record Joined(BadInputTest.LineClient client, int port, String nick) {
  }
}
