package dev.spotkit.examples.chat;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spotkit.core.CreateDecision;
import dev.spotkit.core.MeshNode;
import dev.spotkit.core.SpotRef;
import dev.spotkit.core.UserSpot;
import dev.spotkit.core.UserSpotContext;
import dev.spotkit.core.session.LineCodec;
import dev.spotkit.testkit.TestMesh;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A {@link Player} whose join finds its room closed or closing (the room went away after the player's
 * GetOrCreate returned it) creates the room again and retries once: the client sees {@code ok join}, not an
 * error line.
 */
class JoinRetryTest {

  final AtomicBoolean closeTheFirstRoom = new AtomicBoolean(true);
  final List<CompletableFuture<Boolean>> closes = new CopyOnWriteArrayList<>();
  final List<SpotRef> created = new CopyOnWriteArrayList<>();
  TestMesh mesh;

  /**
   * Stands in for {@link Room} under the stable type "room". The first one asks for its own close while it is
   * being created: the close is queued on its lane before the player can JoinSpot it.
   */
  final class VanishingRoom implements UserSpot<Player> {
    private final UserSpotContext ctx;

    VanishingRoom(final UserSpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public UserSpotContext context() {
      return ctx;
    }

    @Override
    public CreateDecision onCreate(final Object request) {
      created.add(ctx.self());
      if (closeTheFirstRoom.getAndSet(false)) {
        closes.add(ctx.spots().close(ctx.self()).toFuture());
      }
      return CreateDecision.approve();
    }
  }

  @AfterEach
  void close() {
    if (mesh != null) {
      mesh.close();
    }
  }

  @Test
  void aJoinThatFindsItsRoomGoneCreatesItAgainAndRetriesOnce() throws Exception {
    mesh = TestMesh.builder().meshName("retry")
        .objectServer(server -> server
            .entrySpot(Lobby::new)
            .actor(Player.TYPE, Player::new, actor -> actor.preserveStateWith(new Player.State()))
            .userSpot("room", VanishingRoom::new, spot -> spot.spotWide().disableRelocation()))
        .node(b -> b.sessions(sessions -> sessions.listen(0).codec(LineCodec.utf8()).bindTo("player")))
        .start(1);
    final MeshNode node = mesh.node(0);
    try (BadInputTest.LineClient client = new BadInputTest.LineClient(node.sessionAddress().orElseThrow()
        .getPort())) {
      client.send("/join x");
      assertThat(client.readLine()).isEqualTo("ok join x"); // without the retry: "error: could not join x: ..."
      assertThat(closes).hasSize(1);
      assertThat(closes.get(0).get(5, TimeUnit.SECONDS)).isTrue(); // the first room did close, empty
      assertThat(created).hasSize(2); // the player created the room a second time
      assertThat(node.spots().find(Room.ID_PREFIX + "x")).contains(created.get(1));
      client.send("/join x");
      assertThat(client.readLine()).isEqualTo("ok join x"); // a member already: no third room
      assertThat(created).hasSize(2);
    }
  }
}
