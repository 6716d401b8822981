package dev.spotkit.examples.admin;

import dev.spotkit.core.MeshAdmin;
import dev.spotkit.core.NodeRid;
import dev.spotkit.core.RelocateResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code spotkit-admin drain NODE [--to NODE]... [--deadline 30s] [--timeout 2m]}: asks a node to drain itself
 * ({@code MeshNode.relocate(RelocateOptions)}: its Entry Spot actors and SpotWide rooms move to other Serving nodes,
 * or only to the {@code --to} nodes) and prints the node's answer: what moved and what stayed.
 *
 * <p>The request travels through the Location Store ({@link MeshAdmin#requestDrain}): the node must have been started
 * with {@code MeshOptions.acceptAdminDrains()} ({@code chat-server} and {@code game-server} with {@code --store} do),
 * and it takes the request within its poll interval (1 s). The command waits at most {@code --timeout} (default 2
 * min); if the node has not taken the request by then, the request is withdrawn and nothing runs. While it waits it
 * reads the request every {@value #POLL_MILLIS} ms and checks every {@value #LIVENESS_MILLIS} ms that the node is
 * still live (its owner lease, which lapses within the lease TTL, 15 s by default, after the process died): a node
 * that is not live, or stops being live before it answered, ends the command at once with {@link NodeNotLive} (a
 * request it had not taken is withdrawn first), rather than a wait until the timeout.
 *
 * <p>Exit codes: 0 everything moved (RELOCATED); 1 something stayed (BLOCKED: the kept units are listed), the drain
 * failed, no node took the request, it was still running at the timeout, or the node is not live
 * ({@link NodeNotLive}); 2 bad usage; 3 store unreachable.
 *
 * <pre>
 * drain of node 1c9e0f4b2a7d8e31 (mesh admin): DONE, RELOCATED: 2 actors, 1 rooms (2 members) moved, 0 kept
 * moved actor  worker-1
 * moved room   room-1 (2 members)
 * </pre>
 */
@Command(name = "drain", mixinStandardHelpOptions = true,
    description = "Ask a node to move its actors and rooms to other nodes, then print what moved and what stayed.")
public final class DrainCommand implements Callable<Integer> {
  /** How often, in milliseconds, the wait reads the drain request. */
  static final long POLL_MILLIS = 200;
  /** How often, in milliseconds, the wait checks that the node is still live. */
  static final long LIVENESS_MILLIS = 1_000;

  /**
   * The node to drain is not live: its owner lease lapsed or its descriptor is gone (the process was killed, stopped
   * or lost the store), before the request was written or while the command waited for the answer. Exit code 1.
   */
  public static final class NodeNotLive extends AdminOptions.Failure {
    private static final long serialVersionUID = 1L;

    /** The node's NodeRid, 16 hex digits. */
    private final String node;
    /** The request's id, or null when none was written. */
    private final String requestId;
    /** Where the request was when the node was found not live: REQUESTED (withdrawn now), ACCEPTED, or null. */
    private final transient MeshAdmin.DrainState state;

    NodeNotLive(final String node, final String requestId, final MeshAdmin.DrainState state, final String message) {
      super(message);
      this.node = node;
      this.requestId = requestId;
      this.state = state;
    }

    /** @return the node's NodeRid, 16 hex digits. */
    public String node() {
      return node;
    }

    /** @return the drain request's id (32 hex digits), or empty when the node was not live before it was asked. */
    public Optional<String> requestId() {
      return Optional.ofNullable(requestId);
    }

    /**
     * Where the request was when the node was found not live.
     *
     * @return REQUESTED: the node never took it, and it was withdrawn (nothing ran); ACCEPTED: the node died while
     *     draining (what moved before is not known); empty: the node was not live before it was asked.
     */
    public Optional<MeshAdmin.DrainState> state() {
      return Optional.ofNullable(state);
    }
  }

  @Mixin
  AdminOptions options = new AdminOptions();

  @Spec
  CommandSpec spec;

  @Parameters(index = "0", paramLabel = "NODE",
      description = "The node to drain: its NodeRid, a unique prefix (4+ hex digits) or its mesh endpoint.")
  String node;

  @Option(names = "--to", paramLabel = "NODE",
      description = "Move only to this node (repeatable); default: any Serving node with placement weight above 0.")
  List<String> to = new ArrayList<>();

  @Option(names = "--deadline", paramLabel = "DURATION", defaultValue = "30s", converter = DurationConverter.class,
      description = "How long the drain may start moves, at most 1h (default: ${DEFAULT-VALUE}).")
  Duration deadline;

  @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "2m", converter = DurationConverter.class,
      description = "How long to wait for the node's answer, 1s..1h (default: ${DEFAULT-VALUE}).")
  Duration timeout;

  @Override
  public Integer call() {
    return options.run(spec, (admin, out, err) -> {
      if (deadline.compareTo(Duration.ofHours(1)) > 0) {
        throw new AdminOptions.Usage("--deadline " + deadline + " is longer than 1h");
      }
      if (timeout.compareTo(Duration.ofSeconds(1)) < 0 || timeout.compareTo(Duration.ofHours(1)) > 0) {
        throw new AdminOptions.Usage("--timeout " + timeout + " must be 1s..1h");
      }
      final List<MeshAdmin.NodeStatus> nodes = admin.nodes(options.mesh());
      final MeshAdmin.NodeStatus subject = NodesCommand.resolve(nodes, node);
      if (!subject.live()) {
        throw new NodeNotLive(subject.node().hex(), null, null, "node " + subject.node().hex() + " of mesh "
            + subject.meshName().value() + " is not live (its owner lease lapsed: the process stopped, was killed or"
            + " lost the store); only a running node can drain itself, so nothing was asked. Its actors and rooms"
            + " are created again on a live node by their next getOrCreate (recreateAfterOwnerLoss)");
      }
      final Set<NodeRid> targets = new LinkedHashSet<>();
      for (String t : to) {
        targets.add(NodesCommand.resolve(nodes.stream().filter(n -> n.meshName().equals(subject.meshName()))
            .toList(), t).node());
      }
      final MeshAdmin.DrainStatus asked = admin.requestDrain(subject.meshName(), subject.node(), targets, deadline,
          timeout, "spotkit-admin@" + host());
      err.println("spotkit-admin drain: asked node " + subject.node().hex() + " (request " + asked.requestId()
          + "); waiting up to " + timeout.toSeconds() + " s for its answer");
      err.flush();
      final MeshAdmin.DrainStatus answer = awaitAnswer(admin, asked, timeout);
      print(answer, out);
      if (answer.state() == MeshAdmin.DrainState.WITHDRAWN) {
        err.println("spotkit-admin drain: no node took the request within " + timeout.toSeconds() + " s; it was"
            + " withdrawn and nothing ran. Was node " + subject.node().hex() + " started with"
            + " MeshOptions.acceptAdminDrains() (chat-server / game-server with --store)?");
      } else if (answer.state() == MeshAdmin.DrainState.ACCEPTED) {
        err.println("spotkit-admin drain: the node is still draining after " + timeout.toSeconds() + " s; read its"
            + " answer later with spotkit-admin relocations");
      }
      final boolean relocated = answer.state() == MeshAdmin.DrainState.DONE && answer.outcome()
          .map(o -> o.outcome() == RelocateResult.Outcome.RELOCATED).orElse(false);
      return relocated ? AdminOptions.OK : AdminOptions.FAILED;
    });
  }

  /**
   * Waits for the node's answer to {@code asked}, at most {@code timeout}: reads the request every
   * {@value #POLL_MILLIS} ms and checks every {@value #LIVENESS_MILLIS} ms that the node is live.
   *
   * @param admin the admin.
   * @param asked what {@link MeshAdmin#requestDrain} returned.
   * @param timeout the longest wait.
   * @return the answer (DONE or FAILED); WITHDRAWN when the request expired, was replaced, or the node had not taken
   *     it at the timeout (then it is withdrawn); ACCEPTED when the node still drains at the timeout.
   * @throws NodeNotLive when the node is not live before it answered (a request it had not taken is withdrawn).
   * @throws dev.spotkit.core.SpotkitException.Unavailable when the store fails or does not answer in time.
   * @throws InterruptedException when interrupted.
   */
  static MeshAdmin.DrainStatus awaitAnswer(final MeshAdmin admin, final MeshAdmin.DrainStatus asked,
      final Duration timeout) throws InterruptedException {
    final long end = System.nanoTime() + timeout.toNanos();
    long nextLiveness = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(LIVENESS_MILLIS);
    final long polls = timeout.toMillis() / POLL_MILLIS + 1;
    for (long poll = 0; poll < polls && end - System.nanoTime() > 0; poll++) {
      final Optional<MeshAdmin.DrainStatus> seen = admin.drainStatus(asked.meshName(), asked.node());
      if (seen.isEmpty() || !seen.get().requestId().equals(asked.requestId())) {
        return asked.withState(MeshAdmin.DrainState.WITHDRAWN); // expired, or replaced by another request
      }
      if (seen.get().state().answered()) {
        return seen.get();
      }
      if (System.nanoTime() - nextLiveness >= 0) {
        nextLiveness = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(LIVENESS_MILLIS);
        if (!live(admin, asked)) {
          return notLive(admin, asked);
        }
      }
      final long left = TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime());
      if (left > 0) {
        Thread.sleep(Math.min(POLL_MILLIS, left)); // polling the store, as MeshAdmin.awaitDrain does
      }
    }
    return admin.awaitDrain(asked, Duration.ofMillis(1)); // a last read; withdraws a request the node has not taken
  }

  private static boolean live(final MeshAdmin admin, final MeshAdmin.DrainStatus asked) {
    return admin.nodes(asked.meshName()).stream().anyMatch(n -> n.node().equals(asked.node()) && n.live());
  }

  /**
   * The node is not live: its last answer if it wrote one just before it went; else withdraws a request it had not
   * taken and throws.
   */
  private static MeshAdmin.DrainStatus notLive(final MeshAdmin admin, final MeshAdmin.DrainStatus asked) {
    final MeshAdmin.DrainStatus last = admin.awaitDrain(asked, Duration.ofMillis(1));
    final String node = asked.node().hex();
    final String which = "node " + node + " of mesh " + asked.meshName().value() + " is no longer live (its owner"
        + " lease lapsed: the process stopped, was killed or lost the store)";
    return switch (last.state()) {
      case DONE, FAILED -> last; // it answered on its way out
      case ACCEPTED -> throw new NodeNotLive(node, asked.requestId(), MeshAdmin.DrainState.ACCEPTED, which
          + " while it ran drain request " + asked.requestId() + "; it gave no answer, so what moved before it"
          + " stopped is not known: see spotkit-admin objects --node " + node);
      case REQUESTED, WITHDRAWN -> throw new NodeNotLive(node, asked.requestId(), MeshAdmin.DrainState.REQUESTED,
          which + " before it took drain request " + asked.requestId() + "; the request was withdrawn and nothing"
          + " ran");
    };
  }

  private void print(final MeshAdmin.DrainStatus answer, final java.io.PrintWriter out) {
    if (options.json()) {
      AdminOutput.json(out, AdminOutput.drainJson(answer));
      return;
    }
    out.println("drain of node " + answer.node().hex() + " (mesh " + answer.meshName().value() + "): "
        + answer.state() + ", " + AdminOutput.drainSummary(answer));
    answer.outcome().ifPresent(o -> {
      final List<List<String>> rows = new ArrayList<>();
      o.actors().forEach(a -> rows.add(List.of("moved", "actor", a, "")));
      o.rooms().forEach(r -> rows.add(List.of("moved", "room", r.spotId(), r.members() + " members")));
      o.kept().forEach(k -> rows.add(List.of("kept", k.kind().name(), k.id(), k.reason() + (k.servingHere()
          ? ", serving there" : ", not serving"))));
      if (!rows.isEmpty()) {
        AdminOutput.table(out, List.of("WHAT", "KIND", "ID", "NOTE"), rows);
      }
    });
  }

  private static String host() {
    final String env = System.getenv("HOSTNAME");
    return env == null || env.isBlank() ? "localhost" : env;
  }
}
