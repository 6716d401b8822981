package dev.spotkit.core.wire;

import dev.spotkit.relocation.wire.ApplicationPayload;
import dev.spotkit.relocation.wire.FrameHead;
import dev.spotkit.relocation.wire.Rid;
import dev.spotkit.relocation.wire.WireError;
import dev.spotkit.relocation.wire.WireFormatException;
import dev.spotkit.relocation.wire.WireIn;
import dev.spotkit.relocation.wire.WireOut;

/**
 * Command 28 actorJoin: the approval request of a cross-node Join (spec 000 section 4.2 step 2), byte-identical
 * to {@code actor-join-request-v1.json}:
 * <pre>
 *   head 5A 4D 01 1C 00, correlation nonzero-u64,
 *   actor:      id text8, generation nonzero-u64, targetNodeRid rid, targetNodeGeneration nonzero-u64,
 *               expectedAuthorityOwnerGeneration nonzero-u64, expectedOwnerLeaseGeneration nonzero-u64
 *   entry       bool8 (true: the target is the node's Entry Spot, no OnActorJoin)
 *   targetSpot: the same six fields
 * </pre>
 * The optional join request travels in the reference as a second frame holding one
 * {@code application-payload-envelope-v1}; Spotkit's transport carries one frame per message, so it appends that
 * envelope's bytes right after the body (the concatenation of the fixture's frames). Answered by command 20 with
 * an actorJoin tail ({@link ReplyTail.ActorJoinAccepted} or {@link ReplyTail.ActorJoinRejected}).
 *
 * @param correlation the request's correlation, non-zero.
 * @param actor the moving Actor as the source holds it (its current node in {@code targetNodeRid}).
 * @param entry whether the target is an Entry Spot.
 * @param targetSpot the Spot to join as the source resolved it.
 * @param payload the join request, or null when omitted.
 */
public record ActorJoin(long correlation, Party actor, boolean entry, Party targetSpot, ApplicationPayload payload) {

  /**
   * One side of the join: an object and the owner it is expected at.
   *
   * @param id ActorId or SpotId, 1..255 UTF-8 bytes.
   * @param generation ObjectGeneration, 1..2^63-1.
   * @param nodeRid the owner node.
   * @param nodeGeneration its run generation, 1..2^63-1.
   * @param expectedAuthorityOwnerGeneration 1..2^63-1.
   * @param expectedOwnerLeaseGeneration 1..2^63-1.
   */
  public record Party(String id, long generation, Rid nodeRid, long nodeGeneration,
      long expectedAuthorityOwnerGeneration, long expectedOwnerLeaseGeneration) {
    /**
     * Validates.
     *
     * @throws dev.spotkit.core.SpotkitException.InvalidOperation naming the bad field.
     */
    public Party {
      Checks.RULES.text8("id", id);
      Checks.RULES.positive("generation", generation);
      Checks.RULES.present("nodeRid", nodeRid);
      Checks.RULES.positive("nodeGeneration", nodeGeneration);
      Checks.RULES.positive("expectedAuthorityOwnerGeneration", expectedAuthorityOwnerGeneration);
      Checks.RULES.positive("expectedOwnerLeaseGeneration", expectedOwnerLeaseGeneration);
    }

    void writeTo(final WireOut out) {
      out.text8(id);
      out.u64(generation);
      out.rid(nodeRid);
      out.u64(nodeGeneration);
      out.u64(expectedAuthorityOwnerGeneration);
      out.u64(expectedOwnerLeaseGeneration);
    }

    static Party read(final WireIn in, final String f) {
      return new Party(in.text8(f + ".id"), in.nonZeroU64(f + ".generation"), in.rid(f + ".targetNodeRid"),
          in.nonZeroU64(f + ".targetNodeGeneration"), in.nonZeroU64(f + ".expectedAuthorityOwnerGeneration"),
          in.nonZeroU64(f + ".expectedOwnerLeaseGeneration"));
    }
  }

  /**
   * Validates.
   *
   * @throws dev.spotkit.core.SpotkitException.InvalidOperation naming the bad field.
   */
  public ActorJoin {
    Checks.RULES.positive("correlation", correlation);
    Checks.RULES.present("actor", actor);
    Checks.RULES.present("targetSpot", targetSpot);
  }

  /**
   * Encodes the frame (the body, then the payload envelope when present).
   *
   * @return the bytes.
   */
  public byte[] encode() {
    final WireOut out = new WireOut(128);
    new FrameHead(Commands.ACTOR_JOIN, 0).writeTo(out);
    out.u64(correlation);
    actor.writeTo(out);
    out.u8(entry ? 1 : 0);
    targetSpot.writeTo(out);
    if (payload != null) {
      Payloads.write(payload, out);
    }
    return out.toByteArray();
  }

  /**
   * Decodes command 28.
   *
   * @param frame the whole frame; only read.
   * @return the request.
   * @throws WireFormatException when malformed, truncated, or followed by anything but one payload envelope.
   */
  public static ActorJoin decode(final byte[] frame) {
    final WireIn in = WireIn.frame(frame, "actorJoin");
    FrameHead.expect(in, Commands.ACTOR_JOIN);
    final long correlation = in.nonZeroU64("correlation");
    final Party actor = Party.read(in, "actor");
    final boolean entry = in.bool8("entry");
    final Party spot = Party.read(in, "targetSpot");
    ApplicationPayload payload = null;
    if (in.remaining() > 0) {
      if ((frame[in.position()] & 0xFF) != ApplicationPayload.VERSION) {
        throw in.error(WireError.INVALID_FIELD, "payload.version", in.position(), "value "
            + (frame[in.position()] & 0xFF), "1");
      }
      payload = Payloads.read(in, "payload");
    }
    in.expectEnd();
    return new ActorJoin(correlation, actor, entry, spot, payload);
  }
}
