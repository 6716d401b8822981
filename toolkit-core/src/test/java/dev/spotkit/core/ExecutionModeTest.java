package dev.spotkit.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.spotkit.store.InMemoryLocationStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Execution gates: SpotWide rooms share one with their members; PerActor and Entry actors have their own. */
class ExecutionModeTest {

  record Join(String roomId) {}

  record Leave() {}

  record Rendezvous(String otherId) {}

  record Poke() {}

  record Echo(String text) {}

  record Hold() {}

  record AskSlow(String otherId) {}

  record Slow(String backTo) {}

  record Mark() {}

  final List<String> verdicts = new CopyOnWriteArrayList<>();
  final AtomicReference<CountDownLatch> poked = new AtomicReference<>(new CountDownLatch(1));
  final AtomicInteger joins = new AtomicInteger();
  final AtomicInteger roomPayloads = new AtomicInteger();
  final CountDownLatch entryHeld = new CountDownLatch(1);
  final CountDownLatch releaseEntry = new CountDownLatch(1);
  final List<String> order = new CopyOnWriteArrayList<>();
  final CountDownLatch marked = new CountDownLatch(1);

  final class Member implements Actor {
    private final ActorContext ctx;

    Member(final ActorContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public void configure(final ActorHandlers on) {
      on.message(Join.class, j -> ctx.joinSpot(j.roomId()).defer())
          .message(Leave.class, l -> ctx.joinEntrySpot().defer())
          .message(Poke.class, p -> poked.get().countDown())
          .request(Echo.class, e -> e.text())
          .message(AskSlow.class, a -> {
            order.add("ask-start");
            ctx.toActor(a.otherId()).request(new Slow(ctx.self().id().value()), String.class)
                .timeout(Duration.ofSeconds(5)).await(); // the handler yields to a request
            order.add("ask-end");
          })
          .message(Mark.class, m -> {
            order.add("mark");
            marked.countDown();
          })
          .request(Slow.class, s -> {
            ctx.toActor(s.backTo()).send(new Mark());
            // Bounded wait: the Mark runs now only if the asking member gave up its queue while it waits for us.
            verdicts.add(marked.await(300, TimeUnit.MILLISECONDS) ? "overtaken" : "kept");
            return "done";
          })
          .message(Rendezvous.class, r -> {
            final CountDownLatch latch = new CountDownLatch(1);
            poked.set(latch);
            ctx.toActor(r.otherId()).send(new Poke());
            // Bounded wait: the other member runs now only if it does not share this member's gate.
            verdicts.add(latch.await(300, TimeUnit.MILLISECONDS) ? "parallel" : "serialized");
          });
    }

    @Override
    public void onJoinCompleted(final JoinResult result) {
      joins.incrementAndGet();
    }
  }

  final class Room implements UserSpot<Member> {
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
      on.message(Object.class, any -> roomPayloads.incrementAndGet())
          .message(Hold.class, h -> {
            entryHeld.countDown();
            releaseEntry.await(10, TimeUnit.SECONDS);
          });
    }
  }

  final class HoldingEntry implements EntrySpot {
    private final EntrySpotContext ctx;

    HoldingEntry(final EntrySpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public EntrySpotContext context() {
      return ctx;
    }

    @Override
    public void configure(final SpotHandlers on) {
      on.message(Hold.class, h -> {
        entryHeld.countDown();
        releaseEntry.await(10, TimeUnit.SECONDS);
      });
    }
  }

  final MeshNode node = TestNodes.bare(new InMemoryLocationStore(), s -> s.entrySpot(HoldingEntry::new)
      .actor("member", Member::new, a -> a.recreateOnRelocation())
      .userSpot("wide", Room::new, o -> o.spotWide().recreateOnRelocation())
      .userSpot("per", Room::new, o -> o.perActor().recreateOnRelocation()));

  @AfterEach
  void close() {
    releaseEntry.countDown();
    node.close();
  }

  private void joinBoth(final String roomId, final int expectedJoins) {
    node.toActor("a").send(new Join(roomId));
    node.toActor("b").send(new Join(roomId));
    await().atMost(Duration.ofSeconds(5)).until(() -> joins.get() == expectedJoins);
  }

  private String rendezvous() {
    final int before = verdicts.size();
    node.toActor("a").send(new Rendezvous("b"));
    await().atMost(Duration.ofSeconds(5)).until(() -> verdicts.size() > before);
    return verdicts.get(before);
  }

  @Test
  void spotWideMembersTakeTurnsOnTheRoomsGateAndGetTheirOwnBackWhenLeaving() {
    node.actors().getOrCreate("a", "member").await();
    node.actors().getOrCreate("b", "member").await();
    assertThat(rendezvous()).isEqualTo("parallel"); // Entry Spot actors: a gate each
    node.spots().getOrCreate("room:w", "wide").await();
    joinBoth("room:w", 2);
    // Must never: two members of one SpotWide room running at the same time.
    assertThat(rendezvous()).isEqualTo("serialized");
    node.toActor("a").send(new Leave());
    node.toActor("b").send(new Leave());
    await().atMost(Duration.ofSeconds(5)).until(() -> joins.get() == 4);
    assertThat(rendezvous()).isEqualTo("parallel");
  }

  /**
   * MEM-14: a SpotWide member whose handler waits for a request's reply keeps its Actor queue claim: a message sent
   * to it meanwhile runs only after that handler's continuation completed. Must never: the Mark before "ask-end".
   */
  @Test
  @Spec("MEM-14")
  void aSpotWideMemberWaitingForAReplyKeepsItsQueueUntilTheContinuationCompletes() {
    node.actors().getOrCreate("a", "member").await();
    node.actors().getOrCreate("b", "member").await();
    node.actors().getOrCreate("c", "member").await();
    node.spots().getOrCreate("room:y", "wide").await();
    joinBoth("room:y", 2);
    node.toActor("a").send(new AskSlow("c"));
    await().atMost(Duration.ofSeconds(5)).until(() -> order.size() == 3);
    assertThat(order).containsExactly("ask-start", "ask-end", "mark");
    assertThat(verdicts).containsExactly("kept");
  }

  @Test
  void perActorMembersKeepTheirOwnGates() {
    node.actors().getOrCreate("a", "member").await();
    node.actors().getOrCreate("b", "member").await();
    node.spots().getOrCreate("room:p", "per").await();
    joinBoth("room:p", 2);
    assertThat(rendezvous()).isEqualTo("parallel");
  }

  @Test
  @Spec("SPOT-05")
  void actorPayloadGoesStraightToTheActorQueueNotThroughItsSpot() throws Exception {
    node.actors().getOrCreate("a", "member").await();
    node.entrySpot();
    node.toSpot(node.entrySpot()).send(new Hold());
    assertThat(entryHeld.await(5, TimeUnit.SECONDS)).isTrue();
    // The Entry Spot is blocked in a turn; its member actor still answers.
    assertThat(node.toActor("a").request(new Echo("direct"), String.class).await()).isEqualTo("direct");
    releaseEntry.countDown();
    node.spots().getOrCreate("room:p", "per").await();
    node.toActor("a").send(new Join("room:p"));
    await().atMost(Duration.ofSeconds(5)).until(() -> joins.get() == 1);
    for (int i = 0; i < 20; i++) {
      assertThat(node.toActor("a").request(new Echo("m" + i), String.class).await()).isEqualTo("m" + i);
    }
    assertThat(roomPayloads.get()).isZero(); // no Spot handler or callback saw the actor's payload
  }
}
