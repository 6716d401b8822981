package dev.spotkit.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.spotkit.core.location.LocationRecords;
import dev.spotkit.core.location.ObjectKey;
import dev.spotkit.store.InMemoryLocationStore;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Same-node JoinSpot / JoinEntrySpot with defer() (spec 000 section 4). */
class JoinTest {

  record JoinRoom(String roomId, String password) {}

  record BackToEntry() {}

  record Mark(String label) {}

  record Where() {}

  record FailAfterDefer(String roomId) {}

  record SelfRequestAfterDefer(String roomId) {}

  record KeepCall(String roomId) {}

  record DeferKept() {}

  record DeferFromOtherThread(String roomId) {}

  record JoinMany(String roomId, int count) {}

  record Blob(String data) {}

  record JoinBlobs(String roomId, int count, int chars) {}

  record SlowDefer(String roomId) {}

  final TestNodes.Events events = new TestNodes.Events();
  final List<JoinResult> results = new CopyOnWriteArrayList<>();
  final List<OperationId> deferred = new CopyOnWriteArrayList<>();
  final AtomicReference<Throwable> caught = new AtomicReference<>();
  final AtomicInteger whereCalls = new AtomicInteger();
  final InMemoryLocationStore store = new InMemoryLocationStore();

  final class Player implements Actor {
    private final ActorContext ctx;
    private JoinCall kept;

    Player(final ActorContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public void configure(final ActorHandlers on) {
      on.message(JoinRoom.class, j -> {
        final long writesBefore = store.appliedWrites();
        deferred.add(ctx.joinSpot(j.roomId(), j).defer());
        ctx.toActor(ctx.self()).send(new Mark("sent-during-handler"));
        events.add("handler end: store writes +" + (store.appliedWrites() - writesBefore) + ", admissions "
            + events.matching("onActorJoin").size());
      })
          .message(BackToEntry.class, b -> deferred.add(ctx.joinEntrySpot().defer()))
          .message(Mark.class, m -> events.add("msg " + m.label()))
          .request(Where.class, w -> {
            whereCalls.incrementAndGet();
            return ctx.membership().id().value();
          })
          .message(FailAfterDefer.class, f -> {
            ctx.joinSpot(f.roomId()).defer();
            throw new IllegalStateException("handler failed after defer");
          })
          .message(SelfRequestAfterDefer.class, s -> {
            ctx.joinSpot(s.roomId()).defer();
            try {
              ctx.toActor(ctx.self()).request(new Where(), String.class).await();
            } catch (SpotkitException e) {
              caught.set(e);
            }
          })
          .message(KeepCall.class, k -> kept = ctx.joinSpot(k.roomId()))
          .message(DeferKept.class, d -> {
            try {
              kept.defer();
            } catch (SpotkitException e) {
              caught.set(e);
            }
          })
          .message(DeferFromOtherThread.class, d -> {
            final JoinCall call = ctx.joinSpot(d.roomId());
            final Thread other = Thread.ofVirtual().start(() -> {
              try {
                call.defer();
              } catch (SpotkitException e) {
                caught.set(e);
              }
            });
            other.join(Duration.ofSeconds(5));
          })
          .message(JoinMany.class, m -> {
            try {
              for (int i = 0; i < m.count(); i++) {
                ctx.joinSpot(m.roomId()).defer();
              }
            } catch (SpotkitException e) {
              caught.set(e);
            }
          })
          .message(JoinBlobs.class, m -> {
            try {
              for (int i = 0; i < m.count(); i++) {
                ctx.joinSpot(m.roomId(), new Blob("x".repeat(m.chars()))).defer();
              }
            } catch (SpotkitException e) {
              caught.set(e);
            }
          })
          .message(SlowDefer.class, s -> {
            ctx.joinSpot(s.roomId()).timeout(Duration.ofMillis(50)).defer();
            final Deadline passed = Deadline.after(Duration.ofMillis(100));
            await().atMost(Duration.ofSeconds(2)).until(passed::isExpired);
          });
    }

    @Override
    public void onJoinCompleted(final JoinResult result) {
      results.add(result);
      events.add("completed " + result.getClass().getSimpleName());
    }
  }

  final class Room implements UserSpot<Player> {
    private final UserSpotContext ctx;

    Room(final UserSpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public UserSpotContext context() {
      return ctx;
    }

    @Override
    public void configure(final SpotHandlers on) {
      on.request(Where.class, w -> members().stream().map(m -> m.ref().id().value()).toList());
    }

    @Override
    public JoinDecision onActorJoin(final ActorId actor, final Object request) {
      events.add("onActorJoin " + ctx.self().id() + " " + request);
      return request instanceof JoinRoom j && "wrong".equals(j.password()) ? JoinDecision.reject("nope")
          : JoinDecision.accept("hi " + actor);
    }

    @Override
    public void onJoinedActor(final ActorRef actor) {
      events.add("joined " + ctx.self().id());
    }

    @Override
    public void onLeaveActor(final ActorRef actor) {
      events.add("left " + ctx.self().id());
    }

    @Override
    public void onClosing(final ClosingContext closing) {
      events.add("closing " + ctx.self().id());
    }
  }

  final class Entry implements EntrySpot {
    private final EntrySpotContext ctx;

    Entry(final EntrySpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public EntrySpotContext context() {
      return ctx;
    }

    @Override
    public void onJoinedActor(final ActorRef actor) {
      events.add("joined entry");
    }

    @Override
    public void onLeaveActor(final ActorRef actor) {
      events.add("left entry");
    }
  }

  final class Lonely implements InstanceSpot {
    private final InstanceSpotContext ctx;

    Lonely(final InstanceSpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public InstanceSpotContext context() {
      return ctx;
    }

    @Override
    public void configure(final SpotHandlers on) {
      on.message(Mark.class, m -> { });
    }
  }

  final MeshNode node = TestNodes.bare(store, s -> s.entrySpot(Entry::new)
      .actor("player", Player::new, a -> a.disableRelocation())
      .userSpot("room", Room::new, o -> o.recreateOnRelocation())
      .instanceSpot("lonely", Lonely::new, o -> o.recreateOnRelocation()));

  @AfterEach
  void close() {
    node.close();
  }

  private ActorRef player() {
    return node.actors().getOrCreate("alice", "player").await();
  }

  private String where() {
    return node.toActor("alice").request(new Where(), String.class).await();
  }

  private void awaitResults(final int n) {
    await().atMost(Duration.ofSeconds(5)).until(() -> results.size() >= n);
  }

  @Test
  @Spec("MEM-34")
  void commitThenJoinedThenLeaveThenCompletionThenRegularMessages() {
    final ActorRef alice = player();
    node.spots().getOrCreate("room:1", "room").await();
    node.toActor(alice).send(new JoinRoom("room:1", "ok"));
    await().atMost(Duration.ofSeconds(5)).until(() -> !events.matching("msg").isEmpty());
    assertThat(events.all()).containsSubsequence("onActorJoin room:1 JoinRoom[roomId=room:1, password=ok]",
        "joined room:1", "left entry", "completed Accepted", "msg sent-during-handler");
    assertThat(events.all().indexOf("msg sent-during-handler")).isEqualTo(events.all().size() - 1);
    final JoinResult.Accepted accepted = (JoinResult.Accepted) results.get(0);
    assertThat(accepted.reply()).contains("hi alice");
    assertThat(accepted.actor()).isEqualTo(alice); // same ObjectGeneration after a same-node join
    assertThat(accepted.spot().id().value()).isEqualTo("room:1");
    assertThat(where()).isEqualTo("room:1");
    assertThat(LocationRecords.read(store, ObjectKey.actor("alice")).orElseThrow().record().membership()).isEqualTo("room:1");
  }

  @Test
  @Spec("MEM-09")
  void deferOnlyRegistersUntilTheHandlerEnds() {
    player();
    node.spots().getOrCreate("room:1", "room").await();
    node.toActor("alice").send(new JoinRoom("room:1", "ok"));
    awaitResults(1);
    assertThat(events.all()).containsSubsequence("handler end: store writes +0, admissions 0",
        "onActorJoin room:1 JoinRoom[roomId=room:1, password=ok]");
  }

  /**
   * MEM-08: a join offers no Yield in any execution mode: every join an ActorContext starts (joinSpot, joinEntrySpot;
   * one context type for Entry, PerActor and SpotWide actors) is a {@link JoinCall} whose only ending is
   * {@code defer()}, which returns the OperationId, a plain value: nothing a handler could await. The result comes
   * only as the onJoinCompleted callback, after the handler ended.
   */
  @Test
  @Spec("MEM-08")
  void aJoinOffersNoYieldInAnyExecutionMode() throws Exception {
    assertThat(java.util.Arrays.stream(ActorContext.class.getMethods()).filter(m -> m.getName().startsWith("join"))
        .map(java.lang.reflect.Method::getReturnType).toList()).hasSize(4).containsOnly(JoinCall.class);
    assertThat(java.util.Arrays.stream(JoinCall.class.getMethods()).map(java.lang.reflect.Method::getName).toList())
        .containsExactlyInAnyOrder("timeout", "defer");
    assertThat(JoinCall.class.getPermittedSubclasses()).hasSize(1);
    final Class<?> id = JoinCall.class.getMethod("defer").getReturnType();
    assertThat(id).isEqualTo(OperationId.class);
    assertThat(List.of(java.util.concurrent.Future.class, java.util.concurrent.CompletionStage.class, Call.class))
        .noneMatch(awaitable -> awaitable.isAssignableFrom(id));
    assertThat(java.util.Arrays.stream(id.getMethods()).map(java.lang.reflect.Method::getName))
        .doesNotContain("await", "get", "join");
  }

  @Test
  @Spec("MEM-10")
  void aFailedHandlerDiscardsItsBarriers() {
    player();
    node.spots().getOrCreate("room:1", "room").await();
    node.toActor("alice").send(new FailAfterDefer("room:1"));
    node.toActor("alice").send(new Mark("next"));
    await().atMost(Duration.ofSeconds(5)).until(() -> events.all().contains("msg next"));
    assertThat(events.matching("onActorJoin")).isEmpty();
    assertThat(results).isEmpty();
    assertThat(where()).startsWith("test-entry-");
  }

  @Test
  @Spec("MEM-11")
  void sixtyFifthJoinOfAHandlerFailsSynchronouslyWithNoPartialRecord() {
    player();
    node.spots().getOrCreate("room:1", "room").await();
    node.toActor("alice").send(new JoinMany("room:1", 65));
    awaitResults(64);
    assertThat(caught.get()).isInstanceOf(SpotkitException.CapacityExceeded.class)
        .hasMessage("actor 'alice' (generation 2) already registered 64 joins in this handler; the limit is 64 per"
            + " handler");
    assertThat(where()).isEqualTo("room:1"); // every result is in; the 65th never ran
    assertThat(results).hasSize(64);
    assertThat(events.matching("onActorJoin")).hasSize(1); // 63 same-target joins: no callbacks (MEM-17)
  }

  @Test
  @Spec("MEM-11")
  void joinRequestsOverOneMebibyteOrEightInTotalFail() {
    player();
    node.spots().getOrCreate("room:1", "room").await();
    final int oneMiB = 1 << 20;
    node.toActor("alice").send(new JoinBlobs("room:1", 1, oneMiB)); // {"data":"..."} = 2^20 + 11 bytes
    await().atMost(Duration.ofSeconds(5)).until(() -> caught.get() != null);
    assertThat(caught.getAndSet(null)).isInstanceOf(SpotkitException.CapacityExceeded.class)
        .hasMessage("join request of 1048587 bytes exceeds the 1048576-byte limit per request; send large data as"
            + " messages instead");
    final int nearlyOneMiB = oneMiB - 11 - 1000; // encodes to 2^20 - 1000 bytes
    node.toActor("alice").send(new JoinBlobs("room:1", 9, nearlyOneMiB));
    await().atMost(Duration.ofSeconds(10)).until(() -> caught.get() != null);
    assertThat(caught.get()).isInstanceOf(SpotkitException.CapacityExceeded.class)
        .hasMessage("join requests of this handler would total " + 9L * (oneMiB - 1000) + " bytes, over the 8388608"
            + "-byte (8 MiB) limit per handler");
    awaitResults(8);
    assertThat(events.matching("onActorJoin")).hasSize(1);
    await().during(Duration.ofMillis(100)).atMost(Duration.ofSeconds(2)).until(() -> results.size() == 8);
  }

  @Test
  @Spec("MEM-12")
  void theDeadlineIsFixedAtDefer() {
    player();
    node.spots().getOrCreate("room:1", "room").await();
    node.toActor("alice").send(new SlowDefer("room:1"));
    awaitResults(1);
    assertThat(results.get(0)).isInstanceOf(JoinResult.Failed.class);
    assertThat(((JoinResult.Failed) results.get(0)).error()).isInstanceOf(SpotkitException.DeadlineExceeded.class)
        .hasMessageContaining("was not committed by its deadline (fixed at defer()");
    assertThat(events.matching("onActorJoin")).isEmpty();
  }

  @Test
  @Spec("MEM-13")
  void deferAfterTheHandlerEndedOrFromAnotherThreadIsInvalid() {
    player();
    node.spots().getOrCreate("room:1", "room").await();
    node.toActor("alice").send(new KeepCall("room:1"));
    node.toActor("alice").send(new DeferKept());
    await().atMost(Duration.ofSeconds(5)).until(() -> caught.get() != null);
    assertThat(caught.getAndSet(null)).isInstanceOf(SpotkitException.InvalidOperation.class)
        .hasMessage("defer() was called outside a handler turn of actor 'alice' (generation 2) (the handler already"
            + " ended, or this is another thread, a factory, configure() or a completion callback): call"
            + " joinSpot(...).defer() inside the message handler, before it returns (spec 000 section 4)");
    node.toActor("alice").send(new DeferFromOtherThread("room:1"));
    await().atMost(Duration.ofSeconds(5)).until(() -> caught.get() != null);
    assertThat(caught.get()).isInstanceOf(SpotkitException.InvalidOperation.class)
        .hasMessageStartingWith("defer() was called outside a handler turn");
    assertThat(events.matching("onActorJoin")).isEmpty();
  }

  @Test
  @Spec("MEM-15")
  void awaitedRequestToItselfWithABarrierIsRejectedBeforeQueueing() {
    player();
    node.spots().getOrCreate("room:1", "room").await();
    node.toActor("alice").send(new SelfRequestAfterDefer("room:1"));
    awaitResults(1);
    assertThat(caught.get()).isInstanceOf(SpotkitException.InvalidOperation.class)
        .hasMessage("awaited request from actor 'alice' (generation 2) to itself while its handler has 1 join"
            + " barrier(s) registered (spec 000 section 4): the request would wait for the handler that waits for"
            + " it; use send, or request before defer()");
    assertThat(whereCalls.get()).isZero(); // never submitted to the queue
    assertThat(results.get(0)).isInstanceOf(JoinResult.Accepted.class);
  }

  @Test
  @Spec("MEM-17")
  void sameTargetJoinAndJoinEntrySpotFromEntryAreAcceptedWithNoCallbackOrStoreChange() {
    player();
    node.spots().getOrCreate("room:1", "room").await();
    final long writesBefore = store.appliedWrites();
    node.toActor("alice").send(new BackToEntry()); // already in the Entry Spot
    awaitResults(1);
    assertThat(results.get(0)).isInstanceOf(JoinResult.Accepted.class);
    assertThat(events.all()).containsExactly("completed Accepted");
    assertThat(store.appliedWrites()).isEqualTo(writesBefore);
    node.toActor("alice").send(new JoinRoom("room:1", "ok"));
    awaitResults(2);
    final long writes = store.appliedWrites();
    final int callbacks = events.all().size();
    node.toActor("alice").send(new JoinRoom("room:1", "ok"));
    awaitResults(3);
    assertThat(results.get(2)).isInstanceOf(JoinResult.Accepted.class);
    assertThat(((JoinResult.Accepted) results.get(2)).spot().id().value()).isEqualTo("room:1");
    assertThat(store.appliedWrites()).isEqualTo(writes);
    assertThat(events.all().subList(callbacks, events.all().size()))
        .noneMatch(e -> e.startsWith("onActorJoin") || e.startsWith("joined") || e.startsWith("left"));
  }

  @Test
  @Spec("MEM-19")
  void aSameNodeJoinIsAllowedUnderDisableRelocation() {
    player(); // "player" is registered with disableRelocation()
    node.spots().getOrCreate("room:1", "room").await();
    node.toActor("alice").send(new JoinRoom("room:1", "ok"));
    awaitResults(1);
    assertThat(results.get(0)).isInstanceOf(JoinResult.Accepted.class);
    assertThat(where()).isEqualTo("room:1");
  }

  @Test
  @Spec("SPOT-04")
  void instanceSpotRejectsActorMembershipWhileUserAndEntrySpotsAcceptIt() {
    player();
    node.toInstanceSpot("lonely:1", "lonely").send(new Mark("activate"));
    await().atMost(Duration.ofSeconds(5)).until(() -> node.spots().find("lonely:1").isPresent());
    node.toActor("alice").send(new JoinRoom("lonely:1", "ok"));
    awaitResults(1);
    assertThat(((JoinResult.Failed) results.get(0)).error()).isInstanceOf(SpotkitException.InvalidOperation.class)
        .hasMessage("spot 'lonely:1' is an Instance Spot, which has no actor membership (spec 003 section 6); join"
            + " a User Spot instead");
    assertThat(where()).startsWith("test-entry-");
    node.spots().getOrCreate("room:1", "room").await();
    node.toActor("alice").send(new JoinRoom("room:1", "ok"));
    awaitResults(2);
    assertThat(where()).isEqualTo("room:1");
    node.toActor("alice").send(new BackToEntry());
    awaitResults(3);
    assertThat(results.get(2)).isInstanceOf(JoinResult.Accepted.class);
    assertThat(where()).startsWith("test-entry-");
  }

  @Test
  void rejectedJoinKeepsMembershipAndCarriesTheReply() {
    player();
    node.spots().getOrCreate("room:1", "room").await();
    final long writes = store.appliedWrites();
    node.toActor("alice").send(new JoinRoom("room:1", "wrong"));
    awaitResults(1);
    assertThat(results.get(0)).isInstanceOf(JoinResult.Rejected.class);
    assertThat(((JoinResult.Rejected) results.get(0)).reply()).contains("nope");
    assertThat(events.all()).noneMatch(e -> e.startsWith("joined") || e.startsWith("left"));
    assertThat(store.appliedWrites()).isEqualTo(writes);
    assertThat(where()).startsWith("test-entry-");
  }

  @Test
  void joinToAMissingSpotFailsWithNotFoundAndItsOperationId() {
    player();
    node.toActor("alice").send(new JoinRoom("room:none", "ok"));
    awaitResults(1);
    final JoinResult.Failed failed = (JoinResult.Failed) results.get(0);
    assertThat(failed.error()).isInstanceOf(SpotkitException.NotFound.class)
        .hasMessageStartingWith("join target spot 'room:none' not found");
    assertThat(failed.operationId()).isEqualTo(deferred.get(0));
    assertThat(failed.operationId().high() | failed.operationId().low()).isNotZero();
  }

  @Test
  void returningToTheEntrySpotRunsJoinedOnEntryAndLeaveOnTheRoom() {
    player();
    node.spots().getOrCreate("room:1", "room").await();
    node.toActor("alice").send(new JoinRoom("room:1", "ok"));
    awaitResults(1);
    node.toActor("alice").send(new BackToEntry());
    awaitResults(2);
    assertThat(events.all()).containsSubsequence("joined room:1", "left entry", "joined entry", "left room:1",
        "completed Accepted");
    assertThat(events.matching("onActorJoin")).hasSize(1);
    @SuppressWarnings("unchecked")
    final List<String> members = node.toSpot("room:1").request(new Where(), List.class).await();
    assertThat(members).isEmpty();
    assertThat(node.spots().close(node.spots().find("room:1").orElseThrow()).await()).isTrue();
    assertThat(events.matching("closing")).containsExactly("closing room:1");
  }

  @Test
  void closeReturnsFalseWhileMembersRemainAndRunsNoOnClosing() {
    player();
    final SpotRef room = node.spots().getOrCreate("room:1", "room").await();
    node.toActor("alice").send(new JoinRoom("room:1", "ok"));
    awaitResults(1);
    assertThat(node.spots().close(room).await()).isFalse();
    assertThat(events.matching("closing")).isEmpty();
    assertThat(node.spots().find("room:1")).contains(room);
    assertThat(Optional.of(where())).contains("room:1");
  }
}
