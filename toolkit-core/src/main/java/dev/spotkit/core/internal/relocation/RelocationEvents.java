package dev.spotkit.core.internal.relocation;

import dev.spotkit.core.NodeEvent;
import dev.spotkit.core.NodeRid;
import dev.spotkit.core.internal.runtime.NodeRuntime;
import dev.spotkit.relocation.Action;
import dev.spotkit.relocation.wire.RelocationId;
import java.time.Duration;
import java.time.Instant;

/**
 * What the relocation drivers tell the node's meters and event feed: one {@link Watch} per relocation unit and side
 * (start, then exactly one end), and the spec's warnings of {@link Action.Log} as typed events. Kept apart from the
 * drivers so each hook there is one line.
 */
final class RelocationEvents {
  private RelocationEvents() {
  }

  /**
   * Emits the typed event of a unit's log line when the spec names it ({@code cutover_timeout}, {@code late_cutover},
   * {@code location_update_failed}); the event's own key=value line replaces the plain log line.
   *
   * @param rt the node.
   * @param l the unit's log action.
   * @param objectId the ActorId the unit moves.
   * @return true when emitted; false for the other codes (the caller logs them).
   */
  static boolean warning(final NodeRuntime rt, final Action.Log l, final String objectId) {
    final NodeEvent event = typed(rt.nodeRid(), l, objectId);
    if (event == null) {
      return false;
    }
    rt.events().emit(event);
    return true;
  }

  /**
   * The typed event of a unit's log line, or null when the spec names no event for its code.
   *
   * @param node this node.
   * @param l the log action.
   * @param objectId the ActorId the unit moves.
   * @return a {@link NodeEvent.CutoverTimeout}, {@link NodeEvent.LateCutover} or
   *     {@link NodeEvent.LocationUpdateFailed}, or null.
   */
  static NodeEvent typed(final NodeRid node, final Action.Log l, final String objectId) {
    final Instant now = Instant.now();
    return switch (l.code()) {
      case "cutover_timeout" -> new NodeEvent.CutoverTimeout(now, node, objectId, l.detail());
      case "late_cutover" -> new NodeEvent.LateCutover(now, node, objectId, l.detail());
      case "location_update_failed" -> new NodeEvent.LocationUpdateFailed(now, node, objectId, l.detail());
      default -> null;
    };
  }

  /**
   * The target removed its staging: the unit of {@code watch} (null when none started) failed.
   *
   * @param watch the target's watch, or null.
   * @param refused the refusal text of the Restore, or null.
   * @param reason the removal reason.
   */
  static void removed(final Watch watch, final String refused, final Action.Removal reason) {
    if (watch != null) {
      watch.failed(refused != null ? refused : reason.name().toLowerCase(java.util.Locale.ROOT),
          reason.pastRelayReady());
    }
  }

  /**
   * Starts the target's watch of a new relocation identity; an earlier unit still open ends as failed (superseded,
   * spec 000 MEM-28: the later attempt wins).
   *
   * @param previous the earlier watch, or null.
   * @param fresh the new watch, not started.
   * @param id the ActorId.
   * @param source the source node.
   * @param relocation the new RelocationId.
   * @return {@code fresh}, started.
   */
  static Watch next(final Watch previous, final Watch fresh, final String id, final NodeRid source,
      final RelocationId relocation) {
    if (previous != null) {
      previous.failed("superseded by relocation " + hex(relocation), false);
    }
    fresh.started(id, source, relocation);
    return fresh;
  }

  /** @return the RelocationId as 32 lowercase hex digits. */
  static String hex(final RelocationId id) {
    return String.format("%016x%016x", id.high(), id.low());
  }

  /**
   * One side of one relocation unit: {@link #started} once, then at most one {@link #committed} or {@link #failed}
   * (later ends are ignored). Thread: the unit's driver (source: under the actor's ingress lock; target: its lane).
   */
  static final class Watch {
    private final NodeRuntime rt;
    private final NodeEvent.RelocationRole role;
    private String objectId;
    private NodeEvent.RelocationKind kind;
    private NodeRid peer;
    private String relocationId;
    private long startedNanos;
    private boolean open;

    Watch(final NodeRuntime rt, final NodeEvent.RelocationRole role) {
      this.rt = rt;
      this.role = role;
    }

    /**
     * A watch whose kind is known before it starts (the target: from the approval it holds).
     *
     * @param join true for a cross-node join, false for a host relocation.
     */
    Watch(final NodeRuntime rt, final NodeEvent.RelocationRole role, final boolean join) {
      this(rt, role);
      this.kind = join ? NodeEvent.RelocationKind.JOIN : NodeEvent.RelocationKind.HOST;
    }

    /** Starts a watch made with its kind (see {@link #started(String, boolean, NodeRid, RelocationId)}). */
    synchronized void started(final String id, final NodeRid other, final RelocationId relocation) {
      started(id, kind == NodeEvent.RelocationKind.JOIN, other, relocation);
    }

    /**
     * The unit started (source: seal; target: first Restore of a relocation identity).
     *
     * @param id the ActorId.
     * @param join true for a cross-node join, false for a host relocation.
     * @param other the other side's node.
     * @param relocation the RelocationId.
     */
    synchronized void started(final String id, final boolean join, final NodeRid other, final RelocationId relocation) {
      this.objectId = id;
      this.kind = join ? NodeEvent.RelocationKind.JOIN : NodeEvent.RelocationKind.HOST;
      this.peer = other;
      this.relocationId = hex(relocation);
      this.startedNanos = System.nanoTime();
      this.open = true;
      rt.metrics().relocationStarted(kind, role);
      rt.events().emit(new NodeEvent.RelocationStarted(Instant.now(), rt.nodeRid(), objectId, kind, role, peer,
          relocationId));
    }

    /** The Location Store names the target (see {@link NodeEvent.RelocationCommitted}). */
    synchronized void committed() {
      if (!open) {
        return;
      }
      open = false;
      final long pause = System.nanoTime() - startedNanos;
      rt.metrics().relocationEnded(kind, role, true, pause);
      rt.events().emit(new NodeEvent.RelocationCommitted(Instant.now(), rt.nodeRid(), objectId, kind, role, peer,
          relocationId, Duration.ofNanos(pause)));
    }

    /**
     * The unit ended without a commit.
     *
     * @param reason why, in words.
     * @param pastRelayReady whether after the irreversible boundary.
     */
    synchronized void failed(final String reason, final boolean pastRelayReady) {
      if (!open) {
        return;
      }
      open = false;
      rt.metrics().relocationEnded(kind, role, false, 0);
      rt.events().emit(new NodeEvent.RelocationFailed(Instant.now(), rt.nodeRid(), objectId, kind, role, peer,
          relocationId, reason, pastRelayReady));
    }
  }
}
