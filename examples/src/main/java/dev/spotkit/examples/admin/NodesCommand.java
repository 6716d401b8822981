package dev.spotkit.examples.admin;

import dev.spotkit.core.MeshAdmin;
import dev.spotkit.core.SpotkitException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code spotkit-admin nodes}: every MeshNode descriptor under the prefix (spec 002 section 4) with its state as
 * published (SERVING, RELOCATING, RELOCATED, ...), whether its owner lease is live, its role, its population against
 * its advertised limits (from its capacity record: {@code active[+reserved r]/limit}, {@code -} = no limit), its
 * placement weight and its mesh endpoint. When it finds no node it still exits 0 and says on stderr where it looked
 * (store prefix and URI), as the likely cause is a wrong {@code --store-prefix}.
 *
 * <pre>
 * MESH  NODE              STATE    LIVE  ROLE    ACTORS  SPOTS  WEIGHT  ENDPOINT
 * chat  1c9e0f4b2a7d8e31  SERVING  yes   SERVER  3/-     1/-    100     127.0.0.1:40411
 * </pre>
 */
@Command(name = "nodes", mixinStandardHelpOptions = true,
    description = "List the mesh's nodes: state, lease, population against capacity, placement weight, endpoint.")
public final class NodesCommand implements Callable<Integer> {

  @Mixin
  AdminOptions options = new AdminOptions();

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    return options.run(spec, (admin, out, err) -> {
      final List<MeshAdmin.NodeStatus> nodes = admin.nodes(options.mesh());
      if (nodes.isEmpty()) { // still exit 0: an empty mesh is an answer, but most often the prefix is wrong
        err.println("spotkit-admin " + spec.name() + ": no node " + (options.mesh() == null ? ""
            : "of mesh '" + options.mesh().value() + "' ") + "found under " + options.where() + "; check"
            + " --store-prefix" + (options.mesh() == null ? "" : " and --mesh"));
      }
      if (options.json()) {
        AdminOutput.json(out, Map.of("nodes", nodes.stream().map(AdminOutput::nodeJson).toList()));
        return AdminOptions.OK;
      }
      AdminOutput.table(out, List.of("MESH", "NODE", "STATE", "LIVE", "ROLE", "ACTORS", "SPOTS", "WEIGHT",
          "ENDPOINT"), nodes.stream().map(n -> List.of(n.meshName().value(), n.node().hex(), n.state().name(),
          n.live() ? "yes" : "no", n.role().name(), AdminOutput.usage(n.actors()), AdminOutput.usage(n.spots()),
          Integer.toString(n.placementWeight()), n.endpoint())).toList());
      out.println(nodes.size() + " nodes, " + nodes.stream().filter(MeshAdmin.NodeStatus::live).count() + " live");
      return AdminOptions.OK;
    });
  }

  /**
   * Finds the node an operator named: its 16-digit NodeRid, a unique prefix of one (at least 4 hex digits), or its
   * mesh endpoint {@code host:port}.
   *
   * @param nodes the nodes to choose from.
   * @param name what the operator typed.
   * @return the node.
   * @throws AdminOptions.Usage when the name is neither hex nor an endpoint, or matches several nodes.
   * @throws SpotkitException.NotFound when no node matches.
   */
  static MeshAdmin.NodeStatus resolve(final List<MeshAdmin.NodeStatus> nodes, final String name) {
    final List<MeshAdmin.NodeStatus> matches;
    if (name.matches("[0-9a-fA-F]{4,16}")) {
      final String hex = name.toLowerCase(java.util.Locale.ROOT);
      matches = nodes.stream().filter(n -> n.node().hex().startsWith(hex)).toList();
    } else if (name.matches(".+:[0-9]{1,5}")) {
      matches = nodes.stream().filter(n -> n.endpoint().equals(name)).toList();
    } else {
      throw new AdminOptions.Usage("node '" + name + "' is neither a NodeRid (4..16 hex digits, a unique prefix is"
          + " enough) nor a mesh endpoint host:port; spotkit-admin nodes lists them");
    }
    if (matches.size() > 1) {
      throw new AdminOptions.Usage("node '" + name + "' matches " + matches.size() + " nodes ("
          + matches.stream().map(n -> n.node().hex()).toList() + "); give more digits");
    }
    if (matches.isEmpty()) {
      throw new SpotkitException.NotFound("no node '" + name + "' under this prefix; spotkit-admin nodes lists them");
    }
    return matches.get(0);
  }
}
