package dev.spotkit.redis;

import dev.spotkit.core.Actor;
import dev.spotkit.core.ActorContext;
import dev.spotkit.core.ActorHandlers;
import dev.spotkit.core.ActorRef;
import dev.spotkit.core.CreateOutcome;
import dev.spotkit.core.EntrySpot;
import dev.spotkit.core.EntrySpotContext;
import dev.spotkit.core.MeshAdmin;
import dev.spotkit.core.MeshNode;
import dev.spotkit.core.ObjectKind;
import dev.spotkit.core.ObjectLocation;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One MeshNode in its own JVM, for {@link MultiProcessMeshTest}: an object server on the Redis Location and
 * Relocation Stores with a free loopback mesh port and short owner-lease settings, driven by a line protocol on
 * stdin. Every command gets exactly one answer line on stdout starting with {@value #ANSWER} (logging goes to
 * stderr); the first such line is {@code @@ ready <nodeRidHex>}, or {@code @@ failed <reason>} when the node could not
 * start (the process then exits 1).
 *
 * <p>Arguments: {@code <redisUri> <keyPrefix> <meshName> <clusterSecret> [recreate]}; with {@code recreate} the node
 * runs with crash recovery on ({@code recreateAfterOwnerLoss(true)}, the product default), without it off (the spec's
 * plain Unavailable for a dead owner's objects). Commands:
 * <ul>
 *   <li>{@code storm ID N}: N concurrent GetOrCreate of actor ID ("counted"), released together; answers
 *       {@code created=C existing=E other=X owners=RID[,RID]}.</li>
 *   <li>{@code runs ID}: how often the "counted" factory ran here for ID.</li>
 *   <li>{@code getOrCreate ID}: {@code Created RID}, {@code Existing RID}, or {@code error TYPE}.</li>
 *   <li>{@code incarnation ID}: GetOrCreate of actor ID with the ref's ObjectGeneration: {@code Created RID GEN},
 *       {@code Existing RID GEN}, or {@code error TYPE}.</li>
 *   <li>{@code create}: a new "counted" actor where placement puts it: {@code created ID RID} or
 *       {@code error TYPE}.</li>
 *   <li>{@code ask ID}: a request to actor ID, answered by the node hosting it: {@code ok RID} or
 *       {@code error TYPE}.</li>
 *   <li>{@code send ID}: a one-way send to actor ID: {@code sent} or {@code error TYPE}.</li>
 *   <li>{@code find ID}: {@code found RID}, {@code none} or {@code error TYPE}.</li>
 *   <li>{@code locate ID}: {@code at RID STATE}, {@code none} or {@code error TYPE}.</li>
 *   <li>{@code nodes}: the MeshNode descriptors of this node's mesh in the Location Store, as an operator reads them
 *       ({@link MeshAdmin#nodes}): {@code nodes RID:live RID:lapsed ...} in the order it lists them, or
 *       {@code error TYPE}.</li>
 *   <li>{@code tick ID}: GetOrCreate of actor ID ("ticking"), then a one-way {@link StartTicking} to the ref: the
 *       actor ticks every 20 ms from then on, each tick noted here with its wall-clock time; answers
 *       {@code Created RID GEN}, {@code Existing RID GEN}, or {@code error TYPE}.</li>
 *   <li>{@code ticks ID SINCE}: the ticks of ID run on this node: {@code ticks N since=S first=F last=L} with N of
 *       all its ticks here, S of those at or after SINCE (epoch ms), F and L the wall-clock times of the first and last
 *       (epoch ms; 0 when none).</li>
 *   <li>{@code state}: {@code running}, {@code closed} (close started) or {@code terminated ERROR_TYPE} (the node
 *       stopped itself, e.g. its owner lease was lost).</li>
 *   <li>{@code quit}: closes the node and exits.</li>
 * </ul>
 */
public final class MeshNodeProcess {
  /** Prefix of every answer line. */
  public static final String ANSWER = "@@ ";
  /**
   * Owner lease TTL of every child: 4 s (with 2 s a survivor under a fully loaded machine, CI under load, missed every
   * renewal once and stopped itself, failing a creation on it).
   */
  public static final Duration OWNER_LEASE_TTL = Duration.ofMillis(4000);
  /** Fencing margin of every child's owner lease: it stops admitting new work this long before the lease lapses. */
  public static final Duration FENCING_MARGIN = Duration.ofMillis(1000);
  /** The optional fifth argument that turns crash recovery on. */
  public static final String RECREATE = "recreate";
  private static final Duration CALL_TIMEOUT = Duration.ofSeconds(5);
  private static final Map<String, AtomicInteger> RUNS = new ConcurrentHashMap<>();

  /** Wall-clock times (epoch ms) of the ticks of each "ticking" actor id run on this node. */
  private static final Map<String, List<Long>> TICKS = new ConcurrentHashMap<>();

  /** Makes a "ticking" actor tick every 20 ms. */
  public record StartTicking() {
  }

  /** Notes each tick of a 20 ms timer with its wall-clock time ({@link #TICKS}). */
  static final class Ticking implements Actor {
    private final ActorContext ctx;

    Ticking(final ActorContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public void configure(final ActorHandlers on) {
      final List<Long> ticks = TICKS.computeIfAbsent(ctx.self().id().value(),
          k -> java.util.Collections.synchronizedList(new ArrayList<>()));
      on.message(StartTicking.class, start -> ctx.timers().every("tick", Duration.ofMillis(20),
          () -> ticks.add(System.currentTimeMillis())));
    }
  }

  /** Asks which node answered. */
  public record WhereAreYou() {
  }

  /** The answer: the hosting node's RoutingId. */
  public record HereIAm(String nodeRidHex) {
  }

  /** Counts its factory runs per id and answers {@link WhereAreYou}. */
  static final class Counted implements Actor {
    private final ActorContext ctx;

    Counted(final ActorContext ctx) {
      this.ctx = ctx;
      RUNS.computeIfAbsent(ctx.self().id().value(), k -> new AtomicInteger()).incrementAndGet();
    }

    @Override
    public void configure(final ActorHandlers on) {
      on.request(WhereAreYou.class, q -> new HereIAm(ctx.self().nodeRid().hex()));
    }
  }

  /** An Entry Spot that approves everything. */
  static final class Entry implements EntrySpot {
    private final EntrySpotContext ctx;

    Entry(final EntrySpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public EntrySpotContext context() {
      return ctx;
    }
  }

  private MeshNodeProcess() {
  }

  /**
   * Starts the node and serves commands until {@code quit} or end of stdin.
   *
   * @param args redis URI, key prefix, MeshName, cluster secret (at least 16 bytes), optionally
   *     {@value #RECREATE}.
   * @throws Exception when the node cannot start (the process then exits non-zero).
   */
  public static void main(final String[] args) throws Exception {
    final PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    try {
      serve(args, out);
    } catch (Exception | Error e) {
      out.println(ANSWER + "failed " + e); // the parent's wait for "ready" ends with the reason, not its timeout
      e.printStackTrace();
      System.exit(1); // Lettuce's and Netty's threads would keep a JVM whose main thread failed alive
    }
    System.exit(0);
  }

  /** Connects, with up to {@value #CONNECT_TRIES} tries (a fully loaded machine once took 5 s to connect). */
  private static <T> T connect(final java.util.function.Supplier<T> connect) {
    for (int attempt = 1; ; attempt++) {
      try {
        return connect.get();
      } catch (RuntimeException e) {
        if (attempt == CONNECT_TRIES) {
          throw e;
        }
      }
    }
  }

  private static final int CONNECT_TRIES = 4;

  private static void serve(final String[] args, final PrintStream out) throws Exception {
    final RedisLocationStore locations = connect(() -> RedisLocationStore.connect(args[0], args[1]));
    final RedisRelocationStore relocations = connect(() -> RedisRelocationStore.connect(args[0], args[1]));
    final boolean recreate = args.length > 4 && args[4].equals(RECREATE);
    final MeshNode node = MeshNode.builder().meshName(args[2]).locationStore(locations)
        .relocationStore(relocations).closeStoresOnClose().workers(2).requestTimeout(CALL_TIMEOUT)
        .closeTimeout(Duration.ofSeconds(2))
        // without RECREATE the spec's plain behaviour (spec 002 section 1): a dead owner's objects stay Unavailable,
        // never re-created; with it crash recovery (the product default, issue 15)
        .recreateAfterOwnerLoss(recreate)
        .ownerLease(Duration.ofMillis(200), OWNER_LEASE_TTL, Duration.ofMillis(1000), FENCING_MARGIN)
        .mesh(m -> m.listen("127.0.0.1", 0).clusterSecret(args[3]))
        .objectServer(s -> s.entrySpot(Entry::new).actor("counted", Counted::new, a -> a.disableRelocation())
            .actor("ticking", Ticking::new, a -> a.disableRelocation()))
        .start();
    out.println(ANSWER + "ready " + node.nodeRid().hex());
    final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        final String[] words = line.trim().split(" ");
        if (words[0].equals("quit")) {
          break;
        }
        String answer;
        try {
          answer = handle(node, locations, pool, words);
        } catch (Exception e) {
          final Throwable cause = e instanceof java.util.concurrent.ExecutionException && e.getCause() != null
              ? e.getCause() : e;
          answer = "error " + cause.getClass().getSimpleName();
        }
        out.println(ANSWER + answer);
      }
    } finally {
      node.close();
    }
  }

  private static String handle(final MeshNode node, final RedisLocationStore locations, final ExecutorService pool,
      final String[] words) throws Exception {
    switch (words[0]) {
      case "storm" -> {
        return storm(node, pool, words[1], Integer.parseInt(words[2]));
      }
      case "runs" -> {
        final AtomicInteger runs = RUNS.get(words[1]);
        return Integer.toString(runs == null ? 0 : runs.get());
      }
      case "getOrCreate" -> {
        final CreateOutcome<ActorRef> outcome = node.actors().getOrCreate(words[1], "counted")
            .timeout(CALL_TIMEOUT).awaitOutcome();
        return describe(outcome);
      }
      case "incarnation" -> {
        final CreateOutcome<ActorRef> outcome = node.actors().getOrCreate(words[1], "counted")
            .timeout(CALL_TIMEOUT).awaitOutcome();
        return switch (outcome) {
          case CreateOutcome.Created<ActorRef> c -> describe(outcome) + " " + c.ref().generation().value();
          case CreateOutcome.Existing<ActorRef> e -> describe(outcome) + " " + e.ref().generation().value();
          case CreateOutcome.Rejected<ActorRef> r -> describe(outcome);
        };
      }
      case "tick" -> {
        final CreateOutcome<ActorRef> outcome = node.actors().getOrCreate(words[1], "ticking")
            .timeout(CALL_TIMEOUT).awaitOutcome();
        return switch (outcome) {
          case CreateOutcome.Created<ActorRef> c -> {
            node.toActor(c.ref()).send(new StartTicking());
            yield describe(outcome) + " " + c.ref().generation().value();
          }
          case CreateOutcome.Existing<ActorRef> e -> {
            node.toActor(e.ref()).send(new StartTicking());
            yield describe(outcome) + " " + e.ref().generation().value();
          }
          case CreateOutcome.Rejected<ActorRef> r -> describe(outcome);
        };
      }
      case "ticks" -> {
        final List<Long> kept = TICKS.get(words[1]);
        final List<Long> all;
        if (kept == null) {
          all = List.of();
        } else {
          synchronized (kept) { // a synchronizedList's own lock: the timer adds under it
            all = List.copyOf(kept);
          }
        }
        final long since = Long.parseLong(words[2]);
        return "ticks " + all.size() + " since=" + all.stream().filter(t -> t >= since).count() + " first="
            + (all.isEmpty() ? 0 : all.get(0)) + " last=" + (all.isEmpty() ? 0 : all.get(all.size() - 1));
      }
      case "state" -> {
        final java.util.concurrent.CompletableFuture<Void> end = node.terminated();
        if (end.isCompletedExceptionally()) {
          return "terminated " + end.exceptionNow().getClass().getSimpleName();
        }
        return node.isClosed() ? "closed" : "running";
      }
      case "create" -> {
        final ActorRef ref = node.actors().create("counted").timeout(CALL_TIMEOUT).await();
        return "created " + ref.id().value() + " " + ref.nodeRid().hex();
      }
      case "ask" -> {
        return "ok " + node.toActor(words[1]).request(new WhereAreYou(), HereIAm.class).timeout(CALL_TIMEOUT)
            .await().nodeRidHex();
      }
      case "send" -> {
        node.toActor(words[1]).send(new WhereAreYou());
        return "sent";
      }
      case "find" -> {
        final Optional<ActorRef> found = node.actors().find(words[1]);
        return found.map(r -> "found " + r.nodeRid().hex()).orElse("none");
      }
      case "locate" -> {
        final Optional<ObjectLocation> at = node.locations().locate(ObjectKind.ACTOR, words[1]);
        return at.map(l -> "at " + l.owner().hex() + " " + l.state()).orElse("none");
      }
      case "nodes" -> {
        final StringBuilder answer = new StringBuilder("nodes");
        for (MeshAdmin.NodeStatus status : MeshAdmin.over(locations, CALL_TIMEOUT).nodes(node.meshName())) {
          answer.append(' ').append(status.node().hex()).append(status.live() ? ":live" : ":lapsed");
        }
        return answer.toString();
      }
      default -> {
        return "error unknown command " + words[0];
      }
    }
  }

  private static String storm(final MeshNode node, final ExecutorService pool, final String id, final int callers)
      throws Exception {
    final CountDownLatch go = new CountDownLatch(1);
    final List<Future<CreateOutcome<ActorRef>>> calls = new ArrayList<>();
    for (int i = 0; i < callers; i++) {
      calls.add(pool.submit(() -> {
        go.await();
        return node.actors().getOrCreate(id, "counted").timeout(CALL_TIMEOUT).awaitOutcome();
      }));
    }
    go.countDown();
    int created = 0;
    int existing = 0;
    int other = 0;
    final TreeSet<String> owners = new TreeSet<>();
    String firstError = "";
    for (Future<CreateOutcome<ActorRef>> call : calls) {
      final CreateOutcome<ActorRef> outcome;
      try {
        outcome = call.get(CALL_TIMEOUT.toMillis() * 2, TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.ExecutionException e) {
        other++;
        if (firstError.isEmpty()) {
          firstError = " error=" + String.valueOf(e.getCause()).replaceAll("\\s+", "_");
        }
        continue;
      }
      switch (outcome) {
        case CreateOutcome.Created<ActorRef> c -> {
          created++;
          owners.add(c.ref().nodeRid().hex());
        }
        case CreateOutcome.Existing<ActorRef> e -> {
          existing++;
          owners.add(e.ref().nodeRid().hex());
        }
        case CreateOutcome.Rejected<ActorRef> r -> other++;
      }
    }
    return "created=" + created + " existing=" + existing + " other=" + other + " owners=" + String.join(",", owners)
        + firstError;
  }

  private static String describe(final CreateOutcome<ActorRef> outcome) {
    return switch (outcome) {
      case CreateOutcome.Created<ActorRef> c -> "Created " + c.ref().nodeRid().hex();
      case CreateOutcome.Existing<ActorRef> e -> "Existing " + e.ref().nodeRid().hex();
      case CreateOutcome.Rejected<ActorRef> r -> "Rejected";
    };
  }
}
