package dev.spotkit.examples.admin;

import dev.spotkit.core.LocationPage;
import dev.spotkit.core.LocationQueries;
import dev.spotkit.core.NodeRid;
import dev.spotkit.core.ObjectKind;
import dev.spotkit.core.ObjectLocation;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code spotkit-admin objects [--node N] [--kind actor|spot|all] [--type T]}: the Actors and Spots of the mesh as
 * their authority rows record them (spec 002 section 7.4, read through the store's same-point-in-time paged scan,
 * spec 002 section 6.2): kind, id, ObjectGeneration, stable type, state (CREATING, READY, or UNAVAILABLE when the
 * owner's lease lapsed), MeshName and owner NodeRid. A member of a moved room is shown on the room's owner. At most
 * {@code --limit} rows are printed (then the output says it was cut).
 *
 * <pre>
 * KIND   ID          GENERATION  TYPE    STATE  MESH   OWNER
 * ACTOR  worker-1    12          worker  READY  admin  1c9e0f4b2a7d8e31
 * SPOT   room-1      10          room    READY  admin  1c9e0f4b2a7d8e31
 * </pre>
 */
@Command(name = "objects", mixinStandardHelpOptions = true,
    description = "List actors and spots with their ObjectGeneration and owner node, read by paged store scans.")
public final class ObjectsCommand implements Callable<Integer> {
  private static final int PAGE = 500;

  @Mixin
  AdminOptions options = new AdminOptions();

  @Spec
  CommandSpec spec;

  @Option(names = "--node", paramLabel = "NODE",
      description = "Only objects owned by this node: its NodeRid, a unique prefix (4+ hex digits) or its endpoint.")
  String node;

  @Option(names = "--kind", defaultValue = "all", paramLabel = "KIND",
      description = "actor, spot or all (default: ${DEFAULT-VALUE}).")
  String kind;

  @Option(names = "--type", paramLabel = "TYPE", description = "Only this stable type, e.g. room.")
  String type;

  @Option(names = "--limit", defaultValue = "10000", paramLabel = "N",
      description = "Print at most N objects, 1..1000000 (default: ${DEFAULT-VALUE}).")
  int limit;

  @Override
  public Integer call() {
    return options.run(spec, (admin, out, err) -> {
      final List<ObjectKind> kinds = kinds();
      if (limit < 1 || limit > 1_000_000) {
        throw new AdminOptions.Usage("--limit " + limit + " must be 1..1000000");
      }
      final NodeRid owner = node == null ? null : NodesCommand.resolve(admin.nodes(options.mesh()), node).node();
      final List<ObjectLocation> rows = new ArrayList<>();
      boolean cut = false;
      for (ObjectKind k : kinds) {
        cut |= read(admin.locations(), k, owner, rows);
      }
      if (options.json()) {
        final Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("objects", rows.stream().map(ObjectsCommand::json).toList());
        doc.put("truncated", cut);
        AdminOutput.json(out, doc);
        return AdminOptions.OK;
      }
      AdminOutput.table(out, List.of("KIND", "ID", "GENERATION", "TYPE", "STATE", "MESH", "OWNER"), rows.stream()
          .map(o -> List.of(o.kind().name(), o.id(), Long.toString(o.generation().value()), o.stableType(),
              o.state().name(), o.meshName().value(), o.owner().hex())).toList());
      out.println(rows.size() + " objects" + (owner == null ? "" : " on node " + owner.hex())
          + (cut ? " (cut at --limit " + limit + ")" : ""));
      return AdminOptions.OK;
    });
  }

  private List<ObjectKind> kinds() {
    return switch (kind.toLowerCase(Locale.ROOT)) {
      case "actor" -> List.of(ObjectKind.ACTOR);
      case "spot" -> List.of(ObjectKind.SPOT);
      case "all" -> List.of(ObjectKind.ACTOR, ObjectKind.SPOT);
      default -> throw new AdminOptions.Usage("--kind '" + kind + "' must be actor, spot or all");
    };
  }

  /** Reads every page of one kind (bounded by the limit); true when the limit cut the list. */
  private boolean read(final LocationQueries q, final ObjectKind k, final NodeRid owner,
      final List<ObjectLocation> rows) {
    String next = null;
    for (int pages = 0; pages < limit / PAGE + 10_000; pages++) {
      final LocationPage page = q.list(k, type, options.mesh(), PAGE, next);
      for (ObjectLocation o : page.entries()) {
        if (owner == null || o.owner().equals(owner)) {
          if (rows.size() == limit) {
            return true;
          }
          rows.add(o);
        }
      }
      next = page.continuation().orElse(null);
      if (next == null) {
        return false;
      }
    }
    return true;
  }

  private static Map<String, Object> json(final ObjectLocation o) {
    final Map<String, Object> m = new LinkedHashMap<>();
    m.put("kind", o.kind().name());
    m.put("id", o.id());
    m.put("objectGeneration", o.generation().value());
    m.put("stableType", o.stableType());
    m.put("state", o.state().name());
    m.put("meshName", o.meshName().value());
    m.put("owner", o.owner().hex());
    return m;
  }
}
