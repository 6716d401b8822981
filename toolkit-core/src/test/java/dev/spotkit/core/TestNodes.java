package dev.spotkit.core;

import dev.spotkit.store.InMemoryLocationStore;
import dev.spotkit.store.LocationStore;
import dev.spotkit.store.ScanRequest;
import dev.spotkit.store.ScanResult;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/** One-line nodes for tests: an object server on an in-memory store. */
final class TestNodes {
  /** A cluster secret for tests' meshes (at least 16 bytes). */
  static final String SECRET = "test-cluster-secret-0123456789";

  private TestNodes() {
  }

  /** An object server with a {@link PlainEntry} and the given registrations. */
  static MeshNode server(final Consumer<ObjectServerBuilder> registrations) {
    return server(new InMemoryLocationStore(), registrations);
  }

  /** Same, on a given store. */
  static MeshNode server(final LocationStore store, final Consumer<ObjectServerBuilder> registrations) {
    return bare(store, s -> {
      s.entrySpot(PlainEntry::new);
      registrations.accept(s);
    });
  }

  /** An object server whose registrations include the Entry Spot. */
  static MeshNode bare(final LocationStore store, final Consumer<ObjectServerBuilder> registrations) {
    return MeshNode.builder().meshName("test").locationStore(store)
        .relocationStore(RelocationStores.of(store)).workers(2)
        .closeTimeout(Duration.ofSeconds(5)).objectServer(registrations).start();
  }

  /**
   * Number of authority rows (one per live Actor or Spot) in a store; counters and other records are not counted.
   */
  static int authorityRows(final LocationStore store) {
    final ScanResult result = store.scan(ScanRequest.first("authority\0", 1000)).toCompletableFuture().join();
    return ((ScanResult.Page) result).entries().size();
  }

  /** An Entry Spot that approves everything and records its callbacks into {@link #EVENTS} when set. */
  static final class PlainEntry implements EntrySpot {
    private final EntrySpotContext ctx;

    PlainEntry(final EntrySpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public EntrySpotContext context() {
      return ctx;
    }

  }

  /** An ordered, thread-safe event log. */
  static final class Events {
    private final List<String> log = new CopyOnWriteArrayList<>();

    void add(final String event) {
      log.add(event);
    }

    List<String> all() {
      return List.copyOf(log);
    }

    List<String> matching(final String prefix) {
      return log.stream().filter(e -> e.startsWith(prefix)).toList();
    }
  }

  /** The node's runtime, read reflectively (tests that inspect internal state). */
  static dev.spotkit.core.internal.runtime.NodeRuntime runtime(final MeshNode node)
      throws ReflectiveOperationException {
    final java.lang.reflect.Field field = MeshNode.class.getDeclaredField("rt");
    field.setAccessible(true);
    return (dev.spotkit.core.internal.runtime.NodeRuntime) field.get(node);
  }
}
