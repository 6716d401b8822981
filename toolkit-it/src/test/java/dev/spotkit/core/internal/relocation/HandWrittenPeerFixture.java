package dev.spotkit.core.internal.relocation;

import dev.spotkit.core.Actor;
import dev.spotkit.core.ActorHandlers;
import dev.spotkit.core.ActorId;
import dev.spotkit.core.JoinDecision;
import dev.spotkit.core.MeshNode;
import dev.spotkit.core.NodeRid;
import dev.spotkit.core.UserSpot;
import dev.spotkit.core.UserSpotContext;
import dev.spotkit.core.location.NodeDirectory;
import dev.spotkit.core.location.NodePeer;
import dev.spotkit.core.mesh.MeshConfig;
import dev.spotkit.core.mesh.MeshListener;
import dev.spotkit.core.mesh.MeshTransport;
import dev.spotkit.core.mesh.PeerConnection;
import dev.spotkit.store.InMemoryLocationStore;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * The fixture of the hand-written-peer relocation tests: one real node on an in-memory Location Store with a
 * {@code plain} actor type and a {@code door} User Spot (rejecting when its id starts with "shut"), and a fake
 * peer ({@link #fakeRid}, run 9) connected to it over loopback that collects every frame the node sends it.
 */
abstract class HandWrittenPeerFixture {
  static final String SECRET = "test-cluster-secret-0123456789";
  static final Duration WAIT = Duration.ofSeconds(10);
  static final List<String> ASKED = new CopyOnWriteArrayList<>();

  record Hello(String text) {}

  static final class Plain implements Actor {
    @Override
    public void configure(final ActorHandlers on) {
      on.message(String.class, s -> { });
    }
  }

  static final class Door implements UserSpot<Actor> {
    private final UserSpotContext ctx;

    Door(final UserSpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public UserSpotContext context() {
      return ctx;
    }

    @Override
    public JoinDecision onActorJoin(final ActorId actor, final Object request) {
      ASKED.add(actor.value() + " " + request);
      return ctx.self().id().value().startsWith("shut") ? JoinDecision.reject(new Hello("no"))
          : JoinDecision.accept(new Hello("yes"));
    }
  }

  final InMemoryLocationStore store = new InMemoryLocationStore();
  MeshNode node;
  MeshTransport fake;
  PeerConnection connection;
  final NodeRid fakeRid = new NodeRid(0x0fa4_e000_0000_0002L);
  final java.util.concurrent.BlockingQueue<byte[]> received = new java.util.concurrent.LinkedBlockingQueue<>();

  @BeforeEach
  void start() throws Exception {
    node = MeshNode.builder().meshName("mesh").locationStore(store)
        .relocationStore(dev.spotkit.core.RelocationStores.of(store)).workers(2).closeTimeout(Duration.ofSeconds(5))
        .mesh(m -> m.listen("127.0.0.1", 0).clusterSecret(SECRET))
        .objectServer(s -> s.entrySpot(Entry::new)
            .actor("plain", ctx -> new Plain(), a -> a.recreateOnRelocation())
            .userSpot("door", Door::new, o -> o.recreateOnRelocation()))
        .start();
    final NodePeer peer = new NodeDirectory(store, WAIT).readMesh("mesh").get(0);
    fake = MeshTransport.start(MeshConfig.builder(fakeRid, 9, SECRET.getBytes(StandardCharsets.UTF_8)).build(),
        new MeshListener() {
          @Override
          public void onFrame(final PeerConnection from, final byte[] frame) {
            received.add(frame); // one-way frames and late replies (e.g. command 53)
          }
        });
    final int colon = peer.endpoint().lastIndexOf(':');
    connection = fake.connect(new InetSocketAddress("127.0.0.1", Integer.parseInt(peer.endpoint()
        .substring(colon + 1))), node.nodeRid()).get(10, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() {
    ASKED.clear();
    if (fake != null) {
      fake.close();
    }
    if (node != null) {
      node.close();
    }
  }

  /** An Entry Spot that approves every creation. */
  static final class Entry implements dev.spotkit.core.EntrySpot {
    private final dev.spotkit.core.EntrySpotContext ctx;

    Entry(final dev.spotkit.core.EntrySpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public dev.spotkit.core.EntrySpotContext context() {
      return ctx;
    }
  }
}
