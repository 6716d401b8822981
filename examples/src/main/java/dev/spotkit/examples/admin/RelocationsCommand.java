package dev.spotkit.examples.admin;

import dev.spotkit.core.MeshAdmin;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code spotkit-admin relocations}: the relocations the Location Store shows. Spotkit keeps a single move's progress
 * (seal, Restore, relay) in the two nodes' memory and the store learns of it only at the target's owner CAS (spec
 * 001; spec 002 section 8.2), and the Relocation Store holds only cold-activation envelopes and completion records
 * and cannot be listed (its SPI has no scan). So what is in flight, as the store records it, is: the nodes whose
 * descriptor says a host drain runs or ran (RELOCATING, RELOCATED, DRAINING), and the operator drain requests with
 * their state and, once answered, their result.
 *
 * <pre>
 * draining nodes: none
 * MESH   NODE              REQUEST                           STATE  BY               AGE  RESULT
 * admin  1c9e0f4b2a7d8e31  5f0c...                           DONE   spotkit-admin@h  12s  RELOCATED: 2 actors, ...
 * </pre>
 */
@Command(name = "relocations", mixinStandardHelpOptions = true,
    description = "Show what the store records of relocations in flight: draining nodes and drain requests.")
public final class RelocationsCommand implements Callable<Integer> {
  private static final Set<MeshAdmin.NodeState> MOVING = Set.of(MeshAdmin.NodeState.RELOCATING,
      MeshAdmin.NodeState.RELOCATED, MeshAdmin.NodeState.DRAINING);

  @Mixin
  AdminOptions options = new AdminOptions();

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    return options.run(spec, (admin, out, err) -> {
      final List<MeshAdmin.NodeStatus> draining = admin.nodes(options.mesh()).stream()
          .filter(n -> n.live() && MOVING.contains(n.state())).toList();
      final List<MeshAdmin.DrainStatus> requests = admin.drainRequests(options.mesh());
      if (options.json()) {
        final Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("drainingNodes", draining.stream().map(AdminOutput::nodeJson).toList());
        doc.put("drainRequests", requests.stream().map(AdminOutput::drainJson).toList());
        AdminOutput.json(out, doc);
        return AdminOptions.OK;
      }
      if (draining.isEmpty()) {
        out.println("draining nodes: none");
      } else {
        out.println("draining nodes:");
        AdminOutput.table(out, List.of("MESH", "NODE", "STATE", "ACTORS", "SPOTS", "ENDPOINT"), draining.stream()
            .map(n -> List.of(n.meshName().value(), n.node().hex(), n.state().name(), AdminOutput.usage(n.actors()),
                AdminOutput.usage(n.spots()), n.endpoint())).toList());
      }
      if (requests.isEmpty()) {
        out.println("drain requests: none");
      } else {
        out.println("drain requests:");
        final long now = System.currentTimeMillis();
        AdminOutput.table(out, List.of("MESH", "NODE", "REQUEST", "STATE", "BY", "AGE", "RESULT"), requests.stream()
            .map(r -> List.of(r.meshName().value(), r.node().hex(), r.requestId(), r.state().name(),
                r.requestedBy(), age(now - r.requestedAtEpochMs()), AdminOutput.drainSummary(r))).toList());
      }
      return AdminOptions.OK;
    });
  }

  private static String age(final long millis) {
    final Duration d = Duration.ofMillis(Math.max(0, millis));
    return d.toMinutes() > 0 ? d.toMinutes() + "m" + d.toSecondsPart() + "s" : d.toSeconds() + "s";
  }
}
