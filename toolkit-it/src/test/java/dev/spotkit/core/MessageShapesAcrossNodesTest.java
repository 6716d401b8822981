package dev.spotkit.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spotkit.testkit.TestMesh;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Message and reply shapes that cross nodes. Each test states the behaviour a caller sees when the
 * owner is local; the same call to a remote owner should end the same way (delivery or a typed error), since
 * getOrCreate places objects on any node (README "MeshNodes form a mesh").
 */
class MessageShapesAcrossNodesTest {
  static final String SECRET = "test-cluster-secret-0123456789";

  /** An enum whose constant has a body: HAPPY.getClass() is Mood$1, for which Class.isEnum() is false. */
  enum Mood {
    HAPPY {
      @Override
      public String toString() {
        return "happy!";
      }
    },
    SAD
  }

  record Note(int n) {}

  record Box(Object value) {}

  record Timed(Optional<String> label, Instant at) {}

  record Nested(List<Note> notes, Map<String, Note> byName, Note single) {}

  record AskString() {}

  record AskRecordAsMap() {}

  record AskNull() {}

  record AskList() {}

  record Seen() {}

  static final List<Object> SEEN = new CopyOnWriteArrayList<>();

  static final class Sink implements Actor {
    Sink(final ActorContext ctx) {
      this.ctx = ctx;
    }

    private final ActorContext ctx;

    @Override
    public void configure(final ActorHandlers on) {
      on.message(Mood.class, SEEN::add)
          .message(Box.class, b -> SEEN.add(b.value()))
          .message(Timed.class, SEEN::add)
          .message(Nested.class, SEEN::add)
          .message(Object.class, SEEN::add)
          .request(AskString.class, a -> "5")
          .request(AskRecordAsMap.class, a -> new Note(7))
          .request(AskNull.class, a -> null)
          .request(AskList.class, a -> List.of(new Note(1), new Note(2)))
          .request(Seen.class, s -> SEEN.size());
    }
  }

  private final TestMesh mesh = TestMesh.builder().meshName("mesh")
      .objectServer(s -> s.entrySpot(TestNodes.PlainEntry::new)
          .actor("sink", Sink::new, a -> a.disableRelocation()))
      .start(2);

  @AfterEach
  void close() {
    mesh.close();
    SEEN.clear();
  }

  /** [owner, remote sender] for a fresh actor id. */
  private MeshNode[] ownerAndRemote(final String id) {
    final MeshNode a = mesh.node(0);
    final MeshNode b = mesh.node(1);
    final ActorRef ref = a.actors().getOrCreate(id, "sink").await();
    return ref.nodeRid().equals(a.nodeRid()) ? new MeshNode[] {a, b} : new MeshNode[] {b, a};
  }

  private static void awaitSeen(final int n) {
    Awaitility.await().atMost(5, TimeUnit.SECONDS).until(() -> SEEN.size() >= n);
  }

  @Test
  void enumConstantWithABodyIsDeliveredLocallyAndShouldBeRemotely() {
    final MeshNode[] on = ownerAndRemote("e1");
    on[0].toActor("e1").send(Mood.HAPPY); // local: delivered to the Mood handler
    awaitSeen(1);
    assertThat(SEEN).containsExactly(Mood.HAPPY);
    // remote: README/CHANGELOG say enums cross nodes; HAPPY is refused as "not a record, enum, ..."
    on[1].toActor("e1").send(Mood.HAPPY);
    awaitSeen(2);
    assertThat(SEEN).containsExactly(Mood.HAPPY, Mood.HAPPY);
  }

  @Test
  void aRecordInAnObjectFieldArrivesAsTheSameRecordNotAMap() {
    final MeshNode[] on = ownerAndRemote("o1");
    on[0].toActor("o1").send(new Box(new Note(3)));
    on[0].toActor("o1").send(new Box(5L));
    awaitSeen(2);
    assertThat(SEEN).containsExactly(new Note(3), 5L); // local
    SEEN.clear();
    on[1].toActor("o1").send(new Box(new Note(3)));
    on[1].toActor("o1").send(new Box(5L));
    awaitSeen(2);
    // remote: should be the same values (or the send refused at the sender); actually a LinkedHashMap and an Integer
    assertThat(SEEN).containsExactly(new Note(3), 5L);
  }

  @Test
  void nestedRecordsListsAndMapsCrossIntact() {
    final MeshNode[] on = ownerAndRemote("n1");
    final Nested nested = new Nested(List.of(new Note(1), new Note(2)), Map.of("x", new Note(3)), new Note(4));
    on[1].toActor("n1").send(nested);
    awaitSeen(1);
    assertThat(SEEN).containsExactly(nested);
  }

  @Test
  void stringsAndBoxedNumbersCross() {
    final MeshNode[] on = ownerAndRemote("s1");
    on[1].toActor("s1").send("hello");
    on[1].toActor("s1").send(42L);
    on[1].toActor("s1").send(4.5d);
    on[1].toActor("s1").send('c');
    on[1].toActor("s1").send(true);
    awaitSeen(5);
    assertThat(SEEN).containsExactly("hello", 42L, 4.5d, 'c', true);
  }

  @Test
  void optionalAndInstantFieldsBehaveTheSameLocallyAndRemotely() {
    final MeshNode[] on = ownerAndRemote("t1");
    final Timed timed = new Timed(Optional.of("x"), Instant.parse("2026-01-01T00:00:00Z"));
    on[0].toActor("t1").send(timed); // local: delivered
    awaitSeen(1);
    // remote: the same message is refused (InvalidOperation) only because the owner happens to be elsewhere
    on[1].toActor("t1").send(timed);
    awaitSeen(2);
    assertThat(SEEN).containsExactly(timed, timed);
  }

  @Test
  void aStringReplyAskedAsIntegerIsATypeMismatchOnBothPaths() {
    final MeshNode[] on = ownerAndRemote("r1");
    assertThatThrownBy(() -> on[0].toActor("r1").request(new AskString(), Integer.class).await())
        .isInstanceOf(SpotkitException.TypeMismatch.class); // local
    assertThatThrownBy(() -> on[1].toActor("r1").request(new AskString(), Integer.class)
        .timeout(Duration.ofSeconds(5)).await())
        .isInstanceOf(SpotkitException.TypeMismatch.class); // remote: actually returns 5
  }

  @Test
  void aRecordReplyAskedAsMapIsATypeMismatchOnBothPaths() {
    final MeshNode[] on = ownerAndRemote("r2");
    assertThatThrownBy(() -> on[0].toActor("r2").request(new AskRecordAsMap(), Map.class).await())
        .isInstanceOf(SpotkitException.TypeMismatch.class); // local
    assertThatThrownBy(() -> on[1].toActor("r2").request(new AskRecordAsMap(), Map.class)
        .timeout(Duration.ofSeconds(5)).await())
        .isInstanceOf(SpotkitException.TypeMismatch.class); // remote: actually {n=7}
  }

  @Test
  void aNullReplyIsATypedErrorQuicklyOnBothPaths() {
    final MeshNode[] on = ownerAndRemote("r3");
    assertThatThrownBy(() -> on[0].toActor("r3").request(new AskNull(), String.class).await())
        .isInstanceOf(SpotkitException.class);
    final long t0 = System.nanoTime();
    assertThatThrownBy(() -> on[1].toActor("r3").request(new AskNull(), String.class)
        .timeout(Duration.ofSeconds(5)).await())
        .isInstanceOf(SpotkitException.class).isNotInstanceOf(SpotkitException.DeadlineExceeded.class);
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(2));
  }

  /**
   * A record whose class exists on the sender only: compiled at test time into a separate class loader, so the
   * receiver (framework class loader) cannot load the packet name.
   */
  @Test
  void aMessageClassTheReceiverCannotLoadIsATypedErrorForARequest() throws Exception {
    final MeshNode[] on = ownerAndRemote("u1");
    final Path dir = Files.createTempDirectory("spotkit-only-on-sender");
    Files.writeString(dir.resolve("OnlyOnSender.java"), "public record OnlyOnSender(int n) {}");
    final var javac = javax.tools.ToolProvider.getSystemJavaCompiler();
    assertThat(javac.run(null, null, null, "-d", dir.toString(), dir.resolve("OnlyOnSender.java").toString()))
        .isZero();
    final Object msg;
    try (var loader = new java.net.URLClassLoader(new java.net.URL[] {dir.toUri().toURL()},
        getClass().getClassLoader())) {
      msg = loader.loadClass("OnlyOnSender").getConstructor(int.class).newInstance(1);
    }
    // a request gets a typed error at the caller (a one-way send cannot: the owner logs it as a dead letter,
    // README "Writing actors": deploy the same message classes on every node)
    assertThatThrownBy(() -> on[1].toActor("u1").request(msg, Integer.class).timeout(Duration.ofSeconds(5)).await())
        .isInstanceOf(SpotkitException.InvalidOperation.class).hasMessageContaining("is not known on this node");
  }

  @Test
  void aListOfRecordsReplyHasTheSameElementsOnBothPaths() {
    final MeshNode[] on = ownerAndRemote("r4");
    @SuppressWarnings("unchecked") final List<Object> local = on[0].toActor("r4").request(new AskList(), List.class).await();
    assertThat(local).containsExactly(new Note(1), new Note(2));
    @SuppressWarnings("unchecked") final List<Object> remote = on[1].toActor("r4").request(new AskList(), List.class)
        .timeout(Duration.ofSeconds(5)).await();
    // remote: [{n=1}, {n=2}] (LinkedHashMaps), so a caller's (Note) cast fails only when the owner is elsewhere
    assertThat(remote).containsExactly(new Note(1), new Note(2));
  }
}
