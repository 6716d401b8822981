package dev.spotkit.examples.chat;

import dev.spotkit.core.MeshNode;
import dev.spotkit.core.NodeRid;
import dev.spotkit.core.ObjectKind;
import dev.spotkit.core.RelocateOptions;
import dev.spotkit.core.RelocateResult;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code chat-demo}: starts a {@link ChatServer} of {@code --nodes} MeshNodes (default 3) in this process on
 * free loopback ports, runs the {@link BotSwarm} against all of them (bots round-robin over the nodes, so
 * rooms have members on several nodes), prints the bots' summary line and exits with their exit code. Before the
 * server closes it lets the nodes finish the bots' departures (at most {@link #DEPARTURES_BOUND}), so a clean run's
 * shutdown logs no warning.
 *
 * <p>With {@code --relocations K} (K at least 1, needs 2 or more nodes) a {@link Wanderer} client runs beside
 * the bots and keeps switching rooms until it completed K moves between nodes (live relocation); its
 * own numbered lines count in the summary like a bot's ({@code sent}, {@code expected}, {@code delivered},
 * {@code lost}, {@code duplicated}, {@code reordered}, {@code timed_out}: an echo it timed out waiting for), and
 * the line ends with {@code relocations=K}, the
 * completed cross-node moves. The exit code is 0 only when nothing was lost, duplicated or reordered and all
 * K moves completed.
 *
 * <p>With {@code --drain} (needs 2 or more nodes), once every bot joined its room, the node owning the most rooms is
 * drained while the bots chat
 * ({@code node.relocate(RelocateOptions.drainAnywhere())}, issue 13): every room on it moves with its members to
 * the other nodes, every player on it too, while the clients stay connected; the line ends with
 * {@code drained_rooms=R drained_actors=A kept=K}, and the exit code is 0 only when the bots' run is clean, nothing
 * was kept (K counts what stayed for another reason than {@link #NOT_BLOCKING}) and R is every room the node owned.
 */
@Command(name = "chat-demo", mixinStandardHelpOptions = true,
    description = "Chat server (3 nodes) and bots in one process; prints the bots' summary line.")
public final class ChatDemoCommand implements Callable<Integer> {

  @Option(names = "--nodes", defaultValue = "3",
      description = "MeshNodes the bots spread over (default: ${DEFAULT-VALUE}).")
  int nodes = 3;

  @Option(names = "--clients", defaultValue = "50", description = "Bots (default: ${DEFAULT-VALUE}).")
  int clients;

  @Option(names = "--rooms", defaultValue = "5", description = "Rooms (default: ${DEFAULT-VALUE}).")
  int rooms;

  @Option(names = "--messages", defaultValue = "200", description = "Lines per bot (default: ${DEFAULT-VALUE}).")
  int messages;

  @Option(names = "--timeout-seconds", defaultValue = "60",
      description = "Bound on the bots' run (default: ${DEFAULT-VALUE}).")
  int timeoutSeconds;

  @Option(names = "--relocations", defaultValue = "0",
      description = "Cross-node moves of a wandering player while the bots chat (default: ${DEFAULT-VALUE}).")
  int relocations;

  @Option(names = "--drain",
      description = "Drain the node with the most rooms while the bots chat: its rooms move with their members"
          + " (needs 2+ --nodes).")
  boolean drain;

  /**
   * What the drain may leave behind in a clean run: kinds it does not move yet, the room directory (an Instance
   * Spot registered with DisableRelocation: it stays where it was activated) and players that joined a room before
   * their own turn came (they moved with the room, or live elsewhere).
   */
  static final Set<RelocateResult.Reason> NOT_BLOCKING = EnumSet.of(RelocateResult.Reason.NOT_SUPPORTED,
      RelocateResult.Reason.RELOCATION_DISABLED, RelocateResult.Reason.LEFT);

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    // usage errors first
    ChatBotsCommand.settings(spec, "127.0.0.1", List.of(1), clients, rooms, messages, timeoutSeconds);
    if (nodes < 1 || nodes > ChatServer.MAX_NODES) {
      throw new ParameterException(spec == null ? new CommandLine(this) : spec.commandLine(),
          "--nodes " + nodes + " must be between 1 and " + ChatServer.MAX_NODES);
    }
    if (relocations < 0 || relocations > 0 && nodes < 2) {
      throw new ParameterException(spec == null ? new CommandLine(this) : spec.commandLine(),
          "--relocations " + relocations + " must be 0, or at least 1 with 2 or more --nodes");
    }
    if (drain && (nodes < 2 || relocations > 0)) {
      throw new ParameterException(spec == null ? new CommandLine(this) : spec.commandLine(),
          "--drain needs 2 or more --nodes and no --relocations");
    }
    try (ChatServer server = ChatServer.start("127.0.0.1", 0, nodes)) {
      final BotSwarm.Settings settings =
          ChatBotsCommand.settings(spec, "127.0.0.1", server.ports(), clients, rooms, messages, timeoutSeconds);
      final int exit;
      if (drain) {
        exit = runWithDrain(settings, server.nodes());
      } else if (relocations == 0) {
        exit = ChatBotsCommand.runAndPrint(settings);
      } else {
        exit = runWithWanderer(settings, server.ports());
      }
      awaitDepartures(server);
      return exit;
    }
  }

  /** Longest wait for the clients' departures before the server closes. */
  static final Duration DEPARTURES_BOUND = Duration.ofSeconds(10);

  /**
   * Every client closed its connection: lets the nodes finish the departures (players leave their rooms and go, rooms
   * close) before the server closes, so the close drops none of them (each drop is a WARN line). What is still
   * there after {@link #DEPARTURES_BOUND} is named on stderr; the exit code stays the bots' verdict.
   */
  private static void awaitDepartures(final ChatServer server) throws InterruptedException {
    final int left = server.awaitDepartures(DEPARTURES_BOUND);
    if (left > 0) {
      System.err.println("chat-demo: " + left + " players and rooms still in the Location Store "
          + DEPARTURES_BOUND.toSeconds() + " s after every client left; closing anyway (their departures are dropped)");
    }
  }

  /**
   * The bots, and once every bot joined its room (as they start sending) the node owning the most rooms is drained;
   * one summary line. Exit 1 also when the drained node still owns one of the bots' rooms afterwards.
   */
  private static int runWithDrain(final BotSwarm.Settings settings, final List<MeshNode> nodes) throws Exception {
    final CompletableFuture<RelocateResult> draining = new CompletableFuture<>();
    final java.util.concurrent.atomic.AtomicInteger leftBehind = new java.util.concurrent.atomic.AtomicInteger();
    final java.util.concurrent.atomic.AtomicInteger ownedBefore = new java.util.concurrent.atomic.AtomicInteger();
    final BotReport bots = BotSwarm.run(settings, () -> {
      try {
        final MeshNode drained = busiest(nodes, settings.rooms());
        ownedBefore.set(owned(nodes, settings.rooms(), drained));
        System.err.println("chat-demo: draining node " + drained.nodeRid() + ", owner of " + ownedBefore.get()
            + " of " + settings.rooms() + " rooms");
        draining.complete(drained.relocate(RelocateOptions.drainAnywhere())
            .get(settings.timeout().toMillis(), TimeUnit.MILLISECONDS));
        final int left = owned(nodes, settings.rooms(), drained);
        leftBehind.set(left);
        System.err.println("chat-demo: after the drain node " + drained.nodeRid() + " owns " + left + " rooms");
      } catch (Exception | Error e) {
        draining.completeExceptionally(e);
      }
    });
    if (bots.failure() != null) {
      System.err.println("chat-demo: " + bots.failure());
    }
    if (!draining.isDone() && bots.failure() != null) {
      System.out.println(bots.line() + " drained_rooms=0 drained_actors=0 kept=0"); // no bot joined: no drain
      return 1;
    }
    final RelocateResult result = draining.get(settings.timeout().toMillis(), TimeUnit.MILLISECONDS);
    final List<RelocateResult.Kept> kept = result.kept().stream()
        .filter(k -> !NOT_BLOCKING.contains(k.reason())).toList();
    for (RelocateResult.Kept k : result.kept()) { // the not-blocking ones too: what stayed, and why
      System.err.println("chat-demo: the drain kept " + k.kind() + " '" + k.id() + "': " + k.reason()
          + (k.error() == null ? "" : " (" + k.error().getMessage() + ")"));
    }
    System.out.println(bots.line() + " drained_rooms=" + result.rooms().size() + " drained_actors="
        + (result.actors().size() + result.roomMembers()) + " kept=" + kept.size());
    if (result.rooms().size() != ownedBefore.get()) {
      System.err.println("chat-demo: the drain reports " + result.rooms().size() + " moved rooms, the node owned "
          + ownedBefore.get());
    }
    // the drained node kept no room, and the drain's report names every room it owned (the bots stay members)
    return bots.passed() && kept.isEmpty() && leftBehind.get() == 0 && result.rooms().size() == ownedBefore.get()
        ? 0 : 1;
  }

  /** How many of the bots' rooms {@code node} owns now (by the Location Store). */
  static int owned(final List<MeshNode> nodes, final int rooms, final MeshNode node) {
    int owned = 0;
    for (int r = 0; r < rooms; r++) {
      if (nodes.get(0).locations().locate(ObjectKind.SPOT, Room.ID_PREFIX + "room" + r)
          .filter(at -> at.owner().equals(node.nodeRid())).isPresent()) {
        owned++;
      }
    }
    return owned;
  }

  /** The node that owns the most of the bots' rooms now (node 1 when none is found): the drain then moves rooms. */
  static MeshNode busiest(final List<MeshNode> nodes, final int rooms) {
    final Map<NodeRid, Integer> owned = new HashMap<>();
    for (int r = 0; r < rooms; r++) {
      nodes.get(0).locations().locate(ObjectKind.SPOT, Room.ID_PREFIX + "room" + r)
          .ifPresent(at -> owned.merge(at.owner(), 1, Integer::sum));
    }
    return nodes.stream().max(Comparator.comparingInt((MeshNode n) -> owned.getOrDefault(n.nodeRid(), 0))
        .thenComparing(n -> n == nodes.get(1))).orElseThrow();
  }

  /** Bots and the wanderer at once; one summary line with both. */
  private int runWithWanderer(final BotSwarm.Settings settings, final List<Integer> ports) throws Exception {
    final long deadline = System.nanoTime() + settings.timeout().toNanos();
    final List<String> wanderRooms = new ArrayList<>();
    for (int r = 0; r < rooms; r++) {
      wanderRooms.add("room" + r); // the bots' rooms, busy while it passes through
    }
    for (int r = 0; r < nodes; r++) {
      wanderRooms.add("wander" + r); // and rooms of its own, so several nodes hold a room even with 1 bot room
    }
    final InetSocketAddress server = new InetSocketAddress("127.0.0.1", ports.get(ports.size() - 1));
    try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
      final Future<Wanderer.Report> wandering =
          threads.submit(() -> Wanderer.run(server, wanderRooms, relocations, deadline));
      final BotReport bots = BotSwarm.run(settings);
      final Wanderer.Report walk = wandering.get();
      final String failure = bots.failure() == null ? walk.failure()
          : walk.failure() == null ? bots.failure() : bots.failure() + "; " + walk.failure();
      final long unechoed = walk.said() - walk.echoed();
      final boolean walkTimedOut = walk.failure() != null && walk.failure().contains("timed out");
      final BotReport all = new BotReport(bots.clients(), bots.rooms(), bots.sent() + walk.said(),
          bots.expected() + walk.said(), bots.delivered() + walk.echoed(),
          bots.lost() + (walkTimedOut ? 0 : unechoed), bots.timedOut() + (walkTimedOut ? unechoed : 0),
          bots.reset(), bots.duplicated() + walk.duplicated(), bots.reordered() + walk.reordered(),
          bots.p50Millis(), bots.p99Millis(), bots.p999Millis(), bots.deliveriesPerSecond(), failure);
      if (failure != null) {
        System.err.println("chat-demo: " + failure);
      }
      System.out.println(all.line() + " relocations=" + walk.relocations());
      return all.passed() && walk.relocations() >= relocations ? 0 : 1;
    }
  }
}
