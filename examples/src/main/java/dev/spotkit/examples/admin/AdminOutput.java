package dev.spotkit.examples.admin;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.spotkit.core.MeshAdmin;
import dev.spotkit.core.NodeRid;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The two output forms of {@code spotkit-admin}: a plain table (columns padded with spaces, a header line, no
 * borders, so {@code awk} and {@code column} read it) and one pretty-printed JSON document (Jackson) of plain maps and
 * lists, with the same field names as the public records of {@link MeshAdmin}. Stateless; any thread.
 */
public final class AdminOutput {
  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private AdminOutput() {
  }

  /**
   * Prints a table: the header, then each row, every column as wide as its widest cell, two spaces apart.
   *
   * @param out where to print.
   * @param header the column names.
   * @param rows the rows, each as long as the header.
   */
  public static void table(final PrintWriter out, final List<String> header, final List<List<String>> rows) {
    final int[] widths = new int[header.size()];
    final List<List<String>> all = new ArrayList<>();
    all.add(header);
    all.addAll(rows);
    for (List<String> row : all) {
      for (int i = 0; i < widths.length; i++) {
        widths[i] = Math.max(widths[i], row.get(i).length());
      }
    }
    for (List<String> row : all) {
      final StringBuilder line = new StringBuilder();
      for (int i = 0; i < widths.length; i++) {
        line.append(row.get(i));
        if (i < widths.length - 1) {
          line.append(" ".repeat(widths[i] - row.get(i).length() + 2));
        }
      }
      out.println(line.toString().stripTrailing());
    }
  }

  /**
   * Prints one JSON document.
   *
   * @param out where to print.
   * @param document maps, lists, strings, numbers, booleans and nulls.
   */
  public static void json(final PrintWriter out, final Object document) {
    try {
      out.println(JSON.writeValueAsString(document));
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException("maps and lists of plain values always serialize", e);
    }
  }

  /**
   * A capacity class as {@code active[+reserved r]/limit}, {@code -} for no limit: {@code 3/-}, {@code 3+1r/100}.
   *
   * @param usage the usage.
   * @return the cell.
   */
  public static String usage(final MeshAdmin.Usage usage) {
    return usage.active() + (usage.reserved() > 0 ? "+" + usage.reserved() + "r" : "") + "/"
        + (usage.limit() == 0 ? "-" : Integer.toString(usage.limit()));
  }

  /**
   * A usage as JSON.
   *
   * @param usage the usage.
   * @return {@code {active, reserved, limit}} (limit 0: none).
   */
  public static Map<String, Object> usageJson(final MeshAdmin.Usage usage) {
    final Map<String, Object> m = new LinkedHashMap<>();
    m.put("active", usage.active());
    m.put("reserved", usage.reserved());
    m.put("limit", usage.limit());
    return m;
  }

  /**
   * One node as JSON.
   *
   * @param n the node.
   * @return its fields.
   */
  public static Map<String, Object> nodeJson(final MeshAdmin.NodeStatus n) {
    final Map<String, Object> m = new LinkedHashMap<>();
    m.put("meshName", n.meshName().value());
    m.put("node", n.node().hex());
    m.put("state", n.state().name());
    m.put("live", n.live());
    m.put("role", n.role().name());
    m.put("endpoint", n.endpoint());
    m.put("placementWeight", n.placementWeight());
    m.put("actors", usageJson(n.actors()));
    m.put("spots", usageJson(n.spots()));
    m.put("entrySpotId", n.entrySpotId().orElse(null));
    m.put("updatedAtEpochMs", n.updatedAtEpochMs());
    return m;
  }

  /**
   * One drain request as JSON.
   *
   * @param s the request.
   * @return its fields, with {@code outcome} null until answered.
   */
  public static Map<String, Object> drainJson(final MeshAdmin.DrainStatus s) {
    final Map<String, Object> m = new LinkedHashMap<>();
    m.put("meshName", s.meshName().value());
    m.put("node", s.node().hex());
    m.put("requestId", s.requestId());
    m.put("state", s.state().name());
    m.put("requestedBy", s.requestedBy());
    m.put("requestedAtEpochMs", s.requestedAtEpochMs());
    m.put("deadlineMs", s.deadline().toMillis());
    m.put("targets", s.targets().stream().map(NodeRid::hex).toList());
    m.put("outcome", s.outcome().map(AdminOutput::outcomeJson).orElse(null));
    m.put("error", s.error().orElse(null));
    return m;
  }

  private static Map<String, Object> outcomeJson(final MeshAdmin.DrainOutcome o) {
    final Map<String, Object> m = new LinkedHashMap<>();
    m.put("outcome", o.outcome().name());
    m.put("actorsMoved", o.actorsMoved());
    m.put("roomsMoved", o.roomsMoved());
    m.put("membersMoved", o.membersMoved());
    m.put("keptCount", o.keptCount());
    m.put("actors", o.actors());
    m.put("rooms", o.rooms().stream().map(r -> Map.of("spotId", r.spotId(), "members", r.members())).toList());
    m.put("kept", o.kept().stream().map(k -> {
      final Map<String, Object> km = new LinkedHashMap<>();
      km.put("kind", k.kind().name());
      km.put("id", k.id());
      km.put("reason", k.reason().name());
      km.put("servingHere", k.servingHere());
      return km;
    }).toList());
    return m;
  }

  /**
   * A drain request's answer in one line: {@code RELOCATED: 4 actors, 1 rooms (3 members) moved, 0 kept}.
   *
   * @param s the request.
   * @return the summary.
   */
  public static String drainSummary(final MeshAdmin.DrainStatus s) {
    return switch (s.state()) {
      case DONE -> s.outcome().map(o -> o.outcome() + ": " + o.actorsMoved() + " actors, " + o.roomsMoved()
          + " rooms (" + o.membersMoved() + " members) moved, " + o.keptCount() + " kept").orElse("done");
      case FAILED -> "failed: " + s.error().orElse("no reason given");
      case REQUESTED -> "waiting for the node to take it";
      case ACCEPTED -> "the node is draining";
      case WITHDRAWN -> "withdrawn: no node took it";
    };
  }
}
