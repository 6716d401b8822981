package dev.spotkit.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.spotkit.core.session.LineCodec;
import dev.spotkit.core.session.Session;
import dev.spotkit.core.session.SessionServerConfig;
import dev.spotkit.store.InMemoryLocationStore;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Inbound backpressure: a client that sends faster than its actor handles waits in TCP, not in the heap.
 * Forbidden outcomes: the server-side count of queued frames grows with the input; a frame is dropped; the
 * flood slows other clients down.
 */
class SessionBackpressureTest {

  /** Lines the flooding client sends, 9 bytes each: 1.8 MB, far more than one socket read (64 KiB). */
  static final int LINES = 200_000;
  static final byte[] LINE = "/join fa\n".getBytes(StandardCharsets.US_ASCII);
  /** Reading stops at the high-water mark; frames of the socket read in progress still arrive (64 KiB). */
  static final int BOUND = SessionServerConfig.DEFAULT_INBOUND_HIGH_WATER_FRAMES + 65_536 / LINE.length;

  final List<Session> sessions = new CopyOnWriteArrayList<>();
  final AtomicInteger flooded = new AtomicInteger();
  final CountDownLatch go = new CountDownLatch(1);
  MeshNode node;

  final class Player implements Actor {
    private final ActorContext ctx;

    Player(final ActorContext ctx) {
      this.ctx = ctx;
      ctx.session().ifPresent(sessions::add);
    }

    @Override
    public void configure(final ActorHandlers on) {
      on.message(String.class, line -> {
        if (line.startsWith("/join")) {
          if (flooded.getAndIncrement() == 0) {
            go.await(30, TimeUnit.SECONDS); // the actor is busy: every later frame of the flood waits
          }
        } else {
          ctx.session().ifPresent(s -> s.push("echo " + line));
        }
      });
    }
  }

  @AfterEach
  void close() {
    go.countDown();
    if (node != null) {
      node.close();
    }
  }

  @Test
  void aFloodingClientIsSlowedByTcpWithoutLosingLinesWhileOthersKeepWorking() throws Exception {
    node = MeshNode.builder().meshName("flood").locationStore(new InMemoryLocationStore()).workers(2)
        .objectServer(s -> s.entrySpot(TestNodes.PlainEntry::new).actor("player", Player::new,
            a -> a.disableRelocation()))
        .sessions(s -> s.listen(0).codec(LineCodec.utf8()).bindTo("player"))
        .start();
    final InetSocketAddress address = node.sessionAddress().orElseThrow();
    try (Socket flooder = new Socket(address.getHostString(), address.getPort())) {
      await().atMost(Duration.ofSeconds(5)).until(() -> sessions.size() == 1);
      final Session flooding = sessions.get(0);
      final CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> write(flooder));

      await().atMost(Duration.ofSeconds(10)).until(() -> flooding.pendingFrames()
          >= SessionServerConfig.DEFAULT_INBOUND_HIGH_WATER_FRAMES);
      // Reading stopped: the count stays bounded while the client keeps pushing (or waits in TCP).
      await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(3))
          .until(() -> flooding.pendingFrames() <= BOUND);

      try (Socket other = new Socket(address.getHostString(), address.getPort())) {
        other.setSoTimeout(5000);
        other.getOutputStream().write("hello\n".getBytes(StandardCharsets.UTF_8));
        final BufferedReader in = new BufferedReader(new InputStreamReader(other.getInputStream(),
            StandardCharsets.UTF_8));
        assertThat(in.readLine()).isEqualTo("echo hello");
      }

      go.countDown();
      writer.get(30, TimeUnit.SECONDS);
      await().atMost(Duration.ofSeconds(30)).until(() -> flooded.get() == LINES); // nothing dropped
      assertThat(flooding.pendingFrames()).isZero();
    }
  }

  private static void write(final Socket socket) {
    final byte[] chunk = new byte[LINE.length * 1024];
    for (int i = 0; i < 1024; i++) {
      System.arraycopy(LINE, 0, chunk, i * LINE.length, LINE.length);
    }
    try {
      final OutputStream out = socket.getOutputStream();
      int left = LINES;
      while (left > 0) { // bounded: LINES / 1024 writes
        final int lines = Math.min(left, 1024);
        out.write(lines == 1024 ? chunk : Arrays.copyOf(chunk, lines * LINE.length));
        left -= lines;
      }
      out.flush();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
