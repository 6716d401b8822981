package dev.spotkit.core.internal.observe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.spotkit.core.NodeEvent;
import dev.spotkit.core.NodeEvents;
import dev.spotkit.core.NodeRid;
import dev.spotkit.core.SpotkitException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The event feed alone: delivery in emission order on its own thread, a throwing listener counted (and the next
 * listener still served), drops beyond {@link NodeEvents#QUEUE_LIMIT} counted, only listeners registered at
 * emission served, and the key=value text of the log line.
 */
class EventBusTest {
  private static final NodeRid NODE = new NodeRid(0x1234L);

  private static NodeEvent state(final NodeEvent.NodeLifecycle to) {
    return new NodeEvent.NodeStateChanged(Instant.now(), NODE, null, to, "test");
  }

  @Test
  void deliversInOrderOffTheEmittingThreadAndCountsAThrowingListener() {
    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    final NodeMetrics metrics = new NodeMetrics(registry, List.of());
    final EventBus bus = new EventBus("t", metrics);
    final List<String> seen = new CopyOnWriteArrayList<>();
    final List<Thread> threads = new CopyOnWriteArrayList<>();
    bus.addListener(e -> {
      throw new IllegalStateException("listener failure (test)");
    });
    bus.addListener(e -> {
      seen.add(((NodeEvent.NodeStateChanged) e).to().name());
      threads.add(Thread.currentThread());
    });
    for (int i = 0; i < 100; i++) {
      bus.emit(state(i % 2 == 0 ? NodeEvent.NodeLifecycle.RUNNING : NodeEvent.NodeLifecycle.CLOSING));
    }
    bus.close(state(NodeEvent.NodeLifecycle.CLOSED));
    await().atMost(Duration.ofSeconds(5)).until(() -> seen.size() == 101);
    for (int i = 0; i < 100; i++) {
      assertThat(seen.get(i)).isEqualTo(i % 2 == 0 ? "RUNNING" : "CLOSING");
    }
    assertThat(seen.get(100)).isEqualTo("CLOSED");
    assertThat(threads).allSatisfy(t -> assertThat(t.getName()).isEqualTo("spotkit-events-t"))
        .allSatisfy(t -> assertThat(t).isNotEqualTo(Thread.currentThread()));
    await().atMost(Duration.ofSeconds(5)).until(() -> bus.listenerFailures() == 101);
    assertThat(registry.get("spotkit.events.listener.failures").counter().count()).isEqualTo(101);
  }

  @Test
  void beyondTheQueueLimitEventsAreDroppedAndCounted() throws InterruptedException {
    final EventBus bus = new EventBus("t", NodeMetrics.OFF);
    final CountDownLatch release = new CountDownLatch(1);
    final CountDownLatch first = new CountDownLatch(1);
    bus.addListener(e -> {
      first.countDown();
      try {
        release.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException ex) {
        Thread.currentThread().interrupt();
      }
    });
    bus.emit(state(NodeEvent.NodeLifecycle.RUNNING)); // taken by the delivery thread, which then blocks
    assertThat(first.await(5, TimeUnit.SECONDS)).isTrue();
    for (int i = 0; i < NodeEvents.QUEUE_LIMIT + 4; i++) { // logged at DEBUG: no line each
      bus.emit(new NodeEvent.RelocationStarted(Instant.now(), NODE, "a" + i, NodeEvent.RelocationKind.HOST,
          NodeEvent.RelocationRole.SOURCE, NODE, "0".repeat(32)));
    }
    assertThat(bus.dropped()).isEqualTo(4);
    release.countDown();
    bus.close(null);
  }

  @Test
  void aListenerSeesOnlyEventsEmittedAfterItRegisteredAndCanBeRemoved() {
    final EventBus bus = new EventBus("t", NodeMetrics.OFF);
    final List<NodeEvent> early = new CopyOnWriteArrayList<>();
    final List<NodeEvent> late = new CopyOnWriteArrayList<>();
    bus.addListener(early::add);
    bus.emit(state(NodeEvent.NodeLifecycle.RUNNING));
    bus.addListener(late::add);
    assertThat(bus.removeListener(early::add)).as("another lambda instance is another listener").isFalse();
    bus.close(state(NodeEvent.NodeLifecycle.CLOSED));
    await().atMost(Duration.ofSeconds(5)).until(() -> early.size() == 2 && late.size() == 1);
    assertThat(late).extracting(e -> ((NodeEvent.NodeStateChanged) e).to())
        .containsExactly(NodeEvent.NodeLifecycle.CLOSED);
    assertThatThrownBy(() -> bus.addListener(null)).isInstanceOf(SpotkitException.InvalidOperation.class)
        .hasMessage("addListener(null): pass a NodeEventListener, e.g. event -> log.info(\"{}\", event)");
  }

  @Test
  void keyValuesQuoteValuesWithSpaces() {
    final NodeEvent.RelocationFailed failed = new NodeEvent.RelocationFailed(Instant.now(), NODE, "alice",
        NodeEvent.RelocationKind.JOIN, NodeEvent.RelocationRole.SOURCE, new NodeRid(0xabcL),
        "0000000000000001" + "0000000000000002", "target said \"no\"", false);
    assertThat(failed.code()).isEqualTo("relocation_failed");
    assertThat(failed.keyValues()).isEqualTo("object=alice kind=join role=source peer=" + new NodeRid(0xabcL)
        + " relocation=00000000000000010000000000000002 past_relay_ready=false reason=\"target said \\\"no\\\"\"");
    final NodeEvent.LateSessionRouteUpdate late = new NodeEvent.LateSessionRouteUpdate(Instant.now(), NODE, 7, "bob",
        "no such binding");
    assertThat(late.keyValues()).isEqualTo("session=7 actor=bob detail=\"no such binding\"");
  }
}
