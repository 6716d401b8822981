package dev.spotkit.core;

import static dev.spotkit.core.Placed.spotOn;
import static dev.spotkit.core.SessionLines.readUntil;
import static dev.spotkit.core.SessionLines.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.spotkit.core.session.LineCodec;
import dev.spotkit.core.session.Session;
import dev.spotkit.testkit.TestMesh;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A session-bound actor relocates (issue 5): two in-process MeshNodes over loopback share one in-memory Location
 * Store; a real client socket stays connected to the node that accepted it while its actor moves to a room on the
 * other node and back. Frames reach the actor in order, once each; pushes come back in order; the disconnect
 * reaches the moved actor once.
 */
class SessionRelocationTest {

  record Ping() {}

  record Probe() {}

  /** A line handled: its text, the node that ran the handler and the actor's ObjectGeneration there. */
  record Handled(String line, NodeRid node, long generation) {}

  final List<Handled> handled = new CopyOnWriteArrayList<>();
  final List<String> joins = new CopyOnWriteArrayList<>();
  final List<String> disconnects = new CopyOnWriteArrayList<>();
  final List<ActorContext> contexts = new CopyOnWriteArrayList<>();
  /** The bytes each move captured from a Player and the bytes its restore was handed, in move order. */
  final List<byte[]> captured = new CopyOnWriteArrayList<>();
  final List<byte[]> restored = new CopyOnWriteArrayList<>();
  TestMesh mesh;
  private volatile boolean nextSessions;

  /**
   * Lines "join X" join spot X; "bad" pushes a value that cannot cross nodes (refused with InvalidOperation when
   * the session is on another node); any other line is recorded and echoed.
   */
  final class Player implements Actor {
    private final ActorContext ctx;

    /** Lines handled by this actor over its moves: travels as its state. */
    private int lines;

    Player(final ActorContext ctx) {
      this.ctx = ctx;
      contexts.add(ctx);
    }

    @Override
    public void configure(final ActorHandlers on) {
      on.message(String.class, line -> {
        if (line.startsWith("join ")) {
          ctx.joinSpot(line.substring("join ".length())).timeout(Duration.ofSeconds(10)).defer();
          return;
        }
        final Session session = ctx.session().orElseThrow();
        if (line.equals("bad")) {
          try {
            session.push(new Object());
            session.push("bad was pushed");
          } catch (SpotkitException.InvalidOperation e) {
            session.push("bad refused");
          }
          return;
        }
        lines++;
        handled.add(new Handled(line, ctx.self().nodeRid(), ctx.self().generation().value()));
        session.push("echo " + line);
      }).request(Probe.class, p -> ctx.session().isPresent());
    }

    @Override
    public void onJoinCompleted(final JoinResult result) {
      joins.add(result.getClass().getSimpleName() + (result instanceof JoinResult.Accepted a
          ? " " + a.spot().id().value() : ""));
      ctx.session().ifPresent(s -> s.push("joined " + joins.size()));
    }
  }

  /**
   * The Player's state: its line count as text, of varying length; notes what it captured and what restore got
   * (the adapter of a session-bound actor must be handed exactly its captured bytes, not the session framing).
   */
  final class PlayerState implements ActorRelocationAdapter<Player> {
    @Override
    public byte[] capture(final Player player) {
      final byte[] bytes = ("lines=" + player.lines).getBytes(StandardCharsets.UTF_8);
      captured.add(bytes.clone());
      return bytes;
    }

    @Override
    public void restore(final Player player, final byte[] state) {
      restored.add(state.clone());
      final String text = new String(state, StandardCharsets.UTF_8);
      player.lines = text.startsWith("lines=") ? Integer.parseInt(text.substring("lines=".length())) : -1_000_000;
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

    @Override
    public void configure(final SpotHandlers on) {
      on.request(Ping.class, p -> "pong");
    }

    @Override
    public JoinDecision onActorJoin(final ActorId actor, final Object request) {
      return JoinDecision.accept();
    }

    @Override
    public void onDisconnectActor(final ActorRef actor) {
      disconnects.add(ctx.self().id().value() + " on " + ctx.self().nodeRid());
    }
  }

  /** The next node of the mesh, with a session listener bound to "player" when {@code sessions}. */
  private MeshNode node(final boolean sessions) {
    nextSessions = sessions;
    if (mesh == null) {
      mesh = TestMesh.builder().meshName("game")
          .objectServer(s -> s.entrySpot(TestNodes.PlainEntry::new)
              .actor("player", Player::new, a -> a.preserveStateWith(new PlayerState()))
              .userSpot("room", Room::new, o -> o.recreateOnRelocation()))
          .customize((b, i) -> {
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
  @Spec("MEM-20")
  void aClientKeepsSendingWhileItsActorMovesToAnotherNodeAndBack() throws Exception {
    final MeshNode a = node(true);
    final MeshNode b = node(false);
    final String far = spotOn(b, "far");
    final String near = spotOn(a, "near");
    final InetSocketAddress address = a.sessionAddress().orElseThrow();
    try (Socket socket = new Socket(address.getHostString(), address.getPort())) {
      socket.setSoTimeout(20_000);
      final OutputStream out = socket.getOutputStream();
      final BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
          StandardCharsets.UTF_8));
      for (int i = 0; i < 300; i++) {
        write(out, Integer.toString(i)); // lines before, during and after both moves
        if (i == 80) {
          write(out, "join " + far);
        }
        if (i == 150) {
          write(out, "bad"); // on the far node by then: a push that cannot cross is refused there
        }
        if (i == 200) {
          write(out, "join " + near);
        }
      }
      final List<String> pushed = readUntil(in, "echo 299");
      final List<String> echoes = pushed.stream().filter(l -> l.startsWith("echo ")).toList();
      assertThat(echoes).containsExactlyElementsOf(IntStream.range(0, 300).mapToObj(i -> "echo " + i).toList());
      assertThat(pushed).contains("joined 1", "joined 2");
      assertThat(pushed.indexOf("bad refused")).isEqualTo(pushed.indexOf("echo 150") + 1);
      // The session's inbound count went back to 0: every frame was uncounted once handled here or sent away.
      final Session original = contexts.get(0).session().orElseThrow(); // the socket's own session, on node a
      await().atMost(Duration.ofSeconds(5)).until(() -> original.pendingFrames() == 0);
    }
    // Every line handled once, in order; some on each node (the actor really moved and came back).
    assertThat(handled).extracting(Handled::line)
        .containsExactlyElementsOf(IntStream.range(0, 300).mapToObj(Integer::toString).toList());
    assertThat(handled).extracting(Handled::node).contains(a.nodeRid(), b.nodeRid());
    assertThat(handled.get(120).node()).isEqualTo(b.nodeRid());
    assertThat(handled.get(299).node()).isEqualTo(a.nodeRid());
    assertThat(handled).extracting(Handled::generation).containsOnly(handled.get(0).generation()); // MEM-20
    assertThat(joins).containsExactly("Accepted " + far, "Accepted " + near);
    // both moves carried the state: restore got exactly the captured bytes (the framing of the session binding
    // before them, none of it in them)
    assertThat(captured).hasSize(2);
    assertThat(restored).hasSize(2);
    for (int i = 0; i < 2; i++) {
      assertThat(new String(restored.get(i), StandardCharsets.UTF_8)).as("move %d", i)
          .isEqualTo(new String(captured.get(i), StandardCharsets.UTF_8));
    }
  }

  @Test
  void aDisconnectAfterTheMoveRunsTheMovedActorsDisconnectOnce() throws Exception {
    final MeshNode a = node(true);
    final MeshNode b = node(false);
    final String far = spotOn(b, "far");
    final InetSocketAddress address = a.sessionAddress().orElseThrow();
    String actorId;
    try (Socket socket = new Socket(address.getHostString(), address.getPort())) {
      socket.setSoTimeout(20_000);
      final OutputStream out = socket.getOutputStream();
      final BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
          StandardCharsets.UTF_8));
      write(out, "join " + far);
      write(out, "x");
      assertThat(readUntil(in, "echo x")).containsExactly("joined 1", "echo x");
      actorId = contexts.get(contexts.size() - 1).self().id().value();
      assertThat(a.toActor(actorId).request(new Probe(), Boolean.class).await()).isTrue();
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> !disconnects.isEmpty());
    // Flush the room's lane and the actor's queue: a second disconnect would be queued before these answers.
    assertThat(b.toSpot(far).request(new Ping(), String.class).await()).isEqualTo("pong");
    assertThat(a.toActor(actorId).request(new Probe(), Boolean.class).await()).isFalse();
    assertThat(b.toSpot(far).request(new Ping(), String.class).await()).isEqualTo("pong");
    assertThat(disconnects).containsExactly(far + " on " + b.nodeRid());
    assertThat(handled).extracting(Handled::node).containsExactly(b.nodeRid());
  }

  @Test
  void aHostRelocationMovesASessionBoundActorWhileItsClientKeepsSending() throws Exception {
    final MeshNode a = node(true);
    final MeshNode b = node(false);
    final InetSocketAddress address = a.sessionAddress().orElseThrow();
    try (Socket socket = new Socket(address.getHostString(), address.getPort())) {
      socket.setSoTimeout(20_000);
      final OutputStream out = socket.getOutputStream();
      final BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
          StandardCharsets.UTF_8));
      write(out, "0");
      assertThat(readUntil(in, "echo 0")).containsExactly("echo 0");
      final java.util.concurrent.CompletableFuture<HostRelocationResult> moved = a.relocate(b.nodeRid());
      for (int i = 1; i < 200; i++) {
        write(out, Integer.toString(i)); // during and after the move
      }
      assertThat(moved.get(20, java.util.concurrent.TimeUnit.SECONDS).fullyRelocated()).isTrue();
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
  void aDisconnectWhileTheActorIsMovingRunsOnceOnTheSpotItEndsUpIn() throws Exception {
    final MeshNode a = node(true);
    final MeshNode b = node(false);
    final String far = spotOn(b, "far");
    final InetSocketAddress address = a.sessionAddress().orElseThrow();
    try (Socket socket = new Socket(address.getHostString(), address.getPort())) {
      final OutputStream out = socket.getOutputStream();
      write(out, "x");
      await().atMost(Duration.ofSeconds(5)).until(() -> handled.size() == 1);
      write(out, "join " + far);
      write(out, "y"); // then the client goes away at once, while the join runs
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> !disconnects.isEmpty());
    assertThat(b.toSpot(far).request(new Ping(), String.class).await()).isEqualTo("pong");
    assertThat(disconnects).containsExactly(far + " on " + b.nodeRid());
    assertThat(joins).containsExactly("Accepted " + far);
    assertThat(handled).extracting(Handled::line).containsExactly("x", "y");
    assertThat(handled.get(1).node()).isEqualTo(b.nodeRid());
  }
}
