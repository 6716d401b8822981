package dev.spotkit.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.spotkit.core.location.LocationRecords;
import dev.spotkit.core.location.ObjectKey;
import dev.spotkit.store.InMemoryLocationStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** User Spot manager, Instance Spot activation, Find, Close. */
class SpotLifecycleTest {

  record Open(String who) {}

  record Hello(String text) {}

  record Seen() {}

  record Stop() {}

  static final TestNodes.Events EVENTS = new TestNodes.Events();
  static final AtomicInteger FACTORY_RUNS = new AtomicInteger();
  /** OnClosing of a room waits for this latch when set (a slow close). */
  static volatile java.util.concurrent.CountDownLatch slowClose;

  static final class Room implements UserSpot<Actor> {
    private final UserSpotContext ctx;

    Room(final UserSpotContext ctx) {
      this.ctx = ctx;
      FACTORY_RUNS.incrementAndGet();
    }

    @Override
    public UserSpotContext context() {
      return ctx;
    }

    @Override
    public void configure(final SpotHandlers on) {
      EVENTS.add("configure " + ctx.self().id());
      on.request(Hello.class, h -> "room says " + h.text()).request(Stop.class, s -> ctx.close());
    }

    @Override
    public CreateDecision onCreate(final Object request) {
      EVENTS.add("onCreate " + ctx.self().id() + " " + request);
      return request instanceof Open open && open.who().equals("mallory") ? CreateDecision.decline("go away")
          : CreateDecision.approve("welcome");
    }

    @Override
    public void onInitialize() {
      EVENTS.add("onInitialize " + ctx.self().id());
    }

    @Override
    public void onClosing(final ClosingContext closing) {
      EVENTS.add("onClosing " + ctx.self().id() + " " + closing.reason());
      final java.util.concurrent.CountDownLatch gate = slowClose;
      if (gate != null) {
        try {
          gate.await(10, java.util.concurrent.TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }

  /** Records every message in order; the first one tells whether it was processed first. */
  static final class Counter implements InstanceSpot {
    private final InstanceSpotContext ctx;
    private final List<String> seen = new ArrayList<>();

    Counter(final InstanceSpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public InstanceSpotContext context() {
      return ctx;
    }

    @Override
    public void configure(final SpotHandlers on) {
      on.message(Hello.class, h -> seen.add(h.text()))
          .request(Seen.class, s -> List.copyOf(seen))
          .request(Stop.class, s -> ctx.close());
    }

    @Override
    public void onInitialize() {
      EVENTS.add("counter init " + ctx.self().id() + " seen=" + seen.size());
    }

    @Override
    public void onClosing(final ClosingContext closing) {
      EVENTS.add("counter closing " + closing.reason());
    }
  }

  private final InMemoryLocationStore store = new InMemoryLocationStore();
  private final MeshNode node = TestNodes.server(store, s -> s
      .userSpot("room", Room::new, o -> o.recreateOnRelocation())
      .instanceSpot("counter", Counter::new, o -> o.recreateOnRelocation()));

  @AfterEach
  void close() {
    final java.util.concurrent.CountDownLatch gate = slowClose;
    if (gate != null) {
      gate.countDown();
    }
    slowClose = null;
    node.close();
  }

  @Test
  @Spec("SPOT-02")
  void createIssuesALowercaseUuidV4AndRunsOnCreateThenOnInitialize() {
    final CreateOutcome<SpotRef> outcome = node.spots().create("room", new Open("alice")).awaitOutcome();
    assertThat(outcome).isInstanceOf(CreateOutcome.Created.class);
    final SpotRef ref = ((CreateOutcome.Created<SpotRef>) outcome).ref();
    assertThat(((CreateOutcome.Created<SpotRef>) outcome).reply()).contains("welcome");
    assertThat(ref.id().value()).matches("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
    final String id = ref.id().value();
    assertThat(EVENTS.all().stream().filter(e -> e.contains(id)).toList())
        .containsExactly("configure " + id, "onCreate " + id + " Open[who=alice]", "onInitialize " + id);
    assertThat(node.toSpot(ref).request(new Hello("hi"), String.class).await()).isEqualTo("room says hi");
  }

  @Test
  @Spec("SPOT-02")
  void getOrCreateCreatesOnceThenReturnsExistingWithoutFactoryOrOnCreate() throws Exception {
    final int before = FACTORY_RUNS.get();
    final List<CompletableFuture<CreateOutcome<SpotRef>>> calls = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      calls.add(node.spots().getOrCreate("room:lobby", "room").toOutcomeFuture());
    }
    final List<CreateOutcome<SpotRef>> outcomes = new ArrayList<>();
    for (CompletableFuture<CreateOutcome<SpotRef>> call : calls) {
      outcomes.add(call.get(5, java.util.concurrent.TimeUnit.SECONDS));
    }
    assertThat(outcomes).filteredOn(o -> o instanceof CreateOutcome.Created).hasSize(1);
    assertThat(outcomes).filteredOn(o -> o instanceof CreateOutcome.Existing).hasSize(7);
    assertThat(FACTORY_RUNS.get() - before).isEqualTo(1);
    assertThat(EVENTS.matching("onCreate room:lobby")).hasSize(1);
    assertThat(node.spots().getOrCreate("room:lobby", "room").await())
        .isEqualTo(node.spots().find("room:lobby").orElseThrow());
  }

  @Test
  @Spec("SPOT-02")
  void aMessageNeverCreatesAUserSpot() {
    assertThatThrownBy(() -> node.toSpot("room:nowhere").send(new Hello("x")))
        .isInstanceOf(SpotkitException.NotFound.class);
    assertThat(node.spots().find("room:nowhere")).isEmpty();
    assertThat(LocationRecords.read(store, ObjectKey.spot("room:nowhere"))).isEmpty();
  }

  @Test
  void declinedCreationCreatesNothing() {
    final CreateOutcome<SpotRef> outcome = node.spots().getOrCreate("room:x", "room", new Open("mallory"))
        .awaitOutcome();
    assertThat(outcome).isEqualTo(new CreateOutcome.Rejected<SpotRef>(Optional.of("go away")));
    assertThat(node.spots().find("room:x")).isEmpty();
    assertThat(LocationRecords.read(store, ObjectKey.spot("room:x"))).isEmpty();
    assertThatThrownBy(() -> node.spots().getOrCreate("room:x", "room", new Open("mallory")).await())
        .isInstanceOf(SpotkitException.InvalidOperation.class).hasMessageContaining("reply: go away");
    assertThat(node.spots().getOrCreate("room:x", "room", new Open("bob")).awaitOutcome())
        .isInstanceOf(CreateOutcome.Created.class);
  }

  @Test
  void unknownStableTypeIsNotConfigured() {
    assertThatThrownBy(() -> node.spots().create("arena").await())
        .isInstanceOf(SpotkitException.NotConfigured.class)
        .hasMessage("no user spot factory is registered for stable type 'arena'; register it with objectServer(s"
            + " -> s.userSpot(\"arena\", ...))");
  }

  @Test
  @Spec("SPOT-03")
  void plainMessageAndFindNeverCreateAMissingInstanceSpot() {
    assertThatThrownBy(() -> node.toSpot("counter:1").send(new Hello("a")))
        .isInstanceOf(SpotkitException.NotFound.class);
    assertThatThrownBy(() -> node.toSpot("counter:1").request(new Seen(), List.class).await())
        .isInstanceOf(SpotkitException.NotFound.class);
    assertThat(node.spots().find("counter:1")).isEmpty();
    assertThat(LocationRecords.read(store, ObjectKey.spot("counter:1"))).isEmpty();
    assertThat(EVENTS.matching("counter init counter:1 ")).isEmpty();
  }

  @Test
  @Spec("SPOT-03")
  void instanceIntentActivatesAndTheFirstMessageRunsFirst() throws Exception {
    final List<Thread> senders = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      final int sender = t;
      senders.add(Thread.ofVirtual().start(() -> node.toInstanceSpot("counter:2", "counter")
          .send(new Hello("from " + sender))));
    }
    for (Thread t : senders) {
      assertThat(t.join(Duration.ofSeconds(5))).isTrue();
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> node.spots().find("counter:2").isPresent());
    @SuppressWarnings("unchecked")
    final List<String> seen = node.toSpot("counter:2").request(new Seen(), List.class).await();
    assertThat(seen).hasSize(4);
    assertThat(EVENTS.matching("counter init counter:2 ")).containsExactly("counter init counter:2 seen=0");
    // Activation by a request: the reply proves the activating message itself was processed.
    @SuppressWarnings("unchecked")
    final List<String> fresh = node.toInstanceSpot("counter:3", "counter").request(new Seen(), List.class).await();
    assertThat(fresh).isEmpty();
  }

  @Test
  void instanceSpotClosesFromItsOwnContextAndReactivatesWithANewGeneration() {
    node.toInstanceSpot("counter:4", "counter").send(new Hello("one"));
    final SpotRef first = await().atMost(Duration.ofSeconds(5)).until(() -> node.spots().find("counter:4"),
        Optional::isPresent).orElseThrow();
    assertThat(node.toSpot(first).request(new Stop(), Boolean.class).await()).isTrue();
    await().atMost(Duration.ofSeconds(5)).until(() -> node.spots().find("counter:4").isEmpty());
    assertThat(EVENTS.matching("counter closing")).contains("counter closing EXPLICIT_CLOSE");
    assertThatThrownBy(() -> node.toSpot("counter:4").send(new Hello("x")))
        .isInstanceOf(SpotkitException.NotFound.class);
    @SuppressWarnings("unchecked")
    final List<String> seen = node.toInstanceSpot("counter:4", "counter").request(new Seen(), List.class).await();
    assertThat(seen).isEmpty();
    assertThat(node.spots().find("counter:4").orElseThrow().generation().value())
        .isGreaterThan(first.generation().value());
    assertThatThrownBy(() -> node.spots().close(first).await()).isInstanceOf(SpotkitException.StaleGeneration.class);
  }

  /**
   * A room that closed itself is released after its OnClosing; a GetOrCreate of its id meanwhile waits for that and
   * creates the room again (a new generation), instead of failing with AlreadyExists on the closing room's row.
   */
  @Test
  @Spec("SPOT-02")
  void getOrCreateWhileTheRoomClosesItselfWaitsAndCreatesItAgain() {
    slowClose = new java.util.concurrent.CountDownLatch(1);
    final SpotRef first = node.spots().getOrCreate("room:slow", "room").await();
    assertThat(node.toSpot(first).request(new Stop(), Boolean.class).await()).isTrue();
    await().atMost(Duration.ofSeconds(5)).until(() -> EVENTS.matching("onClosing room:slow").size() == 1);
    final CompletableFuture<CreateOutcome<SpotRef>> again = node.spots().getOrCreate("room:slow", "room")
        .toOutcomeFuture();
    assertThat(again).isNotDone(); // the old room's row is still there, its OnClosing runs
    slowClose.countDown();
    final CreateOutcome<SpotRef> outcome = again.join();
    assertThat(outcome).isInstanceOf(CreateOutcome.Created.class);
    assertThat(((CreateOutcome.Created<SpotRef>) outcome).ref().generation().value())
        .isGreaterThan(first.generation().value());
  }

  @Test
  void closeRunsOnClosingThenReleasesEverything() {
    final SpotRef ref = node.spots().getOrCreate("room:c", "room").await();
    assertThat(node.spots().close(ref).await()).isTrue();
    assertThat(EVENTS.matching("onClosing room:c")).containsExactly("onClosing room:c EXPLICIT_CLOSE");
    assertThat(node.spots().find("room:c")).isEmpty();
    assertThat(LocationRecords.read(store, ObjectKey.spot("room:c"))).isEmpty();
    assertThat(node.spots().close(ref).await()).isFalse();
    assertThatThrownBy(() -> node.toSpot(ref).send(new Hello("late"))).isInstanceOf(SpotkitException.NotFound.class);
  }

  @Test
  void userSpotClosesFromItsOwnHandler() {
    final SpotRef ref = node.spots().getOrCreate("room:self", "room").await();
    assertThat(node.toSpot(ref).request(new Stop(), Boolean.class).await()).isTrue();
    await().atMost(Duration.ofSeconds(5)).until(() -> EVENTS.matching("onClosing room:self").size() == 1);
    assertThat(node.spots().find("room:self")).isEmpty();
  }

  @Test
  void instanceIntentCannotAddressAUserSpot() {
    node.spots().getOrCreate("room:u", "room").await();
    assertThatThrownBy(() -> node.toInstanceSpot("room:u", "counter").send(new Hello("x")))
        .isInstanceOf(SpotkitException.TypeMismatch.class)
        .hasMessageContaining("exists as a user spot of type 'room'");
  }
}
