package dev.spotkit.redis;

import dev.spotkit.core.Actor;
import dev.spotkit.core.ActorContext;
import dev.spotkit.core.ActorHandlers;
import dev.spotkit.core.ActorRelocationAdapter;
import dev.spotkit.core.EntrySpot;
import dev.spotkit.core.EntrySpotContext;
import dev.spotkit.core.MeshNode;
import dev.spotkit.core.SpotHandlers;
import dev.spotkit.core.SpotRelocationAdapter;
import dev.spotkit.core.UserSpot;
import dev.spotkit.core.UserSpotContext;
import dev.spotkit.store.LocationStore;
import dev.spotkit.store.ReadResult;
import dev.spotkit.store.ScanRequest;
import dev.spotkit.store.ScanResult;
import dev.spotkit.store.WriteBatch;
import dev.spotkit.store.WriteResult;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.locks.LockSupport;

/**
 * The target MeshNode of a room move in its own JVM, for {@link RoomMoveTargetKilledTest}: it registers the same room
 * and member types as the test's source node and stalls the move where the test kills it. Arguments:
 * {@code <redisUri> <keyPrefix> <meshName> <clusterSecret> <mode>}; mode {@code stall-restore} parks the room's
 * restore (before relay-ready), {@code stall-commit} never answers the aggregate's CAS (after relay-ready). Lines on
 * stdout: {@code @@ ready <nodeRidHex>}, then {@code @@ restoring} or {@code @@ committing} when the move reaches the
 * stall.
 */
public final class RoomTargetProcess {
  static final String ANSWER = "@@ ";
  static volatile PrintStream out = System.out;
  static volatile boolean stallRestore;

  /** A note to the room or a member. */
  public record Note(long seq) {
  }

  /** Asks for the notes handled. */
  public record Count() {
  }

  /** Asks a member to join the room. */
  public record Join(String room) {
  }

  /** A member counting its notes. */
  public static final class Member implements Actor {
    private final ActorContext ctx;
    long notes;

    Member(final ActorContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public void configure(final ActorHandlers on) {
      on.message(Join.class, j -> ctx.joinSpot(j.room()).defer()).message(Note.class, n -> notes++)
          .request(Count.class, c -> notes);
    }
  }

  /** The room counting its notes. */
  public static final class Room implements UserSpot<Member> {
    private final UserSpotContext ctx;
    long notes;

    Room(final UserSpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public UserSpotContext context() {
      return ctx;
    }

    @Override
    public void configure(final SpotHandlers on) {
      on.message(Note.class, n -> notes++).request(Count.class, c -> notes);
    }
  }

  /** Both counts travel; the room's restore can stall. */
  public static final class Counts implements SpotRelocationAdapter<Room>, ActorRelocationAdapter<Member> {
    @Override
    public byte[] capture(final Room spot) {
      return ByteBuffer.allocate(8).putLong(spot.notes).array();
    }

    @Override
    public void restore(final Room spot, final byte[] state) {
      if (stallRestore) {
        out.println(ANSWER + "restoring");
        for (int i = 0; i < 10_000; i++) { // until the test kills this JVM (bounded: about 10 min)
          LockSupport.parkNanos(Duration.ofMillis(60).toNanos());
        }
      }
      spot.notes = ByteBuffer.wrap(state).getLong();
    }

    @Override
    public byte[] capture(final Member actor) {
      return ByteBuffer.allocate(8).putLong(actor.notes).array();
    }

    @Override
    public void restore(final Member actor, final byte[] state) {
      actor.notes = ByteBuffer.wrap(state).getLong();
    }
  }

  /** An Entry Spot that approves everything. */
  public static final class Entry implements EntrySpot {
    private final EntrySpotContext ctx;

    Entry(final EntrySpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public EntrySpotContext context() {
      return ctx;
    }
  }

  private RoomTargetProcess() {
  }

  /**
   * A node's builder with the room and member types.
   *
   * @param locations the Location Store.
   * @param relocations the Relocation Store.
   * @param mesh the MeshName.
   * @param secret the cluster secret.
   * @return the builder.
   */
  static MeshNode.Builder builder(final LocationStore locations, final RedisRelocationStore relocations,
      final String mesh, final String secret) {
    return MeshNode.builder().meshName(mesh).locationStore(locations).relocationStore(relocations).workers(2)
        .recreateAfterOwnerLoss(false).closeTimeout(Duration.ofSeconds(2))
        // 15 s: neither test waits for a lease to lapse, and a 2 s one was lost on a machine loaded twice over
        .ownerLease(Duration.ofMillis(500), Duration.ofSeconds(15), Duration.ofSeconds(2), Duration.ofSeconds(3))
        .mesh(m -> m.listen("127.0.0.1", 0).clusterSecret(secret))
        .objectServer(s -> s.entrySpot(Entry::new)
            .actor("member", Member::new, a -> a.preserveStateWith(new Counts()))
            .userSpot("room", Room::new, o -> o.spotWide().preserveStateWith(new Counts())));
  }

  /**
   * Starts the target and waits to be killed.
   *
   * @param args redis URI, key prefix, MeshName, cluster secret, mode.
   * @throws Exception when the node cannot start.
   */
  public static void main(final String[] args) throws Exception {
    out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    stallRestore = args[4].equals("stall-restore");
    final boolean stallCommit = args[4].equals("stall-commit");
    final RedisLocationStore redis = RedisLocationStore.connect(args[0], args[1]);
    final LocationStore locations = new LocationStore() {
      @Override
      public CompletionStage<ReadResult> read(final String key) {
        return redis.read(key);
      }

      @Override
      public CompletionStage<WriteResult> write(final WriteBatch batch) {
        if (stallCommit && batch.mutations().stream().anyMatch(m -> m.key().startsWith("aggregate\0"))
            && batch.mutations().stream().anyMatch(m -> m.key().startsWith("authority\0spot\0"))) {
          out.println(ANSWER + "committing");
          return new CompletableFuture<>(); // never answered: the test kills this JVM here
        }
        return redis.write(batch);
      }

      @Override
      public CompletionStage<ScanResult> scan(final ScanRequest request) {
        return redis.scan(request);
      }
    };
    final MeshNode node = builder(locations, RedisRelocationStore.connect(args[0], args[1]), args[2], args[3])
        .start();
    out.println(ANSWER + "ready " + node.nodeRid().hex());
    while (System.in.read() >= 0) { // until the test kills this JVM or closes stdin
      continue;
    }
    node.close();
    System.exit(0);
  }
}
