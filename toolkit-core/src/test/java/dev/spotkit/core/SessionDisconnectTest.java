package dev.spotkit.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.spotkit.core.session.LineCodec;
import dev.spotkit.store.InMemoryLocationStore;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A session disconnect is serialized with the bound actor's membership changes (spec 000 section 3): it runs
 * once, after any join in flight, on the spot the actor then belongs to.
 */
class SessionDisconnectTest {

  record Ping() {}

  final List<String> events = new CopyOnWriteArrayList<>();
  final List<ActorContext> contexts = new CopyOnWriteArrayList<>();
  final CountDownLatch admitting = new CountDownLatch(1);
  final CountDownLatch admit = new CountDownLatch(1);
  MeshNode node;

  final class Player implements Actor {
    private final ActorContext ctx;

    Player(final ActorContext ctx) {
      this.ctx = ctx;
      contexts.add(ctx);
    }

    @Override
    public void configure(final ActorHandlers on) {
      on.message(String.class, line -> ctx.joinSpot(line.substring("join ".length())).defer());
    }

    @Override
    public void onJoinCompleted(final JoinResult result) {
      events.add("completed " + result.getClass().getSimpleName());
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
      if (ctx.self().id().value().equals("rb")) {
        admitting.countDown();
        try {
          admit.await(10, TimeUnit.SECONDS); // the join to rb stays in flight until the test lets it go
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return JoinDecision.accept();
    }

    @Override
    public void onDisconnectActor(final ActorRef actor) {
      events.add("disconnect " + ctx.self().id() + " members=" + ctx.members().size());
    }
  }

  final class Lobby implements EntrySpot {
    private final EntrySpotContext ctx;

    Lobby(final EntrySpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public EntrySpotContext context() {
      return ctx;
    }

    @Override
    public void configure(final SpotHandlers on) {
      on.request(Ping.class, p -> "pong");
    }

    @Override
    public void onDisconnectActor(final ActorRef actor) {
      events.add("disconnect lobby after " + handled.get() + " frames");
    }
  }

  final CountDownLatch busy = new CountDownLatch(1);
  final CountDownLatch unblock = new CountDownLatch(1);
  final AtomicInteger handled = new AtomicInteger();

  /** Blocks in its first frame, so a burst of frames fills its bounded mailbox. */
  final class Slow implements Actor {
    Slow(final ActorContext ctx) {
      contexts.add(ctx);
    }

    @Override
    public void configure(final ActorHandlers on) {
      on.message(String.class, line -> {
        if (handled.getAndIncrement() == 0) {
          busy.countDown();
          unblock.await(10, TimeUnit.SECONDS);
        }
      });
    }
  }

  @AfterEach
  void close() {
    unblock.countDown();
    admit.countDown();
    if (node != null) {
      node.close();
    }
  }

  @Test
  void aDisconnectDuringAJoinRunsOnceOnTheSpotTheActorEndsUpIn() throws Exception {
    node = MeshNode.builder().meshName("chat").locationStore(new InMemoryLocationStore()).workers(2)
        .objectServer(s -> s.entrySpot(Lobby::new).actor("player", Player::new, a -> a.disableRelocation())
            .userSpot("room", Room::new, o -> o.spotWide().disableRelocation()))
        .sessions(s -> s.listen(0).codec(LineCodec.utf8()).bindTo("player"))
        .start();
    node.spots().getOrCreate("ra", "room").await();
    node.spots().getOrCreate("rb", "room").await();
    final InetSocketAddress address = node.sessionAddress().orElseThrow();
    try (Socket socket = new Socket(address.getHostString(), address.getPort())) {
      final OutputStream out = socket.getOutputStream();
      out.write("join ra\n".getBytes(StandardCharsets.UTF_8));
      out.flush();
      // the context is recorded by the constructor, before the actor belongs to a spot (membership() throws then)
      await().atMost(Duration.ofSeconds(5)).ignoreException(SpotkitException.InvalidOperation.class)
          .until(() -> contexts.size() == 1 && contexts.get(0).membership().id().value().equals("ra"));
      out.write("join rb\n".getBytes(StandardCharsets.UTF_8));
      out.flush();
      assertThat(admitting.await(5, TimeUnit.SECONDS)).isTrue(); // the join to rb is in flight
    }
    // The runtime saw the disconnect while the join barrier was running.
    await().atMost(Duration.ofSeconds(5)).until(() -> contexts.get(0).session().isEmpty());
    admit.countDown();
    await().atMost(Duration.ofSeconds(5)).until(() -> events.stream().anyMatch(e -> e.startsWith("disconnect")));
    // Flush the lanes of every spot: a late notification queued there would run before these replies.
    for (String spot : List.of("ra", "rb")) {
      assertThat(node.toSpot(spot).request(new Ping(), String.class).await()).isEqualTo("pong");
    }
    assertThat(node.toSpot(node.entrySpot()).request(new Ping(), String.class).await()).isEqualTo("pong");
    assertThat(events).containsExactly("completed Accepted", "completed Accepted", "disconnect rb members=1");
    assertThat(contexts.get(0).membership().id().value()).isEqualTo("rb");
  }

  @Test
  void aDisconnectThatFindsTheMailboxFullStillRunsOnce() throws Exception {
    node = MeshNode.builder().meshName("chat").locationStore(new InMemoryLocationStore()).workers(2)
        .objectServer(s -> s.entrySpot(Lobby::new).actor("slow", Slow::new,
            a -> a.disableRelocation().mailboxCapacity(4)))
        .sessions(s -> s.listen(0).codec(LineCodec.utf8()).bindTo("slow"))
        .start();
    final InetSocketAddress address = node.sessionAddress().orElseThrow();
    try (Socket socket = new Socket(address.getHostString(), address.getPort())) {
      final OutputStream out = socket.getOutputStream();
      out.write("first\n".getBytes(StandardCharsets.UTF_8));
      out.flush();
      assertThat(busy.await(5, TimeUnit.SECONDS)).isTrue();
      out.write("a\nb\nc\nd\ne\nf\n".getBytes(StandardCharsets.UTF_8)); // 4 fit; the 5th closes the session
      out.flush();
      // The server closes the session while the mailbox is full: the disconnect waits for room behind the frames.
      await().atMost(Duration.ofSeconds(5)).until(() -> contexts.get(0).session().isEmpty());
    }
    unblock.countDown();
    await().atMost(Duration.ofSeconds(5)).until(() -> events.stream().anyMatch(e -> e.startsWith("disconnect")));
    assertThat(handled.get()).isEqualTo(5); // the 4 queued frames still ran
    assertThat(node.toSpot(node.entrySpot()).request(new Ping(), String.class).await()).isEqualTo("pong");
    assertThat(events).containsExactly("disconnect lobby after 5 frames"); // after them, never before
  }
}
