package dev.spotkit.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The in-memory stores' clock and fault hooks, which the lease and admission tests rely on. */
class InMemoryStoreFaultsTest {
  private final AtomicLong millis = new AtomicLong(1_000);
  private final InMemoryLocationStore store = new InMemoryLocationStore(() -> Instant.ofEpochMilli(millis.get()),
      Duration.ofSeconds(60));

  private static <T> T join(final CompletionStage<T> stage) {
    return stage.toCompletableFuture().join();
  }

  private static Throwable failure(final CompletionStage<?> stage) {
    final ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
        () -> stage.toCompletableFuture().get());
    return e.getCause();
  }

  private static WriteBatch put(final String key, final String value) {
    return WriteBatch.unconditional(Mutation.Put.of(key, StoreBytes.utf8(value)));
  }

  @Test
  void storeNowComesFromTheInjectedClock() {
    assertThat(join(store.read("k")).now()).isEqualTo(new StoreNow(1_000));
    millis.set(5_000);
    assertThat(((WriteResult.Applied) join(store.write(put("k", "v")))).now()).isEqualTo(new StoreNow(5_000));
  }

  @Test
  void failNextFailsOnlyMatchingCallsAndAppliesNothing() {
    store.faults().failNext(1, call -> call.kind() == StoreFaults.Kind.WRITE && call.touches("lease"));
    assertThat(join(store.write(put("other", "v")))).isInstanceOf(WriteResult.Applied.class);
    assertThat(failure(store.write(put("lease", "v")))).isInstanceOf(StoreException.Unavailable.class)
        .hasMessage("injected fault: WRITE of [lease] failed before it reached the store");
    assertThat(join(store.read("lease"))).isInstanceOf(ReadResult.Missing.class);
    assertThat(join(store.write(put("lease", "v")))).as("only the next one").isInstanceOf(WriteResult.Applied.class);
  }

  @Test
  void aLostAnswerAppliedTheWrite() {
    store.faults().loseAnswerOfNext(1, call -> call.kind() == StoreFaults.Kind.WRITE);
    assertThat(failure(store.write(put("k", "v")))).isInstanceOf(StoreException.Indeterminate.class);
    assertThat(((ReadResult.Found) join(store.read("k"))).value().asUtf8()).isEqualTo("v");
    assertThat(store.appliedWrites()).isEqualTo(1);
  }

  @Test
  void aStalledCallAppliesOnlyWhenReleased() throws Exception {
    final StoreFaults.Stall stall = store.faults().stallNext(2, call -> call.touches("lease"));
    final CompletableFuture<WriteResult> first = store.write(put("lease", "1")).toCompletableFuture();
    final CompletableFuture<ReadResult> second = store.read("lease").toCompletableFuture();
    assertThat(stall.awaitStalled(2, Duration.ofSeconds(5))).isTrue();
    assertThat(first).isNotDone();
    assertThat(second).isNotDone();
    assertThat(join(store.read("other"))).isInstanceOf(ReadResult.Missing.class);
    assertThat(store.size()).isZero();
    stall.release();
    assertThat(first.join()).isInstanceOf(WriteResult.Applied.class);
    assertThat(second.join()).as("held calls run in arrival order").isInstanceOf(ReadResult.Found.class);
  }

  @Test
  void aTimedOutStallIsIndeterminateAndNeverApplies() throws Exception {
    final StoreFaults.Stall stall = store.faults().stallNext(1, call -> true);
    final CompletionStage<WriteResult> write = store.write(put("k", "v"));
    assertThat(stall.awaitStalled(1, Duration.ofSeconds(5))).isTrue();
    stall.timeOut();
    assertThat(failure(write)).isInstanceOf(StoreException.Indeterminate.class)
        .hasMessage("injected fault: WRITE of [k] timed out while stalled (it did not apply)");
    stall.release();
    assertThat(join(store.read("k"))).isInstanceOf(ReadResult.Missing.class);
  }

  @Test
  void relocationStoreHasTheSameHooks() {
    final InMemoryRelocationStore relocation = new InMemoryRelocationStore(() -> Instant.ofEpochMilli(millis.get()));
    relocation.faults().loseAnswerOfNext(1, call -> call.kind() == StoreFaults.Kind.PUT);
    final RelocationReference ref = new RelocationReference("r");
    assertThat(failure(relocation.put(ref, StoreBytes.utf8("p"), Duration.ofHours(1))))
        .isInstanceOf(StoreException.Indeterminate.class);
    assertThat(join(relocation.put(ref, StoreBytes.utf8("p"), Duration.ofHours(1))))
        .as("the re-put after a lost answer finds the same bytes")
        .isInstanceOf(RelocationStore.PutResult.AlreadyStored.class);
    relocation.faults().failNext(1, call -> call.kind() == StoreFaults.Kind.DELETE);
    assertThat(failure(relocation.delete(ref))).isInstanceOf(StoreException.Unavailable.class);
    assertThat(relocation.size()).isEqualTo(1);
  }

  @Test
  void faultCountsMustBePositive() {
    assertThatThrownBy(() -> store.faults().failNext(0, call -> true)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("fault count 0 must be 1 or more");
    assertThat(List.of(StoreFaults.Kind.values())).hasSize(7);
  }
}
