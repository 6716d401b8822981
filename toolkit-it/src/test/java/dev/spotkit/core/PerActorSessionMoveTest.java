package dev.spotkit.core;

import static dev.spotkit.core.SessionLines.readUntil;
import static dev.spotkit.core.SessionLines.write;
import static org.assertj.core.api.Assertions.assertThat;

import dev.spotkit.core.session.LineCodec;
import dev.spotkit.testkit.TestMesh;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A PerActor User Spot moved with {@link MeshNode#relocateSpot} (spec 000 section 7: the shell, then each member as
 * its own unit) while one member is bound to a client session: the socket stays on its node, the member's binding is
 * switched to the target by its own move's command 44, and the client's lines keep their order.
 */
class PerActorSessionMoveTest {
  static final String ROOM = "proom-s";

  /** A handled line: its text and the node that ran the handler. */
  record Handled(String line, NodeRid node) {
  }

  static final List<Handled> HANDLED = new CopyOnWriteArrayList<>();
  static final AtomicInteger JOINS = new AtomicInteger();

  static final class Player implements Actor {
    private final ActorContext ctx;

    Player(final ActorContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public void configure(final ActorHandlers on) {
      on.message(String.class, line -> {
        if (line.startsWith("join ")) {
          ctx.joinSpot(line.substring("join ".length())).timeout(Duration.ofSeconds(15)).defer();
          return;
        }
        if (ctx.session().isPresent()) {
          HANDLED.add(new Handled(line, ctx.self().nodeRid()));
          ctx.session().orElseThrow().push("echo " + line);
        }
      });
    }

    @Override
    public void onJoinCompleted(final JoinResult result) {
      JOINS.incrementAndGet();
      ctx.session().ifPresent(s -> s.push(result instanceof JoinResult.Accepted ? "joined" : "join " + result));
    }
  }

  static final class Room implements UserSpot<Player> {
    private final UserSpotContext ctx;

    Room(final UserSpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public UserSpotContext context() {
      return ctx;
    }

    @Override
    public void configure(final SpotHandlers on) {
    }
  }

  private TestMesh mesh;

  @AfterEach
  void close() {
    HANDLED.clear();
    JOINS.set(0);
    if (mesh != null) {
      mesh.close();
    }
  }

  @Test
  @Spec("MEM-36")
  void aSessionBoundMemberOfAPerActorRoomMovesAsItsOwnUnitWhileItsClientKeepsSending() throws Exception {
    mesh = TestMesh.builder().meshName("game").objectServer(s -> s.entrySpot(TestNodes.PlainEntry::new)
        .userSpot("proom", Room::new, o -> o.perActor().recreateOnRelocation())
        .actor("player", Player::new, a -> a.recreateOnRelocation()))
        .customize((node, i) -> {
          if (i == 0) {
            node.sessions(s -> s.listen(0).codec(LineCodec.utf8()).bindTo("player"));
          }
        }).start(1);
    final MeshNode a = mesh.node(0);
    a.spots().getOrCreate(ROOM, "proom").await(); // on a: the only node yet
    for (int i = 0; i < 5; i++) { // members without a session move too, each as its own unit
      a.actors().getOrCreate("p" + i, "player").await();
      a.toActor("p" + i).send("join " + ROOM);
    }
    Awaitility.await().atMost(20, TimeUnit.SECONDS).until(() -> JOINS.get() == 5);
    final MeshNode b = mesh.addNode();
    final InetSocketAddress address = a.sessionAddress().orElseThrow();
    try (Socket socket = new Socket(address.getHostString(), address.getPort())) {
      socket.setSoTimeout(30_000);
      final OutputStream out = socket.getOutputStream();
      final BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
          StandardCharsets.UTF_8));
      write(out, "join " + ROOM);
      assertThat(readUntil(in, "joined")).containsExactly("joined");
      write(out, "0");
      assertThat(readUntil(in, "echo 0")).containsExactly("echo 0");
      final java.util.concurrent.CompletableFuture<SpotRelocationResult> moved =
          a.relocateSpot(new SpotId(ROOM), b.nodeRid());
      for (int i = 1; i < 200; i++) {
        write(out, Integer.toString(i)); // during and after the move
      }
      final SpotRelocationResult result = moved.get(30, TimeUnit.SECONDS);
      assertThat(result.keptMembers()).isEmpty();
      assertThat(result.members()).isEqualTo(6);
      write(out, "200");
      assertThat(readUntil(in, "echo 200")).containsExactlyElementsOf(IntStream.rangeClosed(1, 200)
          .mapToObj(i -> "echo " + i).toList());
    }
    assertThat(HANDLED).extracting(Handled::line)
        .containsExactlyElementsOf(IntStream.rangeClosed(0, 200).mapToObj(Integer::toString).toList());
    assertThat(HANDLED.get(0).node()).isEqualTo(a.nodeRid());
    assertThat(HANDLED.get(200).node()).isEqualTo(b.nodeRid());
  }
}
