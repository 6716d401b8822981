package dev.spotkit.core;

import static dev.spotkit.core.SessionLines.readUntil;
import static dev.spotkit.core.SessionLines.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A room moved by {@link MeshNode#relocateSpot} with a member bound to a client session (spec 000 section 7 step 6,
 * section 4.2 step 8): the socket stays on its node, the binding is sealed before the capture and switched to the
 * target by command 44 after the CAS and the queue opening; the client's lines keep their order across the move.
 */
class SpotAggregateSessionTest {
  static final String ROOM = "room-s";

  /** A handled line: its text and the node that ran the handler. */
  record Handled(String line, NodeRid node) {
  }

  final List<Handled> handled = new CopyOnWriteArrayList<>();
  final AtomicInteger joins = new AtomicInteger();
  TestMesh mesh;
  private volatile boolean nextSessions;
  private volatile boolean nextPlayers;

  final class Player implements Actor {
    private final ActorContext ctx;

    Player(final ActorContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public void configure(final ActorHandlers on) {
      on.message(String.class, line -> {
        if (line.startsWith("join ")) {
          ctx.joinSpot(line.substring("join ".length())).timeout(Duration.ofSeconds(10)).defer();
          return;
        }
        handled.add(new Handled(line, ctx.self().nodeRid()));
        ctx.session().orElseThrow().push("echo " + line);
      });
    }

    @Override
    public void onJoinCompleted(final JoinResult result) {
      joins.incrementAndGet();
      ctx.session().ifPresent(s -> s.push(result instanceof JoinResult.Accepted ? "joined" : "join " + result));
    }
  }

  final class Room implements UserSpot<Player> {
    private final UserSpotContext ctx;

    Room(final UserSpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public UserSpotContext context() {
      return ctx;
    }
  }

  private MeshNode node(final boolean sessions) {
    return node(sessions, true);
  }

  private void register(final ObjectServerBuilder s, final boolean players) {
    s.entrySpot(TestNodes.PlainEntry::new)
        .userSpot("room", Room::new, o -> o.spotWide().recreateOnRelocation());
    if (players) {
      s.actor("player", Player::new, a -> a.recreateOnRelocation());
    }
  }

  /** The next node of the mesh: with a session listener when {@code sessions}, the player type when {@code players}. */
  private MeshNode node(final boolean sessions, final boolean players) {
    nextSessions = sessions;
    nextPlayers = players;
    if (mesh == null) {
      mesh = TestMesh.builder().meshName("game").objectServer(s -> register(s, true))
          .customize((b, i) -> {
            b.objectServer(s -> register(s, nextPlayers));
            if (nextSessions) {
              b.sessions(s -> s.listen(0).codec(LineCodec.utf8()).bindTo("player"));
            }
          })
          .start(1);
      return mesh.node(0);
    }
    return mesh.addNode();
  }

  @AfterEach
  void close() {
    if (mesh != null) {
      mesh.close();
    }
  }

  @Test
  void aMoveThatFailsBeforeRelayReadyReleasesTheSessionSealAndTheRoomKeepsServingHere() throws Exception {
    final MeshNode a = node(true);
    a.spots().getOrCreate(ROOM, "room").await();
    final MeshNode b = node(false, false); // no player type there: Restore fails before relay-ready
    final InetSocketAddress address = a.sessionAddress().orElseThrow();
    try (Socket socket = new Socket(address.getHostString(), address.getPort())) {
      socket.setSoTimeout(20_000);
      final OutputStream out = socket.getOutputStream();
      final BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
          StandardCharsets.UTF_8));
      write(out, "join " + ROOM);
      assertThat(readUntil(in, "joined")).containsExactly("joined");
      final CompletableFuture<SpotRelocationResult> moved = a.relocateSpot(new SpotId(ROOM), b.nodeRid());
      for (int i = 0; i < 100; i++) {
        write(out, Integer.toString(i)); // during the attempt: held at the Session owner, then back here
      }
      assertThat(moved).failsWithin(20, TimeUnit.SECONDS).withThrowableThat().havingCause()
          .isInstanceOf(SpotkitException.NotConfigured.class);
      write(out, "100");
      assertThat(readUntil(in, "echo 100")).containsExactlyElementsOf(IntStream.rangeClosed(0, 100)
          .mapToObj(i -> "echo " + i).toList());
    }
    assertThat(handled).extracting(Handled::node).containsOnly(a.nodeRid());
  }

  @Test
  @Spec("MEM-36")
  @Spec("MEM-39")
  void aSessionBoundMemberMovesWithItsRoomWhileItsClientKeepsSending() throws Exception {
    final MeshNode a = node(true);
    a.spots().getOrCreate(ROOM, "room").await();
    for (int i = 0; i < 20; i++) { // members without a session move with it too
      a.actors().getOrCreate("p" + i, "player").await();
      a.toActor("p" + i).send("join " + ROOM);
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> joins.get() == 20);
    final MeshNode b = node(false);
    final InetSocketAddress address = a.sessionAddress().orElseThrow();
    try (Socket socket = new Socket(address.getHostString(), address.getPort())) {
      socket.setSoTimeout(20_000);
      final OutputStream out = socket.getOutputStream();
      final BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
          StandardCharsets.UTF_8));
      write(out, "join " + ROOM);
      assertThat(readUntil(in, "joined")).containsExactly("joined");
      write(out, "0");
      assertThat(readUntil(in, "echo 0")).containsExactly("echo 0");
      final CompletableFuture<SpotRelocationResult> moved = a.relocateSpot(new SpotId(ROOM), b.nodeRid());
      for (int i = 1; i < 200; i++) {
        write(out, Integer.toString(i)); // during and after the move
      }
      final SpotRelocationResult result = moved.get(20, TimeUnit.SECONDS);
      assertThat(result.members()).isEqualTo(21);
      write(out, "200");
      assertThat(readUntil(in, "echo 200")).containsExactlyElementsOf(IntStream.rangeClosed(1, 200)
          .mapToObj(i -> "echo " + i).toList());
    }
    assertThat(handled).extracting(Handled::line)
        .containsExactlyElementsOf(IntStream.rangeClosed(0, 200).mapToObj(Integer::toString).toList());
    assertThat(handled.get(0).node()).isEqualTo(a.nodeRid());
    assertThat(handled.get(200).node()).isEqualTo(b.nodeRid());
  }
  @Test
  @Spec("MEM-36")
  void aSessionBoundMemberMovesWithItsRoomTwiceAndBackWhileItsClientKeepsSending() throws Exception {
    final MeshNode a = node(true);
    a.spots().getOrCreate(ROOM, "room").await();
    final MeshNode b = node(false);
    final MeshNode c = node(false);
    final InetSocketAddress address = a.sessionAddress().orElseThrow();
    try (Socket socket = new Socket(address.getHostString(), address.getPort())) {
      socket.setSoTimeout(20_000);
      final OutputStream out = socket.getOutputStream();
      final BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
          StandardCharsets.UTF_8));
      write(out, "join " + ROOM);
      assertThat(readUntil(in, "joined")).containsExactly("joined");
      int next = 0;
      final List<NodeRid> route = List.of(b.nodeRid(), c.nodeRid(), a.nodeRid(), c.nodeRid());
      MeshNode from = a;
      for (NodeRid to : route) { // A to B to C to A to C: each move seals the binding the one before switched
        final CompletableFuture<SpotRelocationResult> moved = from.relocateSpot(new SpotId(ROOM), to);
        for (int i = 0; i < 50; i++) {
          write(out, Integer.toString(next++)); // during and after the move
        }
        assertThat(moved).as("move to %s", to).succeedsWithin(20, TimeUnit.SECONDS)
            .extracting(SpotRelocationResult::members).isEqualTo(1);
        from = mesh.nodes().stream().filter(n -> n.nodeRid().equals(to)).findFirst().orElseThrow();
      }
      write(out, Integer.toString(next));
      assertThat(readUntil(in, "echo " + next)).containsExactlyElementsOf(IntStream.rangeClosed(0, next)
          .mapToObj(i -> "echo " + i).toList());
    }
    assertThat(handled.get(handled.size() - 1).node()).isEqualTo(c.nodeRid());
  }
  /**
   * The aggregate seal points the member's row at the room's aggregate, so the member's AuthorityOwnerGeneration
   * becomes the room's while its Session owner's binding keeps the one it had; a move reversed before relay-ready
   * leaves them apart. The next seal, of a room move or of the member's own move, must still name the binding's.
   */
  @Test
  @Spec("LOC-25")
  void afterARoomMoveReversedBeforeRelayReadyTheRoomAndThenItsMemberAloneMoveWithTheSession() throws Exception {
    final MeshNode a = node(true);
    a.spots().getOrCreate(ROOM, "room").await();
    final MeshNode noPlayers = node(false, false); // Restore fails there before relay-ready
    final MeshNode b = node(false);
    final MeshNode c = node(false);
    final InetSocketAddress address = a.sessionAddress().orElseThrow();
    try (Socket socket = new Socket(address.getHostString(), address.getPort())) {
      socket.setSoTimeout(20_000);
      final OutputStream out = socket.getOutputStream();
      final BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
          StandardCharsets.UTF_8));
      write(out, "join " + ROOM); // the player is created after the room: their generations differ
      assertThat(readUntil(in, "joined")).containsExactly("joined");
      assertThat(a.relocateSpot(new SpotId(ROOM), noPlayers.nodeRid())).failsWithin(20, TimeUnit.SECONDS);
      int next = 0;
      for (int i = 0; i < 20; i++) {
        write(out, Integer.toString(next++));
      }
      assertThat(a.relocateSpot(new SpotId(ROOM), b.nodeRid())).succeedsWithin(20, TimeUnit.SECONDS)
          .extracting(SpotRelocationResult::members).isEqualTo(1);
      assertThat(b.relocateSpot(new SpotId(ROOM), noPlayers.nodeRid())).failsWithin(20, TimeUnit.SECONDS);
      final String roomC = Placed.spotOn(c, "room-c");
      write(out, "join " + roomC); // the member alone: a cross-node join from B to C seals the same binding
      assertThat(readUntil(in, "joined")).containsExactlyElementsOf(java.util.stream.Stream.concat(IntStream
          .range(0, next).mapToObj(i -> "echo " + i), java.util.stream.Stream.of("joined")).toList());
      write(out, Integer.toString(next));
      assertThat(readUntil(in, "echo " + next)).containsExactly("echo " + next);
    }
    assertThat(handled).extracting(Handled::line).containsExactlyElementsOf(IntStream.rangeClosed(0, 20)
        .mapToObj(Integer::toString).toList());
    assertThat(handled.get(handled.size() - 1).node()).isEqualTo(c.nodeRid());
  }
  @Test
  @Spec("LOC-25")
  void afterARoomMoveReversedBeforeRelayReadyItsMemberJoinsARoomOfAnotherNodeWithItsSession() throws Exception {
    final MeshNode a = node(true);
    a.spots().getOrCreate(ROOM, "room").await();
    final MeshNode noPlayers = node(false, false);
    final MeshNode c = node(false);
    final String roomC = Placed.spotOn(c, "room-c");
    final InetSocketAddress address = a.sessionAddress().orElseThrow();
    try (Socket socket = new Socket(address.getHostString(), address.getPort())) {
      socket.setSoTimeout(20_000);
      final OutputStream out = socket.getOutputStream();
      final BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
          StandardCharsets.UTF_8));
      write(out, "join " + ROOM);
      assertThat(readUntil(in, "joined")).containsExactly("joined");
      assertThat(a.relocateSpot(new SpotId(ROOM), noPlayers.nodeRid())).failsWithin(20, TimeUnit.SECONDS);
      write(out, "join " + roomC); // the member alone moves: its seal names the route the binding kept
      for (int i = 0; i < 50; i++) {
        write(out, Integer.toString(i)); // held at the Session owner while sealed, then sent to C
      }
      assertThat(readUntil(in, "echo 49")).containsExactlyElementsOf(java.util.stream.Stream.concat(
          java.util.stream.Stream.of("joined"), IntStream.range(0, 50).mapToObj(i -> "echo " + i)).toList());
    }
    assertThat(handled).extracting(Handled::node).containsOnly(c.nodeRid());
  }
}
