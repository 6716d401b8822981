package dev.spotkit.core.internal.observe;

import dev.spotkit.core.NodeEvent;
import dev.spotkit.core.NodeEventListener;
import dev.spotkit.core.NodeEvents;
import dev.spotkit.core.SpotkitException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's event feed behind {@code MeshNode.events()}: logs every emitted event as one key=value line and hands
 * it to the listeners on one delivery thread (a virtual thread, started with the first listener), through a queue
 * of at most {@link NodeEvents#QUEUE_LIMIT} events. Any thread.
 */
public final class EventBus implements NodeEvents {
  /** The logger of the event lines. */
  public static final Logger LOG = LoggerFactory.getLogger("dev.spotkit.core.events");

  private final CopyOnWriteArrayList<NodeEventListener> listeners = new CopyOnWriteArrayList<>();
  private final AtomicLong failures = new AtomicLong();
  private final AtomicLong droppedEvents = new AtomicLong();
  private final String threadName;
  private final NodeMetrics metrics;
  /** Created with the first listener; guarded by this for creation, then read without a lock. */
  private volatile ThreadPoolExecutor delivery;
  /** Set once by {@link #close()}: no delivery thread is created any more. */
  private volatile boolean closed;

  /**
   * A feed for one node.
   *
   * @param meshName names the delivery thread, {@code spotkit-events-<mesh>}.
   * @param metrics counts listener failures and drops (may be the off instance).
   */
  public EventBus(final String meshName, final NodeMetrics metrics) {
    this.threadName = "spotkit-events-" + meshName;
    this.metrics = metrics;
  }

  @Override
  public NodeEvents addListener(final NodeEventListener listener) {
    if (listener == null) {
      throw new SpotkitException.InvalidOperation("addListener(null): pass a NodeEventListener, e.g."
          + " event -> log.info(\"{}\", event)");
    }
    listeners.add(listener);
    return this;
  }

  @Override
  public boolean removeListener(final NodeEventListener listener) {
    return listeners.remove(listener);
  }

  @Override
  public long listenerFailures() {
    return failures.get();
  }

  @Override
  public long dropped() {
    return droppedEvents.get();
  }

  /**
   * Logs {@code event} and queues it for the listeners. Never blocks, never throws; any thread.
   *
   * @param event the event.
   */
  public void emit(final NodeEvent event) {
    log(event);
    if (listeners.isEmpty()) {
      return;
    }
    final ThreadPoolExecutor executor = executor();
    if (executor == null) {
      return;
    }
    final NodeEventListener[] now = listeners.toArray(new NodeEventListener[0]); // those registered at emission
    try {
      executor.execute(() -> deliver(event, now));
    } catch (RejectedExecutionException e) {
      droppedEvents.incrementAndGet();
      metrics.eventDropped();
    }
  }

  /**
   * Emits an event to the listeners; then no new delivery thread starts, and the existing one ends once it delivered
   * what is queued. Idempotent; does not wait.
   *
   * @param last the node's last event (its CLOSED state change), or null.
   */
  public void close(final NodeEvent last) {
    if (last != null) {
      emit(last);
    }
    synchronized (this) {
      closed = true;
      final ThreadPoolExecutor executor = delivery;
      if (executor != null) {
        executor.shutdown();
      }
    }
  }

  private ThreadPoolExecutor executor() {
    final ThreadPoolExecutor existing = delivery;
    if (existing != null) {
      return existing;
    }
    synchronized (this) {
      if (delivery == null && !closed) {
        delivery = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(QUEUE_LIMIT),
            Thread.ofVirtual().name(threadName).factory());
      }
      return delivery;
    }
  }

  private void deliver(final NodeEvent event, final NodeEventListener[] to) {
    for (NodeEventListener listener : to) {
      try {
        listener.onEvent(event);
      } catch (RuntimeException | LinkageError | AssertionError e) {
        failures.incrementAndGet();
        metrics.listenerFailed();
        LOG.warn("event listener {} threw on event={}; the node goes on", listener, event.code(), e);
      }
    }
  }

  private static void log(final NodeEvent event) {
    switch (event) {
      case NodeEvent.LocationUpdateFailed e -> LOG.error("event={} {} node={}", e.code(), e.keyValues(), e.node());
      case NodeEvent.LeaseLost e -> LOG.error("event={} {} node={}", e.code(), e.keyValues(), e.node());
      case NodeEvent.CutoverTimeout e -> LOG.warn("event={} {} node={}", e.code(), e.keyValues(), e.node());
      case NodeEvent.LateCutover e -> LOG.warn("event={} {} node={}", e.code(), e.keyValues(), e.node());
      case NodeEvent.LateSessionRouteUpdate e -> LOG.warn("event={} {} node={}", e.code(), e.keyValues(), e.node());
      case NodeEvent.RelocationFailed e -> LOG.warn("event={} {} node={}", e.code(), e.keyValues(), e.node());
      case NodeEvent.NodeStateChanged e -> LOG.info("event={} {} node={}", e.code(), e.keyValues(), e.node());
      case NodeEvent.LeaseAdmissionChanged e -> {
        if (e.admitting()) {
          LOG.info("event={} {} node={}", e.code(), e.keyValues(), e.node());
        } else {
          LOG.warn("event={} {} node={}", e.code(), e.keyValues(), e.node());
        }
      }
      case NodeEvent.RelocationStarted e -> debug(e);
      case NodeEvent.RelocationCommitted e -> debug(e);
    }
  }

  private static void debug(final NodeEvent event) {
    if (LOG.isDebugEnabled()) {
      LOG.debug("event={} {} node={}", event.code(), event.keyValues(), event.node());
    }
  }

  /**
   * Whether the feed has listeners (callers skip building an event nobody reads only when it would not be logged
   * either; most always build it).
   *
   * @return true when at least one listener is registered.
   */
  public boolean hasListeners() {
    return !listeners.isEmpty();
  }
}
