package dev.spotkit.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spotkit.testkit.TestMesh;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Spec 000 section 4 (MEM-18): a request handler's join barriers are activated only once its reply was given. When
 * the reply cannot be given (it does not encode for a caller on another node, or it is null) the caller gets a
 * typed error and every join the handler registered is discarded: no onJoinedActor, no onJoinCompleted. A second
 * request whose reply is fine joins another room afterwards; since the barriers of one actor run in order, its
 * completion coming alone proves the first join was never started.
 */
class ReplyEncodingBarrierTest {
  /** Joins {@code room}, then replies: a record, or a value of {@code kind} ("plain": a plain class; "null"). */
  record JoinAndReply(String room, String kind) {}

  record Fine(String room) {}

  /** Not a record: it does not cross nodes (README "Writing actors"). */
  static final class Plain {
  }

  static final List<String> EVENTS = new CopyOnWriteArrayList<>();

  static final class Mover implements Actor {
    private final ActorContext ctx;

    Mover(final ActorContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public void configure(final ActorHandlers on) {
      on.request(JoinAndReply.class, j -> {
        ctx.joinSpot(j.room()).timeout(Duration.ofSeconds(10)).defer();
        return switch (j.kind()) {
          case "plain" -> new Plain();
          case "null" -> null;
          default -> new Fine(j.room());
        };
      });
    }

    @Override
    public void onJoinCompleted(final JoinResult result) {
      EVENTS.add("completed " + (result instanceof JoinResult.Accepted a ? a.spot().id().value() : result));
    }
  }

  static final class Room implements UserSpot<Actor> {
    private final UserSpotContext ctx;

    Room(final UserSpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public UserSpotContext context() {
      return ctx;
    }

    @Override
    public void onJoinedActor(final ActorRef actor) {
      EVENTS.add("joined " + ctx.self().id().value());
    }
  }

  private TestMesh mesh;
  private String actor;

  @BeforeEach
  void start() {
    mesh = TestMesh.builder().objectServer(s -> s.entrySpot(TestNodes.PlainEntry::new)
        .actor("mover", Mover::new, a -> a.recreateOnRelocation())
        .userSpot("room", Room::new, o -> o.recreateOnRelocation())).start(2);
    actor = mesh.actorOn(0, "mover", "mover");
  }

  @AfterEach
  void stop() {
    mesh.close();
    EVENTS.clear();
  }

  @Test
  @Spec("MEM-18")
  void aReplyThatDoesNotEncodeForTheRemoteCallerDiscardsTheHandlersJoin() {
    final String first = mesh.spotOn(0, "first", "room");
    final String second = mesh.spotOn(0, "second", "room");
    final MeshNode remote = mesh.node(1); // the caller: the reply crosses the mesh
    assertThatThrownBy(() -> remote.toActor(actor).request(new JoinAndReply(first, "plain"), Object.class)
        .timeout(Duration.ofSeconds(10)).await())
        .isInstanceOf(SpotkitException.InvalidOperation.class).hasMessageContaining("cannot be sent to another node");
    assertThat(remote.toActor(actor).request(new JoinAndReply(second, "record"), Fine.class)
        .timeout(Duration.ofSeconds(10)).await()).isEqualTo(new Fine(second));
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> EVENTS.contains("completed " + second));
    assertThat(EVENTS).containsExactly("joined " + second, "completed " + second);
  }

  @Test
  @Spec("MEM-18")
  void aNullReplyToALocalCallerDiscardsTheHandlersJoin() {
    final String first = mesh.spotOn(0, "first", "room");
    final String second = mesh.spotOn(0, "second", "room");
    final MeshNode local = mesh.node(0);
    assertThatThrownBy(() -> local.toActor(actor).request(new JoinAndReply(first, "null"), Object.class)
        .timeout(Duration.ofSeconds(10)).await())
        .isInstanceOf(SpotkitException.InternalFailure.class).hasMessageContaining("returned null");
    assertThat(local.toActor(actor).request(new JoinAndReply(second, "record"), Fine.class)
        .timeout(Duration.ofSeconds(10)).await()).isEqualTo(new Fine(second));
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> EVENTS.contains("completed " + second));
    assertThat(EVENTS).containsExactly("joined " + second, "completed " + second);
  }
}
