package dev.spotkit.bench;

import dev.spotkit.core.Actor;
import dev.spotkit.core.ActorContext;
import dev.spotkit.core.ActorFactory;
import dev.spotkit.core.ActorRef;
import dev.spotkit.core.EntrySpot;
import dev.spotkit.core.EntrySpotContext;
import dev.spotkit.core.MeshNode;
import dev.spotkit.store.InMemoryLocationStore;
import dev.spotkit.store.InMemoryRelocationStore;
import java.time.Duration;

/**
 * The "spotkit" variant: the public actor API of toolkit-core. A {@link MeshNode} object server with an explicit
 * {@link InMemoryLocationStore}, a plain Entry Spot, and one actor type per benchmark; actors are created with
 * {@code actors().getOrCreate(...)} (so they go through the Location Store and the creation lifecycle), their
 * handlers are registered with {@code configure(on)}, and they talk with {@code ctx.toActor(ref).send(...)}.
 * The node's dispatcher is the one toolkit-core builds (its own setting; see RESULTS.md).
 */
final class SpotkitApi {
    /** Stable type of the benchmark actors. */
    static final String TYPE = "bench";

    private SpotkitApi() {
    }

    static MeshNode node(final String mesh, final ActorFactory<? extends Actor> factory) {
        return node(mesh, factory, false);
    }

    /**
     * A node with the benchmark actors.
     *
     * @param mesh the mesh name.
     * @param factory the actor factory.
     * @param metrics true to publish the node's meters to a {@code SimpleMeterRegistry} (the cost of metrics on).
     * @return the started node.
     */
    static MeshNode node(final String mesh, final ActorFactory<? extends Actor> factory, final boolean metrics) {
        final MeshNode.Builder builder = MeshNode.builder()
            .meshName(mesh)
            .locationStore(new InMemoryLocationStore())
            .relocationStore(new InMemoryRelocationStore())
            .closeTimeout(Duration.ofSeconds(5))
            .objectServer(s -> s.entrySpot(Entry::new).actor(TYPE, factory, a -> a.recreateOnRelocation()));
        if (metrics) {
            builder.metrics(new io.micrometer.core.instrument.simple.SimpleMeterRegistry());
        }
        return builder.start();
    }

    static ActorRef create(final MeshNode node, final String id) {
        return node.actors().getOrCreate(id, TYPE).timeout(Duration.ofSeconds(10)).await();
    }

    /** An Entry Spot that does nothing: an object server needs one. */
    static final class Entry implements EntrySpot {
        private final EntrySpotContext ctx;

        Entry(final EntrySpotContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public EntrySpotContext context() {
            return ctx;
        }

    }

    /** Keeps the actor context for handlers that need to send. */
    abstract static class BenchActor implements Actor {
        final ActorContext ctx;

        BenchActor(final ActorContext ctx) {
            this.ctx = ctx;
        }
    }
}
