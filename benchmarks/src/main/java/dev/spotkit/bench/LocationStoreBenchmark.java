package dev.spotkit.bench;

import dev.spotkit.core.location.AuthorityRecord;
import dev.spotkit.core.location.LeaseGeneration;
import dev.spotkit.core.location.LocationKeys;
import dev.spotkit.core.location.LocationRecords;
import dev.spotkit.core.location.MeshNodeDescriptorRecord;
import dev.spotkit.core.location.NodeCapacityRecord;
import dev.spotkit.core.location.NodeDirectory;
import dev.spotkit.core.location.NodeState;
import dev.spotkit.core.location.ObjectKey;
import dev.spotkit.core.location.OwnerLeaseRecord;
import dev.spotkit.core.location.PlacementBatches;
import dev.spotkit.core.location.PlacementKind;
import dev.spotkit.redis.RedisLocationStore;
import dev.spotkit.store.Condition;
import dev.spotkit.store.Mutation;
import dev.spotkit.store.ReadResult;
import dev.spotkit.store.StoreBytes;
import dev.spotkit.store.StoreVersion;
import dev.spotkit.store.WriteBatch;
import dev.spotkit.store.WriteResult;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The Redis Location Store's own cost per operation, against a local {@code redis-server} this benchmark starts
 * per fork (free loopback port, {@code --save "" --appendonly no}) and stops. Without a number in its name a
 * benchmark has one caller thread, one request in flight at a time, so its score is round trips per second:
 * <ul>
 *   <li>{@code baselineEvalsha}: raw Lettuce {@code EVALSHA} of {@code return 1} on its own connection (the
 *       {@code redis-benchmark}-style floor: one round trip through Lettuce, Netty and the Lua engine);</li>
 *   <li>{@code authorityRead}: {@link LocationRecords#read} of one Ready authority row, as routing reads it
 *       (read script with server-time expiry check, record decode);</li>
 *   <li>{@code casWrite}: one conditional write of that row ({@code ExpectVersion} + Put: the shape of an owner
 *       change), the version chained from the previous write;</li>
 *   <li>{@code creation}: a new actor id through {@link PlacementBatches} exactly as the framework creates one:
 *       {@code reserve} (one readAll of authority, descriptor, owner lease, capacity and both counters, then one
 *       batch writing the Creating row, counters and reserved slot) and {@code commit} (one readAll of the row,
 *       lease and capacity, then one batch: Ready row, slot to active): 4 round trips.</li>
 *   <li>{@code creation8}, {@code creation64}, {@code baselineEvalsha8}, {@code baselineEvalsha64}: the same with
 *       8 and 64 caller threads ({@code @Threads}); the creators share one {@link PlacementBatches} (one node),
 *       whose concurrent reserves and commits go out as one read and one write per group;</li>
 *   <li>{@code relocationCas}: the target-only relocation CAS of a move ({@link PlacementBatches#relocate}) of one
 *       row alternately between two nodes, the source node named: one readAll, one batch (2 round trips);
 *       {@code relocationCasUnnamed}: the source not named (3 round trips).</li>
 * </ul>
 * Compare each store score with {@code baselineEvalsha} of the same run: the ratio is the store's overhead in
 * round trips and script work.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 4, time = 2)
@Fork(value = 3, jvmArgsAppend = {Jvm.ADD_OPENS, Jvm.NATIVE, Jvm.XMS, Jvm.XMX, Jvm.QUIET_SLF4J})
public class LocationStoreBenchmark {
  private static final String MESH = "bench";
  private static final String RID = "00000000000000b1";
  private static final String OWNER = "owner-bench";
  private static final String RID2 = "00000000000000b2";
  private static final String OWNER2 = "owner-bench-2";
  private static final Duration TIMEOUT = Duration.ofSeconds(5);

  private LocalRedis redis;
  private RedisClient client;
  private StatefulRedisConnection<String, String> raw;
  private RedisAsyncCommands<String, String> rawAsync;
  private String trivialSha;
  private RedisLocationStore store;
  private PlacementBatches batches;
  private PlacementBatches.Target target;
  private ObjectKey readKey;
  private String casKey;
  private StoreBytes casValue;
  private StoreVersion casVersion;
  private final AtomicLong created = new AtomicLong();
  /** The second node, target of every other relocation CAS. */
  private PlacementBatches.Target other;
  private ObjectKey moverKey;
  private StoreVersion moverVersion;
  /** Where the mover's row is allocated now: false = {@code RID}, true = {@code RID2}. */
  private boolean moverOnOther;

  /**
   * Starts redis-server, connects both clients and writes the node records a reservation checks (owner lease,
   * Serving descriptor, capacity limits) and one Ready actor row.
   *
   * @throws Exception when redis-server is missing or does not answer in 15 s.
   */
  @Setup(Level.Trial)
  public void setUp() throws Exception {
    redis = LocalRedis.start();
    final String uri = redis.uri();
    client = RedisClient.create(uri);
    raw = client.connect();
    rawAsync = raw.async();
    trivialSha = rawAsync.scriptLoad("return 1").get(5, TimeUnit.SECONDS);

    store = RedisLocationStore.connect(uri, "bench");
    batches = new PlacementBatches(store, TIMEOUT, PlacementBatches.DEFAULT_ATTEMPTS);
    target = publishNode(RID, OWNER);
    other = publishNode(RID2, OWNER2);
    readKey = ObjectKey.actor("bench-read");
    createOne(readKey);
    casKey = readKey.logicalKey().preimage();
    final ReadResult.Found row = (ReadResult.Found) store.read(casKey).toCompletableFuture().get(5, TimeUnit.SECONDS);
    casValue = row.value();
    casVersion = row.version();
    moverKey = ObjectKey.actor("bench-mover");
    moverVersion = createOne(moverKey);
  }

  /** Publishes a Serving node (owner lease, descriptor, capacity limits) and returns it as a placement target. */
  private PlacementBatches.Target publishNode(final String rid, final String owner) throws Exception {
    final LeaseGeneration lease = new LeaseGeneration(1);
    applied(WriteBatch.unconditional(Mutation.Put.expiring(LocationKeys.ownerLease(owner).preimage(),
        new OwnerLeaseRecord(owner, lease).encode(), Duration.ofHours(1))));
    final MeshNodeDescriptorRecord descriptor = new MeshNodeDescriptorRecord(owner, lease, 1,
        new MeshNodeDescriptorRecord.Descriptor(MESH, rid, 1, "127.0.0.1:7000", null, Map.of(), 1,
            List.of(new MeshNodeDescriptorRecord.Capability(PlacementKind.ACTOR, "bench",
                MeshNodeDescriptorRecord.Policy.UNSPECIFIED, false, 0)),
            MeshNodeDescriptorRecord.Role.SERVER, 100, new MeshNodeDescriptorRecord.Usage(0, 0, 0),
            new MeshNodeDescriptorRecord.Usage(0, 0, 0), List.of(), 0, 0, null, NodeState.SERVING, "id-" + rid,
            0));
    final NodeDirectory.Published published = new NodeDirectory(store, TIMEOUT, 10).publish(descriptor);
    if (!(published instanceof NodeDirectory.Published.Stored)) {
      throw new IllegalStateException("descriptor not published: " + published);
    }
    batches.publishLimits(MESH, rid, NodeCapacityRecord.limitsOf(descriptor.descriptor()));
    return new PlacementBatches.Target(MESH, rid, 1, owner, lease);
  }

  private void applied(final WriteBatch batch) throws Exception {
    final WriteResult result = store.write(batch).toCompletableFuture().get(5, TimeUnit.SECONDS);
    if (!(result instanceof WriteResult.Applied)) {
      throw new IllegalStateException("write not applied: " + result);
    }
  }

  private StoreVersion createOne(final ObjectKey key) {
    final PlacementBatches.Reservation reservation = batches.reserve(new PlacementBatches.ReserveRequest(key,
        PlacementKind.ACTOR, "bench", target, StoreBytes.empty(), null));
    if (!(reservation instanceof PlacementBatches.Reservation.Reserved reserved)) {
      throw new IllegalStateException("not reserved: " + reservation);
    }
    final PlacementBatches.Outcome outcome = batches.commit(key, reserved.version(), List.of());
    if (!(outcome instanceof PlacementBatches.Outcome.Done done)) {
      throw new IllegalStateException("not committed: " + outcome);
    }
    return done.version().orElseThrow();
  }

  /** Closes the clients and stops redis-server (SIGTERM, SIGKILL after 5 s). */
  @TearDown(Level.Trial)
  public void tearDown() throws Exception {
    if (store != null) {
      store.close();
    }
    if (raw != null) {
      raw.close();
    }
    if (client != null) {
      client.shutdown();
    }
    if (redis != null) {
      redis.close();
    }
  }

  /**
   * Baseline: one EVALSHA of {@code return 1}.
   *
   * @return the script's answer (1).
   * @throws Exception on a Redis error or a 5 s timeout.
   */
  @Benchmark
  public Long baselineEvalsha() throws Exception {
    return rawAsync.<Long>evalsha(trivialSha, ScriptOutputType.INTEGER).get(5, TimeUnit.SECONDS);
  }

  /**
   * One authority read and decode.
   *
   * @return the row.
   */
  @Benchmark
  public AuthorityRecord authorityRead() {
    return LocationRecords.read(store, readKey).orElseThrow().authority();
  }

  /**
   * One conditional write (ExpectVersion + Put) of the authority row.
   *
   * @return the new version.
   * @throws Exception on a store error, a Conflict or a 5 s timeout.
   */
  @Benchmark
  public StoreVersion casWrite() throws Exception {
    final WriteResult result = store.write(WriteBatch.of(List.of(new Condition.ExpectVersion(casKey, casVersion)),
        List.of(Mutation.Put.of(casKey, casValue)))).toCompletableFuture().get(5, TimeUnit.SECONDS);
    if (!(result instanceof WriteResult.Applied applied)) {
      throw new IllegalStateException("CAS not applied: " + result);
    }
    casVersion = applied.versions().get(casKey);
    return casVersion;
  }

  /**
   * One creation: reserve and commit of a new actor id.
   *
   * @return the Ready row's version.
   */
  @Benchmark
  public StoreVersion creation() {
    return createOne(ObjectKey.actor("bench-" + created.getAndIncrement()));
  }

  /**
   * One target-only relocation CAS of a Ready actor row, as a move's target runs it, alternately to the second node
   * and back: the row, the target's owner lease, both capacity records and the AuthorityOwnerGeneration counter in
   * one readAll (the source node named), then one batch: 2 round trips.
   *
   * @return the row's new version.
   */
  @Benchmark
  public StoreVersion relocationCas() {
    return relocate(true);
  }

  /**
   * {@link #relocationCas} without naming the source node: its capacity record is read once the row names it, 3
   * round trips.
   *
   * @return the row's new version.
   */
  @Benchmark
  public StoreVersion relocationCasUnnamed() {
    return relocate(false);
  }

  private StoreVersion relocate(final boolean named) {
    final PlacementBatches.Target to = moverOnOther ? target : other;
    final String from = moverOnOther ? RID2 : RID;
    final PlacementBatches.Outcome outcome = batches.relocate(moverKey, moverVersion, to, StoreBytes.empty(),
        named ? from : null);
    if (!(outcome instanceof PlacementBatches.Outcome.Done done)) {
      throw new IllegalStateException("relocation CAS not applied: " + outcome);
    }
    moverOnOther = !moverOnOther;
    moverVersion = done.version().orElseThrow();
    return moverVersion;
  }

  /**
   * Baseline with 8 callers: each thread one EVALSHA at a time, all on the one raw connection (Lettuce pipelines
   * them), so the score is the connection's round trips per second at that concurrency.
   *
   * @return the script's answer (1).
   * @throws Exception on a Redis error or a 5 s timeout.
   */
  @Benchmark
  @Threads(8)
  public Long baselineEvalsha8() throws Exception {
    return baselineEvalsha();
  }

  /**
   * Baseline with 64 callers on the one raw connection.
   *
   * @return the script's answer (1).
   * @throws Exception on a Redis error or a 5 s timeout.
   */
  @Benchmark
  @Threads(64)
  public Long baselineEvalsha64() throws Exception {
    return baselineEvalsha();
  }

  /**
   * Creations by 8 concurrent callers of one node's {@link PlacementBatches} (as one MeshNode's creations share
   * it), each creating new ids one after another.
   *
   * @return the Ready row's version.
   */
  @Benchmark
  @Threads(8)
  public StoreVersion creation8() {
    return creation();
  }

  /**
   * Creations by 64 concurrent callers of one node's {@link PlacementBatches}.
   *
   * @return the Ready row's version.
   */
  @Benchmark
  @Threads(64)
  public StoreVersion creation64() {
    return creation();
  }
}
