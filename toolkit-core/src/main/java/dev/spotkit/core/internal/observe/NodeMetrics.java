package dev.spotkit.core.internal.observe;

import dev.spotkit.core.NodeEvent;
import dev.spotkit.mailbox.Dispatcher;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;
import java.util.function.Supplier;

/**
 * Every Micrometer meter of one node, and the hooks the runtime calls. Built once per node; the {@link #OFF}
 * instance (no registry) registers nothing and every hook returns at its first null check. The meter names are
 * listed in {@code MeshNode.Builder#metrics}. Any thread.
 */
public final class NodeMetrics {
  /** Metrics off: no registry, no meter, every hook a no-op. */
  public static final NodeMetrics OFF = new NodeMetrics();

  /**
   * Fixed bucket bounds of {@code spotkit.relocation.pause}, 5 ms..10 s: every registry shows them (a
   * {@code SimpleMeterRegistry} shows no percentile histogram), beside the percentile histogram of registries that
   * publish one (Prometheus).
   */
  static final Duration[] PAUSE_BUCKETS = {Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(25),
      Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500),
      Duration.ofSeconds(1), Duration.ofMillis(2500), Duration.ofSeconds(5), Duration.ofSeconds(10)};

  private final MeterRegistry registry;
  private final Tags tags;
  /** Every meter this node registered, removed from the registry when the node closes. */
  private final List<Meter> registered = new CopyOnWriteArrayList<>();
  private final ConcurrentHashMap<String, TypeMeters> types = new ConcurrentHashMap<>();
  private final Map<NodeEvent.RelocationKind, Map<NodeEvent.RelocationRole, Counter>> started;
  private final Map<NodeEvent.RelocationKind, Map<NodeEvent.RelocationRole, Counter[]>> ended;
  private final Map<NodeEvent.RelocationRole, Timer> pause;
  private final Counter relocationBytes;
  private final Counter followForwards;
  private final Counter renewalsOk;
  private final Counter renewalsFailed;
  private final Counter meshIn;
  private final Counter meshOut;
  private final Counter sessionsOpened;
  private final Counter sessionsClosed;
  private final Counter listenerFailures;
  private final Counter eventsDropped;
  private final Counter deadRowsSwept;

  private NodeMetrics() {
    this.registry = null;
    this.tags = Tags.empty();
    this.started = null;
    this.ended = null;
    this.pause = null;
    this.relocationBytes = null;
    this.followForwards = null;
    this.renewalsOk = null;
    this.renewalsFailed = null;
    this.meshIn = null;
    this.meshOut = null;
    this.sessionsOpened = null;
    this.sessionsClosed = null;
    this.listenerFailures = null;
    this.eventsDropped = null;
    this.deadRowsSwept = null;
  }

  /**
   * Metrics on: registers the node-wide meters at once (relocations, store, lease, mesh, sessions, events); per type
   * meters come with the first cell of each type, gauges of the runtime with {@link #bindRuntime}.
   *
   * @param registry where the meters go.
   * @param extraTags tags added to every meter of this node (e.g. to tell two nodes of one process apart).
   */
  public NodeMetrics(final MeterRegistry registry, final Iterable<Tag> extraTags) {
    this.registry = registry;
    this.tags = Tags.of(extraTags);
    this.started = new EnumMap<>(NodeEvent.RelocationKind.class);
    this.ended = new EnumMap<>(NodeEvent.RelocationKind.class);
    for (NodeEvent.RelocationKind kind : NodeEvent.RelocationKind.values()) {
      final Map<NodeEvent.RelocationRole, Counter> s = new EnumMap<>(NodeEvent.RelocationRole.class);
      final Map<NodeEvent.RelocationRole, Counter[]> e = new EnumMap<>(NodeEvent.RelocationRole.class);
      for (NodeEvent.RelocationRole role : NodeEvent.RelocationRole.values()) {
        final Tags kr = Tags.of("kind", lower(kind), "role", lower(role));
        s.put(role, counter("spotkit.relocations.started", "relocation units started on this node", null, kr));
        e.put(role, new Counter[] {
            counter("spotkit.relocations", "relocation units ended on this node, by outcome", null,
                kr.and("outcome", "committed")),
            counter("spotkit.relocations", "relocation units ended on this node, by outcome", null,
                kr.and("outcome", "failed"))});
      }
      started.put(kind, s);
      ended.put(kind, e);
    }
    this.pause = new EnumMap<>(NodeEvent.RelocationRole.class);
    for (NodeEvent.RelocationRole role : NodeEvent.RelocationRole.values()) {
      pause.put(role, add(Timer.builder("spotkit.relocation.pause")
          .description("how long a committed relocation paused its object, as seen from this side (source: seal to"
              + " commit read; target: Restore arrival to queue open)")
          .tags(tags).tag("role", lower(role))
          .publishPercentileHistogram()
          .serviceLevelObjectives(PAUSE_BUCKETS)
          .minimumExpectedValue(Duration.ofMillis(1)).maximumExpectedValue(Duration.ofSeconds(30))
          .register(registry)));
    }
    this.relocationBytes = counter("spotkit.relocation.bytes", "relocation payload bytes sent (state chunks, command"
        + " 52)", "bytes", Tags.of("direction", "sent"));
    this.followForwards = counter("spotkit.relocation.follow.forwards", "messages forwarded by Message Follow to an"
        + " object's new owner", null, Tags.empty());
    this.renewalsOk = counter("spotkit.lease.renewals", "owner lease renewals, by outcome", null,
        Tags.of("outcome", "ok"));
    this.renewalsFailed = counter("spotkit.lease.renewals", "owner lease renewals, by outcome", null,
        Tags.of("outcome", "failed"));
    this.meshIn = counter("spotkit.mesh.bytes", "bytes read from and written to mesh peer connections", "bytes",
        Tags.of("direction", "received"));
    this.meshOut = counter("spotkit.mesh.bytes", "bytes read from and written to mesh peer connections", "bytes",
        Tags.of("direction", "sent"));
    this.sessionsOpened = counter("spotkit.sessions.opened", "client sessions accepted", null, Tags.empty());
    this.sessionsClosed = counter("spotkit.sessions.closed", "client sessions closed", null, Tags.empty());
    this.listenerFailures = counter("spotkit.events.listener.failures", "exceptions thrown by event listeners", null,
        Tags.empty());
    this.eventsDropped = counter("spotkit.events.dropped", "events not delivered: the delivery queue was full", null,
        Tags.empty());
    this.deadRowsSwept = counter("spotkit.recovery.swept", "location rows of dead owners removed by this node's"
        + " background sweep (Ready rows swept, Creating rows aborted)", null, Tags.empty());
  }

  /** @return true when a registry is set. */
  public boolean enabled() {
    return registry != null;
  }

  /** @return the registry, or null when off. */
  public MeterRegistry registry() {
    return registry;
  }

  /**
   * The runtime's gauges: live permits, the permit limit, dispatcher workers, mesh connections, open sessions.
   * Metrics on only.
   *
   * @param dispatcher the node's dispatcher.
   * @param meshConnections peer connections established now.
   * @param sessionsOpen client sessions open now.
   */
  public void bindRuntime(final Dispatcher dispatcher, final DoubleSupplier meshConnections,
      final DoubleSupplier sessionsOpen) {
    if (registry == null) {
      return;
    }
    gauge("spotkit.permits.live", "Application Job Queue permits held by running turns now",
        () -> dispatcher.permits().limit() - (double) dispatcher.permits().available(), Tags.empty());
    gauge("spotkit.permits.live.max", "the most Application Job Queue permits held at once since the previous read"
        + " of this gauge (a scrape), the permits held now included", () -> dispatcher.permits().takeHighWater(),
        Tags.empty());
    gauge("spotkit.permits.limit", "the Application Job Queue limit", () -> dispatcher.permits().limit(),
        Tags.empty());
    gauge("spotkit.dispatcher.workers", "dispatcher worker threads alive now", dispatcher::workerCount, Tags.empty());
    gauge("spotkit.mesh.connections", "mesh peer connections established now", meshConnections::getAsDouble,
        Tags.empty());
    gauge("spotkit.sessions.open", "client sessions open now", sessionsOpen::getAsDouble, Tags.empty());
  }

  /**
   * The meters of one object type, made with its first cell and then shared by every cell of the type.
   *
   * @param kind {@code actor} or {@code spot}.
   * @param type the stable type.
   * @param depth the gauge of the type's queued messages (called at scrape time).
   * @return the meters, or null when metrics are off.
   */
  public TypeMeters typeMeters(final String kind, final String type, final DoubleSupplier depth) {
    if (registry == null) {
      return null;
    }
    return types.computeIfAbsent(kind + "/" + type, k -> {
      final Tags t = Tags.of("kind", kind, "type", type);
      final TypeMeters m = new TypeMeters(); // function meters hold it weakly: the types map keeps it until close
      final String handled = "messages and requests run by handlers (ok: returned; failed: threw; unhandled: no"
          + " handler)";
      add(FunctionCounter.builder("spotkit.messages.handled", m, x -> x.turns.sum() - (double) x.failed.sum())
          .description(handled).tags(tags).tags(t).tag("outcome", "ok").register(registry));
      add(FunctionCounter.builder("spotkit.messages.handled", m, x -> x.failed.sum())
          .description(handled).tags(tags).tags(t).tag("outcome", "failed").register(registry));
      m.unhandledCounter(counter("spotkit.messages.handled", handled, null, t.and("outcome", "unhandled")));
      gauge("spotkit.mailbox.depth", "messages queued and not yet run in this type's mailboxes on this node",
          depth::getAsDouble, t);
      gauge("spotkit.mailbox.depth.max", "the most messages seen queued behind a starting turn in one mailbox of this"
          + " type since the previous read of this gauge (a scrape)", m.depthMax::getThenReset, t);
      add(FunctionTimer.builder("spotkit.turn.duration", m, x -> x.turns.sum(), x -> x.nanos.sum(),
          TimeUnit.NANOSECONDS).description("handler turn latency: one message or request, handler start to end"
          + " (count and total; the mean is total / count)").tags(tags).tags(t).register(registry));
      return m;
    });
  }

  /**
   * A relocation unit started here.
   *
   * @param kind join or host.
   * @param role source or target.
   */
  public void relocationStarted(final NodeEvent.RelocationKind kind, final NodeEvent.RelocationRole role) {
    if (started != null) {
      started.get(kind).get(role).increment();
    }
  }

  /**
   * A relocation unit ended here.
   *
   * @param kind join or host.
   * @param role source or target.
   * @param committed true when the Location Store names the target.
   * @param pauseNanos the pause seen from this side; recorded for a committed unit only.
   */
  public void relocationEnded(final NodeEvent.RelocationKind kind, final NodeEvent.RelocationRole role,
      final boolean committed, final long pauseNanos) {
    if (ended == null) {
      return;
    }
    ended.get(kind).get(role)[committed ? 0 : 1].increment();
    if (committed) {
      pause.get(role).record(Math.max(0, pauseNanos), TimeUnit.NANOSECONDS);
    }
  }

  /**
   * The {@code spotkit.dead.letters} counter of one reason (see {@code MeshNode.deadLetters()}), made with the
   * reason's first dead letter. Metrics on only.
   *
   * @param reason the dead letter reason, e.g. {@code target-gone}.
   * @param count the reason's count, read at scrape time.
   */
  public void deadLetters(final String reason, final java.util.concurrent.atomic.LongAdder count) {
    if (registry != null) {
      add(FunctionCounter.builder("spotkit.dead.letters", count, java.util.concurrent.atomic.LongAdder::doubleValue)
          .description("messages this node accepted and then could not run, by reason").tags(tags)
          .tag("reason", reason).register(registry));
    }
  }

  /** @param bytes relocation payload bytes sent. */
  public void relocationBytes(final long bytes) {
    if (relocationBytes != null) {
      relocationBytes.increment(bytes);
    }
  }

  /** One message forwarded by Message Follow. */
  public void followForward() {
    if (followForwards != null) {
      followForwards.increment();
    }
  }

  /** @param ok whether an owner lease renewal confirmed the lease. */
  public void leaseRenewal(final boolean ok) {
    if (renewalsOk != null) {
      (ok ? renewalsOk : renewalsFailed).increment();
    }
  }

  /** @param bytes read from a mesh connection. */
  public void meshReceived(final long bytes) {
    if (meshIn != null) {
      meshIn.increment(bytes);
    }
  }

  /** @param bytes written to a mesh connection. */
  public void meshSent(final long bytes) {
    if (meshOut != null) {
      meshOut.increment(bytes);
    }
  }

  /** @return whether mesh bytes are counted (then the transport gets a counting handler). */
  public boolean countsMeshBytes() {
    return meshIn != null;
  }

  /** @param rows location rows of dead owners the background sweep removed (crash recovery). */
  public void deadRowsSwept(final int rows) {
    if (deadRowsSwept != null) {
      deadRowsSwept.increment(rows);
    }
  }

  /** A client session was accepted. */
  public void sessionOpened() {
    if (sessionsOpened != null) {
      sessionsOpened.increment();
    }
  }

  /** A client session closed. */
  public void sessionClosed() {
    if (sessionsClosed != null) {
      sessionsClosed.increment();
    }
  }

  void listenerFailed() {
    if (listenerFailures != null) {
      listenerFailures.increment();
    }
  }

  void eventDropped() {
    if (eventsDropped != null) {
      eventsDropped.increment();
    }
  }

  /**
   * A timer of store calls (see {@link TimedLocationStore}); metrics on only.
   *
   * @param store {@code location} or {@code relocation}.
   * @param operation the SPI method, e.g. {@code read}.
   * @param outcome {@code ok}, {@code conflict}, {@code missing} or {@code error}.
   * @return the timer.
   */
  Timer storeTimer(final String store, final String operation, final String outcome) {
    return add(Timer.builder("spotkit.store.duration")
        .description("store call latency, call to answer, by store, operation and outcome")
        .tags(tags).tag("store", store).tag("operation", operation).tag("outcome", outcome)
        .register(registry));
  }

  /**
   * A counter of failed store calls; metrics on only. Meters are cached by the caller.
   *
   * @param store {@code location} or {@code relocation}.
   * @param operation the SPI method.
   * @param error the exception's simple class name.
   * @return the counter.
   */
  Counter storeErrors(final String store, final String operation, final String error) {
    return counter("spotkit.store.errors", "store calls that failed (exception or timeout), by error", null,
        Tags.of("store", store, "operation", operation, "error", error));
  }

  /** Removes every meter of this node from the registry (node close). Idempotent. */
  public void close() {
    if (registry == null) {
      return;
    }
    for (Meter meter : registered) {
      registry.remove(meter);
    }
    registered.clear();
    types.clear();
  }

  private Counter counter(final String name, final String description, final String baseUnit, final Tags extra) {
    final Counter.Builder b = Counter.builder(name).description(description).tags(tags).tags(extra);
    if (baseUnit != null) {
      b.baseUnit(baseUnit);
    }
    return add(b.register(registry));
  }

  private void gauge(final String name, final String description, final Supplier<Number> value, final Tags extra) {
    add(Gauge.builder(name, value).description(description).tags(tags).tags(extra).strongReference(true)
        .register(registry));
  }

  private <M extends Meter> M add(final M meter) {
    registered.add(meter);
    return meter;
  }

  private static String lower(final Enum<?> e) {
    return e.name().toLowerCase(java.util.Locale.ROOT);
  }
}
