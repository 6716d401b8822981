package dev.spotkit.core.wire;

import dev.spotkit.relocation.wire.ApplicationPayload;

/**
 * Command 60 (Spotkit-defined): an application message for an Actor or Spot owned by the receiving node. A
 * one-way send has correlation 0 and deadline budget 0; a request has both non-zero and is answered by exactly
 * one command 20 reply with the same correlation.
 *
 * <p><b>Deadline on the wire.</b> A request's absolute deadline (spec 001 section 11: a request keeps its
 * deadline; REL-24) travels as the time left, in milliseconds, when the frame is encoded, not as a wall-clock
 * instant: nodes' wall clocks may differ by any amount, while a budget needs only clocks that run at the same rate.
 * The receiver fixes the absolute deadline on its own monotonic clock at decode ({@code arrival + budget}), so
 * the deadline reaches the handler and its outgoing requests (which inherit it) on every hop, never extended by
 * more than the one-way transit time of each hop, and never shortened by clock skew. The caller's own deadline
 * timer stays the end-to-end authority.
 *
 * @param correlation 0 for a one-way send, else the reply correlation (non-zero).
 * @param targetKind who is addressed.
 * @param targetId ActorId or SpotId, 1..255 UTF-8 bytes.
 * @param objectGeneration the ref's ObjectGeneration, or 0 when addressed by id.
 * @param stableType the Instance Spot stable type (1..255 UTF-8 bytes) for {@link TargetKind#INSTANCE_SPOT},
 *     else null.
 * @param deadlineBudgetMs the request's time left in milliseconds when encoded (at least 1), 0 for a one-way
 *     send.
 * @param hops how many nodes already forwarded it (Message Follow), 0..255.
 * @param payload the encoded message.
 */
public record ApplicationMessage(long correlation, TargetKind targetKind, String targetId, long objectGeneration,
    String stableType, long deadlineBudgetMs, int hops, ApplicationPayload payload) {

  /** Whom the message addresses; the wire value is the object-identity kind of FACTS.md "Wire". */
  public enum TargetKind {
    /** 1: an Actor. */
    ACTOR(1),
    /** 2: a Spot by id (Entry or User Spot, or a running Instance Spot). */
    SPOT(2),
    /** 3: an Instance Spot with Instance intent (activates it when absent). */
    INSTANCE_SPOT(3);

    private final int wire;

    TargetKind(final int wire) {
      this.wire = wire;
    }

    /**
     * The wire value.
     *
     * @return 1..3.
     */
    public int wireValue() {
      return wire;
    }
  }

  /**
   * Checks the fields.
   *
   * @throws dev.spotkit.core.SpotkitException.InvalidOperation naming the bad field.
   */
  public ApplicationMessage {
    Checks.RULES.present("targetKind", targetKind);
    Checks.RULES.text8("targetId", targetId);
    Checks.RULES.present("payload", payload);
    if (targetKind == TargetKind.INSTANCE_SPOT) {
      Checks.RULES.text8("stableType", stableType);
    } else if (stableType != null) {
      throw new dev.spotkit.core.SpotkitException.InvalidOperation("stableType is only sent with Instance"
          + " intent");
    }
    if ((correlation == 0) != (deadlineBudgetMs == 0)) {
      throw new dev.spotkit.core.SpotkitException.InvalidOperation("a request has a correlation and a deadline"
          + " budget, a one-way send neither (correlation " + correlation + ", budget " + deadlineBudgetMs + ")");
    }
    if (hops < 0 || hops > 255) {
      throw new dev.spotkit.core.SpotkitException.InvalidOperation("hops " + hops + " must be 0..255");
    }
  }

  /**
   * Whether a reply is expected.
   *
   * @return true for a request.
   */
  public boolean isRequest() {
    return correlation != 0;
  }
}
