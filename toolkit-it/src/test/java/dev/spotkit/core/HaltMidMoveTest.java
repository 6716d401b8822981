package dev.spotkit.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spotkit.core.location.ObjectKey;
import dev.spotkit.store.InMemoryLocationStore;
import dev.spotkit.testkit.TestMesh;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A node stopped as by kill -9 ({@link TestMesh#halt(int)}) in the middle of an Instance Spot move (found by the
 * break5 test {@code InstanceCrashTest.haltTheSourceOrTheTargetMidMove}). Node 0 only sends (weight 0), node 1 owns
 * the Instance Spot and moves it to node 2; crash recovery is on ({@link MeshNode.Builder#recreateAfterOwnerLoss}).
 * <ul>
 *   <li>source halted before relay-ready: the {@code relocateSpot} future completes, typed: ShuttingDown naming
 *       the halt, as every other pending future of a closing node, or the Unavailable of the step the halt cut
 *       off; it never stays open.</li>
 *   <li>target halted after its commit: the object is unavailable (spec 000 section 8; spec 001 section 9) only
 *       until the dead target's owner lease lapsed; then the source's Message Follow to it ends, and senders, the
 *       source among them, re-resolve through the Location Store and reach a new incarnation, long before the
 *       30 s Message Follow duration ends. Failures meanwhile are typed.</li>
 *   <li>target halted past relay-ready, before its commit: the source does not reopen (spec 001 section 9, REL-30);
 *       requests fail at once, typed, never hang until their deadline. The Spot stays unavailable while the source
 *       lives: its row names the live source, so crash recovery has no dead owner to sweep, and the spec reopens
 *       no source after relay-ready "regardless of the cutover submit result" (break5 expected it back within
 *       45 s; the spec does not allow that).</li>
 * </ul>
 */
class HaltMidMoveTest {
  private static final Duration RENEW = Duration.ofMillis(100);
  /** The owner lease TTL of node 2, the target halted in two cases: it lapses soon after the halt. */
  private static final Duration TTL = Duration.ofMillis(1500);
  /**
   * The owner lease TTL of nodes 0 and 1: no case waits for theirs to lapse, and a 1.5 s one can lapse on a loaded
   * machine (the node then stops itself and fails the case for a reason it does not test).
   */
  private static final Duration LIVE_TTL = Duration.ofSeconds(15);
  private static final Duration RENEW_TIMEOUT = Duration.ofMillis(200);
  private static final Duration MARGIN = Duration.ofMillis(500);
  /** Scheduling slack on a loaded machine, on top of TTL plus margin. */
  private static final Duration SLACK = Duration.ofSeconds(5);

  /** Which incarnation answered, and on which node. */
  record Here(String nodeHex, long incarnation) {
  }

  /** Asks the Spot for its {@link Here}. */
  record Where() {
  }

  private static final AtomicLong INCARNATIONS = new AtomicLong();
  /** Set: the next {@link Directory} built blocks in its constructor until {@link #release} opens (bounded). */
  private static final AtomicBoolean BLOCK_NEXT_BUILD = new AtomicBoolean();
  private static volatile CountDownLatch buildBlocked = new CountDownLatch(1);
  private static volatile CountDownLatch release = new CountDownLatch(1);

  /** An Instance Spot that tells where it runs. */
  static final class Directory implements InstanceSpot {
    private final InstanceSpotContext ctx;
    private final long incarnation = INCARNATIONS.incrementAndGet();

    Directory(final InstanceSpotContext ctx) {
      this.ctx = ctx;
      if (BLOCK_NEXT_BUILD.compareAndSet(true, false)) {
        buildBlocked.countDown();
        try {
          release.await(60, TimeUnit.SECONDS); // bounded: the test releases it when it ends
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }

    @Override
    public InstanceSpotContext context() {
      return ctx;
    }

    @Override
    public void configure(final SpotHandlers on) {
      on.request(Where.class, w -> new Here(ctx.self().nodeRid().hex(), incarnation));
    }
  }



  private final InMemoryLocationStore store = new InMemoryLocationStore();
  private final HeldWriteStore viewOfTarget = new HeldWriteStore(store);
  private TestMesh mesh;

  @AfterEach
  void close() {
    release.countDown();
    viewOfTarget.dropHeld();
    if (mesh != null) {
      mesh.close();
    }
    BLOCK_NEXT_BUILD.set(false);
    buildBlocked = new CountDownLatch(1);
    release = new CountDownLatch(1);
  }

  /** Node 0 sends only, node 1 owns "dir" (activated there alone), node 2 (the target) joins after. */
  private void start() throws Exception {
    mesh = TestMesh.builder().meshName("haltmove").closeTimeout(Duration.ofSeconds(2))
        .locationStores(i -> i == 2 ? viewOfTarget : store)
        .customize((b, i) -> b.recreateAfterOwnerLoss(true).requestTimeout(Duration.ofSeconds(4))
            .ownerLease(RENEW, i == 2 ? TTL : LIVE_TTL, RENEW_TIMEOUT, MARGIN))
        .mesh((m, i) -> m.placementWeight(i == 0 ? 0 : 100))
        .objectServer(s -> s.entrySpot(TestNodes.PlainEntry::new)
            .instanceSpot("directory", Directory::new, o -> o.recreateOnRelocation()))
        .start(2);
    final Here first = where(0, Duration.ofSeconds(5));
    assertThat(first.nodeHex()).isEqualTo(mesh.node(1).nodeRid().hex());
    assertThat(where(1, Duration.ofSeconds(5))).isEqualTo(first);
    mesh.addNode();
  }

  private Here where(final int via, final Duration timeout) {
    return mesh.node(via).toInstanceSpot("dir", "directory").request(new Where(), Here.class).timeout(timeout)
        .await();
  }

  private CompletableFuture<SpotRelocationResult> move() {
    return mesh.node(1).relocateSpot(SpotId.of("dir"), mesh.node(2).nodeRid());
  }

  @Test
  void theMoveFutureOfAHaltedSourceCompletesTyped() throws Exception {
    start();
    BLOCK_NEXT_BUILD.set(true); // the target's restore builds the instance: it blocks there, before relay-ready
    final CompletableFuture<SpotRelocationResult> move = move();
    assertThat(buildBlocked.await(20, TimeUnit.SECONDS)).as("the target restores").isTrue();
    mesh.halt(1);
    final long haltedAt = System.nanoTime();
    final AtomicReference<Throwable> failure = new AtomicReference<>(failureOf(move, Duration.ofSeconds(5)));
    assertThat(failure.get()).as("completed exceptionally after " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime()
        - haltedAt) + " ms").isInstanceOfAny(SpotkitException.ShuttingDown.class, SpotkitException.Unavailable.class);
    if (failure.get() instanceof SpotkitException.ShuttingDown) { // the close ended it: it says why
      assertThat(failure.get()).hasMessageContaining("was halted before this operation completed");
    } // else the move's own step failed first, on the connection the halt closed
  }

  @Test
  void afterTheCommittedTargetDiedSendersReachANewIncarnationOnceItsLeaseLapsed() throws Exception {
    start();
    final SpotRelocationResult moved = move().get(20, TimeUnit.SECONDS);
    assertThat(moved.spot().nodeRid()).isEqualTo(mesh.node(2).nodeRid());
    final Here there = where(0, Duration.ofSeconds(5));
    assertThat(there.nodeHex()).isEqualTo(mesh.node(2).nodeRid().hex());

    mesh.halt(2); // as kill -9 after its commit: the row names it, its lease lapses one TTL after its last renewal
    final long haltedAt = System.nanoTime();
    final ConcurrentHashMap<String, Integer> errors = new ConcurrentHashMap<>();
    final Here[] now = new Here[2];
    final AtomicReference<String> last = new AtomicReference<>();
    try {
      Awaitility.await().atMost(TTL.plus(MARGIN).plus(SLACK)).pollInterval(Duration.ofMillis(50)).until(() -> {
        for (int via = 0; via < 2; via++) { // node 0 and the source, node 1, which followed the move
          try {
            now[via] = where(via, Duration.ofSeconds(1));
          } catch (SpotkitException e) {
            errors.merge(e.getClass().getSimpleName(), 1, Integer::sum);
            last.set("via node " + via + ": " + e);
            return false;
          }
        }
        return now[0].equals(now[1]);
      });
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      throw new AssertionError("no new incarnation answered nodes 0 and 1 within " + TTL.plus(MARGIN).plus(SLACK)
          + " of the target's halt; errors " + errors + ", last " + last.get(), e);
    }
    final long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - haltedAt);
    assertThat(now[0].nodeHex()).as("after " + tookMs + " ms; errors meanwhile " + errors)
        .isEqualTo(mesh.node(1).nodeRid().hex());
    assertThat(now[0].incarnation()).isNotEqualTo(there.incarnation());
    assertThat(errors.keySet()).as("typed, as the contract names them while the lease runs out")
        .isSubsetOf("Unavailable", "DeadlineExceeded");
  }

  @Test
  @Spec("REL-30")
  void aTargetHaltedPastRelayReadyLeavesTheSourceClosedAndFailingFast() throws Exception {
    start();
    viewOfTarget.holdWritesOf(ObjectKey.spot("dir").logicalKey().preimage()); // the target's CAS never lands
    final CompletableFuture<SpotRelocationResult> move = move();
    assertThat(viewOfTarget.held.await(20, TimeUnit.SECONDS)).as("the target reached its CAS").isTrue();
    mesh.halt(2);
    final AtomicReference<Throwable> failure = new AtomicReference<>(failureOf(move, Duration.ofSeconds(10)));
    assertThat(failure.get()).isInstanceOf(SpotkitException.Unavailable.class);
    // the source does not reopen after relay-ready: a request fails at once, typed, not at its deadline
    for (int via = 0; via < 2; via++) {
      final long at = System.nanoTime();
      final int from = via;
      final Throwable refused = org.assertj.core.api.Assertions.catchThrowable(() -> where(from,
          Duration.ofSeconds(4)));
      assertThat(refused).as("via node " + via).isInstanceOf(SpotkitException.Unavailable.class);
      assertThat(Duration.ofNanos(System.nanoTime() - at)).as("via node " + via).isLessThan(Duration.ofSeconds(3));
    }
  }

  /** Waits up to {@code within} for {@code move} to end; its failure's cause, or null when it succeeded. */
  private static Throwable failureOf(final CompletableFuture<?> move, final Duration within) throws Exception {
    Awaitility.await().atMost(within).until(move::isDone);
    try {
      move.get();
      return null;
    } catch (ExecutionException e) {
      return e.getCause();
    }
  }
}
