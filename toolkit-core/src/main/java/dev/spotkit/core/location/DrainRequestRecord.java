package dev.spotkit.core.location;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.spotkit.store.StoreBytes;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * An operator's request that one MeshNode drain itself, and that node's answer (issue 15, {@code spotkit-admin
 * drain}), stored at {@link LocationKeys#adminDrain(String, String)} with a retention, so a request no node picked up
 * and an answer nobody read disappear on their own.
 *
 * <p>Spotkit-defined, not a spec record: the spec's host relocation is started by the host itself (spec 000 section
 * 4.2, FACTS.md "Host relocation"); this record only carries the operator's wish to that host through the Location
 * Store the host already reads. Life of one request, each step a conditional write on the version read:
 * {@link State#REQUESTED} (written by the admin, key absent or holding a finished request) then
 * {@link State#ACCEPTED} (written by the named node before it starts the drain, so a request runs at most once) then
 * {@link State#DONE} with the result, or {@link State#FAILED} with the error when the drain could not start. An admin
 * that gives up waiting deletes a request still REQUESTED (conditioned on its version), so a late node does not
 * start it.
 *
 * <p>Canonical JSON (the rules of {@link RecordJson}): recordVersion, requestId, state, requestedBy,
 * requestedAtEpochMs, deadlineMs, targets [{routingIdHex}], result {outcome, actorsMoved, roomsMoved, membersMoved,
 * keptCount, actors [{id}], rooms [{id, members}], kept [{kind, id, reason, servingHere}]} or null, error or null.
 * The lists hold at most {@link #MAX_LISTED} entries each (the counts are exact), so a record stays far below the
 * 1 MiB value limit. Immutable; any thread.
 *
 * @param requestId 32 lowercase hex digits, random per request.
 * @param state where the request is.
 * @param requestedBy who asked, free text for operators (e.g. {@code spotkit-admin@host}).
 * @param requestedAtEpochMs the admin's wall clock when it asked, epoch ms.
 * @param deadlineMs how long the drain may start moves, ms, 1..3,600,000 ({@code RelocateOptions.deadline}).
 * @param targets RoutingIds (lowercase hex) the drain may move to; empty for any Serving node.
 * @param result the drain's result once DONE, else null.
 * @param error why the drain failed once FAILED, else null.
 */
public record DrainRequestRecord(String requestId, State state, String requestedBy, long requestedAtEpochMs,
    long deadlineMs, List<String> targets, Result result, String error) {
  private static final String NAME = "admin drain request record";
  /** At most this many ids per list of a result. */
  public static final int MAX_LISTED = 500;
  /** Longest drain deadline a request may carry: 1 h. */
  public static final long MAX_DEADLINE_MS = 3_600_000L;

  /**
   * Checks the parts.
   *
   * @throws NullPointerException when a required part is null.
   * @throws IllegalArgumentException when the request id is not 32 lowercase hex or the deadline is out of range.
   */
  public DrainRequestRecord {
    Objects.requireNonNull(requestId, "requestId");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(requestedBy, "requestedBy");
    targets = List.copyOf(targets);
    if (!requestId.matches("[0-9a-f]{32}")) {
      throw new IllegalArgumentException("drain requestId '" + requestId + "' must be 32 lowercase hex digits");
    }
    if (deadlineMs < 1 || deadlineMs > MAX_DEADLINE_MS) {
      throw new IllegalArgumentException("drain deadline " + deadlineMs + " ms is outside 1.." + MAX_DEADLINE_MS);
    }
  }

  /** Where a request is. */
  public enum State implements RecordJson.WireEnum {
    /** Written by the admin; no node has taken it yet. */
    REQUESTED("requested"),
    /** The named node took it and is draining. */
    ACCEPTED("accepted"),
    /** The drain ended; {@link #result()} says what moved and what stayed. */
    DONE("done"),
    /** The drain could not start or did not end; {@link #error()} says why. */
    FAILED("failed");

    private final String wire;

    State(final String wire) {
      this.wire = wire;
    }

    @Override
    public String wire() {
      return wire;
    }

    /**
     * Whether the request is finished (DONE or FAILED): a new request may replace it.
     *
     * @return true when finished.
     */
    public boolean finished() {
      return this == DONE || this == FAILED;
    }
  }

  /**
   * What a drain did (from {@code RelocateResult}).
   *
   * @param outcome {@code relocated} (everything moved) or {@code blocked} (something stayed).
   * @param actorsMoved Entry Spot actors moved.
   * @param roomsMoved SpotWide rooms moved.
   * @param membersMoved members moved with those rooms.
   * @param keptCount units kept on the node.
   * @param actors ids of moved actors, at most {@link #MAX_LISTED}.
   * @param rooms moved rooms, at most {@link #MAX_LISTED}.
   * @param kept kept units, at most {@link #MAX_LISTED}.
   */
  public record Result(String outcome, int actorsMoved, int roomsMoved, int membersMoved, int keptCount,
      List<String> actors, List<Room> rooms, List<Kept> kept) {
    /**
     * Copies and truncates the lists.
     *
     * @throws NullPointerException when a part is null.
     */
    public Result {
      Objects.requireNonNull(outcome, "outcome");
      actors = List.copyOf(actors.subList(0, Math.min(actors.size(), MAX_LISTED)));
      rooms = List.copyOf(rooms.subList(0, Math.min(rooms.size(), MAX_LISTED)));
      kept = List.copyOf(kept.subList(0, Math.min(kept.size(), MAX_LISTED)));
    }
  }

  /**
   * One moved room.
   *
   * @param id the SpotId.
   * @param members members moved with it.
   */
  public record Room(String id, int members) {
    /**
     * Checks for null.
     *
     * @throws NullPointerException when the id is null.
     */
    public Room {
      Objects.requireNonNull(id, "id");
    }
  }

  /**
   * One unit the drain kept on the node.
   *
   * @param kind the unit kind, e.g. {@code ENTRY_ACTOR} ({@code RelocateResult.UnitKind} name).
   * @param id the ActorId or SpotId.
   * @param reason why, e.g. {@code NOT_SUPPORTED} ({@code RelocateResult.Reason} name).
   * @param servingHere whether it still serves on the node.
   */
  public record Kept(String kind, String id, String reason, boolean servingHere) {
    /**
     * Checks for null.
     *
     * @throws NullPointerException when a part is null.
     */
    public Kept {
      Objects.requireNonNull(kind, "kind");
      Objects.requireNonNull(id, "id");
      Objects.requireNonNull(reason, "reason");
    }
  }

  /**
   * This request in another state, with a result or an error.
   *
   * @param next the new state.
   * @param nextResult the result, or null.
   * @param nextError the error, or null.
   * @return the new record.
   */
  public DrainRequestRecord with(final State next, final Result nextResult, final String nextError) {
    return new DrainRequestRecord(requestId, next, requestedBy, requestedAtEpochMs, deadlineMs, targets, nextResult,
        nextError);
  }

  /**
   * The canonical JSON bytes.
   *
   * @return the value to store.
   */
  public StoreBytes encode() {
    return StoreBytes.of(RecordJson.write(g -> {
      g.writeStartObject();
      g.writeNumberField("recordVersion", RecordJson.RECORD_VERSION);
      g.writeStringField("requestId", requestId);
      g.writeStringField("state", state.wire());
      g.writeStringField("requestedBy", requestedBy);
      RecordJson.u64(g, "requestedAtEpochMs", requestedAtEpochMs);
      RecordJson.u64(g, "deadlineMs", deadlineMs);
      g.writeArrayFieldStart("targets");
      for (String t : targets) {
        g.writeStartObject();
        g.writeStringField("routingIdHex", t);
        g.writeEndObject();
      }
      g.writeEndArray();
      if (result == null) {
        g.writeNullField("result");
      } else {
        writeResult(g, result);
      }
      RecordJson.nullableString(g, "error", error);
      g.writeEndObject();
    }));
  }

  private static void writeResult(final JsonGenerator g, final Result r) throws IOException {
    g.writeObjectFieldStart("result");
    g.writeStringField("outcome", r.outcome());
    g.writeNumberField("actorsMoved", r.actorsMoved());
    g.writeNumberField("roomsMoved", r.roomsMoved());
    g.writeNumberField("membersMoved", r.membersMoved());
    g.writeNumberField("keptCount", r.keptCount());
    g.writeArrayFieldStart("actors");
    for (String id : r.actors()) {
      g.writeStartObject();
      g.writeStringField("id", id);
      g.writeEndObject();
    }
    g.writeEndArray();
    g.writeArrayFieldStart("rooms");
    for (Room room : r.rooms()) {
      g.writeStartObject();
      g.writeStringField("id", room.id());
      g.writeNumberField("members", room.members());
      g.writeEndObject();
    }
    g.writeEndArray();
    g.writeArrayFieldStart("kept");
    for (Kept k : r.kept()) {
      g.writeStartObject();
      g.writeStringField("kind", k.kind());
      g.writeStringField("id", k.id());
      g.writeStringField("reason", k.reason());
      g.writeBooleanField("servingHere", k.servingHere());
      g.writeEndObject();
    }
    g.writeEndArray();
    g.writeEndObject();
  }

  /**
   * Reads a stored value.
   *
   * @param bytes the stored bytes.
   * @return the record.
   * @throws RecordDecodeException.UnknownVersion when recordVersion is not 1.
   * @throws RecordDecodeException.Malformed when the shape is wrong.
   */
  public static DrainRequestRecord decode(final StoreBytes bytes) {
    return RecordJson.read(NAME, bytes.toByteArray(), n -> {
      final List<String> targets = new ArrayList<>();
      for (RecordJson.Node t : n.array("targets")) {
        targets.add(t.string("routingIdHex"));
      }
      final RecordJson.Node r = n.nullableObject("result");
      Result result = null;
      if (r != null) {
        final List<String> actors = new ArrayList<>();
        for (RecordJson.Node a : r.array("actors")) {
          actors.add(a.string("id"));
        }
        final List<Room> rooms = new ArrayList<>();
        for (RecordJson.Node room : r.array("rooms")) {
          rooms.add(new Room(room.string("id"), room.integer("members", 0, Integer.MAX_VALUE)));
        }
        final List<Kept> kept = new ArrayList<>();
        for (RecordJson.Node k : r.array("kept")) {
          kept.add(new Kept(k.string("kind"), k.string("id"), k.string("reason"), k.bool("servingHere")));
        }
        result = new Result(r.string("outcome"), r.integer("actorsMoved", 0, Integer.MAX_VALUE),
            r.integer("roomsMoved", 0, Integer.MAX_VALUE), r.integer("membersMoved", 0, Integer.MAX_VALUE),
            r.integer("keptCount", 0, Integer.MAX_VALUE), actors, rooms, kept);
      }
      try {
        return new DrainRequestRecord(n.string("requestId"), n.enumValue("state", State.class),
            n.string("requestedBy"), n.u64("requestedAtEpochMs", 0), n.u64("deadlineMs", 1), targets, result,
            n.nullableString("error"));
      } catch (IllegalArgumentException e) {
        throw n.malformed("requestId", e.getMessage());
      }
    });
  }
}
