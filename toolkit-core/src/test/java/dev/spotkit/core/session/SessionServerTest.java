package dev.spotkit.core.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link SessionServer} over loopback TCP (127.0.0.1, a free port) with a fake {@link SessionHandler}
 * and plain socket clients. Every wait is bounded (latches, Awaitility, socket read timeouts).
 */
class SessionServerTest {

  private static final Duration WAIT = Duration.ofSeconds(10);

  private final List<AutoCloseable> toClose = new ArrayList<>();
  private final Recorder recorder = new Recorder();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = toClose.size() - 1; i >= 0; i--) {
      toClose.get(i).close();
    }
  }

  private SessionServer start(final SessionServerConfig.Builder config) throws IOException {
    final SessionServer server = SessionServer.start(config.build(), recorder);
    toClose.add(server);
    return server;
  }

  private SessionServer start() throws IOException {
    return start(SessionServerConfig.builder());
  }

  private Client connect(final SessionServer server) throws IOException {
    final Client client = new Client(server.localAddress());
    toClose.add(client);
    return client;
  }

  @Test
  void bindsLoopbackOnAFreePort() throws IOException {
    final SessionServer server = start();
    assertThat(server.localAddress().getAddress().getHostAddress()).isEqualTo("127.0.0.1");
    assertThat(server.localAddress().getPort()).isPositive();
  }

  @Test
  void framesArriveInOrderPushWorksAndClientDisconnectClosesOnce() throws Exception {
    final SessionServer server = start();
    final Client client = connect(server);
    final Session session = recorder.nextOpened();
    assertThat(session.id()).isPositive();
    assertThat(session.remoteAddress()).isNotNull();
    assertThat(session.isOpen()).isTrue();

    final StringBuilder lines = new StringBuilder();
    for (int i = 0; i < 1000; i++) {
      lines.append("line ").append(i).append(i % 3 == 0 ? "\r\n" : "\n");
    }
    client.send(lines.toString());
    final Recording rec = recorder.of(session);
    await().atMost(WAIT).until(() -> rec.frames.size() == 1000);
    for (int i = 0; i < 1000; i++) {
      assertThat(rec.frames.get(i)).isEqualTo("line " + i);
    }

    assertThat(session.push("héllo")).isTrue();
    assertThat(session.push(42)).isTrue();
    assertThat(client.readLine()).isEqualTo("héllo");
    assertThat(client.readLine()).isEqualTo("42");

    client.close();
    assertThat(rec.closed.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
    await().atMost(WAIT).until(() -> !session.isOpen() && server.sessionCount() == 0);
    assertThat(session.push("late")).isFalse();
    server.close(); // must not tell the session a second time
    assertThat(rec.closedCount.get()).isEqualTo(1);
    assertThat(rec.frameAfterClose).isFalse();
  }

  @Test
  void closeWithAReasonTellsTheClientThenCloses() throws Exception {
    final SessionServer server = start();
    final Client client = connect(server);
    final Session session = recorder.nextOpened();
    final Recording rec = recorder.of(session);
    session.close("your actor went away; reconnect");
    session.close("twice"); // idempotent: one line
    assertThat(client.readLine()).isEqualTo("error: your actor went away; reconnect");
    assertThat(client.readLine()).as("EOF after the reason").isNull();
    await().atMost(WAIT).until(() -> rec.closedCount.get() == 1);
  }

  @Test
  void serverCloseClosesEverySessionExactlyOnce() throws Exception {
    final SessionServer server = start();
    final List<Client> clients = new ArrayList<>();
    final List<Recording> recs = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      clients.add(connect(server));
      recs.add(recorder.of(recorder.nextOpened()));
    }
    server.close();
    server.close(); // idempotent
    assertThat(recs).allSatisfy(r -> assertThat(r.closedCount.get()).isEqualTo(1));
    for (Client c : clients) {
      assertThat(c.readLine()).as("EOF after server close").isNull();
    }
    assertThat(server.isClosed()).isTrue();
  }

  @Test
  void badInputGetsAnErrorLineAndTheSessionKeepsServing() throws Exception {
    recorder.onFrame = (session, frame) -> session.push("echo " + frame);
    final SessionServer server = start();
    final Client client = connect(server);
    final Recording rec = recorder.of(recorder.nextOpened());

    client.send("x".repeat(1024 * 1024) + "\n");
    client.sendBytes(new byte[] {'a', (byte) 0xFF, '\n'});
    client.send("unknown-but-fine\n");
    assertThat(client.readLine()).isEqualTo("error: line of 1048576 bytes exceeds maxLineBytes 8192");
    assertThat(client.readLine()).isEqualTo("error: invalid UTF-8 at byte 1 of a 2-byte line");
    assertThat(client.readLine()).isEqualTo("echo unknown-but-fine");
    assertThat(rec.frames).containsExactly("unknown-but-fine");

    final Client other = connect(server);
    recorder.nextOpened();
    other.send("still here\n");
    assertThat(other.readLine()).isEqualTo("echo still here");
  }

  @Test
  void closeOnBadFrameWritesTheErrorLineThenCloses() throws Exception {
    final SessionServer server = start(SessionServerConfig.builder().codec(LineCodec.utf8(8)).closeOnBadFrame(true));
    final Client client = connect(server);
    final Recording rec = recorder.of(recorder.nextOpened());
    client.send("ok\n123456789\nnever\n");
    assertThat(client.readLine()).isEqualTo("error: line of 9 bytes exceeds maxLineBytes 8");
    assertThat(client.readLine()).isNull();
    assertThat(rec.closed.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
    assertThat(rec.frames).containsExactly("ok");
    assertThat(rec.closedCount.get()).isEqualTo(1);
  }

  @Test
  void aPushToAClientThatDoesNotReadWaitsThenFailsTypedAndTrafficResumesWhenItReads() throws Exception {
    final Duration pushTimeout = Duration.ofMillis(300);
    final SessionServer server = start(SessionServerConfig.builder().maxOutboundBytes(64 * 1024)
        .pushTimeout(pushTimeout));
    final Client client = connect(server); // does not read until told to
    final Session session = recorder.nextOpened();
    final String kib = "k".repeat(1023);
    final AtomicInteger pushed = new AtomicInteger();
    final java.util.concurrent.atomic.AtomicLong refusedAfterNanos = new java.util.concurrent.atomic.AtomicLong();
    final java.util.concurrent.atomic.AtomicReference<Throwable> refusal = new java.util.concurrent.atomic
        .AtomicReference<>();
    final Thread pusher = Thread.ofVirtual().start(() -> {
      for (int i = 0; i < 1_000_000; i++) { // bounded: 1 GB would be far past any socket buffer
        final long started = System.nanoTime();
        try {
          if (!session.push(kib)) {
            refusal.set(new AssertionError("push returned false: the session was closed"));
            return;
          }
          pushed.incrementAndGet();
        } catch (RuntimeException e) {
          refusedAfterNanos.set(System.nanoTime() - started);
          refusal.set(e);
          return;
        }
      }
    });
    pusher.join(WAIT.toMillis() * 3);
    assertThat(pusher.isAlive()).isFalse();
    assertThat(refusal.get()).as("the push that found no room").isInstanceOf(
        dev.spotkit.core.SpotkitException.CapacityExceeded.class);
    assertThat(refusedAfterNanos.get()).as("the pusher was slowed for its push timeout first")
        .isGreaterThanOrEqualTo(pushTimeout.toNanos() - TimeUnit.MILLISECONDS.toNanos(5));
    assertThat(((NettySession) session).pendingBytes()).as("bytes held for the client").isLessThanOrEqualTo(
        64 * 1024);
    assertThat(session.isOpen()).as("the session stays open").isTrue();
    // The client reads again: every accepted line arrives, and pushes go through again.
    for (int i = 0; i < pushed.get(); i++) {
      assertThat(client.readLine()).isEqualTo(kib);
    }
    assertThat(session.push("after")).isTrue();
    assertThat(client.readLine()).isEqualTo("after");
    await().atMost(WAIT).until(() -> ((NettySession) session).pendingBytes() == 0);
  }

  @Test
  void anOversizedPushIsATypedErrorToThePusherAndAnErrorLineToTheClient() throws Exception {
    final SessionServer server = start(SessionServerConfig.builder().maxOutboundBytes(64 * 1024));
    final Client client = connect(server);
    final Session session = recorder.nextOpened();
    assertThatThrownBy(() -> session.push("b".repeat(100 * 1024)))
        .isInstanceOf(dev.spotkit.core.SpotkitException.CapacityExceeded.class)
        .hasMessageContaining("push of 102401 bytes exceeds maxOutboundBytes 65536");
    assertThat(client.readLine()).isEqualTo("error: push of 102401 bytes exceeds maxOutboundBytes 65536");
    assertThat(session.isOpen()).isTrue();
    assertThat(session.push("small")).isTrue();
    assertThat(client.readLine()).isEqualTo("small");
  }

  @Test
  void concurrentPushersKeepEachThreadsOrderAndWholeLines() throws Exception {
    final SessionServer server = start();
    final Client client = connect(server);
    final Session session = recorder.nextOpened();
    final int threads = 4;
    final int perThread = 500;
    final List<Thread> pushers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      final int id = t;
      pushers.add(Thread.ofVirtual().start(() -> {
        for (int seq = 0; seq < perThread; seq++) {
          assertThat(session.push("t" + id + " " + seq)).isTrue();
        }
      }));
    }
    final int[] next = new int[threads];
    for (int i = 0; i < threads * perThread; i++) {
      final String[] parts = client.readLine().split(" ");
      final int t = Integer.parseInt(parts[0].substring(1));
      assertThat(Integer.parseInt(parts[1])).as("thread %d order", t).isEqualTo(next[t]++);
    }
    for (Thread p : pushers) {
      assertThat(p.join(WAIT)).isTrue();
    }
  }

  @Test
  void failingInboundClosesOnlyItsSession() throws Exception {
    recorder.onFrame = (session, frame) -> {
      if ("boom".equals(frame)) {
        throw new IllegalStateException("test handler failed");
      }
      session.push("echo " + frame);
    };
    final SessionServer server = start();
    final Client bad = connect(server);
    final Recording badRec = recorder.of(recorder.nextOpened());
    bad.send("boom\n");
    assertThat(bad.readLine()).isNull();
    assertThat(badRec.closed.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();

    final Client good = connect(server);
    recorder.nextOpened();
    good.send("hi\n");
    assertThat(good.readLine()).isEqualTo("echo hi");
  }

  @Test
  void bindingAPortInUseIsAnIoExceptionNamingTheAddress() throws IOException {
    final SessionServer first = start();
    final int port = first.localAddress().getPort();
    assertThatThrownBy(() -> start(SessionServerConfig.builder().port(port)))
        .isInstanceOf(IOException.class)
        .hasMessageStartingWith("cannot bind session listener to 127.0.0.1:" + port + ": ");
  }

  @Test
  void pushOfNullIsAProgrammerError() throws Exception {
    final SessionServer server = start();
    connect(server);
    final Session session = recorder.nextOpened();
    assertThatThrownBy(() -> session.push(null)).isInstanceOf(NullPointerException.class);
  }

  @Test
  void configRejectsBadValuesNamingThem() {
    assertThatThrownBy(() -> SessionServerConfig.builder().port(70000))
        .hasMessage("port 70000 must be between 0 and 65535 (0 = free port)");
    assertThatThrownBy(() -> SessionServerConfig.builder().maxOutboundBytes(0))
        .hasMessage("maxOutboundBytes 0 must be at least 1");
    assertThatThrownBy(() -> SessionServerConfig.builder().inboundWaterMarks(0, 0))
        .hasMessage("inbound high-water mark 0 must be between 1 and 1048576 frames");
    assertThatThrownBy(() -> SessionServerConfig.builder().inboundWaterMarks(8, 8))
        .hasMessage("inbound low-water mark 8 must be between 0 and the high-water mark minus one (7)");
    final SessionServerConfig config = SessionServerConfig.builder().build();
    assertThat(config.inboundHighWaterFrames()).isEqualTo(256);
    assertThat(config.inboundLowWaterFrames()).isEqualTo(64);
  }

  @Test
  void aHalfClosedSessionAnswersLateRepliesThenClosesOnceWhenQuiet() throws Exception {
    // Each frame is handled at once, its reply comes 100 ms later (like a join confirmed after the handler ran).
    final java.util.concurrent.ScheduledExecutorService later =
        java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
    toClose.add(later::shutdownNow);
    recorder.onFrame = (session, frame) -> {
      session.frameQueued();
      session.frameHandled();
      later.schedule(() -> session.push("late " + frame), 100, TimeUnit.MILLISECONDS);
    };
    final SessionServer server = start(SessionServerConfig.builder()
        .halfCloseDrain(Duration.ofSeconds(5), Duration.ofMillis(400)));
    final Client client = connect(server);
    final Recording rec = recorder.of(recorder.nextOpened());
    client.send("a\nb\n");
    final long shut = System.nanoTime();
    client.shutdownOutput();

    assertThat(client.readLine()).isEqualTo("late a");
    assertThat(client.readLine()).isEqualTo("late b");
    assertThat(client.readLine()).as("EOF after the replies went quiet").isNull();
    assertThat(Duration.ofNanos(System.nanoTime() - shut)).as("closed by the quiet time, before the drain bound")
        .isLessThan(Duration.ofSeconds(5));
    assertThat(rec.closed.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
    assertThat(rec.closedCount.get()).isEqualTo(1);
  }

  @Test
  void aHalfClosedSessionWhoseFramesNeverFinishOrWhosePushesNeverStopClosesAtTheDrainBound() throws Exception {
    final java.util.concurrent.ScheduledExecutorService chatty =
        java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
    toClose.add(chatty::shutdownNow);
    recorder.onFrame = (session, frame) -> {
      if ("stuck".equals(frame)) {
        session.frameQueued(); // never handled
      } else {
        chatty.scheduleAtFixedRate(() -> session.push("more"), 0, 20, TimeUnit.MILLISECONDS); // never quiet
      }
    };
    final Duration drain = Duration.ofMillis(600);
    final SessionServer server = start(SessionServerConfig.builder().halfCloseDrain(drain, Duration.ofMillis(200)));
    for (String line : List.of("stuck", "chatty")) {
      final Client client = connect(server);
      final Recording rec = recorder.of(recorder.nextOpened());
      client.send(line + "\n");
      await().atMost(WAIT).until(() -> rec.frames.size() == 1);
      final long shut = System.nanoTime();
      client.shutdownOutput();
      String read = "";
      for (int i = 0; i < 100_000 && read != null; i++) { // bounded: EOF comes after about drain / 20 ms lines
        read = client.readLine();
      }
      final Duration took = Duration.ofNanos(System.nanoTime() - shut);
      assertThat(read).as(line + ": EOF").isNull();
      assertThat(took).as(line + ": closed at the drain bound").isGreaterThanOrEqualTo(drain)
          .isLessThan(WAIT);
      assertThat(rec.closed.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
      assertThat(rec.closedCount.get()).isEqualTo(1);
    }
  }

  @Test
  void halfCloseDrainRejectsBadValuesNamingThem() {
    assertThatThrownBy(() -> SessionServerConfig.builder().halfCloseDrain(Duration.ZERO, Duration.ofMillis(1)))
        .hasMessage("halfCloseDrain PT0S must be positive");
    assertThatThrownBy(() -> SessionServerConfig.builder().halfCloseDrain(Duration.ofSeconds(1), Duration.ofSeconds(2)))
        .hasMessage("halfCloseQuiet PT2S must be positive and at most the drain PT1S");
    final SessionServerConfig config = SessionServerConfig.builder().build();
    assertThat(config.halfCloseDrain()).isEqualTo(Duration.ofSeconds(2));
    assertThat(config.halfCloseQuiet()).isEqualTo(Duration.ofMillis(500));
  }

  /** Fake runtime: records every session's frames and closes. */
  private static final class Recorder implements SessionHandler {
    final BlockingQueue<Session> opened = new LinkedBlockingQueue<>();
    final Map<Long, Recording> recordings = new ConcurrentHashMap<>();
    volatile BiConsumer<Session, Object> onFrame = (s, f) -> { };

    @Override
    public SessionInbound onOpen(final Session session) {
      final Recording rec = new Recording(session, this);
      recordings.put(session.id(), rec);
      opened.add(session);
      return rec;
    }

    Session nextOpened() throws InterruptedException {
      final Session s = opened.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
      assertThat(s).as("a session opened").isNotNull();
      return s;
    }

    Recording of(final Session session) {
      return recordings.get(session.id());
    }
  }

  private static final class Recording implements SessionInbound {
    final Session session;
    final Recorder recorder;
    final List<Object> frames = new CopyOnWriteArrayList<>();
    final AtomicInteger closedCount = new AtomicInteger();
    final CountDownLatch closed = new CountDownLatch(1);
    volatile boolean frameAfterClose;

    Recording(final Session session, final Recorder recorder) {
      this.session = session;
      this.recorder = recorder;
    }

    @Override
    public void onFrame(final Object frame) {
      if (closedCount.get() > 0) {
        frameAfterClose = true;
      }
      frames.add(frame);
      recorder.onFrame.accept(session, frame);
    }

    @Override
    public void onClosed() {
      closedCount.incrementAndGet();
      closed.countDown();
    }
  }

  /** A blocking line client with a read timeout, so no read can hang a test. */
  private static final class Client implements AutoCloseable {
    private final Socket socket;
    private final BufferedReader in;
    private final OutputStream out;

    Client(final InetSocketAddress address) throws IOException {
      socket = new Socket();
      socket.connect(address, (int) WAIT.toMillis());
      socket.setSoTimeout((int) WAIT.toMillis());
      in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
      out = socket.getOutputStream();
    }

    void send(final String text) throws IOException {
      sendBytes(text.getBytes(StandardCharsets.UTF_8));
    }

    void sendBytes(final byte[] bytes) throws IOException {
      out.write(bytes);
      out.flush();
    }

    String readLine() throws IOException {
      return in.readLine();
    }

    void shutdownOutput() throws IOException {
      socket.shutdownOutput();
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }
}
