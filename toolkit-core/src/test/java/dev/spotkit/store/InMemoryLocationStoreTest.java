package dev.spotkit.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spotkit.store.LocationStore.Condition;
import dev.spotkit.store.LocationStore.Mutation;
import dev.spotkit.store.LocationStore.WriteResult;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The in-memory Location Store: all-or-nothing writes and one monotonic generation sequence. */
class InMemoryLocationStoreTest {

  private static LocationRecord record(final String id, final long generation) {
    return new LocationRecord(ObjectKey.actor(id), generation, "player", "mesh/1", null, RecordState.READY);
  }

  @Test
  void writeIsAllOrNothing() {
    final InMemoryLocationStore store = new InMemoryLocationStore();
    assertThat(store.write(List.of(new Condition.Missing(ObjectKey.actor("a"))),
        List.of(new Mutation.Put(record("a", 1))))).isInstanceOf(WriteResult.Applied.class);
    final long version = store.read(ObjectKey.actor("a")).orElseThrow().version();
    // second condition fails: neither put applies
    assertThat(store.write(
        List.of(new Condition.Missing(ObjectKey.actor("b")), new Condition.Missing(ObjectKey.actor("a"))),
        List.of(new Mutation.Put(record("b", 2)), new Mutation.Put(record("a", 3)))))
        .isEqualTo(new WriteResult.Conflict());
    assertThat(store.read(ObjectKey.actor("b"))).isEmpty();
    assertThat(store.read(ObjectKey.actor("a")).orElseThrow().version()).isEqualTo(version);
    assertThat(store.write(List.of(new Condition.VersionIs(ObjectKey.actor("a"), version)),
        List.of(new Mutation.Delete(ObjectKey.actor("a"))))).isInstanceOf(WriteResult.Applied.class);
    assertThat(store.size()).isZero();
    assertThat(store.appliedWrites()).isEqualTo(2);
  }

  @Test
  void aKeyTwiceInOneBatchIsRejected() {
    final InMemoryLocationStore store = new InMemoryLocationStore();
    assertThatThrownBy(() -> store.write(List.of(), List.of(new Mutation.Put(record("a", 1)),
        new Mutation.Delete(ObjectKey.actor("a")))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("key ObjectKey[kind=ACTOR, id=a] appears twice among mutations");
  }

  @Test
  void generationsComeFromOneMonotonicSequenceAndExhaustWithoutChange() {
    final InMemoryLocationStore store = new InMemoryLocationStore();
    assertThat(store.issueObjectGeneration()).isEqualTo(1);
    assertThat(store.issueObjectGeneration()).isEqualTo(2);
    final InMemoryLocationStore nearlyDone = InMemoryLocationStore.withLastGeneration(Long.MAX_VALUE - 1);
    assertThat(nearlyDone.issueObjectGeneration()).isEqualTo(Long.MAX_VALUE);
    assertThatThrownBy(nearlyDone::issueObjectGeneration).isInstanceOf(GenerationExhaustedException.class)
        .hasMessage("ObjectGeneration sequence exhausted: 9223372036854775807 (2^63-1) was already issued");
    assertThatThrownBy(nearlyDone::issueObjectGeneration).isInstanceOf(GenerationExhaustedException.class);
  }
}
