package dev.spotkit.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spotkit.core.internal.runtime.NodeRuntime;
import dev.spotkit.core.mesh.PeerConnection;
import dev.spotkit.testkit.TestMesh;
import io.netty.channel.Channel;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Outbound toward a peer that does not read (issue 12 items 1 and 2). Node A sends one-way messages to actors on B
 * while B's mesh connection has reading switched off (Netty auto-read off on B's end, so B's kernel buffers fill
 * and A's writes back up). Forbidden: sends accepted without limit and without slowing (memory on A growing with
 * every send, tasks piling up on A's event loop); a message accepted and then lost. And a frame over the peer's
 * frame limit must be refused at the sender with a typed error, not sent to be dropped with the connection.
 */
class MeshOutboundBoundTest {
  /** A's per-peer outbound bound in these tests. */
  static final long BOUND = 1 << 20;
  /** A one-way send waits at most this long for room. */
  static final Duration SEND_TIMEOUT = Duration.ofMillis(500);
  static final int SENDERS = 100;
  static final int PAYLOAD = 1024;
  /** How long the senders run while B does not read. */
  static final Duration STALL = Duration.ofSeconds(4);

  static final AtomicInteger HANDLED = new AtomicInteger();

  record Blob(int sender, int n, String body) {}

  static final class Sink implements Actor {
    @Override
    public void configure(final ActorHandlers on) {
      on.message(Blob.class, b -> HANDLED.incrementAndGet());
    }
  }

  private TestMesh mesh;

  @AfterEach
  void close() {
    if (mesh != null) {
      mesh.close();
    }
    HANDLED.set(0);
  }

  /** Node A (0): weight 0, 1 MiB frames; node B (1): weight 100, {@code maxFrameBytesOfB}. */
  private void start(final int maxFrameBytesOfB) {
    mesh = TestMesh.builder().meshName("bound")
        .mesh((m, i) -> m.placementWeight(i == 0 ? 0 : 100).maxFrameBytes(i == 0 ? 1 << 20 : maxFrameBytesOfB)
            .maxPendingOutboundBytes(BOUND).sendTimeout(SEND_TIMEOUT))
        .objectServer(s -> s.entrySpot(TestNodes.PlainEntry::new).actor("sink", ctx -> new Sink(),
            a -> a.disableRelocation()))
        .start(2);
  }

  @Test
  void sendsToAPeerThatDoesNotReadAreSlowedThenRefusedWithinTheBoundAndResumeWhenItReads() throws Exception {
    start(1 << 20);
    final MeshNode a = mesh.node(0); // weight 0: every sink lands on B
    final MeshNode b = mesh.node(1);
    final List<String> sinks = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      sinks.add(mesh.actorOn(1, 0, "sink" + i, "sink"));
    }
    final String body = "x".repeat(PAYLOAD);
    a.toActor(sinks.get(0)).send(new Blob(-1, 0, body)); // connects A to B
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> HANDLED.get() == 1);
    final PeerConnection aToB = runtime(a).mesh().open(b.nodeRid()).orElseThrow();
    final PeerConnection bToA = runtime(b).mesh().open(a.nodeRid()).orElseThrow();
    final Channel bChannel = channel(bToA);
    bChannel.eventLoop().submit(() -> bChannel.config().setAutoRead(false)).get(5, TimeUnit.SECONDS);

    final long heapBefore = heapAfterGc();
    final long directBefore = directBytes();
    final AtomicInteger accepted = new AtomicInteger(1);
    final Map<String, AtomicInteger> errors = new ConcurrentHashMap<>();
    final AtomicLong slowestRefusalNanos = new AtomicLong();
    final AtomicLong fastestRefusalNanos = new AtomicLong(Long.MAX_VALUE);
    final long stallEnds = System.nanoTime() + STALL.toNanos();
    final List<Thread> senders = new ArrayList<>();
    for (int s = 0; s < SENDERS; s++) {
      final int sender = s;
      senders.add(Thread.ofVirtual().start(() -> {
        // Bounded: by the stall window, and by 100,000 sends per sender.
        for (int n = 0; n < 100_000 && System.nanoTime() - stallEnds < 0; n++) {
          final long started = System.nanoTime();
          try {
            a.toActor(sinks.get((sender + n) % sinks.size())).send(new Blob(sender, n, body));
            accepted.incrementAndGet();
          } catch (SpotkitException e) {
            final long took = System.nanoTime() - started;
            errors.computeIfAbsent(e.getClass().getSimpleName(), k -> new AtomicInteger()).incrementAndGet();
            slowestRefusalNanos.accumulateAndGet(took, Math::max);
            fastestRefusalNanos.accumulateAndGet(took, Math::min);
          }
        }
      }));
    }
    for (Thread t : senders) {
      t.join(STALL.plusSeconds(20).toMillis());
      assertThat(t.isAlive()).as("sender stopped").isFalse();
    }
    final long peak = aToB.peakPendingOutboundBytes();
    final long heapStalled = heapAfterGc();
    final long directStalled = directBytes();
    System.out.printf("outbound bound %d B: accepted %d, typed errors %s, peak pending %d B, pending now %d B,"
        + " heap retained +%d KiB, direct +%d KiB, refusals took %d..%d ms%n", BOUND, accepted.get(), errors,
        peak, aToB.pendingOutboundBytes(), (heapStalled - heapBefore) / 1024, (directStalled - directBefore) / 1024,
        TimeUnit.NANOSECONDS.toMillis(fastestRefusalNanos.get() == Long.MAX_VALUE ? 0 : fastestRefusalNanos.get()),
        TimeUnit.NANOSECONDS.toMillis(slowestRefusalNanos.get()));

    assertThat(errors).as("senders refused with a typed error once the bound stayed full").containsOnlyKeys(
        "CapacityExceeded");
    assertThat(fastestRefusalNanos.get()).as("a refused sender was slowed for its send timeout first")
        .isGreaterThanOrEqualTo(SEND_TIMEOUT.toNanos() - TimeUnit.MILLISECONDS.toNanos(5));
    // One 1 KiB message is a frame of about 1.1 KiB; the bound admits frames up to it, never past it.
    assertThat(peak).as("bytes pending toward the stalled peer").isLessThanOrEqualTo(BOUND);
    assertThat(aToB.pendingOutboundBytes()).isLessThanOrEqualTo(BOUND);
    // What left A sits in the two kernels' socket buffers (a few MiB on loopback), not in A's heap.
    assertThat((long) accepted.get() * PAYLOAD).as("bytes accepted while B did not read")
        .isLessThan(BOUND + (32L << 20));
    assertThat(heapStalled - heapBefore).as("heap kept after GC while stalled").isLessThan(64L << 20);

    // B reads again: every accepted message arrives, and sends go through again without waiting.
    bChannel.eventLoop().submit(() -> bChannel.config().setAutoRead(true)).get(5, TimeUnit.SECONDS);
    Awaitility.await().atMost(30, TimeUnit.SECONDS).until(() -> HANDLED.get() == accepted.get());
    a.toActor(sinks.get(0)).send(new Blob(-1, 1, body));
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> HANDLED.get() == accepted.get() + 1);
    assertThat(aToB.pendingOutboundBytes()).isZero();
  }

  @Test
  void aFrameOverThePeersFrameLimitIsRefusedAtTheSenderAndNothingVanishes() {
    start(64 * 1024);
    final MeshNode a = mesh.node(0);
    final MeshNode b = mesh.node(1);
    final String sink = mesh.actorOn(1, 0, "small", "sink");
    final String big = "y".repeat(100 * 1024); // fits A's 1 MiB frames, not B's 64 KiB ones
    int sentOk = 0;
    int refused = 0;
    for (int i = 0; i < 100; i++) {
      try {
        a.toActor(sink).send(new Blob(0, i, i % 2 == 0 ? big : "small"));
        sentOk++;
      } catch (SpotkitException.CapacityExceeded e) {
        assertThat(e.getMessage()).contains("frame limit 65536 of peer");
        refused++;
      }
    }
    assertThat(refused).as("every frame over B's limit refused at A").isEqualTo(50);
    final int expected = sentOk;
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> HANDLED.get() == expected);
    assertThat(HANDLED.get()).as("every send that returned normally arrived").isEqualTo(50);
    assertThatThrownBy(() -> a.toActor(sink).request(new Blob(0, 1, big), Object.class)
        .timeout(Duration.ofSeconds(5)).await()).isInstanceOf(SpotkitException.CapacityExceeded.class);
  }

  static NodeRuntime runtime(final MeshNode node) throws ReflectiveOperationException {
    final java.lang.reflect.Field field = MeshNode.class.getDeclaredField("rt");
    field.setAccessible(true);
    return (NodeRuntime) field.get(node);
  }

  static Channel channel(final PeerConnection connection) throws ReflectiveOperationException {
    final java.lang.reflect.Field field = PeerConnection.class.getDeclaredField("channel");
    field.setAccessible(true);
    return (Channel) field.get(connection);
  }

  static long heapAfterGc() {
    System.gc();
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  /** Direct memory: the JDK's direct buffer pool plus Netty's own (no-cleaner) direct memory. */
  static long directBytes() {
    long used = io.netty.util.internal.PlatformDependent.usedDirectMemory();
    for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
      if ("direct".equals(pool.getName())) {
        used += pool.getMemoryUsed();
      }
    }
    return Math.max(0, used);
  }
}
