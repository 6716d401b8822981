package dev.spotkit.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spotkit.store.InMemoryLocationStore;
import dev.spotkit.store.InMemoryRelocationStore;
import dev.spotkit.store.RelocationReference;
import dev.spotkit.store.RelocationStore;
import dev.spotkit.store.StoreBytes;
import dev.spotkit.store.StoreNow;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * LOC-24, the Relocation Store half: the first message of an Instance Spot activation is kept in the Relocation
 * Store and read back before the Creating row is reserved (spec 002 sections 7.1 and 10). A copy that is missing,
 * or whose bytes no longer match their checksum, ends the activation with DataLost and reserves nothing.
 */
class InstanceFirstMessageLostTest {

  record Ping() {}

  /** How the store below answers a get. */
  enum Answer { INTACT, MISSING, CHANGED }

  /** A Relocation Store whose reads lose or change what was stored, as told. */
  static final class LossyStore implements RelocationStore {
    final InMemoryRelocationStore real = new InMemoryRelocationStore();
    volatile Answer answer = Answer.INTACT;
    final AtomicInteger gets = new AtomicInteger();

    @Override
    public CompletionStage<PutResult> put(final RelocationReference reference, final StoreBytes payload,
        final Duration retention) {
      return real.put(reference, payload, retention);
    }

    @Override
    public CompletionStage<GetResult> get(final RelocationReference reference) {
      gets.incrementAndGet();
      return real.get(reference).thenApply(r -> switch (answer) {
        case INTACT -> r;
        case MISSING -> new GetResult.Missing(((GetResult.Found) r).now());
        case CHANGED -> {
          final GetResult.Found found = (GetResult.Found) r;
          final byte[] bytes = found.payload().toByteArray();
          bytes[bytes.length - 1] ^= 1;
          yield new GetResult.Found(StoreBytes.of(bytes), found.expiresAtMillis(), found.now());
        }
      });
    }

    @Override
    public CompletionStage<RenewResult> renew(final RelocationReference reference, final Duration retention) {
      return real.renew(reference, retention);
    }

    @Override
    public CompletionStage<StoreNow> delete(final RelocationReference reference) {
      return real.delete(reference);
    }
  }

  /** Answers a Ping. */
  static final class Echo implements InstanceSpot {
    private final InstanceSpotContext ctx;

    Echo(final InstanceSpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public InstanceSpotContext context() {
      return ctx;
    }

    @Override
    public void configure(final SpotHandlers on) {
      on.request(Ping.class, p -> "pong");
    }
  }

  private final InMemoryLocationStore store = new InMemoryLocationStore();
  private final LossyStore relocationStore = new LossyStore();
  private final MeshNode node = MeshNode.builder().meshName("test").locationStore(store)
      .relocationStore(relocationStore).workers(2).closeTimeout(Duration.ofSeconds(5))
      .objectServer(s -> s.entrySpot(TestNodes.PlainEntry::new)
          .instanceSpot("echo", Echo::new, o -> o.recreateOnRelocation()))
      .start();

  @AfterEach
  void close() {
    node.close();
  }

  @Test
  @Spec("LOC-24")
  void aFirstMessageMissingOrChangedInTheRelocationStoreIsDataLostAndReservesNothing() {
    final int rows = TestNodes.authorityRows(store);
    for (final Answer lost : new Answer[] {Answer.MISSING, Answer.CHANGED}) {
      relocationStore.answer = lost;
      final int getsBefore = relocationStore.gets.get();
      final String id = "lost-" + lost.name().toLowerCase(java.util.Locale.ROOT);
      assertThatThrownBy(() -> node.toInstanceSpot(id, "echo").request(new Ping(), String.class)
          .timeout(Duration.ofSeconds(10)).await()).as(lost.name())
          .isInstanceOf(SpotkitException.DataLost.class).hasMessageContaining("nothing was reserved");
      assertThat(relocationStore.gets.get()).isGreaterThan(getsBefore); // it was read back, and found wanting
      assertThat(node.spots().find(id)).isEmpty();
      assertThat(TestNodes.authorityRows(store)).isEqualTo(rows);
    }
    relocationStore.answer = Answer.INTACT;
    assertThat(node.toInstanceSpot("kept", "echo").request(new Ping(), String.class).await()).isEqualTo("pong");
    assertThat(TestNodes.authorityRows(store)).isEqualTo(rows + 1);
  }
}
