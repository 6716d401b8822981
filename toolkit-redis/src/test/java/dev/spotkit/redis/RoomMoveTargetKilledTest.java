package dev.spotkit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.spotkit.core.MeshNode;
import dev.spotkit.core.NodeRid;
import dev.spotkit.core.Spec;
import dev.spotkit.core.SpotId;
import dev.spotkit.core.SpotRelocationResult;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.core.location.LocationRecords;
import dev.spotkit.core.location.ObjectKey;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The target process of a room move killed (SIGKILL) while a sender writes to the room and its members (spec 000
 * section 8; issue "Rooms move with their members"): before relay-ready the source keeps everything and keeps
 * serving, nothing lost; after relay-ready the source is not restored (spec 000 section 8), the room answers typed
 * errors, and the Location Store never names the dead target for any participant (never two owners).
 */
class RoomMoveTargetKilledTest {
  @RegisterExtension
  static final RedisServerExtension REDIS = new RedisServerExtension();

  private static final String MESH = "killed";
  private static final String ROOM = "room-k";
  private static final int MEMBERS = 20;

  private final List<AutoCloseable> closing = new ArrayList<>();
  private Process child;

  @AfterEach
  void close() throws Exception {
    if (child != null) {
      child.destroyForcibly();
      child.waitFor(10, TimeUnit.SECONDS);
    }
    for (int i = closing.size() - 1; i >= 0; i--) {
      closing.get(i).close();
    }
  }

  /** A started target JVM: its RoutingId and its stdout lines. */
  private record Target(String rid, BlockingQueue<String> lines) {
    /**
     * The target's next line, within 120 s (a machine loaded twice over once took more than 60 s to get a move to
     * the target's restore).
     *
     * @param move the move under way: its state is named when no line came.
     */
    String next(final CompletableFuture<SpotRelocationResult> move) throws InterruptedException {
      final String line = lines.poll(120, TimeUnit.SECONDS);
      assertThat(line).as("a line from the target process (see target/room-target.log); the move: %s", move)
          .isNotNull();
      return line;
    }
  }

  private Target startTarget(final String prefix, final String secret, final String mode) throws Exception {
    final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    final List<String> command = new ArrayList<>(List.of(java));
    command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments().stream().filter(a -> a.startsWith("--"))
        .toList());
    command.addAll(List.of("-Xmx128m", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
        RoomTargetProcess.class.getName(), REDIS.uri(), prefix, MESH, secret, mode));
    child = new ProcessBuilder(command).redirectError(new File("target/room-target.log")).start();
    final BlockingQueue<String> lines = new ArrayBlockingQueue<>(16);
    final Thread reader = new Thread(() -> {
      try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
          StandardCharsets.UTF_8))) {
        for (String line = out.readLine(); line != null; line = out.readLine()) {
          if (line.startsWith(RoomTargetProcess.ANSWER)) {
            lines.put(line.substring(RoomTargetProcess.ANSWER.length()));
          }
        }
      } catch (IOException | InterruptedException e) {
        // the process was killed
      }
    }, "room-target-stdout");
    reader.setDaemon(true);
    reader.start();
    final String ready = lines.poll(60, TimeUnit.SECONDS);
    assertThat(ready).as("the target process started").startsWith("ready ");
    return new Target(ready.substring("ready ".length()), lines);
  }

  /** The source node in this JVM, with the room and its members (created while it is the only node). */
  private MeshNode source(final String prefix, final String secret) {
    final RedisLocationStore locations = RedisLocationStore.connect(REDIS.uri(), prefix);
    final RedisRelocationStore relocations = RedisRelocationStore.connect(REDIS.uri(), prefix);
    closing.add(locations);
    closing.add(relocations);
    final MeshNode a = RoomTargetProcess.builder(locations, relocations, MESH, secret).start();
    closing.add(a::close);
    a.spots().getOrCreate(ROOM, "room").await();
    for (int i = 0; i < MEMBERS; i++) {
      a.actors().getOrCreate("k" + i, "member").await();
      a.toActor("k" + i).send(new RoomTargetProcess.Join(ROOM));
    }
    await().atMost(Duration.ofSeconds(30)).until(() -> {
      for (int i = 0; i < MEMBERS; i++) {
        if (!LocationRecords.read(locations, ObjectKey.actor("k" + i)).orElseThrow().record().membership()
            .equals(ROOM)) {
          return false;
        }
      }
      return true;
    });
    return a;
  }

  /** Writes notes to the room and the members in turn until stopped; counts what was accepted. */
  private static Thread sender(final MeshNode from, final AtomicBoolean stop, final AtomicLong toRoom,
      final AtomicLong toMembers) {
    return Thread.ofPlatform().daemon().start(() -> {
      for (long seq = 0; seq < 1_000_000 && !stop.get(); seq++) {
        try {
          if (seq % 2 == 0) {
            from.toSpot(ROOM).send(new RoomTargetProcess.Note(seq));
            toRoom.incrementAndGet();
          } else {
            from.toActor("k" + (seq / 2 % MEMBERS)).send(new RoomTargetProcess.Note(seq));
            toMembers.incrementAndGet();
          }
        } catch (SpotkitException refused) {
          return; // the room became unavailable (after relay-ready): nothing more is accepted
        }
        java.util.concurrent.locks.LockSupport.parkNanos(200_000);
      }
    });
  }

  private static String secret() {
    final byte[] bytes = new byte[24];
    ThreadLocalRandom.current().nextBytes(bytes);
    return HexFormat.of().formatHex(bytes);
  }

  private static String owner(final RedisLocationStore view, final ObjectKey key) {
    return LocationRecords.read(view, key).orElseThrow().authority().allocation().routingIdHex();
  }

  @Test
  @Spec("REL-30")
  void aTargetKilledBeforeRelayReadyLeavesTheRoomServingOnTheSourceWithNothingLost() throws Exception {
    final String prefix = "kill-before";
    final String secret = secret();
    final MeshNode a = source(prefix, secret);
    final Target b = startTarget(prefix, secret, "stall-restore");
    final AtomicBoolean stop = new AtomicBoolean();
    final AtomicLong toRoom = new AtomicLong();
    final AtomicLong toMembers = new AtomicLong();
    final Thread sender = sender(a, stop, toRoom, toMembers);
    final CompletableFuture<SpotRelocationResult> moved = a.relocateSpot(new SpotId(ROOM),
        new NodeRid(Long.parseUnsignedLong(b.rid(), 16)));
    assertThat(b.next(moved)).isEqualTo("restoring");
    child.destroyForcibly(); // SIGKILL while it restores: relay-ready was never sent
    assertThat(child.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(moved).failsWithin(60, TimeUnit.SECONDS).withThrowableThat().havingCause()
        .isInstanceOf(SpotkitException.Unavailable.class);
    final long roomBefore = toRoom.get();
    await().atMost(Duration.ofSeconds(10)).until(() -> toRoom.get() > roomBefore + 20); // still accepting
    stop.set(true);
    sender.join(TimeUnit.SECONDS.toMillis(10));
    // every note accepted before, during and after the failed move is handled on the source, exactly once
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      long members = 0;
      for (int i = 0; i < MEMBERS; i++) {
        members += a.toActor("k" + i).request(new RoomTargetProcess.Count(), Long.class)
            .timeout(Duration.ofSeconds(5)).await();
      }
      assertThat(members).isEqualTo(toMembers.get());
      assertThat(a.toSpot(ROOM).request(new RoomTargetProcess.Count(), Long.class).timeout(Duration.ofSeconds(5))
          .await()).isEqualTo(toRoom.get());
    });
    final RedisLocationStore view = RedisLocationStore.connect(REDIS.uri(), prefix);
    closing.add(view);
    assertThat(owner(view, ObjectKey.spot(ROOM))).isEqualTo(a.nodeRid().hex());
    for (int i = 0; i < MEMBERS; i++) {
      assertThat(owner(view, ObjectKey.actor("k" + i))).isEqualTo(a.nodeRid().hex());
    }
  }

  @Test
  @Spec("REL-30")
  void aTargetKilledAfterRelayReadyBeforeItsCasLeavesNoSecondOwnerAndTheRoomAnswersTypedErrors() throws Exception {
    final String prefix = "kill-after";
    final String secret = secret();
    final MeshNode a = source(prefix, secret);
    final Target b = startTarget(prefix, secret, "stall-commit");
    final AtomicBoolean stop = new AtomicBoolean();
    final Thread sender = sender(a, stop, new AtomicLong(), new AtomicLong());
    final CompletableFuture<SpotRelocationResult> moved = a.relocateSpot(new SpotId(ROOM),
        new NodeRid(Long.parseUnsignedLong(b.rid(), 16)));
    assertThat(b.next(moved)).isEqualTo("committing"); // past relay-ready: the source took its hold for the relay
    child.destroyForcibly();
    assertThat(child.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(moved).failsWithin(90, TimeUnit.SECONDS).withThrowableThat().havingCause()
        .isInstanceOf(SpotkitException.Unavailable.class);
    stop.set(true);
    sender.join(TimeUnit.SECONDS.toMillis(10));
    // the source was not restored (spec 000 section 8): the room and its members answer Unavailable at once
    final SpotkitException roomError = org.assertj.core.api.Assertions.catchThrowableOfType(SpotkitException.class,
        () -> a.toSpot(ROOM).request(new RoomTargetProcess.Count(), Long.class).timeout(Duration.ofSeconds(20))
        .await());
    assertThat(roomError).isInstanceOf(SpotkitException.Unavailable.class);
    final SpotkitException memberError = org.assertj.core.api.Assertions.catchThrowableOfType(
        SpotkitException.class, () -> a.toActor("k3").request(new RoomTargetProcess.Count(), Long.class)
        .timeout(Duration.ofSeconds(20)).await());
    assertThat(memberError).isInstanceOf(SpotkitException.Unavailable.class);
    // never two owners: the dead target never became the owner of any participant
    final RedisLocationStore view = RedisLocationStore.connect(REDIS.uri(), prefix);
    closing.add(view);
    assertThat(owner(view, ObjectKey.spot(ROOM))).isEqualTo(a.nodeRid().hex());
    for (int i = 0; i < MEMBERS; i++) {
      assertThat(owner(view, ObjectKey.actor("k" + i))).isEqualTo(a.nodeRid().hex());
    }
  }
}
