package dev.spotkit.core;

import dev.spotkit.store.InMemoryLocationStore;
import dev.spotkit.store.LocationStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/** One-line nodes for tests: an object server on an in-memory store. */
final class TestNodes {
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
    return MeshNode.builder().meshName("test").locationStore(store).workers(2)
        .closeTimeout(Duration.ofSeconds(5)).objectServer(registrations).start();
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

    @Override
    public void configure(final SpotHandlers on) {
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
}
