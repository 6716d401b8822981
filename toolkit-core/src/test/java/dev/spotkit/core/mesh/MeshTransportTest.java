package dev.spotkit.core.mesh;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.spotkit.core.Deadline;
import dev.spotkit.core.NodeRid;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.core.wire.CreationCodec;
import dev.spotkit.core.wire.CreateResult;
import dev.spotkit.core.wire.OperationKind;
import dev.spotkit.core.wire.Reply;
import dev.spotkit.core.wire.ReplyCodec;
import dev.spotkit.core.wire.ReplyTail;
import dev.spotkit.core.wire.UserSpotCreate;
import dev.spotkit.core.wire.WireSpotRef;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Two and three {@link MeshTransport}s over loopback (127.0.0.1, ports chosen at bind time): handshake,
 * refusals, one connection per pair under simultaneous dial, ordering, request/reply with deadlines,
 * connection loss, oversized frames. Every wait is bounded (futures with timeouts, Awaitility, queues polled
 * with a timeout); nothing sleeps to synchronise.
 */
class MeshTransportTest {

  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final byte[] SECRET = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
  private static final NodeRid A = new NodeRid(0xA1);
  private static final NodeRid B = new NodeRid(0xB2);
  private static final NodeRid C = new NodeRid(0xC3);

  private final List<AutoCloseable> toClose = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = toClose.size() - 1; i >= 0; i--) {
      toClose.get(i).close();
    }
  }

  private MeshTransport start(final NodeRid rid, final Recorder recorder) throws IOException {
    return start(MeshConfig.builder(rid, 1, SECRET), recorder);
  }

  private MeshTransport start(final MeshConfig.Builder config, final Recorder recorder) throws IOException {
    final MeshTransport t = MeshTransport.start(config.handshakeTimeout(Duration.ofSeconds(3)).build(), recorder);
    toClose.add(t);
    return t;
  }

  private static PeerConnection join(final CompletableFuture<PeerConnection> f) throws Exception {
    return f.get(WAIT.toSeconds(), TimeUnit.SECONDS);
  }

  private static byte[] frame(final int command, final int seq) {
    return ByteBuffer.allocate(9).put(new byte[] {0x5A, 0x4D, 0x01, (byte) command, 0x00}).putInt(seq).array();
  }

  private static MeshConnectionException causeOf(final CompletableFuture<?> f) {
    final Throwable t = org.assertj.core.api.Assertions.catchThrowable(() -> f.get(WAIT.toSeconds(),
        TimeUnit.SECONDS));
    assertThat(t).isInstanceOf(ExecutionException.class);
    assertThat(t.getCause()).isInstanceOf(SpotkitException.Unavailable.class);
    assertThat(t.getCause().getCause()).isInstanceOf(MeshConnectionException.class);
    return (MeshConnectionException) t.getCause().getCause();
  }

  @Test
  void aNodeWhoseEveryHandshakeFailsOnTheProofSaysItsSecretIsLikelyWrong() throws Exception {
    final MeshTransport wrong = start(MeshConfig.builder(C, 1, "another-secret-of-32-bytes-abcdef".getBytes(
        StandardCharsets.US_ASCII)), new Recorder());
    final MeshTransport b = start(B, new Recorder());
    final MeshTransport a = start(A, new Recorder());
    final MeshTransport d = start(new NodeRid(0xD4), new Recorder());
    for (MeshTransport good : List.of(a, b, d)) {
      assertThat(causeOf(good.connect(wrong.localAddress(), C)).reason())
          .isEqualTo(CloseReason.AUTHENTICATION_FAILED);
    }
    join(a.connect(b.localAddress(), B));
    await().atMost(WAIT).until(wrong::secretLikelyWrong);
    assertThat(a.secretLikelyWrong()).isFalse(); // its own handshakes succeed
    assertThat(b.secretLikelyWrong()).isFalse();
  }

  @Test
  void failedDialsGiveBackTheirHandshakePlaceSoADeadPeerNeverLocksOutLivePeers() throws Exception {
    final MeshTransport a = start(A, new Recorder());
    final int deadPort;
    try (java.net.ServerSocket probe = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      deadPort = probe.getLocalPort(); // closed below: connects are refused
    }
    final java.net.InetSocketAddress dead = new java.net.InetSocketAddress("127.0.0.1", deadPort);
    final List<CompletableFuture<PeerConnection>> dials = new ArrayList<>();
    for (int i = 0; i < MeshTransport.MAX_HANDSHAKING + 20; i++) {
      dials.add(a.connect(dead, new NodeRid(0x1000 + i))); // distinct peers: no backoff between them
    }
    for (CompletableFuture<PeerConnection> dial : dials) {
      assertThat(causeOf(dial).reason()).isEqualTo(CloseReason.IO_ERROR);
    }
    await().atMost(WAIT).until(() -> a.handshakingNow() == 0);
    final MeshTransport b = start(B, new Recorder());
    assertThat(join(b.connect(a.localAddress(), A)).isOpen()).isTrue(); // a live peer is still let in
  }

  @Test
  void aPeerThatKeepsFailingIsDialedOnceAtATimeWithBackoff() throws Exception {
    final MeshTransport a = start(A, new Recorder());
    final java.util.concurrent.atomic.AtomicInteger accepted = new java.util.concurrent.atomic.AtomicInteger();
    try (java.net.ServerSocket hangUp = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
      final Thread acceptor = Thread.ofVirtual().start(() -> {
        while (!hangUp.isClosed()) {
          try (Socket s = hangUp.accept()) {
            accepted.incrementAndGet(); // closes at once: the dial fails before its handshake
          } catch (IOException e) {
            return;
          }
        }
      });
      final java.net.InetSocketAddress endpoint = new java.net.InetSocketAddress("127.0.0.1", hangUp.getLocalPort());
      final List<CompletableFuture<PeerConnection>> concurrent = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        concurrent.add(a.connect(endpoint, B)); // one dial shared by all
      }
      for (CompletableFuture<PeerConnection> dial : concurrent) {
        causeOf(dial);
      }
      final int afterFirst = accepted.get();
      for (int i = 0; i < 20; i++) {
        final MeshConnectionException e = causeOf(a.connect(endpoint, B)); // backing off: no new dial
        assertThat(e.detail()).contains("next attempt in");
      }
      assertThat(afterFirst).isEqualTo(1);
      assertThat(accepted.get()).isLessThanOrEqualTo(2);
      hangUp.close();
      acceptor.join(WAIT.toMillis());
    }
  }

  @Test
  void bindsLoopbackOnAFreePortAndHandshakes() throws Exception {
    final Recorder ra = new Recorder();
    final Recorder rb = new Recorder();
    final MeshTransport a = start(A, ra);
    final MeshTransport b = start(MeshConfig.builder(B, 7, SECRET), rb);
    assertThat(a.localAddress().getAddress().getHostAddress()).isEqualTo("127.0.0.1");
    assertThat(a.localAddress().getPort()).isPositive();

    final PeerConnection ab = join(a.connect(b.localAddress(), B));
    assertThat(ab.peerRid()).isEqualTo(B);
    assertThat(ab.peerGeneration()).isEqualTo(7);
    assertThat(ab.dialedByThisNode()).isTrue();
    assertThat(Recorder.next(ra.connected)).isSameAs(ab);
    final PeerConnection ba = Recorder.next(rb.connected);
    assertThat(ba.peerRid()).isEqualTo(A);
    assertThat(ba.peerGeneration()).isEqualTo(1);
    assertThat(ba.dialedByThisNode()).isFalse();
    assertThat(join(a.connect(b.localAddress(), B))).as("a second connect reuses the connection").isSameAs(ab);
    assertThat(a.connection(B)).contains(ab);
    assertThat(b.connections()).containsExactly(ba);
  }

  @Test
  void framesArriveInOrderBothWays() throws Exception {
    final Recorder ra = new Recorder();
    final Recorder rb = new Recorder();
    final MeshTransport a = start(A, ra);
    final MeshTransport b = start(B, rb);
    final PeerConnection ab = join(a.connect(b.localAddress(), B));
    final PeerConnection ba = Recorder.next(rb.connected);
    final int n = 2000;
    for (int i = 0; i < n; i++) {
      assertThat(ab.send(frame(21, i))).isTrue();
      assertThat(ba.send(frame(24, i))).isTrue();
    }
    for (int i = 0; i < n; i++) {
      assertThat(Recorder.next(rb.frames).bytes()).as("frame %d at b", i).containsExactly(frame(21, i));
      assertThat(Recorder.next(ra.frames).bytes()).as("frame %d at a", i).containsExactly(frame(24, i));
    }
  }

  /**
   * Command 52 frames travel up uncopied (a buffer for {@link MeshListener#onStateFrame}); a listener that does not
   * override it gets them as bytes through {@link MeshListener#onFrame}, in order with every other frame.
   */
  @Test
  void stateFramesReachAPlainListenerAsBytesInOrder() throws Exception {
    final Recorder rb = new Recorder();
    final MeshTransport a = start(A, new Recorder());
    final MeshTransport b = start(B, rb);
    final PeerConnection ab = join(a.connect(b.localAddress(), B));
    final int n = 200;
    for (int i = 0; i < n; i++) {
      assertThat(ab.send(frame(i % 2 == 0 ? 52 : 21, i))).isTrue();
    }
    for (int i = 0; i < n; i++) {
      assertThat(Recorder.next(rb.frames).bytes()).as("frame %d", i).containsExactly(frame(i % 2 == 0 ? 52 : 21, i));
    }
  }

  @Test
  void aFrameSentAsHeadAndBodySliceArrivesJoinedInCallOrder() throws Exception {
    final Recorder rb = new Recorder();
    final MeshTransport a = start(MeshConfig.builder(A, 1, SECRET).maxFrameLength(4096), new Recorder());
    final MeshTransport b = start(B, rb);
    final PeerConnection ab = join(a.connect(b.localAddress(), B));
    final byte[] body = new byte[3000];
    for (int i = 0; i < body.length; i++) {
      body[i] = (byte) (i * 31);
    }
    final byte[] head = {0x5A, 0x4D, 0x01, 52, 0x00, 7};
    final int n = 200;
    for (int i = 0; i < n; i++) {
      final int offset = (i * 13) % 1000;
      if (i % 3 == 0) {
        assertThat(ab.send(frame(21, i))).isTrue(); // interleaved with one-part frames, order kept
      }
      assertThat(ab.send(head, body, offset, i % 50)).isTrue(); // length 0 included: the head alone
    }
    for (int i = 0; i < n; i++) {
      if (i % 3 == 0) {
        assertThat(Recorder.next(rb.frames).bytes()).as("one-part frame %d", i).containsExactly(frame(21, i));
      }
      final int offset = (i * 13) % 1000;
      final byte[] expected = new byte[head.length + i % 50];
      System.arraycopy(head, 0, expected, 0, head.length);
      System.arraycopy(body, offset, expected, head.length, i % 50);
      assertThat(Recorder.next(rb.frames).bytes()).as("two-part frame %d", i).containsExactly(expected);
    }
    final byte[] big = new byte[4096];
    assertThat(ab.send(head, big, 0, 4096 - head.length)).as("exactly the limit").isTrue();
    assertThat(Recorder.next(rb.frames).bytes()).hasSize(4096);
    assertThatThrownBy(() -> ab.send(head, big, 0, 4096 - head.length + 1))
        .isInstanceOf(SpotkitException.InvalidOperation.class).hasMessageContaining("4097 bytes");
    assertThatThrownBy(() -> ab.send(new byte[0], body, 0, 10)).isInstanceOf(SpotkitException.InvalidOperation.class);
    assertThatThrownBy(() -> ab.send(head, body, 2990, 11)).isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> ab.send(head, body, -1, 1)).isInstanceOf(IndexOutOfBoundsException.class);
  }

  @Test
  void wrongSecretIsRefusedOnBothSides() throws Exception {
    final Recorder ra = new Recorder();
    final Recorder rb = new Recorder();
    final MeshTransport a = start(A, ra);
    final byte[] other = SECRET.clone();
    other[0] ^= 1;
    final MeshTransport b = start(MeshConfig.builder(B, 1, other), rb);

    final MeshConnectionException e = causeOf(a.connect(b.localAddress(), B));
    assertThat(e.reason()).isEqualTo(CloseReason.AUTHENTICATION_FAILED);
    assertThat(e.getMessage()).isEqualTo("AUTHENTICATION_FAILED: the peer's HMAC proof does not match: it does "
        + "not hold this mesh's cluster secret");
    assertThat(a.connections()).isEmpty();
    await().atMost(WAIT).until(() -> b.connections().isEmpty());
    assertThat(ra.everConnected).isEmpty();
    assertThat(rb.everConnected).isEmpty();
  }

  @Test
  void wrongExpectedNodeRidIsRefused() throws Exception {
    final MeshTransport a = start(A, new Recorder());
    final Recorder rb = new Recorder();
    final MeshTransport b = start(B, rb);
    final MeshConnectionException e = causeOf(a.connect(b.localAddress(), C));
    assertThat(e.reason()).isEqualTo(CloseReason.WRONG_PEER);
    assertThat(e.getMessage()).startsWith("WRONG_PEER: expected peer 00000000000000c3, got 00000000000000b2 at ");
    assertThat(rb.everConnected).isEmpty();
    assertThatThrownBy(() -> a.connect(b.localAddress(), A)).isInstanceOf(SpotkitException.InvalidOperation.class);
  }

  @Test
  void connectToANodeThatIsNotListeningFails() throws Exception {
    final MeshTransport a = start(A, new Recorder());
    final MeshTransport b = start(B, new Recorder());
    final java.net.InetSocketAddress gone = b.localAddress();
    b.close();
    assertThat(causeOf(a.connect(gone, B)).reason()).isIn(CloseReason.IO_ERROR, CloseReason.PEER_CLOSED);
  }

  @Test
  void simultaneousDialYieldsOneConnectionDialedByTheLowerRid() throws Exception {
    for (int round = 0; round < 15; round++) {
      final Recorder ra = new Recorder();
      final Recorder rb = new Recorder();
      final MeshTransport a = start(A, ra);
      final MeshTransport b = start(B, rb);
      final CyclicBarrier barrier = new CyclicBarrier(2);
      final CompletableFuture<CompletableFuture<PeerConnection>> fromB = CompletableFuture.supplyAsync(() -> {
        arrive(barrier);
        return b.connect(a.localAddress(), A);
      });
      arrive(barrier);
      final PeerConnection ab = join(a.connect(b.localAddress(), B));
      final PeerConnection ba = join(fromB.get(WAIT.toSeconds(), TimeUnit.SECONDS));

      assertThat(ab.dialedByThisNode()).as("round %d: A (lower rid) dialed the survivor", round).isTrue();
      assertThat(ba.dialedByThisNode()).isFalse();
      assertThat(a.connections()).containsExactly(ab);
      assertThat(b.connections()).containsExactly(ba);
      assertThat(ab.send(frame(21, round))).isTrue();
      assertThat(Recorder.next(rb.frames).from()).isSameAs(ba);
      assertThat(ra.everConnected).containsExactly(ab);
      assertThat(rb.everConnected).containsExactly(ba);
      assertThat(ra.lost).isEmpty();
      a.close();
      b.close();
    }
  }

  private static void arrive(final CyclicBarrier barrier) {
    try {
      barrier.await(WAIT.toSeconds(), TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void threeNodesFullMeshDeliverInOrderPerPair() throws Exception {
    final NodeRid[] rids = {A, B, C};
    final Recorder[] rec = {new Recorder(), new Recorder(), new Recorder()};
    final MeshTransport[] t = new MeshTransport[3];
    for (int i = 0; i < 3; i++) {
      t[i] = start(rids[i], rec[i]);
    }
    final List<CompletableFuture<PeerConnection>> dials = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      for (int j = 0; j < 3; j++) {
        if (i != j) {
          dials.add(t[i].connect(t[j].localAddress(), rids[j])); // each pair dials both ways
        }
      }
    }
    for (CompletableFuture<PeerConnection> d : dials) {
      join(d);
    }
    for (int i = 0; i < 3; i++) {
      assertThat(t[i].connections()).as("node %d", i).hasSize(2);
    }
    final int n = 500;
    for (int s = 0; s < n; s++) {
      for (int i = 0; i < 3; i++) {
        for (PeerConnection c : t[i].connections()) {
          c.send(frame(21, i * 1_000_000 + s));
        }
      }
    }
    for (int j = 0; j < 3; j++) {
      final int[] nextFrom = new int[3];
      for (int k = 0; k < 2 * n; k++) {
        final Recorder.Frame f = Recorder.next(rec[j].frames);
        final int seq = ByteBuffer.wrap(f.bytes(), 5, 4).getInt();
        final int sender = seq / 1_000_000;
        assertThat(seq % 1_000_000).as("node %d from %d", j, sender).isEqualTo(nextFrom[sender]++);
        assertThat(f.from().peerRid()).isEqualTo(rids[sender]);
      }
    }
  }

  @Test
  void requestGetsItsCorrelatedReplyOrDeadlineExceeded() throws Exception {
    final Recorder rb = new Recorder();
    final MeshTransport a = start(A, new Recorder());
    final MeshTransport b = start(B, rb);
    rb.onFrame = (from, frame) -> { // answers userSpotCreate unless the spot id says "silent"
      final UserSpotCreate request = CreationCodec.decodeUserSpotCreate(frame);
      if (!request.spotId().equals("silent")) {
        from.send(ReplyCodec.encode(Reply.ok(request.correlation(), new ReplyTail.UserSpotCreated(
            CreateResult.CREATED, new WireSpotRef(request.spotId(), 9)))));
      }
    };
    final PeerConnection ab = join(a.connect(b.localAddress(), B));

    final List<CompletableFuture<byte[]>> replies = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      final String id = "room-" + i;
      replies.add(ab.request(c -> CreationCodec.encode(userSpotCreate(c, id)), Deadline.after(WAIT)));
    }
    for (int i = 0; i < 50; i++) {
      final Reply reply = ReplyCodec.decode(replies.get(i).get(WAIT.toSeconds(), TimeUnit.SECONDS),
          OperationKind.USER_SPOT_CREATE);
      assertThat(((ReplyTail.UserSpotCreated) reply.tail()).spot().spotId()).isEqualTo("room-" + i);
    }

    final CompletableFuture<byte[]> silent = ab.request(c -> CreationCodec.encode(userSpotCreate(c, "silent")),
        Deadline.after(Duration.ofMillis(200)));
    final Throwable t = org.assertj.core.api.Assertions.catchThrowable(() -> silent.get(WAIT.toSeconds(),
        TimeUnit.SECONDS));
    assertThat(t.getCause()).isInstanceOf(SpotkitException.DeadlineExceeded.class)
        .hasMessageEndingWith("to peer 00000000000000b2: no reply before the deadline");
  }

  private static UserSpotCreate userSpotCreate(final long correlation, final String spotId) {
    return new UserSpotCreate(correlation, new dev.spotkit.relocation.wire.OperationId(1, correlation),
        dev.spotkit.core.wire.Rids.of(A), 1, spotId, "chat.Room",
        new dev.spotkit.core.wire.ReservationFence("r", "v1", 1, 1, dev.spotkit.core.wire.Rids.of(B), 1, "owner",
            1, 1), System.currentTimeMillis() + 10_000);
  }

  @Test
  void peerCloseGivesConnectionLostAndFailsPendingRequests() throws Exception {
    final Recorder ra = new Recorder();
    final Recorder rb = new Recorder();
    final MeshTransport a = start(A, ra);
    final MeshTransport b = start(B, rb);
    final PeerConnection ab = join(a.connect(b.localAddress(), B));
    final PeerConnection ba = Recorder.next(rb.connected);
    final CompletableFuture<byte[]> pending = ab.request(c -> frame(47, (int) c), Deadline.after(WAIT));
    Recorder.next(rb.frames); // b got the request and will never answer

    ba.close();
    final Recorder.Lost lostAtA = Recorder.next(ra.lost);
    assertThat(lostAtA.connection()).isSameAs(ab);
    assertThat(lostAtA.reason()).isEqualTo(CloseReason.PEER_CLOSED);
    assertThat(Recorder.next(rb.lost).reason()).isEqualTo(CloseReason.LOCAL_CLOSE);
    final Throwable t = org.assertj.core.api.Assertions.catchThrowable(() -> pending.get(WAIT.toSeconds(),
        TimeUnit.SECONDS));
    assertThat(t.getCause()).isInstanceOf(SpotkitException.Unavailable.class);
    assertThat(((MeshConnectionException) t.getCause().getCause()).reason()).isEqualTo(CloseReason.PEER_CLOSED);
    assertThat(ab.isOpen()).isFalse();
    assertThat(ab.send(frame(21, 1))).isFalse();
    assertThat(ab.closeFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(CloseReason.PEER_CLOSED);
    assertThat(a.connection(B)).isEmpty();

    final PeerConnection again = join(a.connect(b.localAddress(), B));
    assertThat(again).isNotSameAs(ab);
    assertThat(again.isOpen()).isTrue();
  }

  @Test
  void oversizedFrameClosesTheConnection() throws Exception {
    final Recorder ra = new Recorder();
    final Recorder rb = new Recorder();
    final MeshTransport a = start(MeshConfig.builder(A, 1, SECRET).maxFrameLength(1 << 20), ra);
    final MeshTransport b = start(MeshConfig.builder(B, 1, SECRET).maxFrameLength(1024), rb);
    final PeerConnection ab = join(a.connect(b.localAddress(), B));
    Recorder.next(rb.connected);
    final byte[] big = Arrays.copyOf(frame(21, 0), 1025);
    assertThat(ab.peerMaxFrameLength()).as("B's limit, learnt in the handshake").isEqualTo(1024);
    assertThat(ab.send(frame(21, 1))).isTrue();
    // The sender knows B's limit: the frame is refused before it is queued, and the connection stays.
    assertThatThrownBy(() -> ab.send(big)).isInstanceOf(SpotkitException.CapacityExceeded.class)
        .hasMessageStartingWith("frame of 1025 bytes is over the frame limit 1024 of peer");
    assertThat(ab.send(frame(21, 2))).isTrue();
    assertThat(Recorder.next(rb.frames).bytes()).containsExactly(frame(21, 1));
    assertThat(Recorder.next(rb.frames).bytes()).containsExactly(frame(21, 2));
    // A peer that sends one anyway (written past the sender's check) is disconnected by the receiver.
    ab.channel().writeAndFlush(io.netty.buffer.Unpooled.wrappedBuffer(big));

    assertThat(Recorder.next(rb.lost).reason()).isEqualTo(CloseReason.OVERSIZED_FRAME);
    assertThat(Recorder.next(ra.lost).reason()).isEqualTo(CloseReason.PEER_CLOSED);
    assertThat(rb.frames).isEmpty();
    assertThatThrownBy(() -> ab.send(new byte[(1 << 20) + 1]))
        .isInstanceOf(SpotkitException.InvalidOperation.class)
        .hasMessageStartingWith("frame of 1048577 bytes is outside 1..maxFrameLength 1048576");
  }

  @Test
  void malformedFrameAfterTheHandshakeClosesTheConnection() throws Exception {
    final Recorder rb = new Recorder();
    final MeshTransport a = start(A, new Recorder());
    final MeshTransport b = start(B, rb);
    final PeerConnection ab = join(a.connect(b.localAddress(), B));
    Recorder.next(rb.connected);
    ab.send("hello".getBytes(StandardCharsets.US_ASCII));
    assertThat(Recorder.next(rb.lost).reason()).isEqualTo(CloseReason.MALFORMED_FRAME);
    assertThat(rb.frames).isEmpty();
  }

  @Test
  void anUnauthenticatedPeerCannotMakeTheNodeBufferAFullSizeFrame() throws Exception {
    final Recorder rb = new Recorder();
    final MeshTransport b = start(B, rb);
    try (Socket raw = new Socket(b.localAddress().getAddress(), b.localAddress().getPort())) {
      raw.setSoTimeout((int) WAIT.toMillis());
      final OutputStream out = raw.getOutputStream();
      // a handshake-looking frame that declares 16 MiB - 16 bytes: under the frame limit, over the handshake's
      out.write(new byte[] {0, (byte) 0xFF, (byte) 0xFF, (byte) 0xF0, 0x53, 0x4B});
      out.flush();
      assertThat(raw.getInputStream().read()).as("closed at the length prefix, nothing buffered").isEqualTo(-1);
    }
    assertThat(rb.everConnected).isEmpty();
    // a proper peer still connects
    final MeshTransport a = start(A, new Recorder());
    assertThat(a.connect(b.localAddress(), B).get(WAIT.toMillis(), TimeUnit.MILLISECONDS).isOpen()).isTrue();
  }

  @Test
  void frameworkFrameBeforeTheHandshakeIsRefused() throws Exception {
    final Recorder rb = new Recorder();
    final MeshTransport b = start(B, rb);
    try (Socket raw = new Socket(b.localAddress().getAddress(), b.localAddress().getPort())) {
      raw.setSoTimeout((int) WAIT.toMillis());
      final OutputStream out = raw.getOutputStream();
      // a command 52 (passed up uncopied, released by the handshake handler) and a command 21
      out.write(ByteBuffer.allocate(26).putInt(9).put(frame(52, 7)).putInt(9).put(frame(21, 7)).array());
      out.flush();
      final InputStream in = raw.getInputStream();
      int read = 0;
      while (in.read() >= 0) { // b may have sent nothing; it closes without answering a framework frame
        if (++read > 1024) {
          throw new AssertionError("connection not closed");
        }
      }
    }
    assertThat(rb.everConnected).isEmpty();
    assertThat(rb.frames).isEmpty();
  }

  @Test
  void dialerWithoutTheSecretIsRefusedByTheAcceptor() throws Exception {
    final Recorder rb = new Recorder();
    final MeshTransport b = start(B, rb);
    try (Socket raw = new Socket(b.localAddress().getAddress(), b.localAddress().getPort())) {
      raw.setSoTimeout((int) WAIT.toMillis());
      final OutputStream out = raw.getOutputStream();
      final byte[] hello = Handshake.hello(new Handshake.Hello(A.value(), 1, Handshake.nonce(), MeshConfig.DEFAULT_MAX_FRAME_LENGTH));
      out.write(ByteBuffer.allocate(4 + hello.length).putInt(hello.length).put(hello).array());
      out.flush();
      final InputStream in = raw.getInputStream();
      final int challengeLength = ByteBuffer.wrap(in.readNBytes(4)).getInt();
      final byte[] challenge = in.readNBytes(challengeLength);
      assertThat(Handshake.parse(challenge)).isInstanceOf(Handshake.ChallengeMsg.class);
      final byte[] proof = Handshake.proof(new byte[Handshake.PROOF_BYTES]); // a guess, not an HMAC
      out.write(ByteBuffer.allocate(4 + proof.length).putInt(proof.length).put(proof).array());
      out.flush();
      assertThat(in.read()).as("closed without ACCEPT").isEqualTo(-1);
    }
    assertThat(rb.everConnected).isEmpty();
    assertThat(b.connections()).isEmpty();
  }
}
