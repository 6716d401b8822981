package dev.spotkit.examples.admin;

import dev.spotkit.core.MeshAdmin;
import dev.spotkit.core.NodeRid;
import dev.spotkit.core.RelocateResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
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
 * and it takes the request within its poll interval (1 s). The command waits at most {@code --timeout}; if the node
 * has not taken the request by then, the request is withdrawn and nothing runs.
 *
 * <p>Exit codes: 0 everything moved (RELOCATED); 1 something stayed (BLOCKED: the kept units are listed), the drain
 * failed, no node took the request, or it was still running at the timeout; 2 bad usage; 3 store unreachable.
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
      final MeshAdmin.NodeStatus subject = NodesCommand.resolve(nodes.stream().filter(MeshAdmin.NodeStatus::live)
          .toList(), node);
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
      final MeshAdmin.DrainStatus answer = admin.awaitDrain(asked, timeout);
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
