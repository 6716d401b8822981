package dev.spotkit.core;

import static dev.spotkit.core.Placed.spotOn;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.spotkit.core.location.NodeDirectory;
import dev.spotkit.core.location.NodePeer;
import dev.spotkit.core.location.ObjectKey;
import dev.spotkit.core.mesh.MeshConfig;
import dev.spotkit.core.mesh.MeshListener;
import dev.spotkit.core.mesh.MeshTransport;
import dev.spotkit.core.mesh.PeerConnection;
import dev.spotkit.core.session.LineCodec;
import dev.spotkit.relocation.wire.ActorRoute;
import dev.spotkit.relocation.wire.CoordinatorFence;
import dev.spotkit.relocation.wire.RelocationId;
import dev.spotkit.relocation.wire.Rid;
import dev.spotkit.relocation.wire.Role;
import dev.spotkit.relocation.wire.SessionBinding;
import dev.spotkit.relocation.wire.SessionOwner;
import dev.spotkit.relocation.wire.SessionRelocationCodec;
import dev.spotkit.relocation.wire.SessionRelocationFrame;
import dev.spotkit.relocation.wire.SessionRouteAction;
import dev.spotkit.store.InMemoryLocationStore;
import dev.spotkit.store.StoreFaults;
import dev.spotkit.testkit.TestMesh;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Session owner's route switch at runtime (spec 000 section 4.2 step 8; spec 001 sections 7, 9 and 11;
 * FACTS.md "Sessions"): real MeshNodes on loopback sharing one in-memory Location Store, real client sockets on
 * the node that accepted them. The relocation seals the binding with command 42/43, the Session owner holds the
 * client's lines, and command 44 (commit from the target, abort from the source) switches or releases the route
 * in one serial step; no line is acknowledged on its own.
 */
class SessionRouteSwitchTest {

  record Probe() {}

  /** A line handled: its text, the node and the actor (id, ObjectGeneration) that ran the handler. */
  record Handled(String line, NodeRid node, String actor, long generation) {}

  final List<Handled> handled = new CopyOnWriteArrayList<>();
  final List<String> joins = new CopyOnWriteArrayList<>();
  final List<String> disconnects = new CopyOnWriteArrayList<>();
  final List<ActorContext> contexts = new CopyOnWriteArrayList<>();
  final InMemoryLocationStore store = new InMemoryLocationStore();
  TestMesh mesh;
  private volatile boolean nextSessions;
  /** Node rids whose Player factory fails (a Restore failure there: an explicit failure before relay-ready). */
  final List<NodeRid> refusing = new CopyOnWriteArrayList<>();
  /** When set, the Room's OnJoinedActor waits for it (up to 20 s): a target Spot slow to run its lifecycle. */
  volatile java.util.concurrent.CountDownLatch joinedGate;
  /** Everything slf4j-simple wrote to System.err during the test (it resolves System.err on each write). */
  final ByteArrayOutputStream err = new ByteArrayOutputStream();
  PrintStream originalErr;

  final class Player implements Actor {
    private final ActorContext ctx;

    Player(final ActorContext ctx) {
      if (refusing.contains(ctx.self().nodeRid())) {
        throw new IllegalStateException("this node refuses players (test)");
      }
      this.ctx = ctx;
      contexts.add(ctx);
    }

    @Override
    public void configure(final ActorHandlers on) {
      on.message(String.class, line -> {
        if (line.startsWith("join ")) {
          ctx.joinSpot(line.substring("join ".length())).timeout(Duration.ofSeconds(15)).defer();
          return;
        }
        handled.add(new Handled(line, ctx.self().nodeRid(), ctx.self().id().value(),
            ctx.self().generation().value()));
        ctx.session().orElseThrow().push("echo " + line);
      }).request(Probe.class, p -> ctx.self().nodeRid().hex());
    }

    @Override
    public void onJoinCompleted(final JoinResult result) {
      joins.add(result.getClass().getSimpleName());
      ctx.session().ifPresent(s -> s.push("joined " + result.getClass().getSimpleName()));
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
    public JoinDecision onActorJoin(final ActorId actor, final Object request) {
      return JoinDecision.accept();
    }

    @Override
    public void onJoinedActor(final ActorRef actor) {
      final java.util.concurrent.CountDownLatch gate = joinedGate;
      if (gate != null) {
        try {
          gate.await(20, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }

    @Override
    public void onDisconnectActor(final ActorRef actor) {
      disconnects.add(actor.id().value() + " on " + ctx.self().nodeRid());
    }
  }

  @BeforeEach
  void captureLog() {
    originalErr = System.err;
    final PrintStream tee = new PrintStream(new OutputStream() {
      @Override
      public void write(final int b) {
        synchronized (err) {
          err.write(b);
        }
        originalErr.write(b);
      }

      @Override
      public void write(final byte[] b, final int off, final int len) {
        synchronized (err) {
          err.write(b, off, len);
        }
        originalErr.write(b, off, len);
      }
    }, true, StandardCharsets.UTF_8);
    System.setErr(tee);
  }

  @AfterEach
  void close() {
    store.faults().clear();
    if (mesh != null) {
      mesh.close();
    }
    System.setErr(originalErr);
  }

  private String log() {
    synchronized (err) {
      return err.toString(StandardCharsets.UTF_8);
    }
  }

  /**
   * The next node of the mesh, with a session listener bound to "player" when {@code sessions}. Every node uses
   * {@link CrossNodeJoinTest#SECRET}, the secret of the hand-written peer of the REL-29 test.
   */
  private MeshNode node(final boolean sessions) {
    nextSessions = sessions;
    if (mesh == null) {
      mesh = TestMesh.builder().meshName("game").locationStore(store)
          .mesh((m, i) -> m.clusterSecret(CrossNodeJoinTest.SECRET))
          .objectServer(s -> s.entrySpot(TestNodes.PlainEntry::new)
              .actor("player", Player::new, a -> a.recreateOnRelocation())
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

  /** A client connected to {@code node}'s session listener. */
  private static final class Client implements AutoCloseable {
    final Socket socket;
    final OutputStream out;
    final BufferedReader in;

    Client(final MeshNode node) throws Exception {
      final InetSocketAddress address = node.sessionAddress().orElseThrow();
      socket = new Socket(address.getHostString(), address.getPort());
      socket.setSoTimeout(20_000);
      out = socket.getOutputStream();
      in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
    }

    void write(final String line) throws Exception {
      out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
      out.flush();
    }

    /** Pushed lines until {@code last} arrived, or the connection ended (null) (bounded by count and timeout). */
    List<String> readUntil(final String last) throws Exception {
      final List<String> lines = new ArrayList<>();
      for (int i = 0; i < 10_000; i++) {
        final String line;
        try {
          line = in.readLine();
        } catch (java.net.SocketTimeoutException e) {
          break;
        }
        if (line == null) {
          lines.add(null);
          break;
        }
        lines.add(line);
        if (line.equals(last)) {
          break;
        }
      }
      return lines;
    }

    @Override
    public void close() throws Exception {
      socket.close();
    }
  }

  private static List<String> echoes(final List<String> pushed, final int from, final int to) {
    return IntStream.range(from, to).mapToObj(i -> "echo " + i).toList();
  }

  @Test
  @Spec("REL-26")
  @Spec("MEM-39")
  void everyLineArrivesOnceInOrderWhileTheActorMovesAndOnlyThatBindingsRouteChanges() throws Exception {
    final MeshNode a = node(true);
    final MeshNode b = node(false);
    final String far = spotOn(b, "far");
    try (Client moving = new Client(a); Client staying = new Client(a)) {
      staying.write("s0");
      assertThat(staying.readUntil("echo s0")).containsExactly("echo s0");
      for (int i = 0; i < 400; i++) {
        moving.write(Integer.toString(i)); // before, during (held at the Session owner) and after the switch
        if (i == 100) {
          moving.write("join " + far);
        }
      }
      final List<String> pushed = moving.readUntil("echo 399");
      assertThat(pushed.stream().filter(l -> l != null && l.startsWith("echo ")).toList())
          .containsExactlyElementsOf(echoes(pushed, 0, 400));
      assertThat(pushed).contains("joined Accepted");
      // The other binding of the same Session owner kept its route: it still runs on node a.
      staying.write("s1");
      assertThat(staying.readUntil("echo s1")).containsExactly("echo s1");
    }
    final List<Handled> lines = handled.stream().filter(h -> !h.line().startsWith("s")).toList();
    assertThat(lines).extracting(Handled::line)
        .containsExactlyElementsOf(IntStream.range(0, 400).mapToObj(Integer::toString).toList());
    assertThat(lines.get(0).node()).isEqualTo(a.nodeRid());
    assertThat(lines.get(399).node()).isEqualTo(b.nodeRid()); // the route switched to the target
    // ActorId and ObjectGeneration are kept across the switch (MEM-39).
    assertThat(lines).extracting(Handled::actor).containsOnly(lines.get(0).actor());
    assertThat(lines).extracting(Handled::generation).containsOnly(lines.get(0).generation());
    assertThat(handled.stream().filter(h -> h.line().startsWith("s"))).extracting(Handled::node)
        .containsOnly(a.nodeRid());
    assertThat(log()).doesNotContain("late_session_route_update", "session_seal_timeout");
  }

  @Test
  @Spec("REL-28")
  @Spec("REL-29")
  void withoutARouteUpdateWithinTheSealTimeoutTheSessionClosesAndTheLateUpdateChangesNothing() throws Exception {
    final MeshNode a = node(true);
    final MeshNode b = node(false);
    final String far = spotOn(b, "far");
    String actor;
    final StoreFaults.Stall stall;
    final long joinWrittenAt;
    try (Client client = new Client(a)) {
      client.write("before");
      assertThat(client.readUntil("echo before")).containsExactly("echo before");
      actor = contexts.get(0).self().id().value();
      // Withhold the command 44: the target's CAS (the only thing it sends the commit after) is held by the store.
      final String key = ObjectKey.actor(actor).logicalKey().preimage();
      stall = store.faults().stallNext(1_000, call -> call.kind() == StoreFaults.Kind.WRITE && call.touches(key));
      joinWrittenAt = System.nanoTime();
      client.write("join " + far);
      assertThat(stall.awaitStalled(1, Duration.ofSeconds(10))).isTrue(); // sealed, moved, CAS held
      for (int i = 0; i < 5; i++) {
        client.write("held " + i); // held at the Session owner: dropped when the seal times out
      }
      final List<String> pushed = client.readUntil("never");
      final long closedAfterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - joinWrittenAt);
      assertThat(pushed).as("the Session owner closed the physical session").endsWith((String) null);
      assertThat(closedAfterMs).as("closed no earlier than SessionRelocationSealTimeout after the seal")
          .isGreaterThanOrEqualTo(2_900);
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> log().contains("session_seal_timeout"));
    store.faults().clear(); // later calls run normally
    stall.release(); // the held CAS applies now: the target opens and sends its commit, too late
    await().atMost(Duration.ofSeconds(15)).until(() -> log().contains("late_session_route_update"));
    assertThat(log()).containsPattern("late_session_route_update session=\\d+ actor=" + actor + " detail=");
    // The move itself committed (the session's timeout does not undo it) and the held lines never ran.
    await().atMost(Duration.ofSeconds(10)).until(() -> b.nodeRid().hex().equals(
        a.toActor(actor).request(new Probe(), String.class).timeout(Duration.ofSeconds(5)).await()));
    assertThat(handled).extracting(Handled::line).containsExactly("before");
    // The disconnect still reached the actor once, on the spot it ended up in.
    await().atMost(Duration.ofSeconds(10)).until(() -> !disconnects.isEmpty());
    assertThat(disconnects).containsExactly(actor + " on " + b.nodeRid());
  }

  @Test
  @Spec("REL-29")
  void aForeignRouteUpdateOnlyLogsAndChangesNothing() throws Exception {
    final MeshNode a = node(true);
    final List<NodeEvent> events = new java.util.concurrent.CopyOnWriteArrayList<>();
    a.events().addListener(events::add);
    final MeshNode b = node(false);
    final String far = spotOn(b, "far");
    try (Client client = new Client(a);
        MeshTransport fake = MeshTransport.start(MeshConfig.builder(new NodeRid(0x0fa4_e000_0000_0044L), 9,
            CrossNodeJoinTest.SECRET.getBytes(StandardCharsets.UTF_8)).build(), new MeshListener() {
              @Override
              public void onFrame(final PeerConnection from, final byte[] frame) {
              }
            })) {
      client.write("join " + far);
      client.write("0");
      assertThat(client.readUntil("echo 0")).containsExactly("joined Accepted", "echo 0");
      final ActorContext ctx = contexts.get(contexts.size() - 1);
      final String actor = ctx.self().id().value();
      final long sessionId = ctx.session().orElseThrow().id();
      // A 44 commit for this binding from a relocation the Session owner never sealed, rerouting it to node a.
      final Rid aRid = Rid.of(ByteBuffer.allocate(8).putLong(a.nodeRid().value()).array());
      final SessionRelocationFrame.Route forged = new SessionRelocationFrame.Route(new RelocationId(7, 7),
          new CoordinatorFence("forger", 1, aRid, 1, "1"), Role.TARGET, new SessionBinding(new SessionOwner(aRid, 1,
          "owner", 1), Rid.of(ByteBuffer.allocate(8).putLong(sessionId).array()), 1, actor,
          ctx.self().generation().value()), new SessionRouteAction.Commit(2, new ActorRoute(aRid, 1, 3, 1)));
      final NodePeer peer = new NodeDirectory(store, Duration.ofSeconds(5)).readMesh("game").stream()
          .filter(p -> p.routingIdHex().equals(a.nodeRid().hex())).findFirst().orElseThrow();
      final int colon = peer.endpoint().lastIndexOf(':');
      final PeerConnection connection = fake.connect(new InetSocketAddress("127.0.0.1", Integer.parseInt(peer
          .endpoint().substring(colon + 1))), a.nodeRid()).get(10, TimeUnit.SECONDS);
      assertThat(connection.send(SessionRelocationCodec.encode(forged))).isTrue();
      await().atMost(Duration.ofSeconds(10)).until(() -> log().contains("late_session_route_update session="
          + sessionId));
      // ... and is a typed event on the Session owner's feed
      await().atMost(Duration.ofSeconds(5)).until(() -> events.stream().anyMatch(e ->
          e instanceof NodeEvent.LateSessionRouteUpdate late && late.sessionId() == sessionId
          && late.actorId().equals(actor) && late.node().equals(a.nodeRid())));
      // Nothing changed: the route still leads to node b, and the session is open and ordered.
      for (int i = 1; i <= 50; i++) {
        client.write(Integer.toString(i));
      }
      assertThat(client.readUntil("echo 50")).containsExactlyElementsOf(echoes(null, 1, 51));
    }
    assertThat(handled).extracting(Handled::node).containsOnly(b.nodeRid());
    assertThat(handled).extracting(Handled::line)
        .containsExactlyElementsOf(IntStream.rangeClosed(0, 50).mapToObj(Integer::toString).toList());
  }

  @Test
  @Spec("LOC-25")
  @Spec("REL-31")
  void anAbortBeforeRelayReadyLeavesEveryLineInOrderAtTheSource() throws Exception {
    final MeshNode a = node(true);
    final MeshNode b = node(false);
    final String far = spotOn(b, "far");
    refusing.add(b.nodeRid()); // the Restore on b fails: command 53 before relay-ready, the source is restored
    try (Client client = new Client(a)) {
      for (int i = 0; i < 300; i++) {
        client.write(Integer.toString(i));
        if (i == 100) {
          client.write("join " + far);
        }
      }
      final List<String> pushed = client.readUntil("echo 299");
      assertThat(pushed.stream().filter(l -> l != null && l.startsWith("echo ")).toList())
          .containsExactlyElementsOf(echoes(pushed, 0, 300));
      assertThat(pushed).contains("joined Failed");
      // The abort released the seal (no seal timeout): a line sent now is handled at once, still on node a.
      client.write("after");
      assertThat(client.readUntil("echo after")).containsExactly("echo after");
    }
    assertThat(handled).extracting(Handled::line).containsExactlyElementsOf(IntStream.range(0, 300)
        .mapToObj(Integer::toString).collect(java.util.stream.Collectors.collectingAndThen(
        java.util.stream.Collectors.toList(), l -> {
          l.add("after");
          return l;
        })));
    assertThat(handled).extracting(Handled::node).containsOnly(a.nodeRid());
    assertThat(joins).containsExactly("Failed");
    final String actor = handled.get(0).actor();
    // The Location Store did not change: the actor is still recorded on node a.
    assertThat(a.toActor(actor).request(new Probe(), String.class).await()).isEqualTo(a.nodeRid().hex());
    assertThat(b.toActor(actor).request(new Probe(), String.class).await()).isEqualTo(a.nodeRid().hex());
    assertThat(log()).doesNotContain("session_seal_timeout", "late_session_route_update");
  }

  /**
   * The command 44 commit goes out once the CAS committed and the route is installed, not after the target Spot's
   * lifecycle: a room whose OnJoinedActor (or whose long queue ahead of it) takes longer than the Session owner's
   * 3,000 ms seal timeout does not cost the client its session. The lines sent meanwhile run after the lifecycle,
   * in order, on the target.
   */
  @Test
  @Spec("REL-26")
  void aTargetSpotSlowerThanTheSealTimeoutToRunItsLifecycleDoesNotCloseTheSession() throws Exception {
    final MeshNode a = node(true);
    final MeshNode b = node(false);
    final String far = spotOn(b, "far");
    final java.util.concurrent.CountDownLatch gate = new java.util.concurrent.CountDownLatch(1);
    joinedGate = gate;
    try (Client client = new Client(a)) {
      client.write("before");
      assertThat(client.readUntil("echo before")).containsExactly("echo before");
      client.write("join " + far);
      for (int i = 0; i < 20; i++) {
        client.write("during " + i); // held at the Session owner, then queued on b behind the lifecycle
      }
      // OnJoinedActor on b is held well past SessionRelocationSealTimeout (3,000 ms from the seal): the session
      // must stay open all along.
      await().during(Duration.ofMillis(4_000)).atMost(Duration.ofSeconds(6))
          .until(() -> !log().contains("session_seal_timeout"));
      gate.countDown();
      final List<String> pushed = client.readUntil("echo during 19");
      assertThat(pushed).as("the session stayed open").doesNotContainNull();
      assertThat(pushed.stream().filter(l -> l.startsWith("echo ")).toList()).containsExactlyElementsOf(
          IntStream.range(0, 20).mapToObj(i -> "echo during " + i).toList());
    }
    assertThat(handled).extracting(Handled::line).containsExactlyElementsOf(java.util.stream.Stream.concat(
        java.util.stream.Stream.of("before"), IntStream.range(0, 20).mapToObj(i -> "during " + i)).toList());
    assertThat(handled.subList(1, handled.size())).extracting(Handled::node).containsOnly(b.nodeRid());
    assertThat(log()).doesNotContain("session_seal_timeout", "late_session_route_update");
  }
}
