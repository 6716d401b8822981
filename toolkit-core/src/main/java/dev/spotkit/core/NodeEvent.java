package dev.spotkit.core;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * Something a node did or saw that an operator wants to know about: a relocation that started, committed or failed,
 * one of the spec's relocation warnings, the loss of the owner lease, a change of the node's state. Delivered to the
 * listeners of {@link MeshNode#events()} in the order the node emitted them, and logged by the node as one
 * {@code key=value} line (logger {@code dev.spotkit.core.events}) whether or not a listener is registered.
 *
 * <p>Every event carries {@link #at()} (wall-clock time of emission) and {@link #node()} (the emitting node). The
 * set of event types may grow: a {@code switch} over them should keep a {@code default} branch.
 */
public sealed interface NodeEvent {

  /** @return when the node emitted the event (wall clock, millisecond precision or better). */
  Instant at();

  /** @return the node that emitted the event. */
  NodeRid node();

  /**
   * The stable code of the event, the {@code event=} value of its log line, e.g. {@code relocation_started},
   * {@code cutover_timeout}.
   *
   * @return lowercase with underscores.
   */
  String code();

  /**
   * The event's fields as the {@code key=value} text of its log line (after {@code event=<code>}); values with
   * spaces are double-quoted.
   *
   * @return e.g. {@code actor=alice kind=join role=source peer=1f2e...}.
   */
  String keyValues();

  /** Which relocation path moved the object. */
  enum RelocationKind {
    /** A cross-node JoinSpot: the actor moves to the node of the User Spot it joins (spec 000 section 4.2). */
    JOIN,
    /** A host relocation, {@link MeshNode#relocate(NodeRid)}: Entry Spot actors move to another node. */
    HOST
  }

  /** The side of a relocation this node is on. */
  enum RelocationRole {
    /** The node the object leaves. */
    SOURCE,
    /** The node the object moves to; only it changes the Location Store (spec 001 section 4.5). */
    TARGET
  }

  /** A node's lifecycle as events report it. */
  enum NodeLifecycle {
    /** Started: serving (object servers published their descriptor). */
    RUNNING,
    /** Close (or a fail-stop, or a halt) started: new work gets ShuttingDown. */
    CLOSING,
    /** Close finished: threads stopped; {@link MeshNode#terminated()} completes. */
    CLOSED
  }

  /**
   * A relocation unit started on this node. On the source: at the seal (dispatch of the object stops here). On the
   * target: when the first Restore (command 40) of the relocation arrived.
   *
   * @param at when.
   * @param node this node.
   * @param objectId the ActorId of the moving actor.
   * @param kind join or host relocation.
   * @param role this node's side.
   * @param peer the other side's node.
   * @param relocationId the RelocationId, 32 lowercase hex digits.
   */
  record RelocationStarted(Instant at, NodeRid node, String objectId, RelocationKind kind, RelocationRole role,
      NodeRid peer, String relocationId) implements NodeEvent {
    /** Checks the fields. @throws NullPointerException when one is null. */
    public RelocationStarted {
      Objects.requireNonNull(objectId, "objectId");
      Objects.requireNonNull(kind, "kind");
      Objects.requireNonNull(role, "role");
    }

    @Override
    public String code() {
      return "relocation_started";
    }

    @Override
    public String keyValues() {
      return "object=" + Kv.quote(objectId) + " kind=" + Kv.lower(kind) + " role=" + Kv.lower(role) + " peer=" + peer
          + " relocation=" + relocationId;
    }
  }

  /**
   * A relocation committed: the Location Store names the target as owner (its CAS applied, spec 001 section 4.5). On
   * the target: right after the CAS, when the real queue opened with the backlog. On the source: once a read of the
   * object's row showed the commit (the source never writes the owner).
   *
   * @param at when.
   * @param node this node.
   * @param objectId the ActorId.
   * @param kind join or host relocation.
   * @param role this node's side.
   * @param peer the other side's node.
   * @param relocationId the RelocationId, 32 lowercase hex digits.
   * @param pause how long the object was paused as seen from this side: on the source from the seal until the
   *     commit was read (an upper bound: it includes the wait for that read), on the target from the Restore's
   *     arrival until the queue opened.
   */
  record RelocationCommitted(Instant at, NodeRid node, String objectId, RelocationKind kind, RelocationRole role,
      NodeRid peer, String relocationId, Duration pause) implements NodeEvent {
    /** Checks the fields. @throws NullPointerException when one is null. */
    public RelocationCommitted {
      Objects.requireNonNull(objectId, "objectId");
      Objects.requireNonNull(kind, "kind");
      Objects.requireNonNull(role, "role");
      Objects.requireNonNull(pause, "pause");
    }

    @Override
    public String code() {
      return "relocation_committed";
    }

    @Override
    public String keyValues() {
      return "object=" + Kv.quote(objectId) + " kind=" + Kv.lower(kind) + " role=" + Kv.lower(role) + " peer=" + peer
          + " relocation=" + relocationId + " pause_ms=" + pause.toMillis();
    }
  }

  /**
   * A relocation ended without a commit. Before the target's relay-ready reply ({@code pastRelayReady} false) the
   * source is restored and keeps serving; past it the object runs nowhere until Message Follow ends (spec 001
   * section 9).
   *
   * @param at when.
   * @param node this node.
   * @param objectId the ActorId.
   * @param kind join or host relocation.
   * @param role this node's side.
   * @param peer the other side's node.
   * @param relocationId the RelocationId, 32 lowercase hex digits.
   * @param reason why, in words (with the values involved).
   * @param pastRelayReady whether the failure came after the irreversible boundary (spec 001 section 4.4).
   */
  record RelocationFailed(Instant at, NodeRid node, String objectId, RelocationKind kind, RelocationRole role,
      NodeRid peer, String relocationId, String reason, boolean pastRelayReady) implements NodeEvent {
    /** Checks the fields. @throws NullPointerException when one is null. */
    public RelocationFailed {
      Objects.requireNonNull(objectId, "objectId");
      Objects.requireNonNull(kind, "kind");
      Objects.requireNonNull(role, "role");
      Objects.requireNonNull(reason, "reason");
    }

    @Override
    public String code() {
      return "relocation_failed";
    }

    @Override
    public String keyValues() {
      return "object=" + Kv.quote(objectId) + " kind=" + Kv.lower(kind) + " role=" + Kv.lower(role) + " peer=" + peer
          + " relocation=" + relocationId + " past_relay_ready=" + pastRelayReady + " reason=" + Kv.quote(reason);
    }
  }

  /**
   * The spec's {@code cutover_timeout} Warning (spec 001 section 4.4; FACTS.md "Which version we follow"): the
   * target waited the cutover wait (1,000 ms) after its relay-ready reply without a cutover and proceeds with the CAS
   * and queue opening on the order-unguaranteed fallback path. Target side.
   *
   * @param at when.
   * @param node this node (the target).
   * @param objectId the ActorId.
   * @param detail the unit's detail text.
   */
  record CutoverTimeout(Instant at, NodeRid node, String objectId, String detail) implements NodeEvent {
    @Override
    public String code() {
      return "cutover_timeout";
    }

    @Override
    public String keyValues() {
      return "object=" + Kv.quote(objectId) + " detail=" + Kv.quote(detail);
    }
  }

  /**
   * The spec's {@code late_cutover} Warning (spec 001 section 4.4): a cutover arrived after the timeout, or a
   * duplicate one; it changes nothing. Target side.
   *
   * @param at when.
   * @param node this node (the target).
   * @param objectId the ActorId.
   * @param detail the unit's detail text.
   */
  record LateCutover(Instant at, NodeRid node, String objectId, String detail) implements NodeEvent {
    @Override
    public String code() {
      return "late_cutover";
    }

    @Override
    public String keyValues() {
      return "object=" + Kv.quote(objectId) + " detail=" + Kv.quote(detail);
    }
  }

  /**
   * The spec's {@code location_update_failed} Error (spec 001 sections 4.5 and 9, spec 002 section 8): past
   * relay-ready, the target could not confirm its ownership in the Location Store by the Restore validity; it removed
   * the prepared object and its temporary queue and sent no session route update. Target side; a
   * {@link RelocationFailed} follows.
   *
   * @param at when.
   * @param node this node (the target).
   * @param objectId the ActorId.
   * @param detail the unit's detail text.
   */
  record LocationUpdateFailed(Instant at, NodeRid node, String objectId, String detail) implements NodeEvent {
    @Override
    public String code() {
      return "location_update_failed";
    }

    @Override
    public String keyValues() {
      return "object=" + Kv.quote(objectId) + " detail=" + Kv.quote(detail);
    }
  }

  /**
   * The spec's {@code late_session_route_update} Warning (FACTS.md "Sessions", REL-29): a command 44 reached the
   * Session owner after its seal ended, or for another relocation; it changes nothing. Session owner side.
   *
   * @param at when.
   * @param node this node (the Session owner).
   * @param sessionId the session's id on this node.
   * @param actorId the bound actor.
   * @param detail the barrier's detail text.
   */
  record LateSessionRouteUpdate(Instant at, NodeRid node, long sessionId, String actorId, String detail)
      implements NodeEvent {
    @Override
    public String code() {
      return "late_session_route_update";
    }

    @Override
    public String keyValues() {
      return "session=" + sessionId + " actor=" + Kv.quote(actorId) + " detail=" + Kv.quote(detail);
    }
  }

  /**
   * The node's owner lease was lost for good (spec 002 section 5: the Location Store no longer holds it); the node
   * stops itself (fail-stop, see {@link MeshNode#terminated()}). A {@link NodeStateChanged} to CLOSING follows.
   *
   * @param at when.
   * @param node this node.
   * @param ownerId the lost lease's OwnerId.
   * @param reason why, in words.
   */
  record LeaseLost(Instant at, NodeRid node, String ownerId, String reason) implements NodeEvent {
    @Override
    public String code() {
      return "lease_lost";
    }

    @Override
    public String keyValues() {
      return "owner=" + ownerId + " reason=" + Kv.quote(reason);
    }
  }

  /**
   * The owner lease stopped admitting new work ({@code admitting} false: no renewal answered in time, so the local
   * admission deadline passed; new messages, timers, creations and store writes get Unavailable, spec 002 section 5,
   * LOC-04), or admits again after a renewal answered ({@code admitting} true). Unlike {@link LeaseLost}, the lease
   * may still be held: the node keeps running and renewing.
   *
   * @param at when.
   * @param node this node.
   * @param ownerId the lease's OwnerId.
   * @param admitting whether new work is admitted from now on.
   */
  record LeaseAdmissionChanged(Instant at, NodeRid node, String ownerId, boolean admitting) implements NodeEvent {
    @Override
    public String code() {
      return "lease_admission_changed";
    }

    @Override
    public String keyValues() {
      return "owner=" + ownerId + " admitting=" + admitting;
    }
  }

  /**
   * The node changed state: RUNNING once started, CLOSING when a close, fail-stop or halt began, CLOSED when it
   * finished.
   *
   * @param at when.
   * @param node this node.
   * @param from the state before ({@code null} for the first, RUNNING).
   * @param to the new state.
   * @param reason why, e.g. {@code close}, {@code fail-stop}, {@code halt}, {@code started}.
   */
  record NodeStateChanged(Instant at, NodeRid node, NodeLifecycle from, NodeLifecycle to, String reason)
      implements NodeEvent {
    /** Checks the fields. @throws NullPointerException when {@code to} is null. */
    public NodeStateChanged {
      Objects.requireNonNull(to, "to");
    }

    @Override
    public String code() {
      return "node_state_changed";
    }

    @Override
    public String keyValues() {
      return "from=" + (from == null ? "none" : Kv.lower(from)) + " to=" + Kv.lower(to) + " reason="
          + Kv.quote(reason);
    }
  }
}

/** key=value formatting of {@link NodeEvent#keyValues()}. */
final class Kv {
  private Kv() {
  }

  static String lower(final Enum<?> value) {
    return value.name().toLowerCase(java.util.Locale.ROOT);
  }

  static String quote(final String value) {
    if (value == null) {
      return "none";
    }
    if (!value.isEmpty() && value.chars().noneMatch(c -> c == ' ' || c == '"' || c == '=' || c < 0x20)) {
      return value;
    }
    return '"' + value.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + '"';
  }
}
