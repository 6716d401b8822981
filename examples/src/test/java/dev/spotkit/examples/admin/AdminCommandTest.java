package dev.spotkit.examples.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.spotkit.core.Actor;
import dev.spotkit.core.ActorContext;
import dev.spotkit.core.ActorHandlers;
import dev.spotkit.core.ActorRef;
import dev.spotkit.core.EntrySpot;
import dev.spotkit.core.EntrySpotContext;
import dev.spotkit.core.JoinResult;
import dev.spotkit.core.MeshNode;
import dev.spotkit.core.SpotRef;
import dev.spotkit.core.UserSpot;
import dev.spotkit.core.UserSpotContext;
import dev.spotkit.examples.SpotkitExamples;
import dev.spotkit.redis.RedisLocationStore;
import dev.spotkit.redis.RedisRelocationStore;
import dev.spotkit.redis.RedisServer;
import dev.spotkit.testkit.TestMesh;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/**
 * {@code spotkit-admin} through the examples jar's picocli entry point ({@link SpotkitExamples}), against a real
 * redis-server on a free loopback port with two MeshNodes of one mesh in this JVM: {@code nodes} lists both with
 * their state and load, {@code objects --node} shows what one node owns with its ObjectGeneration, {@code drain}
 * empties a node through the store-borne drain request and prints what moved, and {@code relocations} shows the
 * answered request. Also: an unreachable or silent store is exit code 3 with one clear line, bad usage is 2, and
 * {@code nodes} finding no node says where it looked.
 */
class AdminCommandTest {
  private static final String PREFIX = "admin-test";
  private static final ObjectMapper JSON = new ObjectMapper();
  /** Actor id to the room its join was accepted into. */
  private static final Set<String> JOINED = ConcurrentHashMap.newKeySet();

  record Join(String roomId) {
  }

  /** An Entry Spot with no handlers. */
  static final class Entry implements EntrySpot {
    private final EntrySpotContext ctx;

    Entry(final EntrySpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public EntrySpotContext context() {
      return ctx;
    }
  }

  /** An actor that joins the room it is told to. */
  static final class Worker implements Actor {
    private final ActorContext ctx;

    Worker(final ActorContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public void configure(final ActorHandlers on) {
      on.message(Join.class, j -> ctx.joinSpot(j.roomId()).defer());
    }

    @Override
    public void onJoinCompleted(final JoinResult result) {
      if (result instanceof JoinResult.Accepted) {
        JOINED.add(ctx.self().id().value());
      }
    }
  }

  /** A SpotWide room. */
  static final class Room implements UserSpot<Worker> {
    private final UserSpotContext ctx;

    Room(final UserSpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public UserSpotContext context() {
      return ctx;
    }
  }

  private TestMesh mesh;
  private RedisServer redis;

  @AfterEach
  void stop() {
    if (mesh != null) {
      mesh.close();
    }
    if (redis != null) {
      redis.stop();
    }
  }

  /**
   * Nodes of mesh "admin" on the test kit, each with its own Redis Location Store connection to {@link #redis}
   * (closed with the node). With {@code acceptDrains} they take store-borne drain requests (polled every 200 ms)
   * and each has its own Redis Relocation Store too; without, they keep the kit's in-memory one.
   */
  private TestMesh.Builder mesh(final boolean acceptDrains) {
    final TestMesh.Builder builder = TestMesh.builder().meshName("admin").closeTimeout(Duration.ofSeconds(5))
        .locationStores(i -> RedisLocationStore.connect(redis.uri(), PREFIX))
        .node(MeshNode.Builder::closeStoresOnClose);
    return acceptDrains ? builder.relocationStores(i -> RedisRelocationStore.connect(redis.uri(), PREFIX))
        .mesh((m, i) -> m.acceptAdminDrains(Duration.ofMillis(200))) : builder;
  }

  /** One run of the examples' entry point: exit code, stdout, stderr. */
  record Run(int code, String out, String err) {
  }

  private static Run raw(final String... args) {
    final StringWriter out = new StringWriter();
    final StringWriter err = new StringWriter();
    final String[] full = new String[args.length + 1];
    full[0] = "spotkit-admin";
    System.arraycopy(args, 0, full, 1, args.length);
    final int code = new CommandLine(new SpotkitExamples()).setOut(new PrintWriter(out, true))
        .setErr(new PrintWriter(err, true)).execute(full);
    return new Run(code, out.toString(), err.toString());
  }

  private Run admin(final String command, final String... args) {
    final List<String> all = new ArrayList<>(List.of(command, "--store", redis.uri(), "--store-prefix", PREFIX));
    all.addAll(List.of(args));
    return raw(all.toArray(String[]::new));
  }

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void nodesObjectsAndDrainThroughTheCommandLine() throws Exception {
    redis = RedisServer.start();
    JOINED.clear();
    mesh = mesh(true).objectServer(s -> s.entrySpot(Entry::new)
        .userSpot("room", Room::new, o -> o.spotWide().recreateOnRelocation())
        .actor("worker", Worker::new, a -> a.recreateOnRelocation())).start(1);
    final MeshNode a = mesh.node(0); // alone first: every object is placed on it
    final SpotRef room = a.spots().getOrCreate("room-1", "room").await();
    final List<ActorRef> workers = new ArrayList<>();
    for (int i = 1; i <= 4; i++) {
      workers.add(a.actors().getOrCreate("worker-" + i, "worker").await());
    }
    a.toActor("worker-1").send(new Join("room-1"));
    a.toActor("worker-2").send(new Join("room-1"));
    await().atMost(Duration.ofSeconds(20)).until(() -> JOINED.containsAll(Set.of("worker-1", "worker-2")));
    final MeshNode b = mesh.addNode();
    final String aHex = a.nodeRid().hex();
    final String bHex = b.nodeRid().hex();

    // nodes: both Serving and live, with their population; A holds the 4 workers (B none yet)
    final Run nodesRun = admin("nodes");
    assertThat(nodesRun.code()).as(nodesRun.err()).isZero();
    assertThat(nodesRun.out()).containsPattern("MESH +NODE +STATE +LIVE +ROLE +ACTORS +SPOTS +WEIGHT +ENDPOINT")
        .containsPattern("admin +" + aHex + " +SERVING +yes +SERVER +4/- +1/- +100 +127\\.0\\.0\\.1:\\d+")
        .containsPattern("admin +" + bHex + " +SERVING +yes +SERVER +0/- +0/- +100 ")
        .contains("2 nodes, 2 live");
    final JsonNode nodesJson = JSON.readTree(admin("nodes", "--json").out()).get("nodes");
    assertThat(nodesJson).hasSize(2);
    for (JsonNode n : nodesJson) {
      assertThat(n.get("state").asText()).isEqualTo("SERVING");
      assertThat(n.get("actors").get("active").asInt()).isEqualTo(n.get("node").asText().equals(aHex) ? 4 : 0);
    }

    // objects --node A (a unique prefix is enough): the workers and the room, with ObjectGeneration and owner
    final Run objectsRun = admin("objects", "--node", aHex.substring(0, 8));
    assertThat(objectsRun.code()).as(objectsRun.err()).isZero();
    for (ActorRef w : workers) {
      assertThat(objectsRun.out()).containsPattern("ACTOR +" + w.id().value() + " +" + w.generation().value()
          + " +worker +READY +admin +" + aHex);
    }
    assertThat(objectsRun.out()).containsPattern("SPOT +room-1 +" + room.generation().value() + " +room +READY +admin +"
        + aHex).contains("on node " + aHex);
    assertThat(admin("objects", "--node", bHex, "--kind", "actor").out()).doesNotContain("worker-");

    // drain A: the request goes through the store, A answers, everything moved to B
    final Run drainRun = admin("drain", aHex, "--timeout", "60s");
    assertThat(drainRun.code()).as(drainRun.out() + drainRun.err()).isZero();
    assertThat(drainRun.out()).contains("drain of node " + aHex + " (mesh admin): DONE, RELOCATED: 2 actors,"
        + " 1 rooms (2 members) moved, 0 kept")
        .containsPattern("moved +actor +worker-3").containsPattern("moved +actor +worker-4")
        .containsPattern("moved +room +room-1 +2 members");
    assertThat(drainRun.err()).contains("asked node " + aHex);
    final JsonNode objectsAfter = JSON.readTree(admin("objects", "--json").out()).get("objects");
    for (JsonNode o : objectsAfter) {
      if (!o.get("stableType").asText().equals("entry")) {
        assertThat(o.get("owner").asText()).as(o.toString()).isEqualTo(bHex);
        assertThat(o.get("state").asText()).isEqualTo("READY");
      }
    }
    assertThat(objectsAfter).hasSize(7); // 4 workers, the room, two Entry Spots
    assertThat(admin("objects", "--node", aHex, "--kind", "actor").out()).doesNotContain("worker-")
        .contains("0 objects on node " + aHex);
    assertThat(admin("nodes").out()).containsPattern(aHex + " +RELOCATED +yes +SERVER +0/- +0/-")
        .containsPattern(bHex + " +SERVING +yes +SERVER +4/- +1/-");

    // relocations: A is Relocated and its request is answered
    final Run relocations = admin("relocations");
    assertThat(relocations.code()).isZero();
    assertThat(relocations.out()).contains("draining nodes:").containsPattern("admin +" + aHex + " +RELOCATED")
        .containsPattern(aHex + " +[0-9a-f]{32} +DONE +spotkit-admin@\\S+ +\\S+ +RELOCATED: 2 actors");
    final JsonNode request = JSON.readTree(admin("relocations", "--json").out()).get("drainRequests").get(0);
    assertThat(request.get("state").asText()).isEqualTo("DONE");
    assertThat(request.get("outcome").get("actors").toString()).contains("worker-3", "worker-4");

    // a second drain of A is refused: it is no longer Serving
    final Run again = admin("drain", aHex, "--timeout", "5s");
    assertThat(again.code()).isEqualTo(1);
    assertThat(again.err()).contains("INVALID_OPERATION").contains("is RELOCATED, not SERVING");
  }

  /**
   * {@code nodes} under a prefix (or mesh) no node uses still exits 0 with its empty table, and says on stderr where
   * it looked (the store's user and password left out); under the nodes' prefix it says nothing there.
   */
  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void nodesUnderAPrefixWithoutNodesSaysWhereItLooked() {
    redis = RedisServer.start();
    mesh = mesh(false).objectServer(s -> s.entrySpot(Entry::new)).start(1);
    final Run found = admin("nodes");
    assertThat(found.code()).isZero();
    assertThat(found.out()).contains("1 nodes, 1 live");
    assertThat(found.err()).isEmpty();

    final Run wrong = raw("nodes", "--store", redis.uri(), "--store-prefix", "spotkit-chat");
    assertThat(wrong.code()).isZero();
    assertThat(wrong.out()).contains("0 nodes, 0 live");
    assertThat(wrong.err()).isEqualTo("spotkit-admin nodes: no node found under store prefix 'spotkit-chat' at "
        + redis.uri() + "; check --store-prefix" + System.lineSeparator());

    final Run json = admin("nodes", "--json", "--mesh", "chat");
    assertThat(json.code()).as(json.err()).isZero();
    assertThat(json.out()).contains("\"nodes\"").doesNotContain("no node");
    assertThat(json.err()).isEqualTo("spotkit-admin nodes: no node of mesh 'chat' found under store prefix '"
        + PREFIX + "' at " + redis.uri() + "; check --store-prefix and --mesh" + System.lineSeparator());

    final AdminOptions secret = new AdminOptions(); // the hint never shows a password
    secret.store = "rediss://ops:s3cret@redis.example:6380/2";
    secret.prefix = "p";
    assertThat(secret.where()).isEqualTo("store prefix 'p' at rediss://redis.example:6380/2");
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aDrainNoNodeTakesIsWithdrawnAtTheTimeout() {
    redis = RedisServer.start();
    mesh = mesh(false).objectServer(s -> s.entrySpot(Entry::new)).start(1); // no acceptAdminDrains
    final MeshNode deaf = mesh.node(0);
    final Run run = admin("drain", deaf.nodeRid().hex(), "--timeout", "1s");
    assertThat(run.code()).isEqualTo(1);
    assertThat(run.out()).contains("WITHDRAWN, withdrawn: no node took it");
    assertThat(run.err()).contains("it was withdrawn and nothing ran").contains("acceptAdminDrains");
    assertThat(admin("relocations").out()).contains("drain requests: none");
  }

  /**
   * The node being drained dies (halted as by kill -9: its owner lease is no longer renewed and lapses after its 2 s
   * TTL) while the command waits with {@code --timeout 60s}: the command ends soon after the lease lapsed, not at
   * its timeout, withdraws the request the node never took, names the node and exits 1. A second drain of the dead
   * node is refused before anything is asked.
   */
  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void aDrainOfANodeThatDiesEndsWhenItsLeaseLapsesNamingTheNode() throws Exception {
    redis = RedisServer.start();
    mesh = mesh(false).objectServer(s -> s.entrySpot(Entry::new)) // no acceptAdminDrains: it never takes the request
        .customize((b, i) -> b.ownerLease(Duration.ofMillis(200), Duration.ofSeconds(2), Duration.ofMillis(500),
            Duration.ofSeconds(1)))
        .start(1);
    final MeshNode doomed = mesh.node(0);
    final String hex = doomed.nodeRid().hex();
    final long start = System.nanoTime();
    final CompletableFuture<Run> drain = CompletableFuture.supplyAsync(() -> admin("drain", hex, "--timeout", "60s"));
    await().atMost(Duration.ofSeconds(20)).until(() -> drain.isDone()
        || admin("relocations").out().contains(hex + " "));
    assertThat(drain).isNotDone(); // the request is written and waits for the node
    runtime(doomed).halt();

    final Run run = drain.get(40, TimeUnit.SECONDS);
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(40));
    assertThat(run.code()).as(run.err()).isEqualTo(1);
    assertThat(run.err()).contains("spotkit-admin drain: node " + hex + " of mesh admin is no longer live (its owner"
        + " lease lapsed: the process stopped, was killed or lost the store) before it took drain request ")
        .contains("; the request was withdrawn and nothing ran").doesNotContain("\tat ");
    assertThat(run.out()).isEmpty();
    assertThat(admin("relocations").out()).contains("drain requests: none");

    final Run again = admin("drain", hex, "--timeout", "60s");
    assertThat(again.code()).isEqualTo(1);
    assertThat(again.err()).startsWith("spotkit-admin drain: node " + hex + " of mesh admin is not live (its owner"
        + " lease lapsed: the process stopped, was killed or lost the store); only a running node can drain itself,"
        + " so nothing was asked.");
  }

  private static dev.spotkit.core.internal.runtime.NodeRuntime runtime(final MeshNode node)
      throws ReflectiveOperationException {
    final java.lang.reflect.Field field = MeshNode.class.getDeclaredField("rt");
    field.setAccessible(true);
    return (dev.spotkit.core.internal.runtime.NodeRuntime) field.get(node);
  }

  @Test
  @Timeout(value = 30, unit = TimeUnit.SECONDS)
  void aStoreThatRefusesOrDoesNotAnswerIsExitCodeThree() throws Exception {
    final int closed;
    try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closed = probe.getLocalPort();
    }
    final Run refused = raw("nodes", "--store", "redis://127.0.0.1:" + closed, "--store-prefix", PREFIX,
        "--store-timeout", "2s");
    assertThat(refused.code()).isEqualTo(3);
    assertThat(refused.err()).startsWith("spotkit-admin nodes: store unreachable: cannot connect to Redis at"
        + " 127.0.0.1:" + closed).doesNotContain("\tat ");
    assertThat(refused.out()).isEmpty();
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) { // accepts, never answers
      final long start = System.nanoTime();
      final Run mute = raw("objects", "--store", "redis://127.0.0.1:" + silent.getLocalPort(), "--store-prefix",
          PREFIX, "--store-timeout", "1s");
      assertThat(mute.code()).isEqualTo(3);
      assertThat(mute.err()).startsWith("spotkit-admin objects: store unreachable:");
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(15));
    }
  }

  @Test
  void badUsageIsExitCodeTwo() {
    final Run noPrefix = raw("nodes", "--store", "redis://127.0.0.1:1");
    assertThat(noPrefix.code()).isEqualTo(2);
    assertThat(noPrefix.err()).contains("Missing required option: '--store-prefix=PREFIX'");
    assertThat(raw("nodes", "--store-prefix", "p", "--store-timeout", "5 parsecs").code()).isEqualTo(2);
    assertThat(raw("nodes", "--store-prefix", "p", "--store-timeout", "5 parsecs").err())
        .contains("is not a positive duration; use e.g. 500ms, 30s, 2m or 1h");
    assertThat(raw("teleport").code()).isEqualTo(2);
    final Run bare = raw();
    assertThat(bare.code()).isEqualTo(2);
    assertThat(bare.err()).contains("Usage: spotkit-examples spotkit-admin").contains("nodes", "objects",
        "relocations", "drain");
    final Run kind = raw("objects", "--store", "redis://127.0.0.1:1", "--store-prefix", "p", "--kind", "robot",
        "--mesh", "bad\u0000mesh");
    assertThat(kind.code()).isEqualTo(2);
    assertThat(kind.err()).startsWith("spotkit-admin objects: --mesh");
  }
}
